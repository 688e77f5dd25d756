"""A coin slid slowly into its slot: its edge breaks the entry beam, and the
hand holds it there a second or more before it drops (issue 13, board4).
The silence after it went in is the player's: the drop waits for its
cascade instead of closing as a drop that made no event, followed by a
cascade taken for a coin the beam missed."""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

CASE = Path(__file__).resolve().parents[2] / "benchmarks" / "models" / "board4" / "cases" / "coin_held_in_slot.jsonl"


def _reconcile(lines: list[dict]) -> list[dict]:
    _, reports = reconcile_log(load([json.dumps(d) for d in lines]))
    return [r.to_json() for r in reports]


def _lines() -> list[dict]:
    return [json.loads(line) for line in CASE.read_text().splitlines() if line.strip()]


def test_a_coin_held_in_the_slot_is_one_healthy_drop():
    """Drop 18 (entry 3, 71.40): its rocker moves 1.22 s after the break,
    after 18 drops the board's quiet window was learned from."""
    out = _reconcile(_lines())
    assert [r["verdict"] for r in out] == ["ok"] * len(out)
    held = [r for r in out if r.get("t", 0) > 71]
    assert [r["entry"] for r in held] == [3, 5] and held[0]["entry_seen"]
    assert held[0]["observed"]["exits"] == [1, 3, 4]


def test_a_cascade_long_after_is_no_held_coin():
    """The same cascade 3 s after the break (no hand holds a coin that long
    in this board's window): the drop closes without it, flagged."""
    lines = _lines()
    for d in lines:
        if d.get("kind") in ("switch", "exit") and 72.5 < d["t"] < 74:
            d["t"] = round(d["t"] + 1.8, 6)
    out = _reconcile([lines[0]] + sorted(lines[1:], key=lambda d: d["t"]))
    held = [r for r in out if r.get("t", 0) > 71]
    assert held[0]["entry"] == 3 and held[0]["verdict"] == "mismatch"
