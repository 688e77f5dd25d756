"""A scorer that sees only ``coindrel reconcile``'s JSON lines (sensing.md
section 4, revision records included) and a board model's ground truth.

It knows nothing of the reconciler's internals and nothing of particular
faults: a fault is right when its name and place are; a drop is a false alarm
when nothing acted on it and its verdict is ``mismatch``. Truth format (both
board models give it; ``virtual_truth`` converts the virtual board's)::

    {"kind": "coin", "drop": 12, "t": 30.1, "entry": 4, "acted": [1]}
    {"kind": "fault", "id": 1, "fault": "switch_stuck", "where": "R3S2", "t": 29.0,
     "first_drop": 12}                      # or "first_effect": 29.4 (seconds)

A fault's evidence is the record of its first changed drop (the drop record
of that coin: same entry, nearest in time), or, for a fault that first showed
outside any drop, the first record from that moment on.
"""

from __future__ import annotations

from coindrel.engine import catalog

REVISION_WINDOW = 5  # revisions counted among the next five flagged or revised records
MATCH_DT = 0.35


def coins_of(truth: list[dict]) -> list[dict]:
    return [d for d in truth if d.get("kind") == "coin"]


def faults_of(truth: list[dict]) -> list[dict]:
    return [d for d in truth if d.get("kind") == "fault"]


def align(coins: list[dict], records: list[dict]) -> list:
    """The index (into ``records``) of each coin's drop record, or None."""
    drops = [(i, r) for i, r in enumerate(records) if r.get("drop") is not None]
    used: set = set()
    out = []
    for c in coins:
        best = None
        for i, r in drops:
            if i in used or r.get("entry") != c["entry"] or abs(r["t"] - c["t"]) > MATCH_DT:
                continue
            if best is None or abs(r["t"] - c["t"]) < abs(records[best]["t"] - c["t"]):
                best = i
        if best is not None:
            used.add(best)
        out.append(best)
    return out


def _key(d: dict) -> tuple:
    return d.get("fault"), d.get("where")


def _evidence(fault: dict, coins: list[dict], where: list, records: list[dict]):
    if fault.get("first_drop") is not None:
        n = fault["first_drop"]
        i = next((k for k, c in enumerate(coins) if c["drop"] == n), None)
        if i is None:
            return None
        if where[i] is not None:
            # Named earlier: a coin it acted on before its first wrong drop
            # (whose sensed difference looked like something healthy, a
            # double for a repeated count) whose record already flagged it.
            key = _key(fault)
            for j in range(i):
                k = where[j]
                if fault.get("id") in coins[j].get("acted", ()) and k is not None and records[k].get("verdict") == "mismatch" \
                        and key in [_key(d) for d in records[k].get("diagnosis", [])]:
                    return k
            return where[i]
        t = coins[i]["t"]  # no record of that coin (its entry beam missed it and nothing showed): the next record
        return next((k for k, r in enumerate(records) if r.get("t", -1) >= t - 0.01 and r.get("verdict") != "revised"), None)
    t = fault.get("first_effect")
    if t is None:
        return None
    # The record of the group it fell in (its first event to its last,
    # ``t_end``), else the first record after it.
    live = [(k, r) for k, r in enumerate(records) if r.get("verdict") != "revised"]
    inside = next((k for k, r in live if r.get("t", 1e18) - 0.01 <= t <= r.get("t_end", r.get("t", -1)) + 0.01), None)
    if inside is None:
        # A record's ``t`` is its coin's entry; a group can start earlier (a
        # hand's flip the coin then joined): the first record after it whose
        # group ran on past it is that group's.
        inside = next((k for k, r in live if t - 0.01 <= r.get("t", -1) <= t + 3.0), None)
        if inside is None:
            return None
        if records[inside].get("t_end", -1) < t:
            return inside
    # One group is one reconciliation: its flagged record, if any, speaks for it.
    group = [k for k, r in live if k >= inside and r.get("t_end") == records[inside].get("t_end")]
    return next((k for k in group if records[k].get("verdict") == "mismatch"), inside)


def score_faults(records: list[dict], truth: list[dict]) -> list[dict]:
    """One result per injected fault that acted: flagged, top1, top1_revised, listed."""
    coins = coins_of(truth)
    where = align(coins, records)
    out = []
    for f in faults_of(truth):
        res = {"fault": f["fault"], "where": f["where"], "rate": f.get("rate", 1.0), "exercised": False}
        k = _evidence(f, coins, where, records)
        if k is None:
            out.append(res)
            continue
        rec = records[k]
        res["exercised"] = True
        key = _key(f)
        diag = [_key(d) for d in rec.get("diagnosis", [])]
        res["flagged"] = rec.get("verdict") == "mismatch"
        res["top1_first"] = bool(diag) and diag[0] == key
        res["listed"] = key in diag
        res["top1"] = res["top1_first"]
        # Revisions of that drop among the next records that flag or revise.
        later = [r for r in records[k + 1:] if r.get("verdict") in ("mismatch", "revised")][:REVISION_WINDOW]
        for r in later:
            if r.get("verdict") == "revised" and rec.get("drop") is not None and r.get("revises") == rec.get("drop"):
                rdiag = [_key(d) for d in r.get("diagnosis", [])]
                res["listed"] = res["listed"] or key in rdiag
                res["top1"] = bool(rdiag) and rdiag[0] == key
        out.append(res)
    return out


def score_healthy(records: list[dict], truth: list[dict]) -> dict:
    """False alarms on drops nothing acted on, and whether every coin got its record."""
    coins = coins_of(truth)
    where = align(coins, records)
    clean = [k for c, k in zip(coins, where) if not c.get("acted")]
    flagged = {k for k, r in enumerate(records) if r.get("verdict") == "mismatch"}
    outside = [k for k in flagged if records[k].get("drop") is None]
    return {
        "coins": len(coins),
        "clean": len(clean),
        "false_alarms": sum(1 for k in clean if k is not None and k in flagged) + len(outside),
        "unmatched": sum(1 for k in where if k is None),
        "extra_records": sum(1 for r in records if r.get("drop") is not None) - sum(1 for k in where if k is not None),
        "examples": [records[k] for k in sorted(flagged)][:2],
    }


def virtual_truth(lines: list[dict], events: list[dict] = ()) -> list[dict]:
    """The virtual board's ground truth (coindrel.virtual.truth) in this format.

    Its drop lines are written when a drop finished; coins are its drops in
    order of entry. A fault's first changed drop is the first drop whose line
    names it and whose sensed outcome differs from the engine's healthy
    prediction (or a beam missed it); a fault whose first effect was a
    cascade no drop caused (a stray) or that changed readings at once shows
    at that time."""
    drops = sorted((d for d in lines if d.get("kind") == "drop"), key=lambda d: d["t"])
    out = [{"kind": "coin", "drop": i + 1, "t": d["t"], "entry": d["entry"], "acted": list(d.get("faults", []))}
           for i, d in enumerate(drops)]
    number = {id(d): i + 1 for i, d in enumerate(drops)}
    for f in (d for d in lines if d.get("kind") == "fault" and d.get("applied") is not False):
        fid = f["id"]
        row = {"kind": "fault", "id": fid, "fault": f["fault"], "where": f["where"], "t": f["t"],
               "rate": f.get("chance", 1.0)}
        acted = [d for d in drops if fid in d.get("faults", []) and _changed(d, f["where"])]
        strays = [d for d in lines if d.get("kind") == "stray" and d.get("fault") == fid]
        if acted and _unsensed(acted[0]):
            # A coin no sensor saw at all (its entry beam missed it and it came to
            # rest at once): the next coin to meet where it rests shows it.
            rest, t0 = acted[0]["rested"], acted[0]["t"]
            acted = [d for d in drops if d["t"] > t0 and any(r in d.get("flips", {}) or r in d.get("rested", []) for r in rest)][:1]
        alike = False  # every later drop checked, none shows it
        after = f["t"]
        if not acted and f["fault"] in (catalog.COIN_ADDED, catalog.COIN_REMOVED):
            # A coin put on or taken off a pad: it shows at the first drop whose
            # true outcome differs from what the board without that change does.
            kind, found = _first_unlike(f, drops)
            acted = [found] if kind == "drop" else []
            alike = kind == "alike"
            after = found["t"] - 1e-9 if kind == "unknown" and found is not None else after
        if not acted and not alike and f["fault"] in catalog.CATALOG \
                and catalog.row(f["fault"]).asif is catalog.AsIf.BELIEF:
            # A changed board state (no drop marked): it shows when a coin next meets that switch
            # (not one of the drops found to do what the board without that change does).
            # (A physical fault that never acted on a coin changed nothing: it is not exercised.)
            acted = [d for d in drops if d["t"] > after and (f["where"] in d.get("flips", {}) or f["where"] in d.get("rested", []))][:1]
        first = acted[0] if acted else None
        # Readings of that switch changing at once (a hand, a hall going wrong).
        # A physical fault (the catalog's kind: it changes what coins do) moves
        # no reading by itself: a coin passing that switch just then is its drop's.
        physical = f["fault"] in catalog.CATALOG and catalog.row(f["fault"]).asif is catalog.AsIf.PHYSICS
        shown = None if physical else next(
            (e["t"] for e in events if e.get("switch") == f["where"] and f["t"] - 1e-6 <= e["t"] <= f["t"] + 0.6), None)
        starts = [t for t in (strays[0]["t"] if strays else None, shown) if t is not None]
        if starts and (first is None or min(starts) < first["t"]):
            row["first_effect"] = min(starts)
        elif first is not None:
            row["first_drop"] = number[id(first)]
        out.append(row)
    return out


def _first_unlike(f: dict, drops: list[dict]) -> tuple[str, dict | None]:
    """Where ``f``'s coin first shows: ("drop", d) for the first drop after
    ``f`` whose true outcome is not the engine's from the true board with
    that coin undone, past drops in flight together whose combined outcome
    (rules.md section 4 defines only that) is the engine's; ("alike", None)
    when every later drop does what the board without the change does (it
    never showed); ("unknown", d) when it cannot be told from ``d`` on (drops
    in flight together that differ, another fault acting), d None when not at
    all (a board that does not show the change)."""
    from coindrel.engine import BoardState, drop, standard_geometry
    from coindrel.engine.core import COIN

    later = [d for d in drops if d["t"] > f["t"]]
    if not later or not later[0].get("before"):
        return "unknown", None
    g = standard_geometry()
    if f["where"] not in g.labels:
        return "unknown", None
    s = g.labels.index(f["where"])
    board = BoardState.parse(later[0]["before"], g)
    codes = bytearray(board.codes)
    if bool(codes[s] & COIN) != (f["fault"] == catalog.COIN_ADDED):
        return "unknown", None  # the board does not show the change (the coin fell on at once)
    codes[s] ^= COIN  # undo the coin put on (or taken off) the pad
    board = BoardState(g, bytes(codes))
    i = 0
    while i < len(later):
        group = [later[i]]  # with the drops in flight with it (the truth's ``overlap``, both ways)
        while i + len(group) < len(later) and _joins(later[i + len(group)], group):
            group.append(later[i + len(group)])
        i += len(group)
        if any(set(d.get("faults", ())) - {f["id"]} for d in group):
            return "unknown", group[0]  # another fault acted: the board without this change is not known
        try:
            out = drop(board, [d["entry"] - 1 for d in group])
        except Exception:  # noqa: BLE001 -- a board the engine refuses: cannot be told
            return "unknown", group[0]
        flips = {g.labels[k]: c for k, c in enumerate(out.flip_counts) if c}
        seen_flips: dict = {}
        for d in group:
            for label, c in d["flips"].items():
                seen_flips[label] = seen_flips.get(label, 0) + c
        if sorted(x + 1 for x in out.exits) != sorted(x for d in group for x in d["exits"]) or flips != seen_flips:
            # (drops in flight together whose combined outcome differs: the
            # virtual board's lines split them by coin, its timing may differ
            # from the engine's order there: not told)
            return ("drop" if len(group) == 1 else "unknown"), group[0]
        board = out.board
    return "alike", None


def _joins(d: dict, group: list[dict]) -> bool:
    return any(d["drop"] in m.get("overlap", ()) or m["drop"] in d.get("overlap", ()) for m in group)


def _unsensed(d: dict) -> bool:
    return not d["exits"] and not d["flips"] and f"entry {d['entry']}" in d.get("missed", []) and bool(d.get("rested"))


def _changed(d: dict, where: str) -> bool:
    engine = d.get("engine")
    if not engine:  # overlapping drops: only the combined outcome is known; did it touch the place?
        label = where.split(" outlet")[0].split(" ")[0] if where.startswith("R") else where
        return label in d.get("flips", {}) or label in d.get("rested", []) or any(f"exit {x}" == where for x in d["exits"]) \
            or f"entry {d['entry']}" == where
    return sorted(d["exits"]) != sorted(engine.get("exits", [])) or d["flips"] != engine.get("flips", {}) or bool(d.get("missed"))
