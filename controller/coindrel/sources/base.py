"""The board-source port: what every way of watching the board implements.

A source (the hub's serial link, the Pi's own GPIO, the virtual board behind
a hub link, ...) produces one stream of ``coindrel.events`` objects: board
events (entry, exit, switch) and ``StatusEvent``s about the sensing itself
(``connected``, ``disconnected``, ``lost``, ``resync``, ``error``). That
stream is the single upward path; ``events()`` yields it in time order and
``t`` never goes backwards (the base class holds that line for every source).

Time-based behaviour (reconnect delays, timeouts) goes through an injected
``Clock`` so tests never sleep on a wall clock.

A backend is one class, found by name in the registry (``coindrel.sources``):
``parse(section)`` validates its ``[board.<name>]`` table without touching
hardware (``coindrel run --check`` calls only that), ``from_settings(settings)``
builds it. What a source can do beyond the stream is a type: a source that
stores a hall calibration is a ``Calibrating``, one that streams raw hall
readings a ``RawStreaming`` (``isinstance``, never ``hasattr``).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Iterable, Mapping, Protocol

from ..errors import CoindrelError
from ..events import SourceEvent, StatusEvent

STATUS_STATES = ("connected", "disconnected", "lost", "resync", "error")


class SourceError(CoindrelError, ValueError):
    """A source cannot do what was asked (not available on this build, closed, no hub)."""


class Clock(Protocol):
    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock: time.monotonic and asyncio.sleep."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class ManualClock:
    """A clock that moves only when told: ``await clock.advance(seconds)``.

    For tests (and simulations) of anything with timeouts or retry delays:
    ``sleep`` waits until enough time has been advanced, never on the wall clock."""

    def __init__(self, start: float = 0.0):
        self.now = start
        self._sleepers: list[tuple[float, asyncio.Future]] = []
        self._added: asyncio.Event | None = None

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, fut))
        if self._added is not None:
            self._added.set()
        try:
            await fut
        finally:
            self._sleepers = [(t, f) for t, f in self._sleepers if f is not fut]

    @property
    def sleepers(self) -> int:
        return sum(1 for _, f in self._sleepers if not f.done())

    async def wait_sleepers(self, n: int = 1) -> None:
        """Wait until at least ``n`` tasks are sleeping on this clock (so an advance reaches them)."""
        while self.sleepers < n:
            self._added = self._added or asyncio.Event()
            self._added.clear()
            await self._added.wait()

    async def advance(self, seconds: float) -> None:
        self.now += seconds
        for t, fut in list(self._sleepers):
            if t <= self.now and not fut.done():
                fut.set_result(None)
        for _ in range(3):  # let the woken tasks run
            await asyncio.sleep(0)


@dataclass(frozen=True, slots=True)
class Capabilities:
    """Which sensors and outputs a source has. Entries and exits are 0-based."""

    entries: tuple[int, ...] = ()
    exits: tuple[int, ...] = ()
    halls: tuple[str, ...] = ()  # switch labels with a hall sensor
    entry_leds: bool = False
    dropper: bool = False
    calibration: bool = False  # hall calibration can be read and written
    raw_stream: bool = False  # raw hall readings can be streamed
    keyed: bool = False  # coins are not sensed at all: the players key each drop in at the table

    def describe(self) -> str:
        parts = [f"{len(self.entries)} entry beams", f"{len(self.exits)} exit beams", f"{len(self.halls)} hall sensors"]
        outs = [n for n, have in (("entry LEDs", self.entry_leds), ("coin dropper", self.dropper)) if have]
        return ", ".join(parts) + (f"; outputs: {', '.join(outs)}" if outs else "")

    def cannot_check(self) -> list[str]:
        """What the controller cannot check with these sensors, in words."""
        notes = []
        if len(self.entries) < 8:
            missing = [e + 1 for e in range(8) if e not in self.entries]
            notes.append(f"no entry beam on entry {', '.join(map(str, missing))}: entries are inferred from the cascade")
        if len(self.exits) < 16:
            missing = [x + 1 for x in range(16) if x not in self.exits]
            notes.append(f"no exit beam on exit {', '.join(map(str, missing))}: coins there are not seen")
        if not self.halls:
            notes.append("no hall sensors: switch positions come from the engine only, flips are not checked")
        return notes


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a source sees at board time ``t``: switch positions (labels ->
    L/R/mid/none, sensed switches only), raw hall readings, beams broken now."""

    t: float
    positions: Mapping[str, str] = field(default_factory=dict)
    raw: Mapping[str, int] = field(default_factory=dict)
    entries_blocked: frozenset[int] = frozenset()
    exits_blocked: frozenset[int] = frozenset()

    def text(self) -> str:
        pos = " ".join(f"{k}={v}" for k, v in self.positions.items())
        blocked = [f"entry {e + 1}" for e in sorted(self.entries_blocked)] + [f"exit {x + 1}" for x in sorted(self.exits_blocked)]
        return f"t={self.t:.6f} {pos}" + (f" blocked: {', '.join(blocked)}" if blocked else "")


_CLOSED = object()


class BoardSource(ABC):
    """Base of every backend: the event queue, monotonic time, lifecycle.

    Backends call ``_emit`` (from the event loop) and ``_emit_threadsafe``
    (from a hardware library's thread); consumers iterate ``events()``.
    """

    name = "source"
    summary = "a board source"  # one line for `coindrel run --check` and the docs

    def __init__(self, clock: Clock | None = None):
        self.clock: Clock = clock or SystemClock()
        self.capabilities = Capabilities()
        self._queue: asyncio.Queue = asyncio.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_t = 0.0
        self.time_clamped = 0  # events whose t had to be raised to keep time monotonic
        self.closed = False

    # -- configuration -------------------------------------------------
    @classmethod
    def parse(cls, section) -> Any:
        """Validate this backend's ``[board.<name>]`` table (a
        ``coindrel.config.Section``) and return its settings; reads every key
        it accepts and touches no hardware. The default accepts no keys."""
        section.check_unknown()
        return None

    @classmethod
    def probe(cls, settings: Any) -> list[str]:
        """What ``coindrel run --check`` should tell about the machine for
        these settings (a device that is not there now, ...), one line each;
        nothing is opened. The default has nothing to say."""
        return []

    @classmethod
    def from_settings(cls, settings: Any, *, clock: Clock | None = None, **options) -> "BoardSource":
        """The source for settings ``parse`` returned (``options``: test hooks
        such as a pin factory)."""
        return cls(clock=clock, **options)

    # -- lifecycle -------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()

    async def ready(self, timeout: float | None = None) -> bool:
        """Wait until the source can answer requests (a hub has said hello);
        False when ``timeout`` seconds (on the source's clock) pass first."""
        return True

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._queue.put_nowait(_CLOSED)

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    # -- the upward path ---------------------------------------------------
    def _emit(self, ev: SourceEvent) -> SourceEvent:
        if ev.t < self._last_t:
            self.time_clamped += 1
            ev = dataclasses.replace(ev, t=self._last_t)
        self._last_t = ev.t
        self._queue.put_nowait(ev)
        return ev

    def _emit_threadsafe(self, ev: SourceEvent) -> None:
        if self._loop is None:
            raise SourceError(f"{self.name}: start() the source before events arrive")
        self._loop.call_soon_threadsafe(self._emit, ev)

    def _status(self, t: float, state: str, detail: str = "", count: int = 0) -> StatusEvent:
        return self._emit(StatusEvent(t, state, detail, count))

    async def events(self) -> AsyncIterator[SourceEvent]:
        """Every event, in order, until the source is closed."""
        while True:
            ev = await self._queue.get()
            if ev is _CLOSED:
                self._queue.put_nowait(_CLOSED)  # later iterators end too
                return
            yield ev

    def pending(self) -> list[SourceEvent]:
        """Take the events already queued without waiting (for polling consumers and tests)."""
        out = []
        while not self._queue.empty():
            ev = self._queue.get_nowait()
            if ev is _CLOSED:
                self._queue.put_nowait(_CLOSED)
                break
            out.append(ev)
        return out

    def queued(self) -> bool:
        """Events read from the board that nobody has taken yet (``events``, ``pending``)."""
        return not self._queue.empty()

    # -- the rest of the port ------------------------------------------------
    def board_time(self) -> float:
        """The latest board time this source has seen (seconds)."""
        return self._last_t

    @abstractmethod
    async def snapshot(self, timeout: float | None = None) -> Snapshot:
        """Every sensed switch's position and the beams broken now, at board time ``t``."""

    async def set_outputs(self, leds: Iterable[int] | None = None, drop: int | None = None, pulse_ms: int = 150) -> None:
        """Light the LEDs of the given entries (0-based) and/or drop a coin into ``drop``."""
        raise SourceError(f"{self.name}: this board source has no outputs (entry LEDs and the dropper are on the Pi's header)")


class Calibrating(ABC):
    """A source whose hall sensors' bands can be read and stored (on the hub)."""

    @abstractmethod
    async def calibration(self) -> Any:
        """The calibration in use (``coindrel.hub.protocol.Calibration``)."""

    @abstractmethod
    async def set_calibration(self, halls, hyst: int, beam_filter: int, hall_filter: int, save: bool = True) -> str:
        """Store new bands; returns what the hub said."""


class RawStreaming(ABC):
    """A source that streams raw hall readings (for calibration and wiring checks)."""

    @abstractmethod
    def raw_stream(self, interval_ms: int = 50) -> AsyncIterator[tuple[float, dict[str, int]]]:
        """(board time, {label: raw}) every ``interval_ms`` until the iterator is closed."""
