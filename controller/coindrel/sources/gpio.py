"""Board source for small builds: break-beams wired straight to the Pi's GPIO
through gpiozero, no hall sensors, no hub.

Edges come from the pin factory's callbacks with the factory's own
timestamps (lgpio on a Pi). A glitch filter makes a level count only once it
has held for ``filter_ms`` (both ways, so a coin's ragged edge is one coin);
each coin gives one EntryEvent/ExitEvent stamped when its beam broke. Board
time is seconds since the source started, on the factory's clock.

    [board]
    source = "gpio"
    [board.gpio]
    entry_pins = [4, 17, 27, 22, 5, 6, 13, 19]     # BCM; [] when entries have no beams
    exit_pins = [26, 18, 23, 24, 25, 12, 16, 20, 21, 7, 8, 11, 9, 10, 14, 15]
    broken_level = 1      # the level a receiver gives while its beam is broken
    pull = "up"           # "up", "down" or "none"
    filter_ms = 1.0       # how long a level must hold to count

Defaults come from ``gpio_build`` in hardware/channel_map.json.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..config import Section
from ..events import EntryEvent, ExitEvent
from .base import BoardSource, Capabilities, Clock, Snapshot, SourceError


def _name(sensor: int) -> str:
    return f"entry {sensor + 1}" if sensor < 8 else f"exit {sensor - 7}"


class _Beam:
    __slots__ = ("sensor", "pin", "stable", "cand", "since", "broke", "timer", "callback")

    def __init__(self, sensor: int, pin):
        self.sensor = sensor  # 0..7 entries, 8..23 exits
        self.pin = pin  # the gpiozero InputDevice
        self.stable = False  # broken?
        self.cand: bool | None = None
        self.since = 0.0
        self.broke = 0.0
        self.timer: asyncio.Task | None = None
        self.callback = None  # gpiozero keeps only a weak reference to a pin's callback


class GpioSource(BoardSource):
    name = "gpio"
    summary = "break-beams wired to the Pi's own GPIO (no hall sensors, no hub)"

    @classmethod
    def parse(cls, section: Section) -> "GpioSettings":
        return parse(section)

    @classmethod
    def from_settings(cls, settings: "GpioSettings | None", *, clock: Clock | None = None, pin_factory=None,
                      **_) -> "GpioSource":
        s = settings or parse(Section("board.gpio", {}))
        return cls(s.entry_pins, s.exit_pins, broken_level=s.broken_level, pull=s.pull, filter_ms=s.filter_ms,
                   pin_factory=pin_factory, clock=clock)

    def __init__(self, entry_pins=(), exit_pins=(), *, broken_level: int = 1, pull: str = "up",
                 filter_ms: float = 1.0, pin_factory=None, clock: Clock | None = None):
        super().__init__(clock)
        if len(entry_pins) > 8 or len(exit_pins) > 16:
            raise SourceError("gpio source: at most 8 entry pins and 16 exit pins")
        self.entry_pins = list(entry_pins)
        self.exit_pins = list(exit_pins)
        self.broken_level = broken_level
        self.pull = pull
        self.filter_s = filter_ms / 1000
        self.pin_factory = pin_factory
        self.beams: list[_Beam] = []
        self.glitches = 0
        self.t0 = None
        self.capabilities = Capabilities(entries=tuple(range(len(entry_pins))), exits=tuple(range(len(exit_pins))))

    async def start(self) -> None:
        await super().start()
        if self.beams:
            return
        from gpiozero import InputDevice

        pins = [(e, p) for e, p in enumerate(self.entry_pins)] + [(8 + x, p) for x, p in enumerate(self.exit_pins)]
        pull_up = {"up": True, "down": False, "none": None}[self.pull]
        try:
            for sensor, spec in pins:
                dev = InputDevice(spec, pull_up=pull_up, active_state=None if pull_up is not None else True,
                                  pin_factory=self.pin_factory)
                if self.t0 is None:
                    self.factory = dev.pin_factory
                    self.t0 = self.factory.ticks()
                beam = _Beam(sensor, dev)
                beam.stable = (1 if dev.pin.state else 0) == self.broken_level
                dev.pin.edges = "both"
                beam.callback = self._edge_callback(beam)
                dev.pin.when_changed = beam.callback
                self.beams.append(beam)
        except Exception as e:  # noqa: BLE001 - gpiozero raises many kinds; all mean "cannot use this pin"
            await self.close()
            raise SourceError(f"gpio source: cannot use pin {spec!r} for {_name(sensor)}: {e}") from None

    def _edge_callback(self, beam: _Beam):
        loop = self._loop

        def changed(ticks, state):
            # Called by the pin factory, possibly from its own thread.
            loop.call_soon_threadsafe(self._edge, beam, ticks, state)

        return changed

    def _time(self, ticks) -> float:
        return max(0.0, self.factory.ticks_diff(ticks, self.t0))

    def _edge(self, beam: _Beam, ticks, state) -> None:
        if self.closed:
            return
        t = self._time(ticks)
        broken = (1 if state else 0) == self.broken_level
        if beam.cand is not None and t - beam.since >= self.filter_s:
            self._confirm(beam)  # the candidate held long enough before this edge
        if broken == beam.stable:
            if beam.cand is not None:
                self.glitches += 1
            self._cancel(beam)
            return
        self._cancel(beam)
        beam.cand, beam.since = broken, t
        beam.timer = asyncio.ensure_future(self._settle(beam, t))

    async def _settle(self, beam: _Beam, since: float) -> None:
        await self.clock.sleep(self.filter_s)
        if beam.cand is not None and beam.since == since:
            beam.timer = None
            self._confirm(beam)

    def _cancel(self, beam: _Beam) -> None:
        if beam.timer is not None:
            beam.timer.cancel()
            beam.timer = None
        beam.cand = None

    def _confirm(self, beam: _Beam) -> None:
        broken, t = beam.cand, beam.since
        self._cancel(beam)
        beam.stable = broken
        if broken:
            beam.broke = t
            s = beam.sensor
            self._emit(EntryEvent(t, s) if s < 8 else ExitEvent(t, s - 8))

    def board_time(self) -> float:
        if self.t0 is None:
            return super().board_time()
        return max(super().board_time(), self._time(self.factory.ticks()))

    async def snapshot(self, timeout: float | None = None) -> Snapshot:
        if not self.beams:
            raise SourceError("gpio source: start() it first")
        return Snapshot(t=self.board_time(),
                        entries_blocked=frozenset(b.sensor for b in self.beams if b.stable and b.sensor < 8),
                        exits_blocked=frozenset(b.sensor - 8 for b in self.beams if b.stable and b.sensor >= 8))

    async def close(self) -> None:
        for b in self.beams:
            self._cancel(b)
            try:
                b.pin.pin.when_changed = None
                b.pin.close()
            except Exception:  # noqa: BLE001 - a pin that is already gone
                pass
        self.beams = []
        await super().close()


@dataclass(frozen=True)
class GpioSettings:
    """``[board.gpio]`` as checked."""

    entry_pins: tuple = ()
    exit_pins: tuple = ()
    broken_level: int = 1
    pull: str = "up"
    filter_ms: float = 1.0

    def pins(self) -> dict:
        """{pin: who uses it}, for the check that no pin serves two parts."""
        out = {p: f"[board.gpio] entry_pins (entry {i + 1})" for i, p in enumerate(self.entry_pins)}
        out.update({p: f"[board.gpio] exit_pins (exit {i + 1})" for i, p in enumerate(self.exit_pins)})
        return out


def parse(section: Section, channel_map=None) -> GpioSettings:
    if channel_map is None:
        from ..hub.channelmap import load_channel_map

        channel_map = load_channel_map()
    d = channel_map.gpio_build

    def pins(key: str, count: int):
        return section.pins(key, d.get(key, []), most=count, what="entry" if key == "entry_pins" else "exit")

    entries, exits = pins("entry_pins", 8), pins("exit_pins", 16)
    from ..io.pins import pin_key

    keys = [pin_key(p) for p in entries + exits]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        section.fail("entry_pins" if pin_key(dup[0]) in map(pin_key, entries) else "exit_pins",
                     f"{dup[0]} is used for two beams; give each beam its own pin")
    level = section.int("broken_level", d.get("broken_level", 1), lo=0, hi=1)
    pull = section.str("pull", "up" if d.get("pull_up", True) else "none", choices=("up", "down", "none"))
    filter_ms = section.float("filter_ms", 1.0, lo=0.0, hi=50.0)
    section.check_unknown()
    return GpioSettings(tuple(entries), tuple(exits), level, pull, filter_ms)


def from_config(section: Section, *, clock: Clock | None = None, pin_factory=None, channel_map=None, **_) -> GpioSource:
    return GpioSource.from_settings(parse(section, channel_map), clock=clock, pin_factory=pin_factory)
