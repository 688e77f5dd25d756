"""People at awkward moments: each finding of the first newcomer's try, on
the real table, journal and virtual board (``coindrel sim --fast``'s rig).

Scripts and runs that go wrong: a wrong script line named, a busy script played to the end,
files that are not scripts refused, a dying task ending the run with its error.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from coindrel.table.daemon import Table, TableDied
from coindrel.table.script import Do, ScriptError, parse_script
from coindrel.table.setupmenu import Choices

from .awkward import G


def test_a_task_that_dies_ends_the_run_with_its_error(tmp_path):
    class Boom(Exception):
        pass

    table = Table(G, Choices(), clock=lambda: 0.0)

    def step():
        raise Boom("the step broke")

    table.step = step
    with pytest.raises(TableDied, match="the step broke"):
        asyncio.run(asyncio.wait_for(table.run(), 60))


def test_a_script_line_that_is_wrong_is_named():
    with pytest.raises(ScriptError, match="line 2"):
        parse_script('{"t": 1, "press": "select"}\n{"t": 2, "drop": 9}\n', G)
    with pytest.raises(ScriptError, match="exactly one action"):
        parse_script('{"t": 1, "press": "select", "drop": 3}', G)
    with pytest.raises(ScriptError, match="not JSON"):
        parse_script("{t: 1}", G)
    steps = parse_script('# comment\n{"t": 5, "hand": "R3S2", "to": "L"}\n{"t": 1, "restart": true}\n', G)
    assert [s.do for s in steps] == [Do.RESTART, Do.HAND] and steps[1].side == "L"


SCRIPT = [
    {"t": 3, "press": "right"}, {"t": 3.5, "press": "hold"}, {"t": 4, "press": "back"},
    {"t": 9, "drop": 2}, {"t": 9.1, "drop": 2}, {"t": 12, "hand": "R3S2", "to": "R"}, {"t": 14, "place": "R1S3"},
    {"t": 15, "press": "back"}, {"t": 15.2, "drop": 5}, {"t": 18, "unplug": 4}, {"t": 19, "drop": 7},
    {"t": 25, "restart": True}, {"t": 25.05, "drop": 1}, {"t": 30, "take": "R1S3"}, {"t": 31, "press": "select"},
    {"t": 33, "press": "left"}, {"t": 40, "restart": True}, {"t": 44, "unplug": 10}, {"t": 50, "press": "hold"},
    {"t": 60, "drop": 4}, {"t": 60.02, "restart": True}, {"t": 75, "press": "back"}, {"t": 75.5, "press": "select"},
]


def test_sim_fast_with_a_busy_script_plays_to_the_end(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in SCRIPT) + "\n")
    result = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--players", "greedy,random", "--script",
                        str(script), "--result", str(result), "--state-dir", str(tmp_path / "state")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(result.read_text())
    assert res["over"] and res["errors"] == [] and res["restarts"] == 3 and res["unplugs"] == 2
    assert res["winner"] in ("Ann", "Bo", "draw") and res["drops"] > 20
    assert "Result:" in r.stdout and "Faults named" in r.stdout


def test_sim_fast_names_a_bad_script_line(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": 1, "drop": 3}\n{"t": 2, "press": "jump"}\n')
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--script", str(script)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "line 2" in r.stderr and "jump" in r.stderr and "Traceback" not in r.stderr


def test_sim_fast_with_a_stuck_switch_prints_the_mismatch_and_a_summary(tmp_path):
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--fault", "switch_stuck@R3S2,t=20",
                        "--seed", "2"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "Mismatch at drop" in r.stdout and "R3S2" in r.stdout
    assert "Result:" in r.stdout and "switch_stuck at R3S2" in r.stdout


def test_a_script_that_is_not_a_text_file_is_refused_without_reading_it_all(tmp_path):
    import os

    from coindrel.table.script import MAX_SCRIPT_BYTES, load_script

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer for ever
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as f:
        f.truncate(MAX_SCRIPT_BYTES + 1)  # sparse: no time to write it
    binary = tmp_path / "b.jsonl"
    binary.write_bytes(b'{"t": 1, "drop": 3}\n\x00\x01\x02')
    for path, said in (("/dev/zero", "character device"), (fifo, "named pipe"), (huge, "split it"),
                       (binary, "binary"), (tmp_path, "directory")):
        with pytest.raises(ScriptError, match=said):
            load_script(path, G)


def test_sim_with_dev_zero_as_its_script_says_so(tmp_path):
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--script", "/dev/zero"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "character device, not a file" in r.stderr and "Traceback" not in r.stderr
