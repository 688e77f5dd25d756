"""Events while no drop was falling: a hand in the board, a coin put in an
exit, a jam coming free, a rocker knocked out of its seat.

A hand moving a rocker shows on its hall exactly like a flip. If a coin was
resting on the pad, moving the pad away tips it out through the pad's old
side (rules.md section 3, rule 3) and that coin falls on like any other, so
one hand can set off a small cascade; or the hand took the coin off first.
Switches whose readings changed are taken top row first: a change already
caused by a coin a hand tipped above needs no hand of its own.
"""

from __future__ import annotations

import itertools
import math

from ..engine import catalog
from ..engine import Jam
from ..engine.core import COIN, HOLE, PAD_R
from .faults import CATCHES_AGAIN, PRIOR, CoinRemoved, JamCleared, MovedByHand
from .physics import Trace
from .late import can_slide, late_move
from .search import WORK_ARRIVALS, Candidate, Move, Search
from .sensors import derive

_LOG = {name: math.log(p) for name, p in PRIOR.items()}
MAX_VARIANTS = 16


def _combine(total: Trace | None, part: Trace) -> Trace:
    return part if total is None else total.merged(part)


def _empty(physics, codes) -> Trace:
    return Trace([0] * physics.exit_count, [0] * physics.n, [], 0, {}, codes)


def hand_candidates(search: Search, world) -> None:
    """Add the hand-in-the-board explanations of a stray group to ``search``."""
    obs, physics = search.obs, search.physics
    idx = world.index
    table = physics.table(idx.stuck, idx.slips, idx.jams)
    changed = []
    for s in obs.active:
        if world.codes[s] == HOLE or s in idx.halls:
            continue
        seen = obs.flips[s]
        side = obs.settled_final(s)
        if seen is None:
            seen = 1 if side is not None and side != world.codes[s] & PAD_R else 0
        if seen:
            changed.append((s, seen))
    holding = [s for s, _ in changed if world.codes[s] & COIN]
    for choice in itertools.islice(itertools.product((True, False), repeat=len(holding)), MAX_VARIANTS):
        tips = dict(zip(holding, choice))
        codes = bytearray(world.codes)
        total = _empty(physics, codes)
        hand: dict = {}
        moves = []
        for s, seen in changed:
            need = seen - total.flips[s] - hand.get(s, 0)
            for _ in range(max(0, need)):
                old = codes[s] & PAD_R
                coin = codes[s] & COIN
                codes[s] = 1 - old  # the pad goes over, empty
                hand[s] = hand.get(s, 0) + 1
                if coin and tips.get(s, True):
                    target = physics.geometry.outs[s][old]
                    total = _combine(total, physics.run(codes, [target], table))
                elif coin:
                    moves.append(Move("remove", s, fault=CoinRemoved(search.labels[s]), cost=_LOG[catalog.COIN_REMOVED] + math.log(0.2)))
            if need > 0:
                moves.append(Move("hand", s, fault=MovedByHand(search.labels[s]), cost=_LOG[catalog.MOVED_BY_HAND] + hand_speed(obs, s, search.flip_limit)))
        _finish(search, world, tuple(moves), total, hand, bytes(world.codes))


# A rocker that reached its new side as fast as a coin flips it, or without
# ever reading between the sides, was hardly moved by a hand.
LIKE_A_COIN = math.log(0.001)
NO_MOVEMENT = math.log(0.001)


def hand_speed(obs, s: int, flip_limit: float) -> float:
    cost = 0.0
    for span in obs.flip_spans.get(s, ()):
        if span is None or span < obs.flip_floor:
            cost += NO_MOVEMENT
        elif span < flip_limit:
            cost += LIKE_A_COIN
    return cost


def jam_candidates(search: Search, world) -> None:
    """A jam coming free: its stopped coins fall on from the outlet."""
    physics = search.physics
    idx = world.index
    for (s, side), count in world.jammed:
        if not count:
            continue
        jams = set(idx.jams) - {(s, side)}
        table = physics.table(idx.stuck, idx.slips, jams)
        codes = bytearray(world.codes)
        target = physics.geometry.outs[s][side]
        trace = physics.run(codes, [target] * count, table)
        label = search.labels[s]
        # Clear for good, or catching the next coins again (release.py).
        for again in (False, True):
            cost = _LOG[JamCleared.name] + math.log(CATCHES_AGAIN if again else 1.0 - CATCHES_AGAIN)
            moves = (Move("cleared+" if again else "cleared", s, side, fault=JamCleared(label, side), cost=cost),)
            cand = _finish(search, world, moves, trace, {}, bytes(world.codes))
            if cand is not None:
                cand.cleared = ((s, side),)
                if not again and Jam(label, side) in world.faults:
                    cand.removed = frozenset({Jam(label, side)})
                    cand._shown = None


def late_slip_candidates(search: Search, world, settling: dict, now: float) -> None:
    """The coin resting on a pad went across its lever by itself (late.py):
    its rocker flips and the coin falls on through the lever side."""
    obs, physics = search.obs, search.physics
    idx = world.index
    for s, t in sorted(settling.items()):
        if not can_slide(world, s, t, now) or s in idx.halls or (not obs.flips[s] and obs.settled_final(s) == world.codes[s] & PAD_R):
            continue  # (its hall shows no flip: the coin did not go across the lever)
        slips = idx.slips | {s}
        start = bytearray(world.codes)
        start[s] &= ~COIN & 0xFF
        trace = physics.run(bytearray(start), [s], physics.table(idx.stuck, slips, idx.jams))
        cand = _finish(search, world, (late_move(world, s, search.labels[s]),), trace, {}, bytes(start))
        if cand is not None:
            cand.slips = frozenset(slips)


def _finish(search: Search, world, moves: tuple, trace: Trace, hand: dict, codes0: bytes):
    search.evaluations += 1 + len(trace.arrivals) // WORK_ARRIVALS
    idx = world.index
    counts = [0] * search.obs.entry_count
    d = derive(search.obs, idx, search.labels, counts, trace, (), search.sensors, search.chatter_window, stray=True, hand_flips=hand)
    if d is None:
        return None
    cost = sum(m.cost for m in moves) + d.cost
    cand = Candidate(world, moves, (), trace, d, cost, hand=hand, codes0=codes0,
                     stuck=idx.stuck, slips=idx.slips, jams=idx.jams)
    search._keep(cand)
    return cand


def unseen_drop(physics, obs, world):
    """The one entry whose coin, falling while the hub could not see it (a
    reset, an unplug), leaves the board as the group shows it: every trusted
    hall on the side that coin's cascade leaves it, every exit seen one that
    cascade uses. Flips and exits while the hub was down are unknown, so
    final sides are what counts, not counts. ``(entry, trace, codes)``, or
    None when no entry or more than one fits (then nothing is guessed)."""
    idx = world.index
    table = physics.table(idx.stuck, idx.slips, idx.jams)
    fits = []
    for e in range(obs.entry_count):
        codes = bytearray(world.codes)
        trace = physics.run(codes, physics.starts([e]), table)
        if not any(trace.flips) and not any(trace.exits):
            continue
        if any(n > trace.exits[x] for x, n in enumerate(obs.exit_counts)):
            continue
        if all(_rests_as_seen(obs, s, codes[s], world.codes[s]) for s in range(physics.n) if s not in idx.halls):
            fits.append((e, trace, bytes(codes)))
    return fits[0] if len(fits) == 1 else None


def _rests_as_seen(obs, s: int, code: int, before: int) -> bool:
    if code == HOLE:
        return s not in obs.readings or obs.final[s] == "none"
    if s not in obs.readings:
        return (code & PAD_R) == (before & PAD_R)
    return obs.settled_final(s) == code & PAD_R


def explain_stray(search: Search, worlds: list, expect_drop: bool, searched: int = 4, settling: dict | None = None) -> list[Candidate]:
    """Hand moves, stray coins, jams coming free and coins sliding off pads
    they came to rest on lately (``settling``: switch -> when) for every
    world; then, if a drop could be under way, a drop whose entry beam missed
    the coin."""
    for w in worlds[:searched]:
        hand_candidates(search, w)
        jam_candidates(search, w)
        if settling:
            late_slip_candidates(search, w, settling, search.obs.t0)
    if expect_drop:
        return search.run(worlds, searched)
    return search.candidates
