"""The eight entry LEDs: which entry to use, whose turn, where a coin went in.

    [outputs.leds]
    pins = [5, 6, 13, 19, 26, 16, 20, 21]   # entry 1..8
    active_high = true

Each LED is off, on, blinking (``blink``: e.g. the entry the clock chose)
or flashing once (``flash``: a coin seen entering). Blinks run on the
timeline, so they stop the moment anything else is asked of that LED.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..config import ConfigError, Section
from .pins import gpio_error, need_gpiozero, pin_table
from .timeline import Timeline

ENTRIES = 8


@dataclass(frozen=True)
class LedsConfig:
    pins: tuple = ()
    active_high: bool = True

    def pins_table(self) -> dict:
        return pin_table("outputs.leds", [(f"pins (entry {i + 1})", p) for i, p in enumerate(self.pins)])

    @classmethod
    def from_section(cls, s: Section) -> "LedsConfig":
        pins = s.pins("pins", [], what="entry")
        if pins and len(pins) != ENTRIES:
            s.fail("pins", f"lists {len(pins)} pins; give one per entry, {ENTRIES} in all (entry 1 first), or none")
        active_high = s.bool("active_high", True)
        s.check_unknown()
        cfg = cls(pins=tuple(pins), active_high=active_high)
        try:
            cfg.pins_table()
        except ConfigError as e:
            raise ConfigError(f"{s.source}: {e}") from None
        return cfg


class EntryLeds:
    """``devices``: eight objects with ``on()``/``off()`` (gpiozero LEDs), or
    None for a board without LEDs (the states are still kept, for the
    simulator and tests)."""

    def __init__(self, devices, timeline: Timeline):
        self.devices = list(devices) if devices is not None else None
        self.timeline = timeline
        self.state = [False] * ENTRIES  # what each LED shows now
        self.blinking: set[int] = set()

    def _check(self, entry: int) -> None:
        if not isinstance(entry, int) or not 0 <= entry < ENTRIES:
            raise ValueError(f"entry {entry!r} is not 0..{ENTRIES - 1}")

    def _put(self, entry: int, on: bool) -> None:
        self.state[entry] = on
        if self.devices is not None:
            dev = self.devices[entry]
            dev.on() if on else dev.off()

    def _quiet(self, entry: int) -> None:
        self.timeline.cancel(("led", entry))
        self.blinking.discard(entry)

    def set(self, entry: int, on: bool) -> None:
        self._check(entry)
        self._quiet(entry)
        self._put(entry, bool(on))

    def show(self, entries: Iterable[int]) -> None:
        """Exactly ``entries`` lit, every other LED off, no blinking."""
        wanted = set(entries)
        for e in wanted:
            self._check(e)
        for e in range(ENTRIES):
            self.set(e, e in wanted)

    def clear(self) -> None:
        self.show(())

    def blink(self, entry: int, now: float, period: float = 0.5, times: int | None = None) -> None:
        """On for half of ``period``, off for the other half, ``times`` times
        (None: until told otherwise)."""
        self._check(entry)
        if period <= 0:
            raise ValueError("a blink period is more than 0 seconds")
        self._quiet(entry)
        self.blinking.add(entry)
        half = period / 2

        def phase(t: float, on: bool, left: int | None) -> None:
            self._put(entry, on)
            if not on and left is not None:
                left -= 1
                if left <= 0:
                    self.blinking.discard(entry)
                    return
            self.timeline.at(t + half, lambda: phase(t + half, not on, left), owner=("led", entry))

        phase(now, True, times)

    def flash(self, entry: int, now: float, duration: float = 0.3) -> None:
        """On now, off after ``duration``."""
        self._check(entry)
        self._quiet(entry)
        self._put(entry, True)
        self.timeline.at(now + duration, lambda: self._put(entry, False), owner=("led", entry))

    def close(self) -> None:
        for e in range(ENTRIES):
            self._quiet(e)
            try:
                self._put(e, False)
            except Exception:
                pass
        if self.devices is not None:
            for dev in self.devices:
                dev.close()


def build_leds(cfg: LedsConfig, timeline: Timeline, pin_factory=None) -> EntryLeds:
    if not cfg.pins:
        return EntryLeds(None, timeline)
    need_gpiozero("[outputs.leds]")
    from gpiozero import LED
    from gpiozero.exc import GPIOZeroError

    devices = []
    for i, pin in enumerate(cfg.pins):
        try:
            devices.append(LED(pin, active_high=cfg.active_high, pin_factory=pin_factory))
        except (GPIOZeroError, ValueError, OSError) as e:
            for d in devices:
                d.close()
            raise gpio_error(f"[outputs.leds] pins (entry {i + 1})", pin, e) from None
    return EntryLeds(devices, timeline)
