"""The virtual board as an in-process board source (``[board] source =
"virtual"``), on an injected clock: no thread, no port, no waiting."""

from __future__ import annotations

import asyncio

import pytest

from coindrel.config import ConfigError
from coindrel.sources import make_source, register_source
from coindrel.virtual.source import VirtualSource

from .harness import SCENARIOS
from .oracle import compare_with_engine

register_source("virtual", "coindrel.virtual.source:VirtualSource")


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def monotonic(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds
        await asyncio.sleep(0)


async def collect(source, until: float):
    await source.start()
    while source.board.now < until:
        await asyncio.sleep(0)  # let the source's task run; each of its sleeps moves the fake clock on
    events = source.pending()
    await source.close()
    return events


def test_players_on_the_virtual_source_match_the_engine():
    clock = FakeClock()
    src = make_source("virtual", {"seed": 4, "players": "greedy,random", "speed": 1.0}, clock=clock)
    assert isinstance(src, VirtualSource) and src.capabilities.dropper and len(src.capabilities.halls) == 38
    events = asyncio.run(collect(src, 120.0))
    assert events[0].kind == "status" and events[0].state == "connected"
    board_events = [e for e in events if e.kind != "status"]
    truth = src.truth.lines
    assert sum(1 for d in truth if d["kind"] == "drop") > 30
    assert compare_with_engine(board_events, truth, src.board.geometry, src.board.start.rows()) == []
    assert clock.t == pytest.approx(src.board.now, abs=0.3), "board time follows the clock at speed 1"


def test_a_hub_restart_on_the_virtual_source_reads_like_the_link():
    clock = FakeClock()
    src = make_source("virtual", {"scenario": str(SCENARIOS / "faults" / "hub-reset.toml"), "speed": 0}, clock=clock)
    events = asyncio.run(collect(src, 6.0))
    states = [e.state for e in events if e.kind == "status"]
    assert states == ["connected", "resync"]  # a reset keeps the port: the link sees only the new hello


def test_a_reset_longer_than_the_links_silence_reads_as_the_link_reports_it(tmp_path):
    text = (SCENARIOS / "faults" / "hub-reset.toml").read_text().split("[expect]")[0]
    scenario = tmp_path / "long-reset.toml"
    scenario.write_text(text.replace("boot = 0.8", "boot = 3.0"))
    clock = FakeClock()
    src = make_source("virtual", {"scenario": str(scenario), "speed": 0}, clock=clock)
    seen = []

    async def watch():
        await src.start()
        while src.board.now < 7.0:
            seen.append((src.board.now, src.board_time()))
            await asyncio.sleep(0)
        events = src.pending()
        await src.close()
        return events

    events = asyncio.run(watch())
    states = [(e.state, round(e.t, 2)) for e in events if e.kind == "status"]
    # silent for 1.5 s: disconnected, stamped with the time the hub last vouched for; then back
    assert [s for s, _ in states] == ["connected", "disconnected", "connected", "resync"], states
    assert states[1][1] == 2.1 and states[2][1] == 5.1
    quiet = [bt for now, bt in seen if 2.2 < now < 5.0]
    assert quiet and max(quiet) <= 2.1 + 1e-9, "no board time vouched for while the hub has no power"


def test_dropper_and_snapshot():
    async def go():
        clock = FakeClock()
        src = make_source("virtual", {"start": "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"}, clock=clock)
        await src.start()
        await src.set_outputs(leds=[0, 3], drop=3, pulse_ms=100)
        await src.set_outputs(drop=3)
        seen = []
        while not any(e.kind == "exit" for e in seen):
            await asyncio.sleep(0)
            seen += src.pending()
        snap = await src.snapshot()
        with pytest.raises(Exception, match="entries are 1..8"):
            await src.set_outputs(drop=8)
        await src.close()
        return src, seen, snap

    src, seen, snap = asyncio.run(go())
    assert src.leds == (0, 3)
    assert [e.entry for e in seen if e.kind == "entry"] == [3, 3]
    assert snap.positions["R1S4"] == "R" and snap.positions["R1S1"] == "L" and len(snap.positions) == 38


def test_configuration_mistakes_name_the_key():
    with pytest.raises(ConfigError, match="unknown key"):
        make_source("virtual", {"sped": 2})
    with pytest.raises(ConfigError, match="players"):
        make_source("virtual", {"players": "greedy"})
    # found by a newcomer: the only config error that named no file, table or key
    with pytest.raises(Exception, match=r"^config: \[board.virtual\] players: unknown computer player 'wizard'; "
                                        r"choose from random, greedy, easy, medium, hard$"):
        make_source("virtual", {"players": "greedy,wizard"})
    with pytest.raises(Exception, match="speed"):
        make_source("virtual", {"speed": -1})


def test_run_check_names_the_file_table_and_key_of_an_unknown_player(tmp_path, capsys):
    from coindrel.cli import main

    f = tmp_path / "coindrel.toml"
    f.write_text('[board]\nsource = "virtual"\n[board.virtual]\nplayers = "greedy,wizard"\n')
    assert main(["run", "--check", "--config", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}: [board.virtual] players: unknown computer player 'wizard'; choose from random, greedy" in err, err
