"""A handful: two or three coins dropped together into one entry are in its
beam at once, so it breaks once; the cascade proves the coins (sensing.md
section 4, issue 13's board4): a healthy drop, one record per coin."""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

CASE = Path(__file__).resolve().parents[2] / "benchmarks" / "models" / "board4" / "cases" / "three_coins_one_beam_break.jsonl"


def _lines() -> list[dict]:
    return [json.loads(line) for line in CASE.read_text().splitlines() if line.strip()]


def _reconcile(lines: list[dict]) -> list[dict]:
    _, reports = reconcile_log(load([json.dumps(d) for d in lines]))
    return [r.to_json() for r in reports]


def test_three_coins_one_break_are_three_coins():
    """One break of entry 6; R1S6 flips twice: the first coin rests on its
    pad, the second flips it (tipping the first on), the third flips it back."""
    out = _reconcile(_lines())
    six = [r for r in out if r.get("entry") == 6]
    assert [r["verdict"] for r in out] == ["ok"] * 4
    assert len(six) == 3 and all(r["entry_seen"] for r in six)
    assert sum(r["observed"]["flips"].get("R1S6", 0) for r in six) == 2
    assert out[-1]["state"] == ["RLRLrRRr", "RolLroL", "RRRlLrrL", "RLoRoRr", "RRRRRLRR"]


def test_a_second_flip_long_after_the_break_is_no_handful():
    """The same readings with R1S6's second flip 0.87 s after the break, 0.67 s after the first flip ended: coins
    in the beam together reach the rocker together, so that is no coin of
    the handful: flagged."""
    lines = _lines()
    for d in lines:
        if d.get("switch") == "R1S6" and d["t"] > 30.1:
            d["t"] = round(d["t"] + 0.6, 6)
    lines = [lines[0]] + sorted(lines[1:], key=lambda d: d["t"])
    out = _reconcile(lines)
    assert out[0]["entry"] == 6 and out[0]["verdict"] == "mismatch"
