"""Grouping board events into drops as they arrive.

An entry event starts a drop. Every event that comes while the group is
still open joins it, including the next entry: coins in flight together are
one cascade (rules.md section 4), reconciled as one and reported drop by
drop. Events that start while no drop is open form a group of their own
(a hand in the board, or a drop whose entry beam missed the coin).

A group closes after a quiet spell (``Timing``): short once every event the
prediction expects has arrived, longer while some are still missing, so a
slow coin is not split off and a dead sensor does not stall the board.
"""

from __future__ import annotations

from ..events import EntryEvent, ExitEvent, SwitchEvent
from .observed import SIDES


class Predictor:
    """The believed board's prediction of a group, one coin at a time: the
    network is abelian, so coins one after another give what coins together
    give, and each new coin costs one short cascade, not a re-run of all."""

    __slots__ = ("physics", "codes", "table", "exits", "flips", "prefix")

    def __init__(self, physics, codes, table):
        self.physics = physics
        self.codes = bytearray(codes)
        self.table = table
        self.exits = [0] * physics.exit_count
        self.flips = [0] * physics.n
        self.prefix: list = []  # (exits, flips) after each coin

    def push(self, entry: int) -> tuple[list, list]:
        trace = self.physics.run(self.codes, self.physics.starts([entry]), self.table)
        self.exits = [a + b for a, b in zip(self.exits, trace.exits)]
        self.flips = [a + b for a, b in zip(self.flips, trace.flips)]
        self.prefix.append((self.exits, self.flips))
        return self.exits, self.flips


class Group:
    __slots__ = ("events", "entries", "last_t", "lost", "expect_exits", "expect_flips", "seen_exits", "seen_flips", "settled", "_predict", "_readings")

    def __init__(self, first, readings: list, switch_index: dict, predict):
        """``predict`` is a ``Predictor`` of the current belief."""
        self.events = []
        self.entries: list[int] = []
        self.lost = 0
        self.last_t = first.t
        self.expect_exits: list = []
        self.expect_flips: list = []
        self.seen_exits: dict = {}
        self.seen_flips: dict = {}
        self.settled = {}  # switch -> settled side so far, from the readings before
        self._predict = predict
        self._readings = readings  # the readings before the group (not changed while it is open)
        self.add(first, switch_index)

    def add(self, ev, switch_index: dict) -> None:
        self.events.append(ev)
        self.last_t = max(self.last_t, ev.t)
        if isinstance(ev, EntryEvent):
            self.entries.append(ev.entry)
            self.expect_exits, self.expect_flips = self._predict.push(ev.entry)
        elif isinstance(ev, ExitEvent):
            self.seen_exits[ev.exit] = self.seen_exits.get(ev.exit, 0) + 1
        elif isinstance(ev, SwitchEvent):
            s = switch_index[ev.switch]
            side = SIDES.get(ev.pos)
            if side is None:
                return
            before = self.settled.get(s, SIDES.get(self._readings[s]))
            if before is not None and side != before:
                self.seen_flips[s] = self.seen_flips.get(s, 0) + 1
            self.settled[s] = side

    @property
    def is_drop(self) -> bool:
        return bool(self.entries)

    def in_transit(self, t: float, hand: float = 0.6) -> bool:
        """A rocker of this group left its side less than ``hand`` seconds
        before ``t`` and has not reached one yet (a hand still moving it)."""
        last: dict = {}
        for ev in self.events:
            if isinstance(ev, SwitchEvent):
                last[ev.switch] = ev
        return any(ev.pos == "mid" and t - ev.t < hand for ev in last.values())

    def complete(self) -> bool:
        """Every exit and flip the prediction expects has been reported."""
        seen = self.seen_exits
        for x, n in enumerate(self.expect_exits):
            if n and seen.get(x, 0) < n:
                return False
        seen = self.seen_flips
        for s, n in enumerate(self.expect_flips):
            if n and seen.get(s, 0) < n:
                return False
        return True

    def deadline(self, timing) -> float:
        return self.last_t + (timing.quiet if self.complete() else timing.patience)

    def ordered(self) -> list:
        return sorted(self.events, key=lambda e: e.t)

    def cut(self, switch_index: dict, lead: float) -> int:
        """Where a group that never goes quiet can be split: the number of
        its first coins whose predicted events are exactly the events seen
        before the next coin could have made any (``lead`` seconds after it
        went in), or 0. Those coins are accounted for and can be reported."""
        ordered = self.ordered()
        entries = [ev for ev in ordered if isinstance(ev, EntryEvent)]
        for k in range(len(entries) - 1, max(0, len(entries) - 5), -1):
            before = entries[k].t + lead
            exits: dict = {}
            flips: dict = {}
            settled: dict = {}
            last: dict = {}
            for ev in ordered:
                if ev.t >= before:
                    break
                if isinstance(ev, ExitEvent):
                    exits[ev.exit] = exits.get(ev.exit, 0) + 1
                elif isinstance(ev, SwitchEvent):
                    s = switch_index[ev.switch]
                    last[s] = ev.pos
                    side = SIDES.get(ev.pos)
                    if side is None:
                        continue
                    was = settled.get(s, SIDES.get(self._readings[s]))
                    if was is not None and side != was:
                        flips[s] = flips.get(s, 0) + 1
                    settled[s] = side
            if any(SIDES.get(p) is None for p in last.values()):
                continue  # a rocker still moving (or not seated) at the cut
            want_x, want_f = self._predict.prefix[k - 1]
            if all(exits.get(x, 0) == n for x, n in enumerate(want_x)) and not set(exits) - {x for x, n in enumerate(want_x) if n} \
                    and all(flips.get(s, 0) == n for s, n in enumerate(want_f)) and not set(flips) - {s for s, n in enumerate(want_f) if n}:
                return k
        return 0
