"""The reconciler against its own synthetic board (``synth``): which faults to
inject where, and how a run's reports score against the synthetic truth.
Used by benchmarks/bench_reconcile.py; ``vbench`` is the same for the
virtual board."""

from __future__ import annotations

import math

from ..engine import (
    BoardState,
    EntrySensorDead,
    ExitSensorDead,
    HallFault,
    Jam,
    PadNotHolding,
    SwitchStuck,
    drop,
    geometry_by_name,
)
from ..engine.core import COIN, HOLE
from .faults import CoinAdded, CoinRemoved, EntrySensorChatter, ExitSensorChatter, MovedByHand, SwitchUnseated, twins
from .synth import INJECT_BEFORE, Injection

G = geometry_by_name("standard")
INJECT_AT = 10
FIX_AFTER = 20
CONFIDENT = 0.8


KINDS = [
    "switch_stuck", "pad_not_holding", "jam", "hall_fault (stuck)", "hall_fault (inverted)", "hall_fault (drift)",
    "switch_unseated", "exit_sensor_dead", "entry_sensor_dead", "exit_sensor_chatter", "entry_sensor_chatter",
    "moved_by_hand", "coin_added", "coin_removed",
]
ONE_OFF = {"moved_by_hand", "coin_added", "coin_removed"}


def places(kind: str, g) -> list:
    labels = [g.labels[s] for s in range(g.switch_count)]
    if kind == "jam":
        return [(lab, side) for lab in labels for side in (0, 1)]
    if kind in ("exit_sensor_dead", "exit_sensor_chatter"):
        return list(range(g.exit_count))
    if kind in ("entry_sensor_dead", "entry_sensor_chatter"):
        return list(range(g.entry_count))
    return labels


def make_injection(kind: str, place, state: BoardState):
    g = state.geometry
    mode = ""
    if kind == "switch_stuck":
        f = SwitchStuck(place)
    elif kind == "pad_not_holding":
        f = PadNotHolding(place)
    elif kind == "jam":
        f = Jam(*place)
    elif kind.startswith("hall_fault"):
        f, mode = HallFault(place), kind.split("(")[1].rstrip(")")
    elif kind == "switch_unseated":
        f = SwitchUnseated(place)
    elif kind == "exit_sensor_dead":
        f = ExitSensorDead(place)
    elif kind == "exit_sensor_chatter":
        f = ExitSensorChatter(place)
    elif kind == "entry_sensor_dead":
        f = EntrySensorDead(place)
    elif kind == "entry_sensor_chatter":
        f = EntrySensorChatter(place)
    elif kind == "moved_by_hand":
        f = MovedByHand(place)
    elif kind == "coin_added":
        if state.codes[g.index(place)] & COIN:
            return None
        f = CoinAdded(place)
    else:
        if not state.codes[g.index(place)] & COIN or state.codes[g.index(place)] == HOLE:
            return None
        f = CoinRemoved(place)
    until = None if kind in ONE_OFF else INJECT_AT + FIX_AFTER
    return Injection(f, INJECT_AT, until, mode)


def state_at(start: BoardState, entries, k: int) -> BoardState:
    s = start.copy()
    for e in entries[:k]:
        s = drop(s, [e]).board
    return s


def align(drops, reports) -> list:
    """The report of each true drop (same entry, nearest in time), or None."""
    numbered = [r for r in reports if r.drop is not None]
    out, used = [], set()
    for d in drops:
        best = None
        for i, r in enumerate(numbered):
            if i in used or r.entry != d.entry or abs(r.t - d.t) > 0.3:
                continue
            if best is None or abs(r.t - d.t) < abs(numbered[best].t - d.t):
                best = i
        if best is not None:
            used.add(best)
        out.append(numbered[best] if best is not None else None)
    return out


def score_run(kind, inj, run, reports, track) -> dict:
    truth = (inj.fault.name, inj.fault.where)
    numbered = align(run.drops, reports)
    extra = sum(1 for r in reports if r.drop is not None) - sum(1 for r in numbered if r is not None)
    out = {"count_error": extra != 0 or any(r is None and not d.silent for r, d in zip(numbered, run.drops))}
    t_inj = run.drops[inj.drop].t - INJECT_BEFORE
    accept = set()
    # First evidence: events the fault made by itself, else the first wrong drop.
    evidence = None
    if run.stray_times and abs(run.stray_times[0] - t_inj) < 1e-6:
        after = [r for r in reports if r.t >= t_inj - 1e-6]
        evidence = after[0] if after else None
        out["exercised"] = True
    else:
        wrong = [d for d in run.drops if d.wrong and not d.silent and not d.masked]
        out["exercised"] = bool(wrong)
        if wrong:
            evidence = numbered[wrong[0].index]
            # A fault can first act silently (a coin put on a pad tipped on to
            # rest lower down, a jam stopping a coin that would have come to
            # rest): the first drop any sensor can tell from a healthy one
            # shows a coin where none was believed, or none where one was.
            # Naming that coin is as right as the evidence allows.
            where = [h for h in wrong[0].hidden if h[0] == truth[0]]
            if kind in ("coin_added", "coin_removed") and len(where) == 1:
                truth = where[0]
            accept |= set(wrong[0].hidden)
    if not out["exercised"]:
        return out
    out["flagged"] = evidence is not None and not evidence.ok
    if out["flagged"]:
        accept.add(truth)
        diag = [(f.fault.name, f.fault.where) for f in evidence.diagnosis]
        out["listed"] = bool(accept & set(diag))
        tellable = bool(evidence.alternatives) and all(accept & alt for alt in evidence.alternatives)
        out["tellable"] = tellable
        out["top1"] = bool(diag) and diag[0] in accept
        found = [f for f in evidence.diagnosis if (f.fault.name, f.fault.where) == truth]
        out["confidence_at_detection"] = found[0].confidence if found else 0.0
    # Drops to confidence (persistent faults): affected drops until >= CONFIDENT.
    if kind not in ONE_OFF:
        affected = [d.index for d in run.drops if d.affected and inj.drop <= d.index < (inj.until or 10**9)]
        if affected:
            for name, group in (("to_confidence", {inj.fault}), ("to_confidence_twins", {inj.fault, *twins(inj.fault, G)})):
                keys = {(f.name, f.where) for f in group}
                at = next((n for n, marg in track if sum(v for f, v in marg.items() if (f.name, f.where) in keys) >= CONFIDENT), None)
                out[name] = math.inf if at is None else max(1, sum(1 for i in affected if i < at))
    # False alarms: mismatches on drops nothing affected (a one-off's own first wrong drop excepted).
    fa = 0
    clean = 0
    for d, r in zip(run.drops, numbered):
        if (d.affected and not d.masked) or d.silent:
            continue
        clean += 1
        fa += r is None or not r.ok
    out["false_alarms"], out["clean"] = fa, clean
    return out
