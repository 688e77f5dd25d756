"""Discrete-event kernel and time sources.

The simulation runs on virtual time: ``Scheduler`` keeps actions in a heap
ordered by (time, order of scheduling), so equal times always run in the
same order and a seed gives the same stream byte for byte. Nothing in the
simulation reads a clock.

Serving a controller live is the only place real time enters: a
``Pace`` maps virtual seconds to a time source (``time.monotonic`` by
default, anything callable in tests) with a speed factor; speed 0 means
"as fast as the reader takes it".
"""

from __future__ import annotations

import heapq
import math
import time
from typing import Callable


class Scheduler:
    __slots__ = ("now", "_heap", "_seq")

    def __init__(self, start: float = 0.0):
        self.now = start
        self._heap: list = []
        self._seq = 0

    def at(self, t: float, fn: Callable, *args) -> None:
        """Run ``fn(*args)`` at virtual time ``t`` (never before now)."""
        if t < self.now:
            t = self.now
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, fn, args))

    def next_time(self) -> float:
        return self._heap[0][0] if self._heap else math.inf

    def step(self) -> bool:
        """Run the earliest action; False when nothing is scheduled."""
        if not self._heap:
            return False
        t, _, fn, args = heapq.heappop(self._heap)
        self.now = t
        fn(*args)
        return True

    def run_until(self, t: float) -> None:
        """Run everything scheduled at or before ``t``; time then stands at ``t``."""
        heap = self._heap
        pop = heapq.heappop
        while heap and heap[0][0] <= t:
            when, _, fn, args = pop(heap)
            self.now = when
            fn(*args)
        if t > self.now:
            self.now = t

    def __len__(self) -> int:
        return len(self._heap)


class Pace:
    """Virtual time against a real clock: virtual time ``v`` is due at real
    time ``real0 + (v - virt0) / speed``. Re-anchored whenever the loop
    changes mode (flat out, then paced again from where it got to)."""

    def __init__(self, speed: float, clock: Callable[[], float] = time.monotonic):
        if speed < 0 or math.isnan(speed):
            raise ValueError(f"speed {speed} must be >= 0 (0: as fast as the reader takes it)")
        self.speed = speed
        self.clock = clock
        self.real0 = clock()
        self.virt0 = 0.0

    def anchor(self, virtual: float) -> None:
        self.real0, self.virt0 = self.clock(), virtual

    def now(self, speed: float | None = None) -> float:
        """How far virtual time may run now."""
        s = self.speed if speed is None else speed
        return self.virt0 + (self.clock() - self.real0) * s

    def delay(self, virtual: float, speed: float | None = None) -> float:
        """Real seconds until virtual time ``virtual`` is due (0 when it is)."""
        s = self.speed if speed is None else speed
        if math.isinf(virtual):
            return math.inf
        return max(0.0, self.real0 + (virtual - self.virt0) / s - self.clock())
