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

from ..engine.core import COIN, HOLE
from ..events import EntryEvent, ExitEvent, SwitchEvent
from .observed import SIDES

# A coin slid slowly into its slot breaks the beam with its edge and may be
# held there by the hand a second or more before it drops: the silence
# after a coin went in, before anything of it is heard, is the player's, not
# the board's (issue 13, board4: coins held 0.15-1.2 s were closed off as a
# drop that made no event and then a coin the beam missed).
HELD = 2.0


class Predictor:
    """The believed board's prediction of a group, one coin at a time: the
    network is abelian, so coins one after another give what coins together
    give, and each new coin costs one short cascade, not a re-run of all."""

    __slots__ = ("physics", "codes", "table", "exits", "flips", "prefix", "dead_exits", "chatter_exits", "blind", "start", "stays")

    def __init__(self, physics, codes, table, dead_exits=frozenset(), chatter_exits=frozenset(), blind=frozenset()):
        self.physics = physics
        self.codes = bytearray(codes)
        self.table = table
        # The believed sensor faults: a dead exit beam may miss what is
        # predicted, a chattering one may count more, a faulty hall (or an
        # unseated rocker) says nothing the prediction can be held to.
        self.dead_exits = dead_exits
        self.chatter_exits = chatter_exits
        self.blind = blind
        self.exits = [0] * physics.exit_count
        self.flips = [0] * physics.n
        self.prefix: list = []  # (exits, flips) after each coin
        self.start = bytes(codes)
        self.stays = False  # a coin of the group is predicted to end in the board (hole, jam)

    def exits_fit(self, seen: dict, want: list) -> bool:
        """Exit counts ``seen`` are what ``want`` predicts, given the believed beams."""
        for x, n in enumerate(want):
            got = seen.get(x, 0)
            if got == n or (got < n and x in self.dead_exits) or (got > n > 0 and x in self.chatter_exits):
                continue
            return False
        return all(x < len(want) and want[x] for x in seen if seen[x])

    def flips_fit(self, seen: dict, want: list) -> bool:
        blind = self.blind
        return all(seen.get(s, 0) == n for s, n in enumerate(want) if s not in blind) \
            and all(want[s] for s in seen if seen[s] and s not in blind)

    def push(self, entry: int) -> tuple[list, list]:
        trace = self.physics.run(self.codes, self.physics.starts([entry]), self.table)
        self.stays = self.stays or bool(trace.swallowed) or any(trace.jams.values())
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
        """Every exit and flip the prediction expects has been reported (or
        could not be, by what the controller believes of its sensors)."""
        p = self._predict
        seen = self.seen_exits
        for x, n in enumerate(self.expect_exits):
            if n and seen.get(x, 0) < n and x not in p.dead_exits:
                return False
        seen = self.seen_flips
        for s, n in enumerate(self.expect_flips):
            if n and seen.get(s, 0) < n and s not in p.blind:
                return False
        return True

    def accounted(self, t: float, silence: float) -> bool:
        """At board time ``t`` (the last moment the hub was heard, when its
        link went down) no coin of this drop can still make an event: every
        event the prediction expects was seen, and every coin left the board
        through an exit whose beam saw it, or the board was silent the
        longest a healthy cascade ever is since the last event (a coin
        predicted to rest that did not, or one held in the slot, would have
        been heard by then). Checked so, the drop lost nothing."""
        if not self.entries or not self.complete():
            return False
        if t - self.last_t >= silence:
            return True
        seen, p = self.seen_exits, self._predict
        if p.stays or any(seen.get(x, 0) < n for x, n in enumerate(self.expect_exits) if n):
            return False
        # no pad gained a coin: every coin that went in is out
        return not any(a & COIN and not b & COIN for a, b in zip(p.codes, p.start) if a != HOLE and b != HOLE)

    def deadline(self, timing) -> float:
        if self.complete():
            return self.last_t + timing.quiet
        held = isinstance(self.events[-1], EntryEvent) and self.events[-1].t >= self.last_t
        return self.last_t + (max(HELD, timing.patience) if held else timing.patience)

    def ordered(self) -> list:
        return sorted(self.events, key=lambda e: e.t)

    def cut(self, switch_index: dict, lead: float, together: float = 0.1) -> int:
        """Where a group that never goes quiet can be split: the number of
        its first coins whose predicted events are exactly the events seen
        before the next coin could have made any (``lead`` seconds after it
        went in), or 0. Those coins are accounted for and can be reported.
        Never between two counts of one entry ``together`` seconds apart:
        two coins at once or one counted twice, only the cascade of both tells."""
        ordered = self.ordered()
        entries = [ev for ev in ordered if isinstance(ev, EntryEvent)]
        for k in range(len(entries) - 1, max(0, len(entries) - 5), -1):
            if _together(entries, k, together):
                continue
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
            p = self._predict
            if any(SIDES.get(pos) is None and s not in p.blind for s, pos in last.items()):
                continue  # a rocker still moving (or not seated) at the cut
            want_x, want_f = p.prefix[k - 1]
            if p.exits_fit(exits, want_x) and p.flips_fit(flips, want_f):
                return k
        return 0

    def force_cut(self, switch_index: dict, now: float, fall: float, lead: float, together: float = 0.1) -> tuple[int, list]:
        """A group that never goes quiet and whose coins are not what the
        belief predicts (a fault nobody has diagnosed yet) is still cut: at
        the first coin that went in after every coin before it had time to
        fall (``fall`` seconds before ``now``). The head takes the events
        before that coin could make any, and of the later ones those its
        coins' prediction still waits for (first come, up to the predicted
        count). Returns (coins in the head, its events), or (0, [])."""
        ordered = self.ordered()
        entries = [ev for ev in ordered if isinstance(ev, EntryEvent)]
        k = sum(1 for ev in entries if ev.t <= now - fall)
        while 0 < k < len(entries) and _together(entries, k, together):
            k -= 1
        if k < 1 or k >= len(entries):
            return 0, []
        before = entries[k].t + lead
        until = entries[k - 1].t + fall
        want_x, want_f = self._predict.prefix[k - 1]
        heads = {id(ev) for ev in entries[:k]}
        head: list = []
        exits: dict = {}
        flips: dict = {}
        settled: dict = {}
        for ev in ordered:
            if isinstance(ev, EntryEvent):
                if id(ev) in heads:
                    head.append(ev)
                continue
            late = ev.t >= before
            if late and ev.t > until:
                continue
            if isinstance(ev, ExitEvent):
                if late and exits.get(ev.exit, 0) >= want_x[ev.exit]:
                    continue
                exits[ev.exit] = exits.get(ev.exit, 0) + 1
            elif isinstance(ev, SwitchEvent):
                s = switch_index[ev.switch]
                if late and flips.get(s, 0) >= want_f[s]:
                    continue
                side = SIDES.get(ev.pos)
                if side is not None:
                    was = settled.get(s, SIDES.get(self._readings[s]))
                    if was is not None and side != was:
                        flips[s] = flips.get(s, 0) + 1
                    settled[s] = side
            head.append(ev)
        return k, head


def _together(entries: list, k: int, window: float) -> bool:
    """Coin ``k`` went into the same entry as coin ``k - 1`` within ``window``."""
    a, b = entries[k - 1], entries[k]
    return a.entry == b.entry and b.t - a.t <= window
