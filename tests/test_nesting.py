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
