"""A handful: two or three coins dropped into one entry together are in its
beam at once, so it breaks once; they are that many coins when the cascade
proves it (sensing.md section 4). A person's act, not a fault: the search
tries more coins with a count the beams saw (the ``handful`` move: ``s`` the
entry, ``side`` how many more), and an explanation that needs nothing else
is a healthy drop, one record per coin (issue 13: board4's handfuls were
named a hall fault on the rocker that flipped twice, or a dead beam)."""

from __future__ import annotations

import math

from ..engine.core import COIN, HOLE, PAD_R
from .candidate import Move

# As likely as two coins that broke the beam twice (search.DOUBLE), each
# further coin less so (search.ANOTHER_COIN).
HANDFUL = math.log(2e-3)
ANOTHER = math.log(0.3)
HANDFUL_MAX = 2  # more coins with one count
# Coins in a beam together reach its rocker together; a later one waits at
# most for the rocker's flip: that rocker's flips began within REACH of the
# break, each within WAIT of the one before. A hall shows a flip up to a
# flip late (causal.EARLY).
REACH = 0.5
WAIT = 0.35
EARLY = 0.15


def handful_cost(extra: int) -> float:
    return HANDFUL + (extra - 1) * ANOTHER


def pad_turns(search, world, s: int) -> float:
    """The log of how many turns entry switch ``s``'s inlet pad has sat
    empty since a coin left it so (``search.fresh``, below), 0 for any other
    switch. Whatever can have come to that pad unseen, or gone wrong there,
    in any of those turns (a coin put there by hand, a coin a beam missed, a
    pad that stopped holding: each shows only when the next coin meets it)
    had that many chances; a handful (or the one an earlier handful left)
    had one, this drop's (or that one's). So those explanations are weighed
    by the turns (a fixed prior per explanation is per turn), not the
    handful against everything: a rocker's hall failing now, or a stuck
    pivot, had no more chances for the pad sitting empty (issue 13: a
    handful of three 36 turns on was a hall fault)."""
    g = world.geometry
    if s not in search.fresh or s not in g.entry_switches or not _empty_inlet(world.codes[s], g.inlets[s]):
        return 0.0
    return math.log(max(1, search.fresh[s]))


def handful_moves(entries: list[int]) -> list[Move]:
    return [Move("handful", e, n) for e in sorted(set(entries)) for n in range(1, HANDFUL_MAX + 1)]


def handful_timely(obs, geometry, moves, trace) -> bool:
    """The flips of each handful's rocker came as coins that went in with one
    of that entry's breaks make them."""
    for m in moves:
        if m.kind != "handful":
            continue
        sw = geometry.entry_switches[m.s]
        n = trace.flips[sw]
        times = obs.flip_times.get(sw, ())
        if not n or not times:
            continue
        flips = [(t - (d or 0.0), t) for t, d in zip(times, obs.flip_spans.get(sw, ()))]
        breaks = [b for b, e in obs.entries if e == m.s]
        if not any(_together(flips, b, nxt, n) for b, nxt in zip(breaks, breaks[1:] + [math.inf])):
            return False
    return True


def _together(flips: list, b: float, nxt: float, n: int) -> bool:
    """The rocker's flips from break ``b`` until that entry's next break
    ``nxt`` (those are later coins'; the ones before ``b`` earlier coins')
    began within REACH of it, each within WAIT of the one before."""
    after = [f for f in flips if b - EARLY <= f[0] < nxt - EARLY][:n]
    if not after or after[0][0] > b + REACH or (nxt == math.inf and len(after) < n and len(after) == len(flips)):
        return False
    return all(nxt_[0] - prev[1] <= WAIT for prev, nxt_ in zip(after, after[1:]))


def handful_proven(search, world, moves, trace) -> bool:
    """The cascade proves a second coin only where one coin on a pad that did
    not hold it (it bounced across, as the second coin does) would not have
    made the same events: the coin the second tips off the pad must show (a
    pad fault is not taken for a person's handful). So too for the coin an
    earlier handful left resting (``left``): the coin it tips off must show.
    With handfuls into other entries (two turns' in one group), each is
    asked the same with the others' coins in."""
    if len(moves) > 1 and not all(m.kind == "handful" for m in moves):
        return True
    physics = search.physics
    for m in moves:
        if not (m.kind == "handful" and m.side == 1 or m.kind == "left"):
            continue
        sw = physics.geometry.entry_switches[m.s]
        idx = world.index
        entries = list(search.entries) + [o.s for o in moves if o is not m for _ in range(o.side)]
        one = physics.run(bytearray(world.codes), physics.starts(entries), physics.table(set(idx.stuck), set(idx.slips) | {sw}, set(idx.jams)))
        search.evaluations += 1
        if list(one.exits) == list(trace.exits) and list(one.flips) == list(trace.flips):
            return False
    return True


# A handful's last coin resting unseen. The coins of a handful meet their
# entry's rocker one after another; when the one before flipped it over to
# its inlet side, the next comes to rest on that empty pad and no sensor
# says so. The next coin into that entry finds it: a resting coin no drop
# was believed to leave. It is as likely as the handful it came with, more
# than a coin put there by hand or a pad that starts to let coins go, and a
# healthy story (the earlier drop was that many coins, the later one did
# what a healthy board does with that coin on the pad). A hand had every
# turn since to put a coin there, the handful only that one drop: a coin
# put by hand is weighed by the turns since (``pad_turns``), so a pad
# unvisited for many turns is a hand's coin, as before.
LEFT = HANDFUL


def left_moves(search, world, skip) -> list[Move]:
    """The ``left`` moves: this drop's entry rockers whose last coin flipped
    them over to their empty inlet pad (``search.fresh``: switch -> turns
    since, from ``note_flipped_in``)."""
    fresh = search.fresh
    if not fresh:
        return []
    g = world.geometry
    out = []
    for e in sorted(set(search.entries)):
        sw = g.entry_switches[e]
        if sw in fresh and sw not in skip and sw not in world.index.slips and _empty_inlet(world.codes[sw], g.inlets[sw]):
            out.append(Move("left", e, cost=LEFT))
    return out


def _empty_inlet(code: int, inlet: int) -> bool:
    return code != HOLE and not code & COIN and (code & PAD_R) == inlet


def turns_since(fresh: dict, drop: int) -> tuple[dict, dict]:
    """``fresh`` (switch -> the drop that flipped it in) and, for the search,
    switch -> turns since then."""
    return fresh, {s: drop - n for s, n in fresh.items()}


def with_left(codes: bytes, cand, geometry) -> bytes:
    """``codes`` with the coins ``cand``'s ``left`` moves found resting."""
    out = bytearray(codes)
    for m in cand.moves:
        if m.kind == "left":
            out[geometry.entry_switches[m.s]] |= COIN
    return bytes(out)


def note_flipped_in(fresh: dict, best, geometry, drop: int) -> None:
    """Which entry rockers the best explanation of a group has a coin flip
    over to their inlet side, the pad left empty, as the last thing done to
    them (``fresh``: switch -> the number of the group's first drop); a
    hand, a hall doubted, a coin put on or taken off, or any other coin
    there forgets it."""
    entry = set(geometry.entry_switches)
    after = best.trace.codes
    moved = {m.s for m in best.moves if m.kind.startswith("hand") or m.kind in ("pad", "add", "remove", "late", "lost")}
    moved |= set(best.hand)
    moved |= {geometry.index(f.switch) for f in best.derivation.new if getattr(f, "switch", None)}
    for s in (best.trace.visited() | moved) & entry:
        if s not in moved and best.trace.flips[s] and _empty_inlet(after[s], geometry.inlets[s]):
            fresh[s] = drop
        else:
            fresh.pop(s, None)
