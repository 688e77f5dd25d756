"""The GPIO beam source with gpiozero's MockFactory (callbacks fire at once)
and mock pins whose edge timestamps come from the test's ManualClock."""

from __future__ import annotations

import asyncio

import pytest
from gpiozero.pins.mock import MockFactory, MockPin, PinState

from coindrel.config import ConfigError, Section
from coindrel.events import EntryEvent, ExitEvent
from coindrel.sources import SourceError, make_source
from coindrel.sources.base import ManualClock

CLOCK = ManualClock()


class ClockedPin(MockPin):
    """A MockPin whose change times are the test clock's."""

    def _change_state(self, value):
        if self._state != value:
            t = CLOCK.monotonic()
            self._state = value
            self.states.append(PinState(t - self._last_change, value))
            self._last_change = t
            return True
        return False


@pytest.fixture
def factory():
    CLOCK.now = 0.0
    f = MockFactory(pin_class=ClockedPin)
    f.ticks = CLOCK.monotonic
    yield f
    f.close()


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))  # only bounds a hang


async def settle():
    for _ in range(5):
        await asyncio.sleep(0)


async def make(factory, **cfg):
    cfg = {"entry_pins": [4, 17], "exit_pins": [26, 18], "pull": "down", **cfg}
    src = make_source("gpio", cfg, clock=CLOCK, pin_factory=factory)
    await src.start()
    return src


def test_coin_through_a_beam_is_one_event_stamped_when_it_broke(factory):
    async def main():
        src = await make(factory)
        await CLOCK.advance(1.0)
        factory.pin(17).drive_high()  # entry 2 broken at t=1.0
        await settle()
        await CLOCK.advance(0.004)
        factory.pin(17).drive_low()
        await settle()
        await CLOCK.advance(0.1)
        factory.pin(18).drive_high()  # exit 2
        await settle()
        await CLOCK.advance(0.02)
        factory.pin(18).drive_low()
        await settle()
        await CLOCK.advance(0.01)
        evs = src.pending()
        assert evs == [EntryEvent(1.0, 1), ExitEvent(1.104, 1)]
        await src.close()

    run(main())


def test_glitch_and_ragged_edges_filtered(factory):
    async def main():
        src = await make(factory, filter_ms=2.0)
        pin = factory.pin(26)
        await CLOCK.advance(0.5)
        pin.drive_high()
        await settle()
        await CLOCK.advance(0.0005)
        pin.drive_low()  # 0.5 ms: a glitch
        await settle()
        await CLOCK.advance(0.1)
        pin.drive_high()  # a coin, with a flicker while it passes
        await settle()
        await CLOCK.advance(0.003)
        pin.drive_low()
        await settle()
        await CLOCK.advance(0.0003)
        pin.drive_high()
        await settle()
        await CLOCK.advance(0.01)
        pin.drive_low()
        await settle()
        await CLOCK.advance(0.01)
        evs = src.pending()
        assert len(evs) == 1 and evs[0].exit == 0 and evs[0].t == pytest.approx(0.6005)
        assert src.glitches == 2
        await src.close()

    run(main())


def test_snapshot_shows_blocked_beams_and_capabilities(factory):
    async def main():
        src = await make(factory, entry_pins=[4], exit_pins=[26, 18])
        factory.pin(18).drive_high()
        await settle()
        await CLOCK.advance(0.01)
        snap = await src.snapshot()
        assert snap.exits_blocked == {1} and not snap.entries_blocked and snap.positions == {}
        caps = src.capabilities
        assert caps.entries == (0,) and caps.exits == (0, 1) and caps.halls == ()
        assert any("entry 2" in n for n in caps.cannot_check())
        with pytest.raises(SourceError, match="no outputs"):
            await src.set_outputs(leds=[0])
        await src.close()

    run(main())


def test_config_errors_name_the_key(factory):
    with pytest.raises(ConfigError, match=r"\[board.gpio\] exit_pins"):
        make_source("gpio", Section("board.gpio", {"exit_pins": [5] * 17}), pin_factory=factory)
    with pytest.raises(ConfigError, match="used for two beams"):
        make_source("gpio", Section("board.gpio", {"entry_pins": [5], "exit_pins": [5]}), pin_factory=factory)
    with pytest.raises(ConfigError, match="unknown key"):
        make_source("gpio", Section("board.gpio", {"exit_pin": [5]}), pin_factory=factory)


def test_pin_in_use_is_a_clear_error(factory):
    async def main():
        factory.pin(4).function = "output"
        from gpiozero import OutputDevice
        keep = OutputDevice(4, pin_factory=factory)
        with pytest.raises(SourceError, match="cannot use pin 4 for entry 1"):
            await make(factory)
        keep.close()

    run(main())
