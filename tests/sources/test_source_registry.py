"""The source port: choosing a backend by name from config, the base class's
promises (one ordered stream, time never backwards), the manual clock."""

from __future__ import annotations

import asyncio

import pytest

from coindrel.config import ConfigError, Section
from coindrel.events import EntryEvent, ExitEvent, StatusEvent
from coindrel.sources import BACKENDS, BoardSource, make_source, register_source, source_from_config
from coindrel.sources.base import Capabilities, ManualClock, Snapshot
from coindrel.sources.hub import HubSource


def test_backend_chosen_by_name_with_its_section():
    src = source_from_config(Section("board", {"source": "hub", "hub": {"url": "socket://localhost:9", "reconnect_delay": 2}}))
    assert isinstance(src, HubSource) and src.url == "socket://localhost:9"
    assert src.link_options["reconnect_delay"] == 2.0
    assert src.capabilities.halls[0] == "R1S1" and len(src.capabilities.exits) == 16


def test_config_errors_name_file_key_and_fix():
    with pytest.raises(ConfigError, match=r"\[board\] source: 'usb' is not a board source"):
        source_from_config(Section("board", {"source": "usb"}))
    with pytest.raises(ConfigError, match=r"\[board.hub\] has unknown key\(s\) ur1"):
        make_source("hub", {"ur1": "x"})
    with pytest.raises(ConfigError, match="1200 baud reboots a Pico"):
        make_source("hub", {"baudrate": 1200})
    with pytest.raises(ConfigError, match="not one of gpio, hub, none, virtual"):
        make_source("virtual-ish", {})
    with pytest.raises(ConfigError, match="no such channel map"):
        make_source("hub", {"channel_map": "/nonexistent/map.json"})


def test_other_backends_register_by_name():
    register_source("echo", "no_such_package.echo:Echo")
    try:
        assert "echo" in BACKENDS
        with pytest.raises(ConfigError, match="registered as no_such_package.echo:Echo, which cannot be imported"):
            make_source("echo", {})
    finally:
        BACKENDS.pop("echo")


class Plain(BoardSource):
    name = "plain"

    async def snapshot(self, timeout=None):
        return Snapshot(self.board_time())


def test_time_never_goes_backwards_and_iteration_ends_on_close():
    async def main():
        src = Plain(ManualClock())
        await src.start()
        src._emit(EntryEvent(2.0, 1))
        src._emit(ExitEvent(1.5, 3))  # late: raised to 2.0, counted
        src._emit(StatusEvent(2.5, "connected"))
        await src.close()
        got = [ev async for ev in src.events()]
        assert [e.t for e in got] == [2.0, 2.0, 2.5] and src.time_clamped == 1
        assert got[1] == ExitEvent(2.0, 3)
        assert [ev async for ev in src.events()] == []

    asyncio.run(main())


def test_threadsafe_emit_needs_a_started_source():
    src = Plain()
    from coindrel.sources import SourceError

    with pytest.raises(SourceError, match="start"):
        src._emit_threadsafe(EntryEvent(0.0, 0))


def test_manual_clock_wakes_sleepers_in_order():
    async def main():
        clock = ManualClock()
        woke = []

        async def sleeper(d):
            await clock.sleep(d)
            woke.append(d)

        tasks = [asyncio.create_task(sleeper(d)) for d in (3, 1, 2)]
        await clock.wait_sleepers(3)
        await clock.advance(1.5)
        assert woke == [1]
        await clock.advance(5)
        await asyncio.gather(*tasks)
        assert sorted(woke) == [1, 2, 3] and clock.monotonic() == 6.5

    asyncio.run(main())


def test_capabilities_say_what_cannot_be_checked():
    caps = Capabilities(entries=(0, 1, 2, 3, 4, 5, 6, 7), exits=tuple(range(15)), halls=())
    notes = caps.cannot_check()
    assert any("exit 16" in n for n in notes) and any("no hall sensors" in n for n in notes)
    assert caps.describe() == "8 entry beams, 15 exit beams, 0 hall sensors"
