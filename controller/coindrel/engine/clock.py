"""The turn clock (rules.md section 7), driven entirely by time passed in.

It runs only while a player is expected to drop (``start``), stops when a coin
is seen (``stop``), and freezes while the game is paused (``pause``/``resume``,
independent of running or stopped). Times are seconds on any monotonic clock.
"""

from __future__ import annotations

from .core import EngineError


class TurnClock:
    """``used``: seconds consumed before ``since``, when the current active
    stretch began; ``last``: the latest time passed in. (A plain class, not a
    dataclass: that import alone costs a command's start more than the engine.)"""

    __slots__ = ("limit", "running", "paused", "used", "since", "last")

    def __init__(self, limit: float, running: bool = False, paused: bool = False, used: float = 0.0,
                 since: float | None = None, last: float | None = None):
        if not limit or limit <= 0:
            raise EngineError(f"a turn clock needs a positive limit in seconds, not {limit!r}")
        self.limit, self.running, self.paused, self.used, self.since, self.last = limit, running, paused, used, since, last

    def __eq__(self, other):
        return self.to_dict() == other.to_dict() if isinstance(other, TurnClock) else NotImplemented

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return "TurnClock(" + ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items()) + ")"

    def _tick(self, now: float) -> None:
        if self.last is not None and now < self.last:
            raise EngineError(f"time went backwards ({now} after {self.last}); pass a monotonic clock")
        self.last = now
        if self.since is not None:
            self.used += now - self.since
            self.since = now

    def _settle(self, now: float) -> None:
        self.since = now if self.running and not self.paused else None

    @property
    def active(self) -> bool:
        return self.running and not self.paused

    def start(self, now: float) -> None:
        """A player is now expected to drop: a full clock starts running."""
        self._tick(now)
        self.used = 0.0
        self.running = True
        self._settle(now)

    def stop(self, now: float) -> None:
        """A coin was seen entering, or the turn is over."""
        self._tick(now)
        self.running = False
        self._settle(now)

    def pause(self, now: float) -> None:
        self._tick(now)
        self.paused = True
        self._settle(now)

    def resume(self, now: float) -> None:
        self._tick(now)
        self.paused = False
        self._settle(now)

    def remaining(self, now: float) -> float:
        used = self.used + (now - self.since if self.since is not None else 0.0)
        return max(0.0, self.limit - used)

    def expired(self, now: float) -> bool:
        return self.running and self.remaining(now) <= 0.0

    def to_dict(self) -> dict:
        return dict(limit=self.limit, running=self.running, paused=self.paused, used=self.used, since=self.since, last=self.last)

    @classmethod
    def from_dict(cls, data: dict) -> "TurnClock":
        return cls(**data)
