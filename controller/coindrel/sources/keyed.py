"""Board source "none": no sensors at all; the players key each drop in at the
table (the knob picks the entry), and the engine says what it did.

    [board]
    source = "none"

A real backend rather than "no source": the table treats it like any other
(it starts, is closed, reports its capabilities), and the capabilities are
what says drops are keyed in.
"""

from __future__ import annotations

from .base import BoardSource, Capabilities, Clock, Snapshot


class KeyedSource(BoardSource):
    name = "none"
    summary = "no sensors: drops are keyed in at the table"

    def __init__(self, clock: Clock | None = None):
        super().__init__(clock)
        self.capabilities = Capabilities(keyed=True)

    def board_time(self) -> float:
        # No board clock: nothing here ever happens on the board's time, so the
        # table stamps keyed drops with its own clock.
        return float("-inf")

    async def snapshot(self, timeout: float | None = None) -> Snapshot:
        return Snapshot(t=0.0)


__all__ = ["KeyedSource"]
