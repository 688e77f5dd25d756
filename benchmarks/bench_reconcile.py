"""Reconciler benchmark: false alarms, fault detection and diagnosis, speed.

    PYTHONPATH=controller python benchmarks/bench_reconcile.py            # the full run (a few minutes)
    PYTHONPATH=controller python benchmarks/bench_reconcile.py --quick    # a smaller one
    ... --source virtual                                                  # logs from the virtual board

Healthy part: whole simulated matches (computer players, realistic timing
jitter, players sometimes dropping before the last cascade ended, some on
the Holes variant and on the mirrored board): every drop must reconcile ok.

Fault part: for every fault type at many places, one match with the fault
injected after drop 10 (persistent faults fixed 20 drops later). Scored:

- flagged: the first evidence of the fault (the first drop whose sensors
  differ from the same match without the fault, or the events the fault
  itself made outside drops) is reported as a mismatch;
- top-1: the first diagnosis names the right fault and place, counted where
  every simplest explanation the reconciler found contains the true fault
  (the evidence tells it apart); listed: where it does not, the true fault is
  among the diagnoses;
- drops to confidence: drops the fault affected until the reconciler is
  >= 80% sure of it (persistent faults);
- false alarms: mismatches on drops no fault affected (before, after a fix,
  after a one-off was explained);
- p99 diagnosis time per reconciled group.

Prints a Markdown table (docs/reconciler.md has the last figures).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import defaultdict

from coindrel.engine import BoardState, MatchRandom, Variants, geometry_by_name
from coindrel.reconcile import Reconciler
from coindrel.reconcile.sbench import FIX_AFTER, INJECT_AT, KINDS, ONE_OFF, make_injection, places, score_run, state_at
from coindrel.reconcile.synth import match_entries, synthesize
from coindrel.reconcile.world import marginals

def reconcile(run, geometry, start, variants=Variants()):
    """Feed a run's events as the daemon would; returns (reports, confidence
    track: after each batch, (last drop number, marginals))."""
    rec = Reconciler(geometry, start, variants)
    reports, track = [], []
    for ev in run.events:
        rec.feed(ev)
        batch = rec.poll(ev.t)
        if batch:
            reports.extend(batch)
            track.append((len(reports), marginals(rec.worlds)))
    batch = rec.flush()
    if batch:
        reports.extend(batch)
        track.append((len(reports), marginals(rec.worlds)))
    return rec, reports, track


def pct(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


# -- healthy matches ------------------------------------------------------------


def healthy(matches: int, seed: int, overlap: float = 0.15) -> dict:
    standard = geometry_by_name("standard")
    mirrored = standard.mirrored()
    drops = mismatches = strays = count_errors = 0
    times = []
    wall = time.perf_counter()
    rng = MatchRandom(seed)
    examples = []
    for m in range(matches):
        variants = Variants(holes=rng.random() < 0.25)
        g = mirrored if rng.random() < 0.1 else standard
        start = BoardState.random(MatchRandom(seed * 7919 + m), g, holes=variants.holes)
        start, entries = match_entries(seed * 1000 + m, start, variants=variants)
        run = synthesize(start, entries, (), seed=seed * 1000 + m, overlap=overlap, variants=variants)
        _, reports, _ = reconcile(run, g, start, variants)
        numbered = [r for r in reports if r.drop is not None]
        drops += len(run.drops)
        count_errors += len(numbered) != len(run.drops)
        bad = [r for r in reports if not r.ok]
        mismatches += sum(1 for r in bad if r.drop is not None)
        strays += sum(1 for r in reports if r.drop is None)
        if bad and len(examples) < 3:
            examples.append((m, bad[0].to_json()))
        times.extend(r.search_ms for r in reports)
    return {
        "matches": matches, "drops": drops, "mismatches": mismatches, "outside": strays, "count_errors": count_errors,
        "p50_ms": pct(times, 0.5), "p99_ms": pct(times, 0.99), "max_ms": max(times) if times else 0.0,
        "wall_s": time.perf_counter() - wall, "examples": examples, "times": times,
    }


# -- fault runs --------------------------------------------------------------------

def fault_runs(seed: int, per_kind: int | None, kinds=KINDS) -> tuple[dict, list]:
    g = geometry_by_name("standard")
    results = defaultdict(list)
    times = []
    for kind in kinds:
        ps = places(kind, g)
        if per_kind:
            rng = MatchRandom(seed + len(kind))
            ps = [ps[rng.randbelow(len(ps))] for _ in range(per_kind)] if per_kind < len(ps) else ps
        for i, place in enumerate(ps):
            for attempt in range(6):
                mseed = seed * 100_000 + sum(map(ord, kind)) % 1000 * 100 + i * 7 + attempt
                start, entries = match_entries(mseed)
                entries = entries[: INJECT_AT + FIX_AFTER + 12]
                inj = make_injection(kind, place, state_at(start, entries, INJECT_AT))
                if inj is None:
                    continue
                run = synthesize(start, entries, [inj], seed=mseed)
                rec, reports, track = reconcile(run, g, start)
                times.extend(r.search_ms for r in reports)
                res = score_run(kind, inj, run, reports, track)
                if res.get("exercised") or attempt == 5:
                    results[kind].append(res)
                    break
    return results, times


def virtual_fault_runs(seed: int, per_kind: int | None, kinds=KINDS) -> tuple[dict, list]:
    """The same fault types and places on the virtual board (its own physics,
    hub model and fault injection): the fault starts at 20 s of a match and,
    when persistent, stays to the end of the match."""
    from coindrel.reconcile import vbench

    g = geometry_by_name("standard")
    results = defaultdict(list)
    times = []
    for kind in kinds:
        ps = places(kind, g)
        if per_kind and per_kind < len(ps):
            rng = MatchRandom(seed + len(kind))
            ps = [ps[rng.randbelow(len(ps))] for _ in range(per_kind)]
        for i, place in enumerate(ps):
            for attempt in range(4):
                mseed = seed * 100_000 + sum(map(ord, kind)) % 1000 * 100 + i * 7 + attempt
                spec = vbench.spec_text(kind, place, 20.0, None)
                header, events, truth = vbench.run_virtual(mseed, [spec])
                rec, reports, track = vbench.reconcile_virtual(header, events)
                times.extend(r.search_ms for r in reports)
                res = vbench.score(kind, truth, reports, track)
                if res.get("exercised") or attempt == 3:
                    results[kind].append(res)
                    break
    return results, times


def summarise(results: dict) -> list[dict]:
    rows = []
    for kind in KINDS:
        rs = results.get(kind, [])
        ex = [r for r in rs if r.get("exercised")]
        fl = [r for r in ex if r.get("flagged")]
        tell = [r for r in fl if r.get("tellable")]
        untell = [r for r in fl if not r.get("tellable")]
        conf = [r["to_confidence"] for r in ex if "to_confidence" in r]
        finite = [c for c in conf if c != math.inf]
        twin = [r.get("to_confidence_twins", math.inf) for r in ex if "to_confidence" in r]
        clean = sum(r.get("clean", 0) for r in rs)
        fa = sum(r.get("false_alarms", 0) for r in rs)
        rows.append({
            "caught": sum(1 for r in ex if r.get("caught")) / len(ex) if ex else float("nan"),
            "before": sum(r.get("false_alarms_before", 0) for r in rs),
            "kind": kind, "runs": len(rs), "exercised": len(ex),
            "flagged": len(fl) / len(ex) if ex else float("nan"),
            "top1": sum(r["top1"] for r in tell) / len(tell) if tell else float("nan"), "tellable": len(tell),
            "listed": sum(r["listed"] for r in untell) / len(untell) if untell else float("nan"), "untellable": len(untell),
            "conf_median": statistics.median(finite) if finite else float("nan"),
            "conf_never": sum(1 for c in conf if c == math.inf), "conf_n": len(conf),
            "twin_never": sum(1 for c in twin if c == math.inf),
            "false_alarms": fa, "clean": clean,
            "count_errors": sum(1 for r in rs if r.get("count_error")),
        })
    return rows


def fmt(v, kind="pct"):
    if isinstance(v, float) and math.isnan(v):
        return "–"
    if kind == "pct":
        return f"{100 * v:.0f}%"
    return f"{v:g}"


def print_healthy(title: str, h: dict) -> None:
    print(f"## {title} ({h['matches']} matches, {h['drops']} drops, {h.get('wall_s', 0):.1f} s)\n")
    print("| drops | mismatches | reports outside drops | drop-count errors | diagnosis p50 | p99 | max |")
    print("|---|---|---|---|---|---|---|")
    t = h["times"]
    print(f"| {h['drops']} | {h['mismatches']} | {h['outside']} | {h['count_errors']} | "
          f"{pct(t, 0.5):.2f} ms | {pct(t, 0.99):.2f} ms | {max(t) if t else 0:.1f} ms |\n")
    for m, ex in h["examples"]:
        print(f"example false alarm (match {m}): {ex}", file=sys.stderr)


def print_faults(title: str, rows: list, wall: float, virtual: bool) -> None:
    print(f"## {title} ({sum(r['runs'] for r in rows)} runs, {wall:.1f} s)\n")
    extra = " | named in a mismatch at some drop | alarms before the fault" if virtual else ""
    print("| fault | runs (exercised) | first wrong drop flagged | top-1 right (tellable) | true fault listed (not tellable) "
          f"| drops to >=80% sure (median; never) | false alarms / clean drops{extra} |")
    print("|---|---|---|---|---|---|---|" + ("---|---|" if virtual else ""))
    for r in rows:
        if not r["runs"]:
            continue
        conf = "one-off" if r["kind"] in ONE_OFF else f"{fmt(r['conf_median'], 'n')}; {r['conf_never']}/{r['conf_n']}"
        if r["kind"] not in ONE_OFF and r["twin_never"] != r["conf_never"]:
            conf += f" ({r['twin_never']} with its twin)"
        tail = f" | {fmt(r['caught'])} | {r['before']}" if virtual else ""
        print(f"| {r['kind']} | {r['runs']} ({r['exercised']}) | {fmt(r['flagged'])} | {fmt(r['top1'])} ({r['tellable']}) "
              f"| {fmt(r['listed'])} ({r['untellable']}) | {conf} | {r['false_alarms']} / {r['clean']}{tail} |")
    print()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="100 healthy matches, 12 places per fault type")
    ap.add_argument("--matches", type=int, default=None, help="healthy matches (default 1000)")
    ap.add_argument("--places", type=int, default=None, help="places per fault type (default: every place)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", choices=("synth", "virtual", "both"), default="both",
                    help="synth: the reconciler's own generator; virtual: the virtual board (coindrel.virtual)")
    ap.add_argument("--skip-healthy", action="store_true")
    ap.add_argument("--skip-faults", action="store_true")
    ap.add_argument("--overlap", type=float, default=0.15, help="chance a healthy drop comes before the last cascade ended")
    ap.add_argument("--kinds", default=None, help="comma-separated fault types to run")
    args = ap.parse_args(argv)
    matches = args.matches or (100 if args.quick else 1000)
    per_kind = args.places or (12 if args.quick else None)
    kinds = args.kinds.split(",") if args.kinds else KINDS
    all_times = []
    sources = ("synth", "virtual") if args.source == "both" else (args.source,)
    for source in sources:
        name = "synthetic board (reconcile.synth)" if source == "synth" else "virtual board (coindrel.virtual)"
        if not args.skip_healthy:
            t0 = time.perf_counter()
            if source == "synth":
                h = healthy(matches, args.seed, args.overlap)
            else:
                from coindrel.reconcile.vbench import healthy_virtual

                h = healthy_virtual(matches, args.seed, args.overlap)
            h["wall_s"] = time.perf_counter() - t0
            all_times += h["times"]
            print_healthy(f"Healthy, {name}", h)
        if args.skip_faults:
            continue
        t0 = time.perf_counter()
        results, times = (fault_runs if source == "synth" else virtual_fault_runs)(args.seed, per_kind, kinds)
        all_times += times
        print_faults(f"Faults, {name}", summarise(results), time.perf_counter() - t0, source == "virtual")
    if not all_times:
        return 0
    print(f"Diagnosis time per reconciled group over every run: p50 {pct(all_times, 0.5):.2f} ms, "
          f"p99 {pct(all_times, 0.99):.2f} ms, max {max(all_times):.1f} ms ({len(all_times)} groups).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
