"""Cut board5's cases (cases/README.md) from the sessions they came from:

    PYTHONPATH=controller python -m benchmarks.models.board5.cases.make

Each case: the log from a calm moment before it (the header the board the
controller believed then, or the true board) to a few seconds after, and
what ``coindrel reconcile`` says about it now."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmarks import scoring
from benchmarks.models.board5 import Session
from benchmarks.models.board5.classes import reconcile

HERE = Path(__file__).resolve().parent

# name: (seed, faults, the coin to start at (a number, or a time: the last calm coin before it),
#        seconds after its entry to end at, header: "true" or "believed")
CASES = {
    "hub_reset_group_stays_open": (1161, [], 65.0, 20.0, "true"),
    "lean_called_unseated": (1060, [], 64.7, 4.0, "true"),
    "coin_removed_merged_ok": (407699195, [("coin_removed", "R5S8", 12, 1.0, {})], 15, 8.0, "believed"),
    "jam_named_exit_dead": (1047664193, [("jam", "R5S2 right outlet", 12, 1.0, {})], 34, 40.0, "believed"),
    "outage_coin_found_later": (1007, [], 111.95, 4.5, "true"),
    "drop_just_after_reset": (1013, [], 1, 54.0, "true"),
    "reset_drops_shown_by_snapshot": (1670, [], 48.3, 9.0, "true"),
}


def cut(name: str):
    seed, faults, first, seconds, header = CASES[name]
    kw = {"drops": 45} if faults else {}
    log, truth = Session(seed, faults=faults, **kw).run()
    coins = scoring.coins_of(truth)
    if isinstance(first, float):
        c0 = [c for c in coins if c.get("before") and c["t"] <= first][-1]
    else:
        c0 = next(c for c in coins if c["drop"] == first)
    if header == "believed":
        records = reconcile(log)
        prior = [r for r in records if r.get("state") and r.get("t", 0) < c0["t"] - 0.01]
        state = prior[-1]["state"]
    else:
        state = c0["before"]
    t0, t1 = c0["t"] - 0.002, c0["t"] + seconds
    part = [dict(log[0], state=state)] + [e for e in log[1:] if t0 <= e["t"] <= t1]
    rows = [d for d in truth if d.get("kind") == "fault" or (d.get("kind") == "note") or
            (d.get("kind") == "coin" and t0 <= d["t"] <= t1)]
    return part, rows


def main() -> int:
    for name in CASES:
        part, rows = cut(name)
        (HERE / f"{name}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in part))
        (HERE / f"{name}.truth.jsonl").write_text("".join(json.dumps(e) + "\n" for e in rows))
        out = reconcile(part)
        flagged = [r for r in out if r.get("verdict") in ("mismatch", "revised")]
        print(f"{name}: {len(part) - 1} events, {sum(1 for r in out if r.get('drop'))} drop records, {len(flagged)} flagged or revised")
        for r in flagged[:6]:
            d = r.get("diagnosis") or [{}]
            print(f"  drop {r.get('drop')} revises {r.get('revises')} t {r.get('t')} t_end {r.get('t_end')}: "
                  f"{d[0].get('fault')} {d[0].get('where')} {d[0].get('confidence')}"
                  + (f" / {d[1].get('fault')} {d[1].get('where')}" if len(d) > 1 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
