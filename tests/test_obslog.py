"""Observation logs (obslog.py): lines a reader skips are said, with their
numbers (found by a newcomer: `coindrel reconcile` skipped {"kind": "bogus"}
without the warning every other bad line gets)."""

from __future__ import annotations

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
