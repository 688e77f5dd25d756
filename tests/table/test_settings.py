"""The whole-configuration loader: the example validates, every mistake is
an error naming the key and the fix, and other parts plug their tables in."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path

import pytest

import coindrel.table.settings as settings_module
from coindrel.config import ConfigError, Section
from coindrel.engine import Variants
from coindrel.table.sections import MatchDefaults
from coindrel.table.settings import load_settings, parse_settings, register_section

EXAMPLE = Path(__file__).resolve().parents[2] / "systemd" / "coindrel.toml.example"


@pytest.fixture(autouse=True)
def clean_registry(monkeypatch):
    monkeypatch.setattr(settings_module, "_registered", {})
    monkeypatch.setattr(settings_module, "PLUGINS", dict(settings_module.PLUGINS))


def load(text: str, tmp_path=None):
    return parse_settings(tomllib.loads(text), source="t.toml", base=tmp_path)


def fails(text: str, *needles: str, tmp_path=None) -> str:
    with pytest.raises(ConfigError) as e:
        load(text, tmp_path)
    msg = str(e.value)
    for n in needles:
        assert n in msg, msg
    return msg


def test_the_example_file_validates_and_says_what_it_shows():
    s = load_settings(EXAMPLE)
    assert s.source == str(EXAMPLE)
    assert s.storage.state_dir == Path("/var/lib/coindrel") and s.storage.keep_matches == 0
    assert s.match.clock == 60.0 and s.match.players == ("Player 1", "Player 2") and s.match.seed is None
    assert s.board.geometry_name == "standard" and s.board.source == "hub" and s.board.diagnosis == "process"
    assert s.board.backend.url == "/dev/coindrel-hub" and s.board.backend.channel_map is not None
    # The display and I/O tables, parsed by their own modules.
    assert s["display"].driver == "ssd1306" and s["display"].address == 0x3C
    assert s["inputs"].backend == "gpio" and (s["inputs"].encoder_a, s["inputs"].select) == (17, 22)
    assert s["outputs"].leds.pins == (5, 6, 13, 19, 26, 16, 20, 21)


def test_an_empty_file_means_all_defaults():
    s = load("")
    assert s.match == MatchDefaults() and s.board.source == "hub" and s.board.diagnosis == "process"
    assert set(s.sections) == {"display", "inputs", "outputs", "club"}  # each with its owner's defaults
    assert s["club"] is None  # no [club]: the table stays off the network
    assert s["storage"] is s.storage and s["display"] is s.sections["display"]


def test_every_setting_of_the_table(tmp_path):
    s = load("""
        [storage]
        state_dir = "/srv/coindrel"
        keep_matches = 500
        [match]
        clock = "turbo"
        players = ["  Ann ", "Bo"]
        variants = ["holes", "Shuffled"]
        seed = 1234
        [board]
        geometry = "mirrored"
        source = "virtual"
        [board.virtual]
        speed = 2
        [board.gpio]
        entry_pins = [17, 27]
    """)
    assert s.storage.state_dir == Path("/srv/coindrel") and s.storage.keep_matches == 500
    assert (s.match.clock, s.match.clock_name, s.match.players, s.match.seed) == (5.0, "turbo", ("Ann", "Bo"), 1234)
    assert s.match.variants == Variants(holes=True, shuffled=True)
    assert s.board.geometry.name.startswith("standard") and s.board.source == "virtual"
    assert s.board.backend.speed == 2 and set(s.board.backends) == {"virtual", "gpio"}
    assert s.board.backends["gpio"].entry_pins == (17, 27)
    assert load("[match]\nclock = \"off\"").match.clock is None
    assert load("[match]\nclock = 120").match.clock == 120.0


def test_a_board_file_relative_to_the_configuration(tmp_path):
    shipped = resources.files("coindrel.boards").joinpath("standard.json").read_text()
    (tmp_path / "boards").mkdir()
    (tmp_path / "boards" / "mine.json").write_text(shipped)
    s = load('[board]\ngeometry = "boards/mine.json"', tmp_path)
    assert s.board.geometry_name == str(tmp_path / "boards" / "mine.json")
    assert s.board.geometry.switch_count == 38
    (tmp_path / "bad.json").write_text(json.dumps({"format": 1}))
    fails('[board]\ngeometry = "bad.json"', "[board] geometry", "bad.json", tmp_path=tmp_path)
    fails('[board]\ngeometry = "nowhere.json"', "[board] geometry", "cannot read the board file",
          '"standard", "mirrored" or the path', tmp_path=tmp_path)


@pytest.mark.parametrize("text, needles", [
    ("[storge]\nstate_dir = \"/x\"", ["unknown table [storge]", "did you mean [storage]?"]),
    ("[lights]\non = true", ["unknown table [lights]", "[board]"]),
    ("clock = 30", ["clock is outside any table", "belongs in [match]"]),
    ("colour = 1", ["colour is outside any table", "[storage]"]),
    ("match = 3", ["match must be a table", "[match]"]),
    ("[storage]\nstate_dir = \"var/lib\"", ["[storage] state_dir", "absolute"]),
    ("[storage]\nstate_dir = 5", ["[storage] state_dir", "text in quotes"]),
    ("[storage]\nkeep_matches = -1", ["[storage] keep_matches", "out of range"]),
    ("[storage]\nkeep = 1", ["[storage] has unknown key(s) keep", "known keys here: keep_matches, state_dir"]),
    ("[match]\nclock = 45", ["[match] clock", "30, 60 or 120", "turbo"]),
    ("[match]\nclock = true", ["[match] clock", "not true"]),  # as the file spells it, not Python's True
    ("[match]\nplayers = [\"Ann\"]", ["[match] players", "2 items"]),
    ("[match]\nplayers = [\"Ann\", 3]", ["[match] players", "item 2"]),
    ("[match]\nplayers = [\"Ann\", \" \"]", ["[match] players", "player 2's name is empty"]),
    ("[match]\nplayers = [\"Ann\", \"ann\"]", ["[match] players", "different names"]),
    ("[match]\nplayers = [\"Ann\", \"" + "x" * 21 + "\"]", ["[match] players", "longer than 20"]),
    ("[match]\nplayers = [\"Ann\", \"" + "x" * 5000 + "\"]", ["[match] players", "longer than 20"]),
    ("[match]\nplayers = [\"A\\u0000\\u001b[31m\", \"B\"]", ["[match] players", "control character U+0000"]),
    ("[match]\nplayers = [\"Ann\", \"B\\u200bo\"]", ["[match] players", "control character U+200B"]),
    ("[match]\nvariants = [\"mirror\"]", ["[match] variants", "'mirror' is not a variant", "'holes'"]),
    ("[match]\nvariants = \"holes\"", ["[match] variants", "list in [brackets]"]),
    ("[match]\nseed = -1", ["[match] seed", "\"random\""]),
    ("[match]\nseed = 1.5", ["[match] seed", "whole number"]),
    ("[match]\nseed = \"daily\"", ["[match] seed", '"daily"']),
    ("[match]\nrounds = 3", ["[match] has unknown key(s) rounds"]),
    ("[board]\nsource = \"usb\"", ["[board] source", "'usb' is not a board source", "'gpio', 'hub', 'none', 'virtual'"]),
    ("[board]\nhub = 3", ["[board] hub", "must be a table"]),
    ("[board]\ndiagnosis = \"child\"", ["[board] diagnosis", '"child" is not one of "process", "thread"']),
    ("[board]\ndiagnosis = true", ["[board] diagnosis", "text in quotes", 'diagnosis = "process"']),
    ("[board.serial]\nport = \"/dev/x\"", ["[board] has unknown key(s) serial"]),
    ("[board]\nsource = \"hub\"\n[board.hub]\nurl = \"nonsense://x\"",
     ["[board.hub] url", "pyserial has no nonsense:// ports", "socket://"]),
])
def test_mistakes_name_the_key_and_the_fix(text, needles):
    msg = fails(text, *needles)
    assert msg.startswith("t.toml: ")


def test_toml_syntax_and_missing_files(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text("[match\nclock = 30")
    with pytest.raises(ConfigError, match="c.toml: not valid TOML"):
        load_settings(p)
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_settings(tmp_path / "none.toml")
    assert load_settings(tmp_path / "none.toml", missing_ok=True).source == "defaults"


def test_other_parts_plug_their_tables_in():
    seen = []

    def parse_display(sec: Section):
        seen.append(sec.name)
        return {"driver": sec.str("driver", "ssd1306"), "rotate": sec.int("rotate", 0, lo=0, hi=3)}

    register_section("display", parse_display)
    s = load("[display]\ndriver = \"sh1106\"")
    assert s.sections["display"] == {"driver": "sh1106", "rotate": 0} and s["display"] is s.sections["display"]
    assert load("").sections["display"] == {"driver": "ssd1306", "rotate": 0}  # defaults when absent
    fails("[display]\ndriver = \"sh1106\"\nrotation = 2", "[display] has unknown key(s) rotation")
    fails("[display]\nrotate = 9", "[display] rotate", "out of range; write a whole number from 0 to 3")
    register_section("lights", lambda sec: sec.bool("on", False))
    assert load("[lights]\non = true").sections["lights"] is True
    with pytest.raises(ValueError, match="belongs to a board source"):
        register_section("board.hub", lambda sec: {})
    fails("[board.hub]\nbaud = 9600", "[board.hub] has unknown key(s) baud")
    register_section("display", None)
    with pytest.raises(ValueError, match="parsed by coindrel.table itself"):
        register_section("match", parse_display)


class Pins:
    def __init__(self, table):
        self.table = table

    def pins(self):
        return self.table


def test_a_pin_used_by_two_parts_is_an_error_naming_both():
    register_section("display", lambda sec: Pins({2: "[display] I2C bus 1 (SDA)"}))
    register_section("inputs", lambda sec: Pins({sec.pin("select"): "[inputs] select"}))
    register_section("outputs", lambda sec: Pins({}))
    load("[inputs]\nselect = 27\n[board]\nsource = \"gpio\"\n[board.gpio]\nentry_pins = [17]\nexit_pins = []")
    fails("[inputs]\nselect = \"GPIO2\"", "[inputs] select and [display] I2C bus 1 (SDA) both use GPIO2")
    fails("[inputs]\nselect = 17\n[board]\nsource = \"gpio\"\n[board.gpio]\nentry_pins = [4, 17]\nexit_pins = []",
          "[board.gpio] entry_pins (entry 2)", "[inputs] select", "GPIO17")


def test_the_real_display_and_io_tables_are_checked_together():
    fails("[inputs]\nselect = 12\nencoder_a = 17\nencoder_b = 18\n[outputs.buzzer]\nkind = \"tonal\"\npin = 12",
          "[outputs.buzzer] pin", "[inputs] select", "GPIO12")


def test_a_table_nobody_installed_can_read_is_an_error_not_ignored():
    settings_module.PLUGINS["display"] = "coindrel.no_such_module:parse_settings"
    assert load("").sections["display"] is None
    fails("[display]\ndriver = \"sh1106\"", "[display] is set", "coindrel.no_such_module is not installed")


def test_owner_modules_are_found_by_path():
    settings_module.PLUGINS["display"] = "coindrel.table.sections:parse_storage"  # any real parser
    assert load('[display]\nstate_dir = "/x"').sections["display"].state_dir == Path("/x")
    settings_module.PLUGINS["display"] = "coindrel.table.sections:no_such_function"
    with pytest.raises(RuntimeError, match="has no no_such_function"):
        load("")


def test_new_setup_draws_and_records_the_seed():
    d = MatchDefaults(clock=30.0, players=("Ann", "Bo"), variants=Variants(holes=True))
    s = d.new_setup(entropy=lambda n: 987654321)
    assert (s.seed, s.clock, s.players, s.variants) == (987654321, 30.0, ("Ann", "Bo"), Variants(holes=True))
    assert MatchDefaults(seed=5).new_setup(entropy=lambda n: 1 / 0).seed == 5
    s = d.new_setup(players=("C", "D"), variants=Variants(), clock=None, seed=3, board="mirrored")
    assert (s.seed, s.clock, s.players, s.variants, s.board) == (3, None, ("C", "D"), Variants(), "mirrored")
    drawn = {d.new_setup().seed for _ in range(20)}
    assert len(drawn) > 15 and all(0 <= x < 2**53 for x in drawn)


@pytest.mark.parametrize("url", ["/dev/ttyACM0", "socket://127.0.0.1:8888", "rfc2217://127.0.0.1:2217", "loop://",
                                 "spy:///dev/ttyACM0"])
def test_a_hub_url_pyserial_knows_is_taken_as_written(url):
    s = load(f'[board]\nsource = "hub"\n[board.hub]\nurl = "{url}"\n')
    assert s.board.backend.url == url


def test_the_diagnosis_may_run_on_a_thread_instead_of_the_child_process():
    assert load('[board]\ndiagnosis = "thread"').board.diagnosis == "thread"
    assert load('[board]\ndiagnosis = "process"').board.diagnosis == "process"
