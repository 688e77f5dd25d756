"""Diagnosis off the daemon's event loop (issue 13): a ``Reconciler`` owned by
one worker thread. Every call from the loop returns at once; events and
polls are queued to the worker in order, and what it finishes (drop reports,
revision records) is picked up on the loop's next call. Only the drop's
score waits for its diagnosis; the OLED, the buttons, the clock and the hub
reading do not.

    diag = Diagnosis(Reconciler(geometry, state, variants))
    diag.feed(event)                   # never blocks
    for report in diag.poll(now):      # never blocks: reports finished so far
        ...
    for revision in diag.revisions():  # revision records finished so far
        ...
    await diag.run(lambda rec: rec.reset(state))   # anything else, in order, awaited
    diag.belief                        # the believed board after the last finished step
    diag.close()

One thread, so the reconciler is never touched by two at once and events
keep their order. The diagnosis is pure Python and holds the interpreter
lock while it computes; the loop thread, waking for a timer or a hub frame,
gets it back only when the worker is made to let go, every
``sys.getswitchinterval()``: 5 ms by default, so every wake-up of the loop
could wait that long, and several in a row under load (measured: the loop's
longest stall 9-12 ms at load 3 with 5 ms, 2-3 ms with 1 ms). A
``Diagnosis`` therefore lowers the interval to ``SWITCH_INTERVAL`` (it is
the process's: a forced switch only happens while another thread waits, so
it costs nothing when the worker is idle or alone).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

from .reconciler import Reconciler

SWITCH_INTERVAL = 0.001  # s: the longest the worker holds the lock while the loop waits for it


class Diagnosis:
    def __init__(self, rec: Reconciler, executor: ThreadPoolExecutor | None = None, switch_interval: float = SWITCH_INTERVAL):
        if sys.getswitchinterval() > switch_interval:
            sys.setswitchinterval(switch_interval)
        self.rec = rec
        self._own = executor is None
        self._pool = executor or ThreadPoolExecutor(max_workers=1, thread_name_prefix="coindrel-diagnosis")
        self._lock = threading.Lock()
        self._reports: deque = deque()
        self._revisions: deque = deque()
        self._pending = 0  # tasks queued and not finished
        self._error: BaseException | None = None
        self.belief = rec.belief
        self.busy = rec.busy

    # -- from the event loop: all return at once ----------------------------------------

    def feed(self, ev) -> None:
        self._submit(self._feed, ev)

    def poll(self, now: float) -> list:
        """Queue a poll at ``now`` (board clock) and return the reports the
        worker has finished so far (in order)."""
        self._submit(self._poll, now)
        return self._take(self._reports)

    def revisions(self) -> list:
        return self._take(self._revisions)

    def flush(self) -> Future:
        """Finish whatever is open; the reports arrive through ``poll``/``ready``."""
        return self._submit(self._flush)

    def call(self, fn: Callable[[Reconciler], object]) -> Future:
        """Run ``fn(reconciler)`` on the worker after everything queued before it."""
        return self._submit(fn)

    async def run(self, fn: Callable[[Reconciler], object]):
        """``call`` awaited from a coroutine."""
        return await asyncio.wrap_future(self.call(fn))

    def reset(self, state, keep_faults: bool = True, halls_right: bool = False, keep_open: bool = False) -> Future:
        """The match set the board (new match, undo, "Board is right")."""
        return self.call(lambda rec: rec.reset(state, keep_faults, halls_right, keep_open))

    def set_expecting(self, expecting: bool) -> Future:
        """The daemon's "a drop can come now" (it clears it during reveal and pause)."""
        return self.call(lambda rec: setattr(rec, "expecting", bool(expecting)))

    def ready(self) -> list:
        """Finished reports without queueing a poll."""
        return self._take(self._reports)

    @property
    def idle(self) -> bool:
        """Nothing queued or running on the worker."""
        with self._lock:
            return self._pending == 0

    def close(self) -> None:
        if self._own:
            self._pool.shutdown(wait=True)

    # -- on the worker ------------------------------------------------------------------

    def _feed(self, rec: Reconciler, ev) -> None:
        rec.feed(ev)

    def _poll(self, rec: Reconciler, now: float) -> None:
        self._keep(rec.poll(now), rec)

    def _flush(self, rec: Reconciler) -> None:
        self._keep(rec.flush(), rec)

    def _keep(self, reports, rec: Reconciler) -> None:
        revisions = rec.revisions()
        with self._lock:
            self._reports.extend(reports)
            self._revisions.extend(revisions)
        if reports or revisions:
            self.belief = rec.belief

    def _submit(self, fn, *args) -> Future:
        if self._error is not None:
            err, self._error = self._error, None
            raise err
        with self._lock:
            self._pending += 1
        return self._pool.submit(self._step, fn, args)

    def _step(self, fn, args):
        try:
            return fn(self.rec, *args)
        except BaseException as e:  # handed to the loop on its next call, not lost in the thread
            self._error = e
            raise
        finally:
            self.busy = self.rec.busy
            with self._lock:
                self._pending -= 1

    def _take(self, q: deque) -> list:
        with self._lock:
            out = list(q)
            q.clear()
        return out


__all__ = ["Diagnosis"]
