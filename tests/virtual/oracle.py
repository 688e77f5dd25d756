"""An independent reading of a virtual board's event stream, for tests.

It groups board events by the ground truth's drops (drops in flight together
form one group), counts what the sensors saw in each group (entries, exits,
settled flips per switch) and compares that with the engine. It also checks
the physical facts of sensing.md section 2 on the raw stream.
"""

from __future__ import annotations

from collections import Counter

from coindrel.engine import BoardState, drop
from coindrel.events import EntryEvent, ExitEvent, StatusEvent, SwitchEvent


def groups(truth_lines: list[dict]) -> list[list[dict]]:
    """Drops that were in flight together, as lists of truth drop lines (by start)."""
    drops = sorted((d for d in truth_lines if d["kind"] == "drop"), key=lambda d: d["drop"])
    out: list[list[dict]] = []
    end = -1.0
    for d in drops:
        if out and d["t"] <= end:
            out[-1].append(d)
            end = max(end, d["t_end"])
        else:
            out.append([d])
            end = d["t_end"]
    return out


def window(gs: list[list[dict]], i: int) -> tuple[float, float]:
    """Group ``i``'s events: from its first drop until the next group starts
    (the hub reports a beam a few samples after the coin broke it)."""
    t0 = gs[i][0]["t"] - 1e-6  # truth times are rounded to the microsecond
    t1 = gs[i + 1][0]["t"] - 1e-6 if i + 1 < len(gs) else float("inf")
    return t0, t1


def settled_changes(events, start_pos: dict[str, str]):
    """Per switch: list of (t_mid, t_side, from, to) settled changes, plus any
    reading patterns that break the one-flip-at-a-time contract."""
    pos = dict(start_pos)
    last_side = {k: v for k, v in start_pos.items() if v in ("L", "R")}
    mid_at: dict[str, float] = {}
    changes: dict[str, list] = {}
    wobbles: list = []
    for ev in events:
        if not isinstance(ev, SwitchEvent):
            continue
        s = ev.switch
        if ev.pos == "mid":
            mid_at[s] = ev.t
        elif ev.pos in ("L", "R"):
            before = last_side.get(s)
            if before is not None and before != ev.pos:
                changes.setdefault(s, []).append((mid_at.get(s), ev.t, before, ev.pos))
            elif before == ev.pos:
                wobbles.append((s, ev.t))
            last_side[s] = ev.pos
        pos[s] = ev.pos
    return changes, wobbles, pos


def observed_in(events, t0: float, t1: float, changes) -> dict:
    exits = sorted(ev.exit for ev in events if isinstance(ev, ExitEvent) and t0 <= ev.t <= t1)
    entries = sorted(ev.entry for ev in events if isinstance(ev, EntryEvent) and t0 <= ev.t <= t1)
    flips = Counter()
    for s, ch in changes.items():
        for t_mid, t_side, _, _ in ch:
            if t0 <= t_side <= t1:
                flips[s] += 1
    return {"entries": entries, "exits": exits, "flips": dict(flips)}


def expected_group(group: list[dict], geometry) -> dict:
    """The engine's outcome for a group of drops made one after another."""
    state = BoardState.parse(group[0]["before"], geometry)
    exits, flips = [], Counter()
    for d in group:
        out = drop(state, [d["entry"] - 1])
        exits += out.exits
        flips.update(out.flips_by_label())
        state = out.board
    return {"entries": sorted(d["entry"] - 1 for d in group), "exits": sorted(exits), "flips": dict(flips), "board": state}


def compare_with_engine(events, truth_lines, geometry, start_rows) -> list[str]:
    """Every difference between what the sensors saw and what the engine says,
    group by group; empty for a healthy board."""
    start = BoardState.parse(start_rows, geometry)
    start_pos = {geometry.labels[s]: ("none" if p is None else "LR"[p]) for s, p in enumerate(start.pads())}
    changes, wobbles, final_pos = settled_changes(events, start_pos)
    problems = [f"{s} at {t}: mid then back to the same side" for s, t in wobbles]
    gs = groups(truth_lines)
    for i, g in enumerate(gs):
        t0, t1 = window(gs, i)
        seen = observed_in(events, t0, t1, changes)
        want = expected_group(g, geometry)
        for key in ("entries", "exits", "flips"):
            if seen[key] != want[key]:
                problems.append(f"drops {[d['drop'] for d in g]}: {key} seen {seen[key]}, engine {want[key]}")
    if gs:
        last = expected_group(gs[-1], geometry)["board"]
        for s, p in enumerate(last.pads()):
            want = "none" if p is None else "LR"[p]
            if final_pos[geometry.labels[s]] != want:
                problems.append(f"{geometry.labels[s]} finally reads {final_pos[geometry.labels[s]]}, engine says {want}")
    return problems


def check_physical_facts(events) -> list[str]:
    """sensing.md section 2 on a raw stream: time order, each flip as mid then
    the new side, no side reported twice in a row without mid in between."""
    problems = []
    last_t = -1.0
    last: dict[str, str] = {}
    for ev in events:
        if ev.t < last_t:
            problems.append(f"event at {ev.t} comes after one at {last_t}")
        last_t = ev.t
        if isinstance(ev, SwitchEvent):
            prev = last.get(ev.switch)
            if prev == ev.pos:
                problems.append(f"{ev.switch} reported {ev.pos} twice in a row at {ev.t}")
            if ev.pos in ("L", "R") and prev in ("L", "R"):
                problems.append(f"{ev.switch} went {prev} to {ev.pos} at {ev.t} without mid")
            last[ev.switch] = ev.pos
        elif isinstance(ev, StatusEvent):
            last.clear()
    return problems
