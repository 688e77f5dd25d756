"""Building the report lines of a reconciled group: one per drop (its share
of the group's cascade, expected against observed), or one for events that
belong to no drop, or plain lines when the group could not be checked."""

from __future__ import annotations

from ..engine.core import COIN, HOLE, PAD_R
from .report import DropReport, attribute, drop_extras, healthy, rows, split


def drop_reports(physics, obs, best, order, found, prev_codes: bytes, ok: bool, ranked, first: int, final_codes: bytes,
                 rest: float = 0.0, journey: float | None = None, together: float = 0.0) -> list[DropReport]:
    """Reports numbered from ``first`` for the drops in ``order`` ((t, entry, seen)). ``rest``:
    how long a coin may still fall after its last event before it rests (``Timing.silence``);
    ``journey``: how long after its coin went in a drop can still make events (``Timing.journey``);
    ``together``: counts of one entry this close are one act (``Timing.chatter_window``)."""
    g, labels = physics.geometry, physics.geometry.labels
    parts = split(physics, best, [e for _, e, _ in order])
    ends = [t for t, _, _ in order]  # each drop's own last event: at least its coin going in
    if len(order) == 1:
        seen_exits = [tuple(sorted(x for _, x in obs.exits))]
        seen_flips = [obs.flips_json(labels)]
        ends = [obs.t1]
    else:
        seen_exits, seen_flips = attribute_events(obs, parts, labels, ends, journey)
        # A coin that came to rest, or left unseen, may still have fallen ``rest`` after its last event; a
        # drop whose every coin went out past a beam that saw it had ended by then (a next coin 0.03-0.2 s
        # after it was taken for a second coin in the same turn, and scored nothing)
        ends = [e if _all_seen_out(part, seen) else min(obs.t1, e + rest)
                for e, part, seen in zip(ends, parts, seen_exits)]
    reports, visits = [], []
    extra = drop_extras(obs, best, order)
    # A change to the belief (a coin added or taken, a pad the hall hid)
    # happened before the group; it shows in the first drop that meets it,
    # so until then each drop is predicted as the controller believed.
    believed = {m.s for m in best.moves if m.kind in ("add", "remove", "pad", "unput")}
    for i, ((t, e, seen), (trace, before, after)) in enumerate(zip(order, parts)):
        if believed:
            start = bytearray(before)
            for s in believed:
                start[s] = prev_codes[s]
            before = bytes(start)
            believed -= trace.visited()
        expected = healthy(g, before, e)
        rep = DropReport(
            drop=first + i,
            entry=e,
            entry_seen=seen,
            t=t,
            expected_exits=expected.exits,
            expected_flips=expected.flips_by_label(),
            observed_exits=seen_exits[i],
            observed_flips=seen_flips[i],
            scored_exits=tuple(x for x, n in enumerate(trace.exits) for _ in range(n)),
            state=rows(g, after),
            t_last=ends[i],
        )
        if not seen:  # when its coin first showed: the first event on its way down
            times = [tt for s in trace.visited() for tt, _ in obs.readings.get(s, ())]
            times += [tx for tx, x in obs.exits if trace.exits[x]]
            rep.t = min(times, default=t)
        differs = not seen or extra[i] or rep.observed_exits != rep.expected_exits or rep.observed_flips != rep.expected_flips
        rep.verdict = "mismatch" if not ok and (differs or len(order) == 1) else "ok"
        reports.append(rep)
        visits.append(trace.visited())
    if not ok and all(r.ok for r in reports):
        # Only where switches came to rest differs: blame the last drop that met them.
        odd = odd_positions(physics, obs, prev_codes, [e for _, e, _ in order])
        hit = [i for i, v in enumerate(visits) if v & odd]
        reports[hit[-1] if hit else -1].verdict = "mismatch"
    if not ok:
        share_flags(reports, order, together)
    reports[-1].state = rows(g, final_codes)
    alternatives = simplest(ranked)
    for r in reports:
        if not r.ok:
            r.diagnosis = list(found)
            r.alternatives = alternatives
    return reports


def share_flags(reports, order, together: float) -> None:
    """Coins that went into one entry together (counts ``together`` apart: two
    coins at once, or one counted twice) are one act: they reach the entry's
    switch together, and which of them rested there and which went on is the
    rules' one-after-another convention (rules.md section 4), as is which
    record the group's difference falls in. A flag on a later one is a flag
    on the first, the turn's own coin, which the table asks about (the later
    ones it notes as extra coins)."""
    for i in range(len(reports) - 1, 0, -1):  # back to the first of a chain of counts
        if not reports[i].ok and _together(order[i - 1], order[i], together):
            reports[i - 1].verdict = "mismatch"


def _together(a, b, window: float) -> bool:
    (ta, ea, sa), (tb, eb, sb) = a, b
    return sa and sb and ea == eb and tb - ta <= window


def odd_positions(physics, obs, prev_codes: bytes, entries) -> set:
    """Switches whose reading at the end is not what a healthy board would show."""
    codes = bytearray(prev_codes)
    physics.run(codes, physics.starts(entries), physics.base)
    odd = set()
    for s in obs.active:
        side = obs.settled_final(s)
        if codes[s] == HOLE:
            if obs.final[s] != "none":
                odd.add(s)
        elif side is None or side != codes[s] & PAD_R:
            odd.add(s)
    return odd


def _all_seen_out(part, seen_exits) -> bool:
    """Whether every coin of a drop's share of the cascade left the board
    through an exit whose beam saw it: none came to rest, fell into a hole or
    jammed, and as many exits were seen as it sent out."""
    trace, before, after = part
    if trace.swallowed or any(trace.jams.values()) or len(seen_exits) != sum(trace.exits):
        return False
    return not any(a != HOLE and a & COIN and not (b != HOLE and b & COIN) for b, a in zip(before, after))


def attribute_events(obs, parts, labels, ends=None, journey=None):
    """Each drop's share of the group's exit and flip events (``ends``, and
    ``journey`` with the drops' own times, which ``ends`` holds on the way in: as ``attribute``)."""
    starts = list(ends) if ends is not None else None
    exit_times: dict = {}
    for t, x in obs.exits:
        exit_times.setdefault(x, []).append(t)
    qx = [{x: n for x, n in enumerate(tr.exits) if n} for tr, _, _ in parts]
    ax = attribute(exit_times, qx, ends, starts, journey)
    flip_times = {s: ts for s, ts in obs.flip_times.items() if obs.flips[s] is not None and ts}
    qf = [{s: n for s, n in enumerate(tr.flips) if n} for tr, _, _ in parts]
    af = attribute(flip_times, qf, ends, starts, journey)
    exits = [tuple(sorted(x for x, n in a.items() for _ in range(n))) for a in ax]
    flips = [{labels[s]: n for s, n in a.items()} for a in af]
    for s in obs.active:
        if obs.flips[s] is None:
            owners = [i for i, q in enumerate(qf) if q.get(s)] or [len(parts) - 1]
            for i in owners:
                flips[i][labels[s]] = None
    return exits, flips


def stray_report(physics, obs, best, found, ok: bool, ranked, final_codes: bytes) -> DropReport:
    return DropReport(
        alternatives=simplest(ranked),
        drop=None,
        entry=None,
        entry_seen=False,
        t=obs.t0,
        observed_exits=tuple(sorted(x for _, x in obs.exits)),
        observed_flips=obs.flips_json(physics.geometry.labels),
        verdict="ok" if ok else "mismatch",
        diagnosis=[] if ok else list(found),
        state=rows(physics.geometry, final_codes),
        scored_exits=tuple(x for x, n in enumerate(best.trace.exits) for _ in range(n)),
        events=list(obs.events),
    )


def carried(physics, obs, worlds: list, halls: bool = True):
    """The rest of a coin that was falling when the board was set anew
    (``Reconciler.reset``, ``still_falling``): no fault is drawn from it (what
    it met had changed under it); the rockers are believed where the trusted
    halls read them. ``(worlds, report)``: its line is no drop, flags nothing."""
    from .world import with_sides

    bad = worlds[0].index.halls
    sides = {s: obs.settled_final(s) for s in obs.active if halls and s not in bad}
    sides = {s: side for s, side in sides.items() if side is not None}
    if sides:
        worlds = [with_sides(w, sides) for w in worlds]
    return worlds, DropReport(None, None, False, obs.t0, observed_exits=tuple(sorted(x for _, x in obs.exits)),
                              observed_flips=obs.flips_json(physics.geometry.labels), verdict="ok", diagnosis=[],
                              state=rows(physics.geometry, worlds[0].codes), events=list(obs.events), carried=True)


def fallback_codes(physics, obs, world, halls: bool = True) -> bytes:
    """The belief when a group cannot be checked: the engine's prediction with
    every trusted hall's final side taken over. That is every hall, not only
    those heard from in the group: a quiet hall says its rocker did not move
    (a coin that went elsewhere than predicted, e.g. past a stuck switch), and
    a flip whose event was lost is the reconnect's snapshot to find
    (table/resync.py compares it with these readings). Without halls, the
    prediction is all there is."""
    idx = world.index
    codes = bytearray(world.codes)
    physics.run(codes, physics.starts([e for _, e in obs.entries]), physics.table(idx.stuck, idx.slips, idx.jams))
    for s in (range(len(codes)) if halls else obs.active):
        side = obs.settled_final(s)
        if side is not None and codes[s] != HOLE and s not in idx.halls:
            codes[s] = (codes[s] & ~PAD_R & 0xFF) | side
    return bytes(codes)


def plain_reports(physics, obs, prev_codes: bytes, finding, first: int, final_codes: bytes, rest: float = 0.0,
                  score_seen: bool = False) -> list[DropReport]:
    """Mismatch lines with one finding (events lost, nothing explains it): one
    per entry the beams saw, or one outside drops. ``score_seen``: a lone
    drop scores the exits its beams saw (nothing explains it, but the beams
    saw those coins; a newcomer's coins seen at exits 9 and 10 scored 0),
    else what the engine predicts from the belief."""
    g, labels = physics.geometry, physics.geometry.labels
    if not obs.entries:
        return [DropReport(None, None, False, obs.t0, observed_exits=tuple(sorted(x for _, x in obs.exits)),
                           observed_flips=obs.flips_json(labels), verdict="mismatch", diagnosis=[finding],
                           state=rows(g, final_codes), events=list(obs.events))]
    reports = []
    codes = prev_codes
    outcomes = []
    for t, e in obs.entries:
        outcomes.append(healthy(g, codes, e))
        codes = outcomes[-1].board.codes
    codes = prev_codes
    if len(obs.entries) > 1:
        # the events stay with the drop whose healthy cascade makes them (issue 13:
        # a link lost after two drops gave drop 1's events to drop 2)
        parts = [(_Quota(o.exit_counts, o.flip_counts), None, None) for o in outcomes]
        seen_exits, seen_flips = attribute_events(obs, parts, labels, [t for t, _ in obs.entries], None)
    else:
        seen_exits, seen_flips = [tuple(sorted(x for _, x in obs.exits))], [obs.flips_json(labels)]
    for i, ((t, e), expected) in enumerate(zip(obs.entries, outcomes)):
        codes = expected.board.codes
        last = i == len(obs.entries) - 1
        reports.append(DropReport(
            first + i, e, True, t,
            expected_exits=expected.exits, expected_flips=expected.flips_by_label(),
            observed_exits=seen_exits[i],
            observed_flips=seen_flips[i],
            verdict="mismatch", diagnosis=[finding],
            scored_exits=tuple(sorted(x for _, x in obs.exits)) if score_seen and len(obs.entries) == 1 else expected.exits,
            state=rows(g, final_codes if last else codes),
            t_last=0.0 if last else min(obs.t1, t + rest),  # its own events are unknown: it fell at least so long
        ))
    return reports


class _Quota:
    """A drop's share of the cascade as ``attribute_events`` reads it."""
    __slots__ = ("exits", "flips")

    def __init__(self, exits, flips):
        self.exits, self.flips = exits, flips


def unseen_drop_report(physics, obs, prev_codes: bytes, entry: int, trace, finding, number: int, codes: bytes) -> DropReport:
    """A drop whose coin went in while the hub could not see it, told by the
    board it left (``stray.unseen_drop``): scored as its cascade, flagged
    with what was lost so the players confirm it."""
    g = physics.geometry
    expected = healthy(g, prev_codes, entry)
    return DropReport(number, entry, False, obs.t0, expected_exits=expected.exits, expected_flips=expected.flips_by_label(),
                      observed_exits=tuple(sorted(x for _, x in obs.exits)), observed_flips=obs.flips_json(g.labels),
                      verdict="mismatch", diagnosis=[finding], state=rows(g, codes),
                      scored_exits=tuple(x for x, n in enumerate(trace.exits) for _ in range(n)))


def simplest(ranked) -> list:
    """What the simplest explanations found use, each as a set of (name, where):
    when they do not all share a fault, the evidence could not tell them apart."""
    if not ranked:
        return []
    size = min(c.size for _, c in ranked)
    out = []
    for _, c in ranked:
        if c.size == size:
            keys = frozenset((f.name, f.where) for f in c.shown())
            if keys not in out:
                out.append(keys)
    return out
