"""JSON and TOML nested past the interpreter's recursion limit is a bad file
with the usual message, at every door (it was a RecursionError traceback:
coindrel engine died, reconcile, health, show --geometry and run --check too)."""

from __future__ import annotations

import json
import tomllib

import pytest

from coindrel.cli import main
from coindrel.club.messages import MessageError, decode
from coindrel.engine import standard_geometry
from coindrel.nesting import TOO_DEEP, loads_json, loads_toml
from coindrel.table.script import ScriptError, parse_script

DEEP = "[" * 100_000 + "]" * 100_000


def test_the_parsers_raise_their_own_errors():
    with pytest.raises(json.JSONDecodeError, match="nested too deeply"):
        loads_json(DEEP)
    with pytest.raises(json.JSONDecodeError, match="nested too deeply"):
        loads_json(DEEP.encode())
    with pytest.raises(tomllib.TOMLDecodeError, match="nested too deeply"):
        loads_toml("x = " + "[" * 5000 + "]" * 5000)
    assert loads_json('{"a": [1]}') == {"a": [1]} and loads_toml("a = [1]") == {"a": [1]}


@pytest.mark.parametrize("argv", [
    ["reconcile", "{f}"],
    ["health", "{f}"],
    ["show", "--geometry", "{f}", "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"],
])
def test_commands_name_the_file(tmp_path, capsys, argv):
    f = tmp_path / "deep.json"
    f.write_text(DEEP + "\n")
    code = main([a.format(f=f) for a in argv])
    err = capsys.readouterr().err
    assert code != 0 and TOO_DEEP in err and "Traceback" not in err, err


def test_a_configuration_nested_too_deep_is_refused_by_run_check(tmp_path, capsys):
    f = tmp_path / "coindrel.toml"
    f.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert main(["run", "--check", "--config", str(f)]) != 0
    err = capsys.readouterr().err
    assert "not valid TOML" in err and TOO_DEEP in err, err


def test_coindrel_engine_answers_the_line_and_goes_on(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(DEEP + '\n{"id": 2, "board": "standard", "drops": [1]}\n'))
    main(["engine"])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert "nested too deeply" in lines[0]["error"] and lines[1]["id"] == 2, lines


def test_a_script_line_and_a_club_message():
    with pytest.raises(ScriptError, match="nested too deeply"):
        parse_script(DEEP, standard_geometry())
    with pytest.raises(MessageError, match="not JSON"):
        decode("[" * 10000)


# -- numbers too long to read ---------------------------------------------------------
# Python refuses to turn more than 4300 decimal digits into an int; the parsers
# let that ValueError out bare (no line, no msg), so every door that caught
# JSONDecodeError or TOMLDecodeError ended in a traceback.

LONG = "9" * 5000
TOO_LONG = "a number with more than 4300 digits"


def test_a_long_number_is_the_parsers_own_error_at_its_line_and_key():
    with pytest.raises(json.JSONDecodeError, match=TOO_LONG) as e:
        loads_json('{"a": "' + LONG + '",\n "seed": ' + LONG + "}")  # digits in a string are text, not the number
    assert e.value.lineno == 2 and e.value.colno == 10 and "'seed'" in e.value.msg
    with pytest.raises(json.JSONDecodeError, match=TOO_LONG):
        loads_json(("[-" + LONG + "]").encode())
    assert loads_json("[1.0" + LONG + "]")[0] == pytest.approx(1.1)  # a float reads at any length
    with pytest.raises(tomllib.TOMLDecodeError, match=TOO_LONG) as e:
        loads_toml(f'# {LONG}\nname = "{LONG}"\n[match]\nseed = {LONG}\n')
    assert "line 4, column 8" in str(e.value) and "key seed in [match]" in str(e.value)
    with pytest.raises(tomllib.TOMLDecodeError, match=TOO_LONG) as e:  # read, but it cannot be printed
        loads_toml("[match]\nseed = 0x" + "f" * 5000 + "\n")
    assert "key match.seed" in str(e.value)
    assert loads_toml("seed = 0xff\nn = 1_000") == {"seed": 255, "n": 1000}


def test_run_check_names_the_configuration_line_and_key(tmp_path, capsys):
    f = tmp_path / "coindrel.toml"
    f.write_text(f"[match]\nseed = {LONG}\n")
    assert main(["run", "--check", "--config", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}: not valid TOML: {TOO_LONG}" in err and "line 2" in err and "seed" in err, err


def test_coindrel_engine_answers_a_long_number_and_goes_on(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO('{"id": 1, "board": "standard", "entries": [' + LONG + ']}\n'
                                                 '{"id": 2, "board": "standard", "drops": [1]}\n'))
    assert main(["engine"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert TOO_LONG in lines[0]["error"] and lines[1]["id"] == 2, lines


HEADER = '{"kind": "header", "board": "standard", "state": ["LLLLLLLL", "LLLLLLL", "LLLLLLLL", "LLLLLLL", "LLLLLLLL"]}'


@pytest.mark.parametrize("command", ["reconcile", "health"])
def test_reconcile_and_health_skip_a_long_number_with_its_line(tmp_path, capsys, command):
    f = tmp_path / "obs.jsonl"
    f.write_text(HEADER + '\n{"t": 0.5, "kind": "entry", "entry": ' + LONG + '}\n{"t": 1.0, "kind": "entry", "entry": 3}\n')
    assert main([command, str(f)]) in (0, 1)
    err = capsys.readouterr().err
    assert f"{f}: line 2: not JSON ({TOO_LONG}" in err and "skipped" in err, err
    f.write_text('{"kind": "header", "seed": ' + LONG + '}\n')
    assert main([command, str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}: line 1: not JSON ({TOO_LONG}" in err and "Traceback" not in err, err


def test_a_lesson_file_and_a_sim_script_with_a_long_number(tmp_path, capsys):
    lesson = tmp_path / "mine.toml"
    lesson.write_text(f'format = 1\ntitle = "Mine"\norder = {LONG}\n')
    assert main(["lesson", str(lesson)]) == 2
    err = capsys.readouterr().err
    assert f"{lesson}: not valid TOML ({TOO_LONG}" in err and "key order" in err, err
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": ' + LONG + ', "press": "select"}\n')
    assert main(["sim", "--fast", "--script", str(script)]) == 2
    err = capsys.readouterr().err
    assert f"{script} line 1: not JSON ({TOO_LONG}" in err and "Traceback" not in err, err  # was AttributeError: msg


def test_a_club_message_with_a_long_number_is_refused():
    with pytest.raises(MessageError, match=f"not JSON .{TOO_LONG}"):
        decode(b'{"kind": "drop", "seq": ' + LONG.encode() + b"}")


@pytest.mark.parametrize("argv, words", [
    (["history", LONG], "is not a match number"),
    (["history", "\u00b2"], "is not a match number"),  # isdigit() says yes, int() says no
    (["sim", "--fast", "--fault", f"switch_stuck@R{LONG}S2"], "not a switch label"),
    (["virtual-board", "--drop", "1", "--fault", f"switch_stuck@R{LONG}S2"], "not a switch label"),
    (["virtual-board", "--drop", "1@1e999"], "--drop '1@1e999'"),
    (["club", "serve", "--http", f"127.0.0.1:{LONG}", "--broker", "mqtt://127.0.0.1", "--tables", "a"], "HOST:PORT"),
    (["club", "serve", "--http", "127.0.0.1:\u00b2", "--broker", "mqtt://127.0.0.1", "--tables", "a"], "HOST:PORT"),
])
def test_long_numbers_typed_on_the_command_line(tmp_path, capsys, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    assert main(argv + (["--state-dir", str(tmp_path)] if argv[0] == "history" else [])) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err, err[:300]


@pytest.mark.parametrize("table, key", [("board.gpio", "entry_pins = [\"GPIO{n}\"]"), ("inputs", "select = \"GPIO{n}\"")])
def test_a_long_pin_number_in_the_configuration(tmp_path, capsys, table, key):
    f = tmp_path / "coindrel.toml"
    board = '[board]\nsource = "gpio"\n' if table == "board.gpio" else ""
    f.write_text(f"{board}[{table}]\n{key.format(n=LONG)}\n")
    code = main(["run", "--check", "--config", str(f)])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Exceeds the limit" not in err, err[:300]
    if table == "inputs":
        assert code == 2 and "is not a pin" in err, err[:300]


@pytest.mark.parametrize("typed", [LONG, "\u00b2"])
def test_a_long_entry_typed_at_play_is_not_an_entry(monkeypatch, capsys, typed):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(typed + "\nq\n"))
    assert main(["play"]) in (0, 1)
    assert "is not an entry" in capsys.readouterr().out


# -- values too long to quote -----------------------------------------------------------
# A message names the value it refuses; a 5,000-character one used to fill the screen.

def test_a_long_argument_is_quoted_by_its_start_and_its_length(capsys):
    with pytest.raises(SystemExit):
        main(["sim", "--seed", LONG])  # argparse's own message
    err = capsys.readouterr().err
    assert "argument --seed" in err and "(5,000 characters)" in err and LONG not in err and len(err) < 2000
    assert main(["show", "L" * 5000]) == 2  # the command's own message
    err = capsys.readouterr().err
    assert "board text" in err and "(5,000 characters)" in err and "L" * 300 not in err


def test_a_long_config_value_is_named_not_echoed():
    from coindrel.config import spelled

    assert spelled("x" * 5000).endswith("...\" (5,000 characters)") and len(spelled("x" * 5000)) < 200
    assert spelled(10 ** 5000) == "a number of about 5,000 digits"  # str() of it would raise
    assert spelled(-(10 ** 5000)) == "a negative number of about 5,000 digits"
    assert spelled([1, "a"]) == '[1, "a"]' and spelled(2 ** 64) == str(2 ** 64)
