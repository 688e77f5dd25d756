"""The reconciler against the virtual board (controller/coindrel/virtual): its
observation logs go through the same live reconciler, and its ground-truth
log (faults, what each drop physically did, which faults acted on it) says
what the reports should have said. Used by benchmarks/bench_reconcile.py
``--source virtual`` and by a test.
"""

from __future__ import annotations

from ..engine import Variants
from .reconciler import Reconciler
from .world import marginals

# Fault specs the virtual board understands, by the benchmark's kind names.
SPECS = {
    "switch_stuck": "switch_stuck@{s}",
    "pad_not_holding": "pad_not_holding@{s}",
    "jam": "jam@{s} {side} outlet",
    "hall_fault (stuck)": "hall_fault@{s},mode=stuck",
    "hall_fault (inverted)": "hall_fault@{s},mode=inverted",
    "hall_fault (drift)": "hall_fault@{s},mode=drift",
    "switch_unseated": "switch_unseated@{s}",
    "exit_sensor_dead": "exit_sensor_dead@exit {x}",
    "entry_sensor_dead": "entry_sensor_dead@entry {e}",
    "exit_sensor_chatter": "exit_sensor_chatter@exit {x}",
    "entry_sensor_chatter": "entry_sensor_chatter@entry {e}",
    "moved_by_hand": "moved_by_hand@{s}",
    "coin_added": "coin_added@{s}",
    "coin_removed": "coin_removed@{s}",
}
SHOWS_AT_ONCE = {"hall_fault (inverted)", "hall_fault (drift)", "switch_unseated", "moved_by_hand"}
ONE_OFF = {"moved_by_hand", "coin_added", "coin_removed"}


def spec_text(kind: str, place, t: float, until: float | None) -> str:
    if kind == "jam":
        text = SPECS[kind].format(s=place[0], side="left" if place[1] == 0 else "right")
    elif "exit" in kind:
        text = SPECS[kind].format(x=place + 1)
    elif "entry" in kind:
        text = SPECS[kind].format(e=place + 1)
    else:
        text = SPECS[kind].format(s=place)
    text += f",t={t}"
    if until is not None and kind not in ONE_OFF:
        text += f",until={until}"
    return text


def run_virtual(seed: int, faults=(), overlap: float = 0.15, holes: bool = False, players=("greedy", "random")):
    """One match on the virtual board: (log header, events, truth lines)."""
    from ..virtual import BoardConfig, Collect, PlayerSpec, Scenario, TruthLog, fault_from_text, run_scenario
    from ..virtual.obs import log_header

    config = BoardConfig(seed=seed, variants=Variants(holes=holes))
    specs = [fault_from_text(f, config.geometry) for f in faults]
    scn = Scenario(config, players=PlayerSpec(one=players[0], two=players[1], matches=1, overlap=overlap), faults=specs)
    collect, truth = Collect(), TruthLog()
    board = run_scenario(scn, outputs=[collect], truth=truth)
    return log_header(board), list(collect.events), truth.lines


def reconcile_virtual(header, events):
    """Live reconciliation of a virtual run; returns (reconciler, reports, confidence track)."""
    rec = Reconciler(None, header.board_state(), header.variants)
    reports, track = [], []
    for ev in events:
        rec.feed(ev)
        batch = rec.poll(ev.t)
        if batch:
            reports.extend(batch)
            track.append((batch[-1].t, marginals(rec.worlds)))
    batch = rec.flush()
    if batch:
        reports.extend(batch)
        track.append((batch[-1].t, marginals(rec.worlds)))
    return rec, reports, track


def align(truth_drops: list, reports: list) -> list:
    """The report of each true drop (same entry, nearest in time), or None."""
    numbered = [r for r in reports if r.drop is not None]
    out, used = [], set()
    for d in truth_drops:
        entry, t = d["entry"] - 1, d["t"]
        best = None
        for i, r in enumerate(numbered):
            if i in used or r.entry != entry or abs(r.t - t) > 0.3:
                continue
            if best is None or abs(r.t - t) < abs(numbered[best].t - t):
                best = i
        if best is not None:
            used.add(best)
        out.append(numbered[best] if best is not None else None)
    return out


def score(kind: str, truth: list, reports: list, track: list) -> dict:
    """How the reports did on one run with one injected fault (id 1)."""
    fault = next((d for d in truth if d.get("kind") == "fault" and d.get("id") == 1), None)
    drops = [d for d in truth if d.get("kind") == "drop"]
    numbered = align(drops, reports)
    # A drop no sensor saw (entry beam dead, the coin came to rest on the top
    # row) cannot have a report; the next drop that meets its coin will tell.
    silent = [r is None and not d["exits"] and not d["flips"] for d, r in zip(drops, numbered)]
    out = {"count_error": any(r is None and not q for r, q in zip(numbered, silent))
           or sum(1 for r in numbered if r is not None) != sum(1 for r in reports if r.drop)}
    if fault is None or fault.get("applied") is False:
        out["exercised"] = False
        return out
    key = (fault["fault"], fault["where"])
    t0 = fault["t"]
    acted = [i for i, d in enumerate(drops) if 1 in d.get("faults", [])]
    belief = kind in ("coin_added", "coin_removed") and not acted
    if belief:
        # The truth does not mark the drop that met the coin (or its absence);
        # the first mismatch after the fault must be it, and name it.
        acted = [i for i, d in enumerate(drops) if d["t"] > t0 and fault["where"] in d.get("flips", {})][:1]
    strays = [d for d in truth if d.get("kind") == "stray" and d.get("fault") == 1]
    out["exercised"] = bool(acted or strays or kind in SHOWS_AT_ONCE)
    out["false_alarms_before"] = sum(1 for r in reports if not r.ok and r.t_end < t0 - 1e-6)
    if not out["exercised"]:
        return out
    after = [r for r in reports if r.t_end >= t0 - 1e-6]
    if kind in SHOWS_AT_ONCE or strays:
        # The events the fault made itself: every report of the group they fell in.
        group = [r for r in after if after and r.t_end == after[0].t_end]
        evidence = next((r for r in group if not r.ok), group[0] if group else None)
    else:
        # The first drop the fault changed in a way the sensors could show:
        # a physical outcome unlike the engine's, or a beam that missed a coin.
        physical = kind in ("switch_stuck", "pad_not_holding", "jam")
        seen = [i for i in acted if not silent[i] and (not physical or _visible(drops[i]))]
        evidence = numbered[seen[0]] if seen else None
        if not seen:
            out["exercised"] = False
            return out
    if belief:
        evidence = next((r for r in after if not r.ok), None)
        out["flagged"] = evidence is not None and key in [(f.fault.name, f.fault.where) for f in evidence.diagnosis]
    else:
        out["flagged"] = evidence is not None and not evidence.ok
    first_bad = evidence if out["flagged"] else next((r for r in after if not r.ok), None)
    out["caught"] = any(key in [(f.fault.name, f.fault.where) for f in r.diagnosis] for r in after if not r.ok)
    if first_bad is not None:
        diag = [(f.fault.name, f.fault.where) for f in first_bad.diagnosis]
        out["listed"] = key in diag or (kind == "switch_unseated" and ("hall_fault", key[1]) in diag)
        out["tellable"] = bool(first_bad.alternatives) and all(key in alt for alt in first_bad.alternatives)
        out["top1"] = bool(diag) and diag[0] == key
    if kind not in ONE_OFF:
        from ..engine import geometry_by_name
        from .faults import fault_from_key, twins

        g = geometry_by_name("standard")
        alike = {(f.name, f.where) for f in twins(fault_from_key(*key, g), g)}
        for name, keys in (("to_confidence", {key}), ("to_confidence_twins", {key} | alike)):
            at = next((t for t, m in track if sum(p for f, p in m.items() if (f.name, f.where) in keys) >= 0.8), None)
            if any(not silent[i] for i in acted):
                out[name] = float("inf") if at is None else max(1, sum(1 for i in acted if drops[i]["t"] < at))
    until = fault.get("until")
    clean = [r for d, r in zip(drops, numbered) if r is not None and not d.get("faults") and r.t_end < t0]
    if until is not None:
        clean += [r for d, r in zip(drops, numbered) if r is not None and not d.get("faults") and d["t"] > until + 5.0]
    out["clean"] = len(clean)
    out["false_alarms"] = sum(1 for r in clean if not r.ok)
    return out


def _visible(d: dict) -> bool:
    engine = d.get("engine") or {}
    physical = sorted(d["exits"]) != sorted(engine.get("exits", [])) or d["flips"] != engine.get("flips", {})
    return physical or bool(d.get("missed")) or not d.get("engine")


def healthy_virtual(matches: int, seed: int, overlap: float = 0.15) -> dict:
    drops = mismatches = outside = errors = 0
    times = []
    examples = []
    for m in range(matches):
        header, events, truth = run_virtual(seed * 1000 + m, overlap=overlap, holes=(m % 4 == 3))
        rec, reports, _ = reconcile_virtual(header, events)
        true_drops = [d for d in truth if d.get("kind") == "drop"]
        drops += len(true_drops)
        numbered = align(true_drops, reports)
        errors += any(r is None for r in numbered) or len(numbered) != sum(1 for r in reports if r.drop)
        bad = [r for r in reports if not r.ok]
        mismatches += sum(1 for r in bad if r.drop is not None)
        outside += sum(1 for r in reports if r.drop is None)
        if bad and len(examples) < 3:
            examples.append((m, bad[0].to_json()))
        times.extend(r.search_ms for r in reports)
    return {"matches": matches, "drops": drops, "mismatches": mismatches, "outside": outside, "count_errors": errors,
            "times": times, "examples": examples}
