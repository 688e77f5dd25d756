"""When each coin reached its rocker: the timing a cascade must keep.

The abelian cascade (rules.md section 4) says what a group of coins does in
the end, not in which order they met a rocker; the sensors say when each
rocker moved. A coin leaves a rocker as it flips it (or as it tips out the
coin on its pad) and falls down one chute to the next rocker, which it
reaches a fall later; so every flip a working hall shows must have a cause
that an explanation keeps open: an entry beam broken shortly before (for a
top-row rocker), or a rocker above it that flipped shortly before and whose
outlet into this rocker the explanation has a coin leave by and not jammed.
Nothing arrives at a row before the coin that caused it left the row above
(sensing.md section 2), and no coin hangs in a chute for longer than the
board's patience (the longest a coin balancing on an edge, or waiting for a
busy rocker, has been allowed anywhere in the reconciler).

This tells apart explanations that fit the counts alike: two coins in
flight together that reached one pad through different chutes, seconds
apart, where one story has the first coin stop in its chute and the other
has a hand take the resting coin off or the later coin stop. It only adds a
cost to explanations that claim something new (a fault, a hand, a coin), so
a healthy drop is never judged on it (no false alarm can come of it).
"""

from __future__ import annotations

import math

from ..engine import EntrySensorDead, HallFault
from .faults import SwitchUnseated

# A flip no coin of the explanation could have caused in time: a coin that
# hung in its chute for longer than the board's patience, or that arrived
# before it left the rocker above.
NO_CAUSE = math.log(0.02)
# A hall shows its rocker moving only once the magnet has left its band, so
# a coin may leave a rocker (and reach the next) up to a whole flip before
# that hall says so; this much earlier than its cause is allowed.
EARLY = 0.15
_DOUBTED = (HallFault, SwitchUnseated)
_MOVED = frozenset(("hand", "hand_after", "hand_at", "handful", "pad", "unput", "late"))  # ("handful": its s is an entry's number)
_UNTIMED = frozenset(("entry", "entry+rest", "missed", "cleared", "cleared+", "release", "release+", "phantom"))  # coins no event timed


def feeders(geometry) -> list[list[tuple[int, int]]]:
    """For every switch, the outlets ``(switch, side)`` whose chute ends on it."""
    n = geometry.switch_count
    out: list[list] = [[] for _ in range(n)]
    for s, outs in enumerate(geometry.outs):
        for side, t in enumerate(outs):
            if t < n:
                out[t].append((s, side))
    return out


class Plan:
    """What timing one group's explanations takes that none of them changes,
    worked out once per group: every flip a working hall showed that no
    entry beam timed (one that did is caused in every explanation), with the
    entries that would time it if their beam was dead, the rockers above it
    that would if the explanation doubts them, and those of them that moved
    in time to have let a coin go into it. Each such flip is one bit of the
    masks below, so an explanation's check is a few set and bit operations."""

    __slots__ = ("all", "at", "entry", "above", "pairs", "_index", "geometry")

    def __init__(self, obs, physics, feeds: list, fall: float):
        self.geometry = g = physics.geometry
        self._index: dict = {}
        entry_of: dict = {}
        for e, sw in enumerate(g.entry_switches):
            entry_of.setdefault(sw, []).append(e)
        windows: dict = {}
        self.all = 0  # one bit per flip to time
        self.at: dict = {}  # switch -> its flips' bits
        self.entry: dict = {}  # entry -> the bits of the flips its coin would time (were its beam dead)
        self.above: dict = {}  # switch -> the bits of the flips below it (it feeds their rockers)
        pairs: dict = {}  # (switch, side) -> the bits of the flips it moved in time to cause
        bit = 1
        for c in obs.active:
            if obs.flips[c] is None:
                continue
            ents = entry_of.get(c, ())
            for t, span in zip(obs.flip_times.get(c, ()), obs.flip_spans.get(c, ())):
                if span is None:
                    continue
                start = t - span
                if any(te - EARLY <= start <= te + fall for e in ents for te, x in obs.entries if x == e):
                    continue
                # (a coin a hand tipped off leaves without arriving: its chute is not in the trace)
                if any(obs.flips[p] is None for p, _ in feeds[c]):
                    continue
                self.all |= bit
                self.at[c] = self.at.get(c, 0) | bit
                for e in ents:
                    self.entry[e] = self.entry.get(e, 0) | bit
                for p, side in feeds[c]:
                    self.above[p] = self.above.get(p, 0) | bit
                    w = windows.get(p)
                    if w is None:
                        w = windows[p] = _windows(obs, p)
                    if any(a - EARLY <= start <= b + fall for a, b in w):
                        pairs[p, side] = pairs.get((p, side), 0) | bit
                bit <<= 1
        # (switch, side, bits, the arrivals after which a coin leaves by that side: pad holding, pad slipping)
        self.pairs = [(p, side, m, physics.emitters(p, side, False, False), physics.emitters(p, side, False, True))
                      for (p, side), m in pairs.items()]

    def switch(self, label) -> int:
        """The number of the switch ``label`` (a fault's place)."""
        i = self._index.get(label)
        if i is None:
            i = self._index[label] = self.geometry.index(label)
        return i


def untimely(obs, cand, physics, feeds: list, fall: float, plan: Plan | None = None) -> int:
    """How many flips a working hall showed in ``obs`` that no coin of
    ``cand``'s cascade can have caused in time (``plan``: ``Plan(obs, ...)``,
    made once for all of a group's explanations)."""
    if any(m.kind in _UNTIMED for m in cand.moves):
        return 0
    if plan is None:
        plan = Plan(obs, physics, feeds, fall)
    if not plan.all:
        return 0
    d = cand.derivation
    idx = cand.world.index
    doubt = idx.halls | idx.unseated
    dead = ()
    for f in (*d.new, *d.exercised):
        if isinstance(f, _DOUBTED):
            doubt = doubt | {plan.switch(f.switch)}
        elif isinstance(f, EntrySensorDead):
            dead = (*dead, f.entry)
    # A rocker a hand turned over flipped with no coin (and a coin it
    # tipped off left it then); one a coin passes while stuck shows no flip.
    # A hall the explanation says lied about its pad is doubted too; a coin
    # that slid off its pad late (late.py) flipped its rocker unfed.
    moved = {m.s for m in cand.moves if m.kind in _MOVED}
    if moved:
        doubt = doubt | moved
    at, above, entry = plan.at, plan.above, plan.entry
    done = 0  # the flips doubted or caused
    for s in doubt:
        done |= at.get(s, 0) | above.get(s, 0)
    # A coin passing a stuck rocker makes no flip to time it by: that
    # rocker may have let a coin go at any moment (a sticky one too).
    for s in cand.stuck:
        done |= above.get(s, 0)
    if cand.sticky:
        done |= above.get(cand.sticky[0], 0)
    for e in dead:
        done |= entry.get(e, 0)
    left = plan.all & ~done
    if left:
        # a rocker above that moved in time, out of whose outlet into this
        # one the explanation has a coin leave (and not stop in the chute)
        arrived = set(cand.trace.arrivals)
        jams, slips = cand.jams, cand.slips
        for p, side, m, holds, slipping in plan.pairs:
            if left & m and (p, side) not in jams and not arrived.isdisjoint(slipping if p in slips else holds):
                left &= ~m
                if not left:
                    break
    return left.bit_count()


def _windows(obs, s) -> list:
    """When rocker ``s`` was moving in the group: (left its side, reached the other)."""
    out = []
    for t, span in zip(obs.flip_times.get(s, ()), obs.flip_spans.get(s, ())):
        out.append((t - (span if span is not None else 0.2), t))
    # A rocker that left its side and came back (a pivot that stuck, a
    # jostle) moved too: a coin may have left it then.
    seq = obs.readings.get(s, ())
    for (t0, p0), (t1, p1) in zip(seq, seq[1:]):
        if p0 == "mid":
            out.append((t0, t1))
    return out


# Explanations timed in about the time one unit of the search's work takes
# (one evaluation: about 45 us here, one explanation's check 20-25 us).
CHECKS_PER_UNIT = 2


def time_candidates(cands: list, obs, physics, feeds: list, fall: float, search=None) -> None:
    """Charge every explanation that claims something new for the flips it
    cannot time (``NO_CAUSE`` each). With ``search``, the checks are counted
    in its work (``other``) and end at its ``limit``: the likeliest are
    checked first, and those left unchecked then are dropped from ``cands``
    (the least likely; a group that reaches the limit is far past any the
    benchmarks make)."""
    if not obs.entries:
        return
    plan = None
    checked = per = 0
    left = []
    order = sorted(range(len(cands)), key=lambda i: -cands[i].logp) if search is not None else range(len(cands))
    for i in order:
        c = cands[i]
        if c.size == 0:
            continue
        if plan is None:
            plan = Plan(obs, physics, feeds, fall)
            per = 1 + (len(plan.pairs) + plan.all.bit_length()) // 24  # a long group's check is longer
            if search is not None:
                search.other += 1
        if search is not None and search.evaluations + search.other + checked / CHECKS_PER_UNIT >= search.limit:
            left.append(i)
            continue
        bad = untimely(obs, c, physics, feeds, fall, plan)
        if bad:
            c.cost += bad * NO_CAUSE
        if search is not None:
            checked += per
            if checked >= CHECKS_PER_UNIT:
                search.other += checked // CHECKS_PER_UNIT
                checked %= CHECKS_PER_UNIT
    if left:
        gone = set(left)
        cands[:] = [c for i, c in enumerate(cands) if i not in gone]
