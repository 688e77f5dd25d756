"""The table's reconciler: built for the match's variants, fed every board
event of a match, polled for finished drops, reset when the match sets the
board, and the board's timing it learned kept across restarts.

Every use of the reconciler by the daemon goes through here, so what runs it
(the loop itself, or a worker thread) is decided in one place.
"""

from __future__ import annotations

import json
import logging

from ..engine import BoardState, EngineError, Match
from ..limits import SMALL, read_limited
from ..reconcile import Reconciler
from .journal import write_durably

log = logging.getLogger("coindrel.table")
TIMING_FILE = "board-timing.json"


class DiagnosisMixin:
    """Part of ``daemon.Table``."""

    reconciler: Reconciler | None = None

    @property
    def diagnosing(self) -> bool:
        """A drop is open or its diagnosis is not finished yet."""
        return self.reconciler is not None and self.reconciler.busy

    def _off_loop(self) -> None:
        """Called when the asyncio loop starts."""

    def close_diagnosis(self) -> None:
        """Called when the loop ends."""

    def _diagnose(self, ev) -> None:
        if self.reconciler is not None and self.flow.match is not None:
            self.reconciler.feed(ev)  # outside a match, board events go to no drop and score nothing

    def _finished_reports(self) -> list:
        if self.reconciler is None or self.awaiting_board:
            return []
        return self.reconciler.poll(self.board_now())

    def _believe(self, board: BoardState, match: Match | None = None) -> None:
        """The match set the board (a new match, an undo, a drop scored as predicted)."""
        self._reconciler_for(match or self.flow.match).reset(board)

    def _expect(self, expecting: bool) -> None:
        if self.reconciler is not None:
            self.reconciler.expecting = expecting

    def _reconciler_for(self, match: Match | None) -> Reconciler:
        if self.reconciler is None or (match is not None and self.reconciler.variants != match.setup.variants):
            variants = match.setup.variants if match is not None else None
            board = match.board if match is not None else BoardState.empty(self.geometry)
            self.reconciler = Reconciler(self.geometry, board, variants, sensors=self.sensors)
            self._restore_timing()
        return self.reconciler

    # The board's timing, as the reconciler learned it, outlives a restart.

    @property
    def _timing_path(self):
        return None if self.store is None else self.store.dir / TIMING_FILE

    def _restore_timing(self) -> None:
        path = self._timing_path
        if path is None or not path.exists():
            return
        try:
            self.reconciler.timing.restore(json.loads(read_limited(path, SMALL)))
        except (OSError, ValueError, EngineError) as e:
            log.warning("%s: %s; the board's timing is learned again", path, e)

    def save_timing(self) -> None:
        path = self._timing_path
        if path is None or self.reconciler is None or not self.reconciler.timing.learned:
            return
        try:
            write_durably(path, json.dumps(self.reconciler.timing.to_json()).encode())
        except OSError as e:
            log.warning("cannot save the board's timing to %s: %s", path, e.strerror)


__all__ = ["TIMING_FILE", "DiagnosisMixin"]
