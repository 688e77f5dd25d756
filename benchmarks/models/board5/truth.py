"""The truth of a board5 session in ``benchmarks/scoring.py``'s format:
coins (with the faults that acted on each, and tags saying what was
unusual), faults with where their first effect shows in what the sensors
say, and notes (taps, leans, a phone: healthy, for ``classes.py``).

A fault's first effect: the first drop whose sensed outcome (entry edges,
exit edges, flips) differs from what the engine (rules.md) does from the
board as it was when the fault began (for a person's coin_added /
coin_removed: the board without that change), evolved drop by drop. Drops
whose coins fell together are compared together (rules.md section 4
defines only their combined outcome); a difference there shows at the
moment the fault acted (the scorer takes that group's flagged record).
Hall and seat faults show at the first event their channel reports that a
healthy channel would not (or leaves out); a hand at its first reading."""

from __future__ import annotations

from collections import Counter

from .faults import PHYSICAL


def hall_first_effect(faults, s: int, hall: list, healthy: list, hub) -> None:
    f = next(f for f in faults.all if f.place == s and f.hall is not None)
    tol = 2.5 * hub.scan
    for k in range(max(len(hall), len(healthy))):
        a = hall[k] if k < len(hall) else None
        b = healthy[k] if k < len(healthy) else None
        if a is None or b is None or a[1] != b[1] or abs(a[0] - b[0]) > tol:
            f.first_effect = hub.stamp(min(x[0] for x in (a, b) if x is not None))
            return
    f.first_effect = None


def make(coins, notes, phys, hub, faults, log) -> list[dict]:
    out = []
    for c in coins:
        row = dict(c)
        row["acted"] = sorted(phys.acted.get(c["drop"], ()))
        row["tags"] = sorted(set(c["tags"]) | phys.tags.get(c["drop"], set()))
        out.append(row)
    coin_rows = list(out)
    for f in faults.all:
        if not f.applied:
            continue
        row = {"kind": "fault", "id": f.id, "fault": f.name, "where": f.where, "t": hub.stamp(f.t), "rate": f.rate}
        if f.name in PHYSICAL or f.name in ("coin_added", "coin_removed"):
            _shadow(row, f, coin_rows, phys, hub)
        elif f.name == "moved_by_hand":
            t0 = hub.stamp(f.t) - 1e-6
            row["first_effect"] = next((e["t"] for e in log[1:] if e.get("switch") == f.where and e["t"] >= t0), None)
        elif f.hall is not None and f.hall["mode"] == "frozen" and any(f.id in ids for ids in phys.acted.values()):
            # a stuck channel shows first as the flip it does not report: that coin's drop
            d = min(d for d, ids in phys.acted.items() if f.id in ids)
            if phys.overlapped(d):
                row["first_effect"] = f.first_effect
            else:
                row["first_drop"] = d
        elif getattr(f, "first_effect", None) is not None:
            row["first_effect"] = f.first_effect
        out.append(row)
    return out + notes


def _groups(coins, phys):
    """Coins in entry order, those whose drops fell together in one group."""
    group, end = [], -1.0
    for c in coins:
        span = phys.span.get(c["drop"], [c["t"], c["t"]])
        if group and span[0] > end + 0.05:
            yield group
            group = []
        group.append(c)
        end = max(end, span[1])
    if group:
        yield group


def first_unlike(rows: list[str], coins: list[dict], phys, t0: float):
    """The first group of coins after ``t0`` whose sensed outcome is not the
    engine's from board ``rows`` (rules.md section 9), evolved group by
    group; None when every one is. A coin no sensor saw at all (its entry
    beam missed it and it came to rest at once) shows nothing yet: the
    board goes on as the controller can know it, without that coin, and the
    difference shows when a later coin meets its pad."""
    from coindrel.engine import BoardState, drop

    empty = {"entry": 0, "exits": [], "flips": {}}
    board = BoardState.parse(rows)
    for group in _groups(sorted((c for c in coins if c["t"] > t0), key=lambda c: c["t"]), phys):
        seen = [c for c in group if phys.seen.get(c["drop"], empty) != empty]
        if not seen:
            continue
        o = drop(board, [c["entry"] - 1 for c in seen])
        flips, exits, entries = Counter(), [], 0
        for c in seen:
            got = phys.seen[c["drop"]]
            entries += got["entry"]
            exits += got["exits"]
            flips.update(got["flips"])
        want = {s: n for s, n in enumerate(o.flip_counts) if n}
        if entries != len(seen) or sorted(exits) != sorted(o.exits) or dict(flips) != want:
            return group
        board = o.board
    return None


def _shadow(row: dict, f, coins, phys, hub) -> None:
    # f.board: taken just before the fault began (for a person's coin, the board without it).
    group = first_unlike(f.board, coins, phys, hub.stamp(f.t))
    if group is None:
        return
    if len(group) == 1:
        row["first_drop"] = group[0]["drop"]
    else:
        at = phys.acted_at.get(f.id)
        row["first_effect"] = hub.stamp(at) if at is not None and at >= group[0]["t"] - 0.01 else group[0]["t"]
    acted = next((c for c in group if f.id in c["acted"]), group[0])
    acted["acted"] = sorted(set(acted["acted"]) | {f.id})
