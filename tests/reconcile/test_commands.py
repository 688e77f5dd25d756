"""``coindrel reconcile`` and ``coindrel health``."""

import json
import subprocess
import sys

from coindrel.cli import main

from .helpers import SCENARIOS


def test_reconcile_writes_one_line_per_drop(capsys):
    assert main(["reconcile", str(SCENARIOS / "dead_exit.jsonl")]) == 0
    lines = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert [d["drop"] for d in lines] == list(range(1, 9))
    bad = [d for d in lines if d["verdict"] == "mismatch"]
    assert bad and bad[0]["diagnosis"][0]["fault"] == "exit_sensor_dead"
    for d in lines:
        assert set(d) == {"drop", "entry", "entry_seen", "t", "t_end", "expected", "observed", "verdict", "diagnosis", "state"}
        assert d["t_end"] >= d["t"]
        assert 1 <= d["entry"] <= 8 and all(1 <= x <= 16 for x in d["observed"]["exits"])


def test_reconcile_reports_damaged_lines_and_goes_on(capsys):
    assert main(["reconcile", str(SCENARIOS / "damaged.jsonl"), "--health"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2
    assert "line 4: exit event: exit 99 is not one of 1..16; skipped" in captured.err
    assert "line 6: not JSON" in captured.err
    assert "2 drops reconciled: 2 ok" in captured.err


def test_reconcile_only_mismatches_to_a_file(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["reconcile", str(SCENARIOS / "stray_exit.jsonl"), "--only-mismatches", "-o", str(out)]) == 0
    lines = [json.loads(l) for l in out.read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["drop"] is None and lines[0]["events"][0]["exit"] == 12


def test_missing_or_bad_log_is_a_clear_error(tmp_path, capsys):
    assert main(["reconcile", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such observation log" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "event"}\n')
    assert main(["health", str(bad)]) == 2
    assert "header" in capsys.readouterr().err
    assert main(["reconcile", str(tmp_path)]) == 2
    assert "folder" in capsys.readouterr().err


def test_health_text_json_and_exit_status(capsys):
    assert main(["health", str(SCENARIOS / "stuck_switch.jsonl")]) == 1
    text = capsys.readouterr().out
    assert "switch_stuck at" in text and "Persistent faults" in text
    assert main(["health", str(SCENARIOS / "healthy_overlap.jsonl"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["kind"] == "health" and d["drops"] == 12 and d["ok"] == 12 and d["faults"] == []


def test_reconcile_from_stdin_through_the_real_entry_point():
    log = (SCENARIOS / "healthy_overlap.jsonl").read_text()
    r = subprocess.run([sys.executable, "-m", "coindrel", "reconcile", "-"], input=log, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 12
