"""False alarms on board5's healthy sessions, sorted by what the board did
(the truth's tags and notes, never the reconciler's internals), with an
example per class (``cases/make.py`` cuts the cases out).

    PYTHONPATH=controller python -m benchmarks.models.board5.classes --seeds 1000 1100
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict

from benchmarks import scoring
from benchmarks.models.board5 import Session

ORDER = ("double", "pair", "slow_roll", "waited", "quick", "high")


def reconcile(log: list[dict]) -> list[dict]:
    from coindrel.reconcile.offline import load, reconcile_log

    _, reports = reconcile_log(load([json.dumps(d) for d in log]))
    return [r.to_json() for r in reports]


def classify(records: list[dict], truth: list[dict]) -> list[tuple[str, int, dict | None]]:
    """(class, record index, its coin) for every flagged record."""
    coins = scoring.coins_of(truth)
    notes = [d for d in truth if d.get("kind") == "note"]
    where = scoring.align(coins, records)
    coin_of = {k: c for c, k in zip(coins, where) if k is not None}
    out, last_flag = [], None
    for k, r in enumerate(records):
        if r.get("verdict") != "mismatch":
            continue
        t0, t1 = r.get("t", 0.0), r.get("t_end", r.get("t", 0.0))
        near = [n for n in notes if t0 - 1.5 <= n["t"] <= t1 + 0.5 and n["what"] != "restart"]
        group = [c for c in coins if t0 - 1.0 <= c["t"] <= t1 + 0.05]
        tags = {t for c in group for t in c.get("tags", ())}
        said = " ".join(d.get("say", "") for d in r.get("diagnosis", []))
        reset = [n for n in notes if n["what"] == "restart" and n["t"] - 2.0 <= t1
                 and (t0 <= n["end"] + 3.0 or "events were lost" in said or "lost events" in said)]
        prev = next((records[j]["state"] for j in range(k - 1, -1, -1) if records[j].get("state")), None)
        coin = coin_of.get(k)
        off = coin is not None and coin.get("before") and prev is not None and prev != coin["before"]
        if reset or "restart" in tags:
            cls = "hub reset (at or after)"
        elif off and any(n["what"] == "restart" and n["t"] < t0 for n in notes):
            cls = "hub reset (the belief off since)"
        elif off:
            cls = "belief already off before the drop"
        elif near:
            cls = f"{near[0]['what']} between turns"
        elif r.get("drop") is None:
            cls = "outside any drop, no note"
        else:
            cls = next((t for t in ORDER if t in tags), None)
            if cls is None:
                cls = "follow-on" if last_flag is not None and t0 - last_flag < 6.0 else "plain"
        last_flag = t1
        out.append((cls, k, coin))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs=2, default=(1000, 1100), metavar=("FROM", "TO"))
    ap.add_argument("--drops", type=int, default=70)
    ap.add_argument("--no-extras", action="store_true", help="no taps, leans or phones between turns")
    ap.add_argument("--no-restarts", action="store_true", help="no hub resets")
    a = ap.parse_args(argv)
    count, names, examples = Counter(), defaultdict(Counter), {}
    drops = 0
    for seed in range(*a.seeds):
        log, truth = Session(seed, drops=a.drops, quiet_extras=not a.no_extras, restarts=not a.no_restarts).run()
        records = reconcile(log)
        drops += len(scoring.coins_of(truth))
        for cls, k, coin in classify(records, truth):
            r = records[k]
            count[cls] += 1
            names[cls][(r.get("diagnosis") or [{}])[0].get("fault")] += 1
            examples.setdefault(cls, (seed, r, log, truth))
    print(f"{drops} healthy drops, {sum(count.values())} flagged records")
    for cls, n in count.most_common():
        seed, r, log, truth = examples[cls]
        top = ", ".join(f"{k} {v}" for k, v in names[cls].most_common(4))
        print(f"- {cls}: {n} (first named: {top}); e.g. seed {seed}: "
              + json.dumps({k: r.get(k) for k in ("drop", "t", "entry", "expected", "observed")})[:400])
    return 0


if __name__ == "__main__":
    sys.exit(main())
