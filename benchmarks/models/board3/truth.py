"""board3's ground truth, in the lines benchmarks/scoring.py reads.

A fault shows at the first stretch of board activity (a drop, drops in
flight together, a stray cascade, a hand, a sensor changing by itself)
whose *sensed* outcome (entry and exit counts, every rocker's settled flips
and its last reading) differs from what a healthy board with healthy sensors
would have shown from the wood as it was without that fault: the rules'
cascade (geometry.cascade) from a shadow of the wood in which the fault never
happened. A stretch that is one drop's alone is that drop (``first_drop``);
otherwise the time it first showed (``first_effect``).
"""

from __future__ import annotations

from collections import Counter

from .geometry import Board, Physical, cascade

SETTLE = 0.07  # after its last movement a stretch's readings have settled (two 4 ms scans, a bounce)
# Faults whose change may first show where they did not act: a coin put on
# or taken off a pad, a coin a jam kept that would have rested unseen.
LATENT = ("coin_added", "coin_removed", "jam")
# Faults of a rocker's reading: they act wherever that rocker is in the stretch.
SENSING = ("hall_fault", "switch_unseated")


def stretches(wood, events) -> list:
    """Merged activity intervals: [t0, t1, members (drop numbers and stray keys)]."""
    spans = [(a, b + SETTLE, key) for key, (a, b) in wood.activity.items()]
    covered = sorted(spans)
    for t, _, tags in events:  # a sensor changing while nothing moved (a drifting hall, a blocked beam)
        if not any(a - 0.002 <= t <= b for a, b, _ in covered):
            spans.append((t, t + 0.3, ("sensor", tuple(tags))))
    out = []
    for a, b, key in sorted(spans, key=lambda s: s[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
            out[-1][2].append(key)
        else:
            out.append([a, b, [key]])
    return out


def sensed(board: Board, events, i0: int, t1: float, settled: dict):
    """Counts and flips from the events from index i0 up to t1; returns (outcome, next index)."""
    entries, exits, flips, final, tags = Counter(), [], Counter(), {}, set()
    first = None
    i = i0
    while i < len(events) and events[i][0] <= t1:
        t, d, tg = events[i]
        first = t if first is None else first
        tags |= set(tg)
        if d["kind"] == "entry":
            entries[d["entry"] - 1] += 1
        elif d["kind"] == "exit":
            exits.append(d["exit"] - 1)
        else:
            s = board.by_label[d["switch"]]
            pos = d["pos"]
            final[s] = pos
            if pos in ("L", "R"):
                if settled.get(s) is not None and settled[s] != pos:
                    flips[s] += 1
                settled[s] = pos
        i += 1
    return (entries, sorted(exits), flips, final, tags, first), i


def differs(board: Board, seen, shadow: Physical, entries: list):
    """(whether the sensed outcome is not the healthy one, the switches either touched)"""
    s_entries, s_exits, s_flips, s_final, _, _ = seen
    exits, flips, _ = cascade(board, shadow, entries)
    touched = set(flips) | set(s_flips) | set(s_final)
    if s_entries != Counter(entries) or s_exits != exits:
        return True, touched
    for s in set(flips) | set(s_flips):
        if flips.get(s, 0) != s_flips.get(s, 0):
            return True, touched
    return any(pos != "LR"[shadow.side[s]] for s, pos in s_final.items() if s not in board.holes), touched


def ground_truth(board: Board, start: Physical, wood, specs: list, plan: list, entry_t: dict, events: list) -> list:
    entry_of = {k: e for _, e, k in plan}
    acted = {k: set(v) for k, v in wood.acted.items()}
    groups = stretches(wood, events)
    real = start.copy()
    muts = sorted(wood.mutations, key=lambda m: m[0])
    mi = 0
    ei = 0
    settled = {}
    for s in range(len(board.switches)):
        if s not in board.holes:
            settled[s] = "LR"[start.side[s]]
    shadows = {}  # fault id -> Physical
    shown = {}  # fault id -> ("drop", n) or ("t", seconds)
    for a, b, members in groups:
        while mi < len(muts) and muts[mi][0] < a:
            _, s, side, coin = muts[mi]
            real.side[s], real.coin[s] = side, coin
            mi += 1
        while ei < len(events) and events[ei][0] < a - 0.002:
            ei += 1  # (cannot happen: every event lies in a stretch)
        seen, ei = sensed(board, events, ei, b, settled)
        drops = sorted((m for m in members if isinstance(m, int)), key=lambda k: entry_t[k])
        entries = [entry_of[k] for k in drops]
        strays = {wood.stray_of.get(m) for m in members if isinstance(m, tuple) and m[0] == "stray"}
        sensor_tags = {tg for m in members if isinstance(m, tuple) and m[0] == "sensor" for tg in m[1]}
        for f in specs:
            fid = f["id"]
            if fid in shown or f["t_on"] > b:
                continue
            if fid not in shadows:
                shadows[fid] = real.copy()
            did = fid in strays or fid in sensor_tags or fid in seen[4] or any(fid in acted.get(k, ()) for k in drops)
            wrong, touched = differs(board, seen, shadows[fid], entries)
            did = did or board.by_label.get(f["where"]) in touched and f["fault"] in SENSING
            if seen[5] is None:
                continue  # nothing sensed at all (a coin no beam saw came to rest): it shows where that coin is met
            if wrong and (did or f["fault"] in LATENT):
                if len(members) == 1 and drops and seen[0][entries[0]]:
                    shown[fid] = ("drop", drops[0])
                elif len(members) == 1 and drops:
                    # its entry beam missed it: no record of its own, what it did shows from its first event
                    shown[fid] = ("t", seen[5])
                else:
                    firsts = [entry_t[k] for k in drops] + ([seen[5]] if seen[5] is not None else [])
                    shown[fid] = ("t", min(firsts) if firsts else a)
                for k in drops:
                    acted.setdefault(k, set()).add(fid)
    out = []
    for t, e, k in plan:
        out.append({"kind": "coin", "drop": k, "t": round(entry_t[k], 6), "entry": e + 1, "acted": sorted(acted.get(k, ()))})
    for f in specs:
        if f["t_on"] == float("inf"):
            continue
        row = {"kind": "fault", "id": f["id"], "fault": f["fault"], "where": f["where"], "t": round(f["t_on"], 6),
               "rate": f["rate"]}
        if f.get("mode"):
            row["mode"] = f["mode"]
        got = shown.get(f["id"])
        if got is not None:
            row["first_drop" if got[0] == "drop" else "first_effect"] = got[1] if got[0] == "drop" else round(got[1], 6)
        out.append(row)
    return out
