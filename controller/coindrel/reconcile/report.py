"""Drop reports (sensing.md section 4), one per drop, and one per group of
events that belong to no drop (``"drop": null``).

When several coins were in flight together the group is one cascade (rules.md
section 4), explained as a whole; it is split back into drops the way the
rules score it, one coin after another in the order they went in: each drop's
true outcome is its share of the explained cascade, and each drop's observed
events are taken from the group's in time order, as many as its share.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import BoardState, drop
from ..engine.core import COIN, PAD_R
from ..events import event_to_json


@dataclass
class DropReport:
    drop: int | None  # 1-based number, None for events outside any drop
    entry: int | None  # 0-based
    entry_seen: bool
    t: float
    expected_exits: tuple = ()  # 0-based
    expected_flips: dict = field(default_factory=dict)  # label -> count
    observed_exits: tuple = ()
    observed_flips: dict = field(default_factory=dict)  # label -> count (None: unknowable)
    verdict: str = "ok"
    diagnosis: list = field(default_factory=list)  # Findings, best first
    state: list = field(default_factory=list)  # 5 rows after this drop, as now believed
    scored_exits: tuple = ()  # where the coins really went, per the best explanation (0-based)
    events: list = field(default_factory=list)  # the events, for reports outside drops
    search_ms: float = 0.0  # diagnosis time for the group this drop was in
    cpu_ms: float = 0.0  # of which this thread ran (what other processes took left out)
    work: int = 0  # units of work that diagnosis did: evaluations, moves made, timing (deterministic)
    t_end: float = 0.0  # the last event of the group this drop was in
    # the last event of this drop's own share of the group (its coin's cascade; 0: t_end): a coin
    # resting at once ends long before a next coin grouped with it (a wrong belief kept the group open)
    t_last: float = 0.0
    alternatives: list = field(default_factory=list)  # (name, where) sets of the simplest explanations found
    carried: bool = False  # the rest of a coin that fell before the board was set anew (a new match): not checked

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"

    def to_json(self) -> dict:
        d = {
            "drop": self.drop,
            "entry": None if self.entry is None else self.entry + 1,
            "entry_seen": self.entry_seen,
            "t": round(self.t, 4),
            "expected": {"exits": [x + 1 for x in self.expected_exits], "flips": dict(sorted(self.expected_flips.items()))},
            "observed": {"exits": [x + 1 for x in self.observed_exits], "flips": dict(sorted(self.observed_flips.items()))},
            "verdict": self.verdict,
            "diagnosis": [f.to_json() for f in self.diagnosis],
            "state": list(self.state),
        }
        if self.t_end:
            d["t_end"] = round(self.t_end, 4)  # the last event of the group this drop was reconciled in
        if self.t_last and self.t_last != self.t_end:
            d["t_last"] = round(self.t_last, 4)  # and of this drop's own cascade, when that ended before
        if self.drop is None:
            d["events"] = [event_to_json(e) for e in self.events]
        if self.carried:
            d["carried"] = True
        return d


def rows(geometry, codes) -> list[str]:
    return BoardState(geometry, codes).rows()


def healthy(geometry, codes: bytes, entry: int):
    return drop(BoardState(geometry, codes), [entry])


def flips_by_label(labels, flips) -> dict:
    return {labels[s]: c for s, c in enumerate(flips) if c}


def drop_times(obs, cand, window: float = 0.12) -> list[tuple[float, int, bool]]:
    """``(t, entry, seen)`` for each coin of the best explanation, in time order."""
    seen = list(obs.entries)
    for m in cand.moves:
        if m.kind == "unchatter":  # every count of that entry soon after another is a repeat
            keep, last = [], None
            for t, e in seen:
                if e == m.s and last is not None and t - last <= window:
                    last = t
                    continue
                if e == m.s:
                    last = t
                keep.append((t, e))
            seen = keep
    out = [(t, e, True) for t, e in seen]
    for m in cand.moves:
        if m.kind == "handful":  # coins in the beam with that entry's first count: seen with it
            t = next((t for t, e in seen if e == m.s), obs.t0)
            out.extend([(t, m.s, True)] * m.side)
    last = seen[-1][0] if seen else obs.t0
    for m in cand.moves:
        if m.kind in ("entry", "entry+rest"):
            out.append((last if seen else obs.t0, m.s, False))
    out.sort(key=lambda x: x[0])
    return out


def drop_extras(obs, cand, order) -> list[int]:
    """Entry counts beyond one coin, per drop (a chattering entry beam)."""
    extra = [0] * len(order)
    for m in cand.moves:
        if m.kind == "unchatter":
            counts = [t for t, e in obs.entries if e == m.s]
            for i, (t, e, seen) in enumerate(order):
                if e == m.s and seen:
                    later = [c for c in counts if c > t and (i + 1 == len(order) or c < order[i + 1][0])]
                    extra[i] += len(later)
    return extra


def split(physics, cand, order: list[int]):
    """The explained cascade one coin after another: per drop (trace, codes before)."""
    table = physics.table(cand.stuck, cand.slips, cand.jams)
    codes = bytearray(cand.codes0)
    sticky = getattr(cand, "sticky", ())
    if sticky:  # a pivot that stuck on some coins: count its coins across the drops
        s = sticky[0]
        row = physics.row(s, True, s in cand.slips, (s, 0) in cand.jams, (s, 1) in cand.jams)
        passes = [0]
    out = []
    # a hand that moved a rocker between the coins (search's ``hand_at``): after the first k
    hands = sorted((m.side, m.s) for m in cand.moves if m.kind == "hand_at")
    for i, e in enumerate(order):
        while hands and hands[0][0] <= i:
            s = hands.pop(0)[1]
            old, coin = codes[s] & PAD_R, codes[s] & COIN
            codes[s] = 1 - old
            if coin:  # the coin it tipped falls on (no drop's: a hand's)
                physics.run(codes, [physics.geometry.outs[s][old]], table)
        before = bytes(codes)
        if sticky:
            trace = physics.run_sticky(codes, physics.starts([e]), table, s, row, sticky[1], passes)
        else:
            trace = physics.run(codes, physics.starts([e]), table)
        out.append((trace, before, bytes(codes)))
    return out


def attribute(times_by_key: dict, quotas: list[dict], ends: list | None = None, starts: list | None = None,
              journey: float | None = None) -> list[dict]:
    """Hand each key's events (time order) to the drops by their quotas, in
    drop order. Events beyond the quotas are repeats (a chattering beam): the
    ones closest to the event before them are taken as the repeats and go to
    that event's drop. ``ends`` (one time per drop) is raised to the last
    event each drop was handed. ``starts`` (when each drop's coin went in)
    and ``journey`` (the longest a coin's cascade goes on after it went in):
    an event later than that after a drop's coin went in is not that drop's
    when a later drop's coin can have made it (the earlier one missed it)."""
    out = [dict() for _ in quotas]
    for k, times in times_by_key.items():
        times = sorted(times)
        surplus = len(times) - sum(q.get(k, 0) for q in quotas)
        repeats = set()
        if surplus > 0:
            gaps = sorted(range(1, len(times)), key=lambda i: times[i] - times[i - 1])
            repeats = set(gaps[:surplus]) if len(times) > 1 else set()
        owner = []
        slots = [i for i, q in enumerate(quotas) for _ in range(q.get(k, 0))]
        j = 0
        for i, t in enumerate(times):
            if i in repeats and owner:
                owner.append(owner[-1])
                continue
            if starts is not None and journey is not None and j < len(slots) and t - starts[slots[j]] > journey:
                later = next((n for n in range(j + 1, len(slots)) if starts[slots[n]] <= t <= starts[slots[n]] + journey), None)
                if later is not None:
                    j = later
            owner.append(slots[j] if j < len(slots) else None)
            j += 1
        fallback = next((i for i in reversed(range(len(quotas))) if quotas[i].get(k)), len(quotas) - 1)
        for o, t in zip(owner, times):
            o = fallback if o is None else o
            out[o][k] = out[o].get(k, 0) + 1
            if ends is not None:
                ends[o] = max(ends[o], t)
    return out


def coin_difference(before: bytes, after: bytes) -> int:
    return sum(1 for a in after if a & COIN and a != 4) - sum(1 for b in before if b & COIN and b != 4)


def pads_differ(a: bytes, b: bytes) -> bool:
    return any((x & PAD_R) != (y & PAD_R) for x, y in zip(a, b))
