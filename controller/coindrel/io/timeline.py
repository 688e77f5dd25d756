"""Timed steps for the outputs: a tone ending, a solenoid pulse, a blink.

Outputs never sleep and never start threads: they put steps on a timeline
with the time each falls due, and ``run(now)`` does whatever is due. The
daemon calls it when ``next_deadline()`` comes (``Outputs.run`` does that
on an asyncio loop), tests call it with made-up times.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from typing import Callable, Hashable

log = logging.getLogger("coindrel.io")


class Timeline:
    def __init__(self) -> None:
        self._heap: list = []
        self._seq = itertools.count()
        self._cancelled: set[int] = set()
        self._owner: dict[int, Hashable] = {}
        self._lock = threading.RLock()
        self.on_schedule: Callable[[float], None] | None = None  # told of every new step's time
        self.errors = 0

    def at(self, t: float, step: Callable[[], None], owner: Hashable = None) -> int:
        """Run ``step`` at time ``t`` (steps due together run in the order given)."""
        with self._lock:
            n = next(self._seq)
            heapq.heappush(self._heap, (float(t), n, step))
            self._owner[n] = owner
        if self.on_schedule is not None:
            self.on_schedule(float(t))
        return n

    def cancel(self, owner: Hashable) -> int:
        """Forget every pending step of ``owner``; returns how many."""
        with self._lock:
            ids = [n for n, o in self._owner.items() if o == owner and owner is not None]
            for n in ids:
                self._cancelled.add(n)
                del self._owner[n]
            return len(ids)

    def pending(self, owner: Hashable) -> bool:
        with self._lock:
            return any(o == owner for o in self._owner.values())

    def run(self, now: float) -> int:
        """Do every step due at ``now``, including ones those steps schedule
        for no later than ``now``. A failing step is logged and counted, and
        the rest still run: one stuck LED must not leave a solenoid on."""
        done = 0
        while True:
            with self._lock:
                while self._heap and self._heap[0][1] in self._cancelled:
                    _, n, _ = heapq.heappop(self._heap)
                    self._cancelled.discard(n)
                if not self._heap or self._heap[0][0] > now:
                    return done
                _, n, step = heapq.heappop(self._heap)
                self._owner.pop(n, None)
            try:
                step()
            except Exception:
                self.errors += 1
                log.exception("an output step failed")
            done += 1

    def next_deadline(self) -> float | None:
        with self._lock:
            while self._heap and self._heap[0][1] in self._cancelled:
                _, n, _ = heapq.heappop(self._heap)
                self._cancelled.discard(n)
            return self._heap[0][0] if self._heap else None

    def clear(self) -> None:
        with self._lock:
            self._heap.clear()
            self._cancelled.clear()
            self._owner.clear()
