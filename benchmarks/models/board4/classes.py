"""False alarms on board4's healthy sessions, sorted by what the healthy
board did around them (the truth's ``notes``: coins in an entry beam together,
a coin held in a slot, a rocker's bounce or rattle, a hub restart).

A flagged record's class is the notes of the coins in its group (from 1.5 s
before its entry to its end) and of the notes near it; a flagged record with
none is *found later* when the coin into its entry before it was one of a
handful in the beam together (its last coin may have rested unseen on the
entry's pad, found by this one), a *follow-on* when an earlier record of the
same session was flagged (the belief it was predicted from was already
wrong), else "unexplained".

    PYTHONPATH=controller python -m benchmarks.models.board4.classes --seeds 0 100
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter

from benchmarks import scoring
from benchmarks.models.board4 import Session


BEAM = "in the entry beam with the coin before"


def _kind(note: str) -> str:
    note = re.sub(r"^R\d+S\d+ ", "", note)
    return re.sub(r"held [0-9.]+ s", "held", note)


def classify(records: list[dict], truth: list[dict]) -> list[tuple[str, dict]]:
    coins = scoring.coins_of(truth)
    loose = [d for d in truth if d.get("kind") == "note"]
    out = []
    seen_flag = False
    for r in records:
        if r.get("verdict") != "mismatch":
            continue
        t0, t1 = r.get("t", 0.0) - 1.5, (r.get("t_end") or r.get("t", 0.0)) + 0.1
        why = {_kind(n) for c in coins if t0 <= c["t"] <= t1 for n in c.get("notes", ())}
        why |= {_kind(d["what"]) for d in loose if t0 - 1.0 <= d["t"] <= t1 + 1.0}
        before = [c for c in coins if c["t"] < t0 and c["entry"] == r.get("entry")]
        if why:
            key = " + ".join(sorted(why))
        elif before and BEAM in before[-1].get("notes", ()):
            key = "found later: " + BEAM
        else:
            key = "follow-on" if seen_flag else "unexplained"
        out.append((key, r))
        seen_flag = True
    return out


def main(argv=None) -> int:
    from benchmarks.bench_reconcile import reconcile_lines

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs=2, default=(0, 50), metavar=("FROM", "TO"))
    ap.add_argument("--examples", type=int, default=2)
    ap.add_argument("--without", nargs="*", default=(), choices=("touching", "held", "restart"),
                    help="sessions without these behaviours (the rest as always)")
    a = ap.parse_args(argv)
    classes: Counter = Counter()
    examples: dict = {}
    total = Counter()
    for seed in range(*a.seeds):
        off = set(a.without)
        log, truth = Session(seed, touching="touching" not in off, held="held" not in off,
                             restart=False if "restart" in off else None).run()
        records = reconcile_lines(log)[0]
        s = scoring.score_healthy(records, truth)
        for k in ("coins", "false_alarms", "unmatched", "extra_records"):
            total[k] += s[k]
        for key, r in classify(records, truth):
            classes[key] += 1
            examples.setdefault(key, []).append((seed, r))
    print(json.dumps(dict(total)))
    for key, n in classes.most_common():
        print(f"{n:5d}  {key}")
        for seed, r in examples[key][: a.examples]:
            print(f"       seed {seed}: " + json.dumps({k: r.get(k) for k in ("drop", "t", "entry", "expected", "observed")})[:300])
            print("         " + json.dumps(r.get("diagnosis", [])[:1])[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
