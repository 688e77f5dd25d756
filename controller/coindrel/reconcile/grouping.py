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


class Group:
    __slots__ = ("events", "entries", "last_t", "lost", "expect_exits", "expect_flips", "seen_exits", "seen_flips", "settled", "_predict", "_readings")

    def __init__(self, first, readings: list, switch_index: dict, predict):
        """``predict(entries) -> (exit counts, flip counts)`` from the current belief."""
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
            self.expect_exits, self.expect_flips = self._predict(self.entries)
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
