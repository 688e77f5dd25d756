"""Scenario files (TOML and JSON) and drop scripts load, and bad ones say
exactly what is wrong; simulated players play whole matches."""

from __future__ import annotations

import json

import pytest

from coindrel.errors import CoindrelError

from coindrel.engine import EngineError
from coindrel.obslog import LogWriter
from coindrel.virtual import BoardConfig, PlayerSpec, Scenario, load_scenario, read_drops, run_scenario, scenario_from_dict
from coindrel.virtual.players import PlayerDriver

from .harness import SCENARIOS, run


def test_toml_and_json_are_the_same_scenario(tmp_path):
    toml = load_scenario(SCENARIOS / "faults" / "jam.toml")
    data = {"seed": toml.config.seed, "start": toml.config.start, "drops": [{"t": t, "entry": e + 1} for t, e in toml.drops],
            "faults": [{"fault": "jam", "where": "R1S4 right outlet", "t": 1.0, "until": 3.0}]}
    path = tmp_path / "jam.json"
    path.write_text(json.dumps(data))
    js = load_scenario(path)
    assert js.config == toml.config and js.drops == toml.drops and js.faults == toml.faults
    assert run(js).log_text == run(toml).log_text


def test_every_key(tmp_path):
    (tmp_path / "more.jsonl").write_text('{"t": 9.0, "entry": 2}\n{"kind": "exit", "t": 9.5, "exit": 3}\n')
    path = tmp_path / "s.toml"
    path.write_text('''
description = "all of it"
seed = 3
board = "mirrored"
start = "random"
variants = {holes = true}
duration = 12.5
drops_file = "more.jsonl"
[timing]
row_fall = [0.07, 0.1]
[hall]
noise = 4.0
spread = 40
[hub]
scan_hz = 500
hall_filter = 3
hyst = 30
band = 0.25
beam_filter = 4
[[drops]]
t = 0.5
entry = 8
[players]
one = "greedy"
two = "random"
drops = 5
[expect]
anything = "goes"
''')
    scn = load_scenario(path)
    c = scn.config
    assert (c.seed, c.board, c.start, c.variants.holes, c.scan_hz, c.rules.filter, c.rules.hyst, c.band, c.beam_filter) == \
        (3, "mirrored", None, True, 500, 3, 30, 0.25, 4)
    assert c.timing.row_fall == (0.07, 0.1) and c.hall.noise == 4.0 and c.hall.spread == 40
    assert scn.drops == [(0.5, 7), (9.0, 1)] and scn.duration == 12.5 and scn.players.one == "greedy"
    assert scn.expect == {"anything": "goes"} and scn.description == "all of it"
    board = run_scenario(scn)
    assert board.now >= 12.5 and board.start.holes() == ["R2S2", "R2S6", "R4S3", "R4S5"]


@pytest.mark.parametrize("data, words", [
    ({"sed": 3}, "unknown key(s) sed"),
    ({"seed": "x"}, "[scenario] seed: must be a whole number"),
    ({"start": "LLL"}, "has 1 row(s)"),
    ({"board": "/nope.json"}, "cannot read the board file"),
    ({"variants": {"holy": True}}, "unknown variant(s)"),
    ({"timing": {"flip": [0.03, 0.02]}}, "flip"),
    ({"hall": {"nois": 1}}, "unknown key(s) nois"),
    ({"hub": {"scan_hz": 10}}, "out of range; write a whole number from 50 to 5000"),
    ({"hub": {"hall_filter": 20}}, "settle"),
    ({"drops": [{"t": 1, "entry": 0}]}, "entry 0 must be 1..8"),
    ({"drops": [{"t": -1, "entry": 1}]}, "t -1 must be seconds >= 0"),
    ({"drops": [5]}, "a drop is"),
    ({"players": {"one": "wizard"}}, "unknown computer player 'wizard'"),
    ({"players": {"overlap": 2}}, "out of range; write a number from 0 to 1"),
    ({"players": {"think": [3, 1]}}, "think [3.0, 1.0] must be seconds with 0 < lo <= hi"),
    ({"players": {"colour": "red"}}, "unknown key(s) colour"),
    ({"faults": [{"fault": "jam", "where": "R1S1"}]}, "faults item 1: jam place"),
    ({"hall": {"noise": 60}}, "within the sensor noise"),
])
def test_bad_scenarios_say_what_is_wrong(data, words):
    with pytest.raises(CoindrelError) as e:  # EngineError for the board, ConfigError for the file's keys
        scenario_from_dict(data, "s.toml")
    assert words in str(e.value)


def test_bad_files(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("seed = ")
    with pytest.raises(EngineError, match="not valid TOML"):
        load_scenario(bad)
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(EngineError, match="one table"):
        load_scenario(bad)
    script = tmp_path / "d.jsonl"
    script.write_text('{"t": 1, "entry": 2}\nnot json\n')
    with pytest.raises(EngineError, match="line 2: not JSON"):
        read_drops(script)
    with pytest.raises(EngineError, match="cannot read the drop script"):
        read_drops(tmp_path / "none.jsonl")


def test_an_observation_log_replays_as_a_drop_script(tmp_path):
    first = run(load_scenario(SCENARIOS / "healthy-mirrored.toml"))
    path = tmp_path / "obs.jsonl"
    path.write_text(first.log_text)
    entries = read_drops(path)
    drops = [d for d in first.truth if d["kind"] == "drop"]
    assert [e for _, e in entries] == [d["entry"] - 1 for d in drops]
    assert all(abs(t - d["t"]) < 0.001 for (t, _), d in zip(entries, drops))


def test_players_play_whole_matches_and_sometimes_hurry():
    board = run_scenario(Scenario(BoardConfig(seed=8), players=PlayerSpec(one="greedy", two="greedy", matches=2, overlap=0.5)))
    drops = [d for d in board.truth.lines if d["kind"] == "drop"]
    assert {d["player"] for d in drops} == {1, 2}
    assert all(a["player"] != b["player"] for a, b in zip(drops, drops[1:]) if b["drop"] == a["drop"] + 1
               and b["t"] - a["t"] < 4.9)  # turns alternate within a match
    assert any(d["overlap"] for d in drops)


def test_player_driver_counts_matches_and_results():
    from coindrel.virtual import VirtualBoard

    board = VirtualBoard(BoardConfig(seed=2))
    driver = PlayerDriver(board, PlayerSpec(matches=3, think=(0.3, 0.6)))
    board.finish()
    assert driver.matches == 3 and len(driver.results) == 3
    assert all(w in (1, 2, "draw") for w, _ in driver.results)
    with pytest.raises(EngineError, match="matches must be 1 or more"):
        PlayerSpec(matches=0).check()


def test_log_writer_is_the_obslog_one(tmp_path):
    """--log goes through coindrel.obslog.LogWriter (the format is sensing.md's)."""
    from coindrel.virtual.obs import ObservationOutput

    assert ObservationOutput.open.__doc__ and LogWriter.__module__ == "coindrel.obslog"
