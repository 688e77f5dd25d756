"""The output port: buzzer, entry LEDs and the optional dropper, sharing one
timeline.

    [outputs.buzzer]   ...see coindrel.io.buzzer
    [outputs.leds]     ...see coindrel.io.leds
    [outputs.dropper]  ...see coindrel.io.dropper

Anything left out is absent (no buzzer, no LEDs, no dropper); the port
still takes every call, so the daemon never asks what the board has.
Timed changes happen in ``tick(now)``: call it when ``next_deadline()``
comes, or run ``serve()`` as an asyncio task, which does exactly that.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Callable

from ..config import ConfigError, Section
from .buzzer import Buzzer, BuzzerConfig, build_buzzer
from .dropper import Dropper, DropperConfig, build_dropper
from .leds import EntryLeds, LedsConfig, build_leds
from .pins import check_pins
from .timeline import Timeline

log = logging.getLogger("coindrel.io")


@dataclass(frozen=True)
class OutputsConfig:
    buzzer: BuzzerConfig = field(default_factory=BuzzerConfig)
    leds: LedsConfig = field(default_factory=LedsConfig)
    dropper: DropperConfig = field(default_factory=DropperConfig)

    def pins(self) -> dict:
        table: dict = {}
        for part in (self.buzzer.pins(), self.leds.pins_table(), self.dropper.pins_table()):
            check_pins(table, part)
            table.update(part)
        return table

    @classmethod
    def from_section(cls, s: Section) -> "OutputsConfig":
        cfg = cls(buzzer=BuzzerConfig.from_section(s.sub("buzzer")), leds=LedsConfig.from_section(s.sub("leds")),
                  dropper=DropperConfig.from_section(s.sub("dropper")))
        s.check_unknown()
        try:
            cfg.pins()
        except ConfigError as e:
            raise ConfigError(f"{s.source}: {e}") from None
        return cfg


class Outputs:
    def __init__(self, buzzer: Buzzer, leds: EntryLeds, dropper: Dropper, timeline: Timeline,
                 clock: Callable[[], float] = time.monotonic):
        self.buzzer, self.leds, self.dropper, self.timeline = buzzer, leds, dropper, timeline
        self.clock = clock
        self._wakeup: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    def tick(self, now: float | None = None) -> int:
        """Do every timed change due by ``now``; returns how many."""
        return self.timeline.run(self.clock() if now is None else now)

    def next_deadline(self) -> float | None:
        return self.timeline.next_deadline()

    async def serve(self) -> None:
        """Run timed changes on time, on the running asyncio loop, until
        cancelled or closed. Wakes for every new step, from any thread."""
        self._loop = asyncio.get_running_loop()
        self._wakeup = asyncio.Event()
        self.timeline.on_schedule = self._scheduled
        try:
            while not self._closed:
                self.tick()
                deadline = self.next_deadline()
                self._wakeup.clear()
                if deadline is None:
                    await self._wakeup.wait()
                    continue
                wait = deadline - self.clock()
                if wait > 0:
                    try:
                        await asyncio.wait_for(self._wakeup.wait(), wait)
                    except asyncio.TimeoutError:
                        pass
        finally:
            self.timeline.on_schedule = None

    def poke(self) -> None:
        """Have ``serve`` look again now (e.g. after a clock jump in a test)."""
        self._scheduled(0.0)

    def _scheduled(self, _t: float) -> None:
        loop, event = self._loop, self._wakeup
        if loop is None or event is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
        else:
            loop.call_soon_threadsafe(event.set)

    def close(self) -> None:
        """Everything off (solenoids first), devices released."""
        if self._closed:
            return
        self._closed = True
        for part in (self.dropper, self.buzzer, self.leds):
            try:
                part.close()
            except Exception as e:  # keep switching the others off
                log.warning("closing %s: %s", type(part).__name__, e)
        self.timeline.clear()
        self._scheduled(0.0)


def build_outputs(config: OutputsConfig | Section, *, pin_factory=None,
                  clock: Callable[[], float] = time.monotonic) -> Outputs:
    """The output port for ``config`` (an ``OutputsConfig`` or the
    ``[outputs]`` section). ``pin_factory`` is gpiozero's (None: its default)."""
    cfg = OutputsConfig.from_section(config) if isinstance(config, Section) else config
    timeline = Timeline()
    built: list = []
    try:
        dropper = build_dropper(cfg.dropper, timeline, pin_factory)
        built.append(dropper)
        buzzer = build_buzzer(cfg.buzzer, timeline, pin_factory)
        built.append(buzzer)
        leds = build_leds(cfg.leds, timeline, pin_factory)
    except Exception:
        for part in built:
            part.close()
        raise
    return Outputs(buzzer, leds, dropper, timeline, clock)
