"""Someone leaning on the board just after a cascade (issue 13, board5 case
lean_called_unseated): R4S7, which no coin of the drop reaches, reads
``mid`` 0.22 s after the drop's last exit, in its quiet spell, and ``L``
again 0.82 s later. A lean that passes leaves every rocker where it was: the
drop is ok (it was called switch_unseated 0.56). A rocker that stays off its
seat is still called, on the drop or between turns."""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log
from coindrel.reconcile.offseat import SETTLE

CASE = Path(__file__).resolve().parents[2] / "benchmarks" / "models" / "board5" / "cases" / "lean_called_unseated.jsonl"
MID, BACK = 65.501977, 66.322869  # R4S7's readings


def _lines(shift: float = 0.0, back: bool = True, next_at: float | None = None) -> list[str]:
    out = []
    for ln in CASE.read_text().splitlines():
        d = json.loads(ln)
        if d.get("switch") == "R4S7":
            if d["t"] == BACK and not back:
                continue
            d["t"] += shift
        elif d.get("kind") == "entry" and d["t"] > MID:
            d["t"] = next_at if next_at is not None else d["t"] + shift
        out.append(json.dumps(d))
    return out


def _records(lines: list[str]) -> list[dict]:
    return [r.to_json() for r in reconcile_log(load(lines))[1]]


def _flags(records: list[dict]) -> list[tuple]:
    return [(r["drop"], r["diagnosis"][0]["fault"], r["diagnosis"][0]["where"]) for r in records if r["verdict"] == "mismatch"]


def test_a_lean_just_after_the_cascade_flags_nothing():
    records = _records(_lines())
    assert _flags(records) == []
    first = records[0]
    assert first["drop"] == 1 and first["verdict"] == "ok"
    assert first["t_end"] < MID, "the lean's readings are not the drop's"


def test_a_lean_held_between_turns_past_the_quiet_spell_flags_nothing():
    # the same lean 2 s later: its own group, which waits for the rocker
    assert _flags(_records(_lines(shift=2.0))) == []


def test_a_rocker_that_stays_off_its_seat_is_still_called():
    # in the drop's quiet spell, and the next coin goes in while it is off: judged with the drop
    assert _flags(_records(_lines(back=False))) == [(1, "switch_unseated", "R4S7")]
    # between turns, off longer than a lean lasts: its own line
    records = _records(_lines(shift=2.0, back=False, next_at=MID + 2.0 + SETTLE + 1.0))
    assert _flags(records) == [(None, "switch_unseated", "R4S7")]
    assert [r["verdict"] for r in records if r["drop"] is not None] == ["ok", "ok"]
