"""What the reconciler knows of the board's persistent faults, as plain
data: the worlds it weighs (their faults, weights, coins stopped at jams),
how often each known fault acted (``rates``) and the health tracker's
records of them. The table saves it in the state directory after every
change and gives it to the reconciler it builds after a restart, so a
rocker known stuck or a hall known lying is known on (a restarted table
that forgot a lying hall believed that hall on "Board is right", then
blamed the next mismatch on a jam that was not there).

Only persistent faults are kept: a hand, a lost frame happened once and
the match's journal has them. ``load`` raises ``ValueError`` naming what it
could not read; the reconciler is then left as it was.
"""

from __future__ import annotations

import math

from ..engine.core import HOLE
from .faults import fault_from_key, is_persistent, key
from .health import FaultRecord, HealthTracker
from .world import World, normalise

VERSION = 1
# the tracker's counts (drops, ok, mismatches...), as it names them
COUNTS = tuple(k for k, v in vars(HealthTracker()).items() if type(v) is int)


def dump(rec) -> dict:
    """``rec``'s persistent-fault knowledge (JSON-ready, deterministic)."""
    g = rec.geometry
    worlds = []
    for w in rec.worlds:
        faults = sorted(key(f) for f in w.faults if is_persistent(f))
        jammed = sorted([g.labels[s], side, n] for (s, side), n in w.jammed)
        worlds.append({"codes": list(w.codes), "faults": [list(k) for k in faults], "logw": round(w.logw, 6),
                       "jammed": jammed})
    t = rec.tracker
    records = []
    for f, r in t.records.items():
        if is_persistent(f):
            records.append({"fault": f.name, "where": f.where, "first_drop": r.first_drop, "last_drop": r.last_drop,
                            "reports": r.reports, "top": r.top, "best": round(r.best_confidence, 6),
                            "last": round(r.last_confidence, 6)})
    records.sort(key=lambda d: (d["fault"], d["where"]))
    return {
        "version": VERSION,
        "board": g.name,
        "drops": rec.drops,
        "worlds": worlds,
        "acted": _counted(rec.rates.acted),
        "spared": _counted(rec.rates.spared),
        "records": records,
        "counts": {k: getattr(t, k) for k in COUNTS},
    }


def _counted(d: dict) -> list:
    return sorted([*key(f), n] for f, n in d.items() if is_persistent(f))


def load(rec, data, codes: bytes | None = None) -> None:
    """Give ``rec`` the knowledge ``data`` (``dump``'s). ``codes``: the board
    as believed now; the saved worlds keep their own boards when the best of
    them is that board (the same moment), else each takes ``codes`` with its
    faults (what the table believes wins; the faults carry over). Faults at
    a switch that is a hole on ``codes`` are left out (a match with Holes)."""
    g = rec.geometry
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise ValueError("not a board-faults record this version writes")
    if data.get("board") != g.name:
        raise ValueError(f"its faults are of board {data.get('board')!r}, not {g.name!r}")
    codes = bytes(rec.worlds[0].codes if codes is None else codes)
    drops = _count(data.get("drops"), "drops")
    try:
        saved = [_world(g, w) for w in data["worlds"]]
        acted = _counts(data.get("acted") or [], g)
        spared = _counts(data.get("spared") or [], g)
        records = [_record(d, g) for d in data.get("records") or []]
        counts = {k: _count((data.get("counts") or {}).get(k, 0), k) for k in COUNTS}
    except (KeyError, TypeError, IndexError) as e:
        raise ValueError(f"a field is missing or of the wrong kind ({type(e).__name__}: {e})") from None
    if not saved:
        raise ValueError("it holds no world")
    holes = {s for s, c in enumerate(codes) if c == HOLE}

    def here(f) -> bool:
        s = getattr(f, "switch", None)
        return s is None or g.index(s) not in holes

    same = saved[0][0] == codes
    worlds = [World(g, w_codes if same else codes, frozenset(f for f in faults if here(f)), logw, jammed if same else ())
              for w_codes, faults, logw, jammed in saved]
    rec.worlds = normalise(worlds, max(len(worlds), 1), -math.inf)
    rec.drops = max(rec.drops, drops)
    rec.rates.acted.update({f: n for f, n in acted.items() if here(f)})
    rec.rates.spared.update({f: n for f, n in spared.items() if here(f)})
    t = rec.tracker
    for r in records:
        if here(r.fault):
            t.records[r.fault] = r
    for k, n in counts.items():
        setattr(t, k, max(getattr(t, k), n))


def knows(rec) -> bool:
    return bool(rec.drops or rec.tracker.records or any(w.faults for w in rec.worlds))


def carry(old, new) -> None:
    """A new reconciler for the same board (a match with other variants)
    takes what ``old`` knew of its faults."""
    if knows(old):
        load(new, dump(old), new.worlds[0].codes)


def _world(g, d: dict):
    codes = bytes(d["codes"])
    if len(codes) != g.switch_count:
        raise ValueError(f"a world has {len(codes)} switches, the board {g.switch_count}")
    if any(c > HOLE for c in codes):
        raise ValueError("a world's board has a switch code that is no side, coin or hole")
    faults = frozenset(_fault(name, where, g) for name, where in d["faults"])
    logw = d["logw"]
    if not isinstance(logw, (int, float)) or isinstance(logw, bool) or not math.isfinite(logw) or logw > 0:
        raise ValueError(f"a world's weight {logw!r} is not a log weight (0 or less)")
    jammed = tuple(sorted(((g.index(label), int(side)), _count(n, "coins at a jam")) for label, side, n in d["jammed"]))
    return codes, faults, float(logw), jammed


def _fault(name, where, g):
    if not isinstance(name, str) or not isinstance(where, str):
        raise ValueError(f"a fault {name!r} at {where!r} is not a name and a place")
    try:
        f = fault_from_key(name, where, g)
    except Exception as e:  # noqa: BLE001 - an unknown name or place: named, never a traceback
        raise ValueError(f"{name} at {where}: {e}") from None
    if not is_persistent(f):
        raise ValueError(f"{name} is not a persistent fault")
    return f


def _counts(rows, g) -> dict:
    return {_fault(name, where, g): _count(n, f"{name} count") for name, where, n in rows}


def _record(d: dict, g) -> FaultRecord:
    r = FaultRecord(_fault(d["fault"], d["where"], g))
    for k in ("first_drop", "last_drop"):
        if d.get(k) is not None:
            setattr(r, k, _count(d[k], k))
    r.reports, r.top = _count(d.get("reports", 0), "reports"), _count(d.get("top", 0), "top")
    r.best_confidence, r.last_confidence = _share(d.get("best", 0.0)), _share(d.get("last", 0.0))
    return r


def _count(n, what: str) -> int:
    if type(n) is not int or n < 0:
        raise ValueError(f"{what} {n!r} is not a count")
    return n


def _share(p) -> float:
    if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0.0 <= p <= 1.0:
        raise ValueError(f"a confidence {p!r} is not between 0 and 1")
    return float(p)


__all__ = ["carry", "dump", "knows", "load"]
