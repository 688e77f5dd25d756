"""Flood control for anything read from the network: a token bucket per
sender, and a log that says how many lines it held back instead of writing
every one (a flood must not fill the disk with log lines either)."""

from __future__ import annotations

import logging
import time
from typing import Callable


class TokenBucket:
    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.t = burst, clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class QuietLog:
    """At most ``per_minute`` lines a minute per key; then one line saying how many were held back."""

    def __init__(self, logger: logging.Logger, per_minute: int = 10, clock: Callable[[], float] = time.monotonic):
        self.logger, self.per_minute, self.clock = logger, per_minute, clock
        self._window: dict[str, tuple[float, int, int]] = {}  # key: (start, written, held)

    def warning(self, key: str, msg: str, *args) -> None:
        now = self.clock()
        start, written, held = self._window.get(key, (now, 0, 0))
        if now - start >= 60:
            if held:
                self.logger.warning("%s: %d more like this in the last minute were not logged", key, held)
            start, written, held = now, 0, 0
        if written < self.per_minute:
            self.logger.warning(msg, *args)
            written += 1
        else:
            held += 1
        self._window[key] = (start, written, held)
        if len(self._window) > 1000:  # keys come from the network: keep the dict small
            self._window.pop(next(iter(self._window)))
