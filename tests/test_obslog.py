"""Observation logs (obslog.py): lines a reader skips are said, with their
numbers (found by a newcomer: `coindrel reconcile` skipped {"kind": "bogus"}
without the warning every other bad line gets)."""

from __future__ import annotations

import json

import pytest

from coindrel.cli import main
from coindrel.obslog import read_log

HEADER = '{"kind": "header", "board": "standard", "state": ["LLLLLLLL", "LLLLLLL", "LLLLLLLL", "LLLLLLL", "LLLLLLLL"]}'
LINES = [
    HEADER,
    '{"t": 0.5, "kind": "entry", "entry": 3}',
    '{"kind": "bogus"}',
    '{"kind": "note", "note": "hub session"}',
    "[1, 2]",
    '{"t": 1.0}',
    HEADER,
    '{"t": 1.5, "kind": "entry", "entry": 4}',
]


def test_unknown_kinds_are_skipped_with_their_line_numbers():
    log = read_log(LINES)
    assert [e.entry for e in log.events] == [2, 3] and len(log.notes) == 1
    assert log.problems == [
        "line 3: unknown kind 'bogus' (an observation log's lines are entry, exit, status, switch and note); skipped",
        'line 5: an array, not an object like {"t": 1.5, "kind": "entry", "entry": 3}; skipped',
        "line 6: no \"kind\" (an observation log's lines are entry, exit, status, switch and note); skipped",
        "line 7: a second header (two logs joined into one?); skipped",
    ]


def test_reconcile_warns_of_them_and_goes_on(tmp_path, capsys):
    f = tmp_path / "obs.jsonl"
    f.write_text("\n".join(LINES) + "\n")
    assert main(["reconcile", str(f)]) == 0
    out, err = capsys.readouterr()
    assert f"coindrel reconcile: {f}: line 3: unknown kind 'bogus'" in err and len(out.splitlines()) == 2


def test_an_absurd_time_or_count_is_one_skipped_line_not_hundreds_of_warnings():
    """Found by a newcomer: {"t": 1e308} was taken as a drop, and every later
    line then warned it was "before the previous event's 1e+308"."""
    lines = [HEADER, '{"t": 1e308, "kind": "entry", "entry": 3}', "null",
             '{"t": 2, "kind": "status", "state": "lost", "count": "x"}',
             '{"t": 2, "kind": "status", "state": "lost", "count": 1e400}']
    lines += [f'{{"t": {1 + k}, "kind": "entry", "entry": 4}}' for k in range(20)]
    log = read_log(lines)
    assert len(log.events) == 20 and len(log.problems) == 4, log.problems
    assert "line 2: event time t 1e+308 is more than 1e+09 s" in log.problems[0]
    assert log.problems[1].startswith("line 3: null, not an object")
    assert "line 4: status event: count 'x' is not a whole number" in log.problems[2]
    assert "line 5: status event: count inf is not a whole number" in log.problems[3]


def _virtual_log(tmp_path):
    f = tmp_path / "obs.jsonl"
    assert main(["virtual-board", "--drops", "1,2,3,4,5,6,7,8,1,2,3,4,5,6,7,8", "--seed", "3", "--log", str(f)]) == 0
    return f.read_text().splitlines()


def _reconciled(tmp_path, lines, capsys):
    f = tmp_path / "edited.jsonl"
    f.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["reconcile", str(f)]) == 0
    out, err = capsys.readouterr()
    return [json.loads(line)["verdict"] for line in out.splitlines()], err.splitlines()


@pytest.mark.parametrize("jump", [+300.0, -20.0])
def test_one_line_out_of_time_order_is_named_once_and_the_rest_judged(tmp_path, capsys, jump):
    """Found by a newcomer: one line whose time jumped gave about 40 warnings,
    each naming a good line after it, and the drops around it mismatched."""
    lines = _virtual_log(tmp_path)
    capsys.readouterr()
    verdicts, err = _reconciled(tmp_path, lines, capsys)
    assert err == [] and set(verdicts) == {"ok"}
    n = len(lines) * 2 // 3  # a switch or beam line in the middle of the log
    d = json.loads(lines[n - 1])
    d["t"] = max(0.0, d["t"] + jump)
    lines[n - 1] = json.dumps(d)
    edited, err = _reconciled(tmp_path, lines, capsys)
    assert len(err) == 1, err
    assert f"line {n}: time {d['t']:g} is out of step with the lines around it" in err[0]
    assert "read at its place in the file" in err[0] and "correct its t" in err[0]
    assert edited == verdicts


def test_many_lines_out_of_step_are_counted_after_the_first_ten():
    lines = [HEADER] + [f'{{"t": {100 - k}, "kind": "entry", "entry": 4}}' for k in range(30)]
    log = read_log(lines)
    assert len(log.events) == 30 and len(log.problems) == 11
    assert log.problems[-1].startswith("19 more lines out of step") and "sort its events by t" in log.problems[-1]
    assert [e.t for e in log.events] == sorted(e.t for e in log.events)
