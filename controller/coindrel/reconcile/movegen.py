"""The move generator of the diagnosis search (``Search.moves``): every
single change worth trying on a world for one drop, only where it could
matter (switches a coin of that cascade reached, outlets a coin left
through, rockers that went over as slowly as a hand moves them), each with
its cost (the log of its prior)."""

from __future__ import annotations

import math

from ..engine import catalog
from ..engine import EntrySensorDead, HallFault, Jam, PadNotHolding, SwitchStuck
from ..engine.core import COIN, HOLE, PAD_R
from .candidate import Move
from .faults import FIXED, HALL_WAS_WRONG, INTERMITTENT, PRIOR, CoinAdded, CoinRemoved, MovedByHand
from .handful import handful_moves, left_moves, pad_turns
from .late import late_moves
from .release import release_moves
from .sensors import _fault
from .unseen import COST as UNSEEN_COST

_LOG = {name: math.log(p) for name, p in PRIOR.items()}
# How much longer a known hall fault makes us doubt the pad it hides.
DOUBT_HIDDEN_PAD = math.log(0.2)
# A pad side a coin has since proven (its cascade fitted) is rarely wrong.
PROVEN = math.log(0.05)
SILENT_DROP = math.log(0.3)
SOME_MISSED = math.log(INTERMITTENT)  # a beam that saw this drop's coin and missed an earlier one
HAND_IN_DROP = math.log(0.3)  # hands in the board are rarer while coins fall
QUICK_HAND = math.log(0.001)  # a rocker over as fast as a coin flips it, by hand
# A pivot that sticks on some coins and not others (rules.md's stuck rocker,
# intermittently): as likely as a stuck one that is intermittent.
STICKY = math.log(0.25)
STICKY_PASSES = 3  # which of the first few coins that should have flipped it found it stuck


def generate(search, world, trace, base: tuple = ()) -> list[Move]:
    """``Search.moves``: the single moves to try on ``world`` given its ``trace``."""
    idx = world.index
    labels = search.labels
    taken = {(m.kind, m.s, m.side) for m in base}
    base_stuck = idx.stuck | {m.s for m in base if m.kind == "stuck"}
    base_slips = idx.slips | {m.s for m in base if m.kind == "slip"}
    base_pad = {m.s for m in base if m.kind in ("pad", "add", "remove", "lost")}
    out: list[Move] = []
    seen_switch: set = set()
    sides: dict = {}  # outlet -> coins this cascade sent down it
    rested = {b >> 3 for b in trace.arrivals if search.physics.rested(b)}
    for a in trace.arrivals:
        s = a >> 3
        st, sl = s in base_stuck, s in base_slips
        for side in search.physics.sides_used(a, st, sl):
            sides[s, side] = sides.get((s, side), 0) + 1
        if s in seen_switch:
            continue
        seen_switch.add(s)
        code = world.codes[s]
        if code == HOLE:
            continue
        label = labels[s]
        if trace.flips[s] and not st:
            out.append(Move("stuck", s, fault=_fault(SwitchStuck, label), cost=_LOG[catalog.SWITCH_STUCK]))
            if trace.flips[s] > 1 and not any(m.kind == "sticky" for m in base):
                for k in range(min(trace.flips[s], STICKY_PASSES)):
                    out.append(Move("sticky", s, k, fault=_fault(SwitchStuck, label), cost=_LOG[catalog.SWITCH_STUCK] + STICKY))
        if not sl and s in rested:
            out.append(Move("slip", s, fault=_fault(PadNotHolding, label), cost=_LOG[catalog.PAD_NOT_HOLDING] + pad_turns(search, world, s)))
        if s not in base_pad:
            unseen = s in search.unsure
            asked = unseen and s in search.asked
            if code & COIN:
                out.append(Move("remove", s, fault=_fault(CoinRemoved, label, True, asked) if unseen else _fault(CoinRemoved, label),
                                cost=UNSEEN_COST if unseen else _LOG[catalog.COIN_REMOVED]))
                # Or that coin never arrived: it stuck in the chute it came
                # by (the drop that sent it saw nothing: it would have
                # rested here unseen), and that chute holds later coins too.
                for via in world.came_at(s):
                    if via not in idx.jams and not any(m.kind == "chute" and (m.s, m.side) == via for m in base):
                        out.append(Move("lost", s, 2 * via[0] + via[1], fault=_fault(Jam, labels[via[0]], via[1]), cost=_LOG[catalog.JAM]))
            else:
                out.append(Move("add", s, fault=_fault(CoinAdded, label, True, "", "", asked) if unseen else _fault(CoinAdded, label),
                                cost=UNSEEN_COST if unseen else _LOG[catalog.COIN_ADDED] + pad_turns(search, world, s)))
            if s in idx.halls and s in search.unput:  # left as it was, a put-back held past: once, no fault
                out.append(Move("unput", s, fault=_fault(MovedByHand, label, True), cost=UNSEEN_COST))
            elif s in idx.halls:
                out.append(Move("pad", s, fault=_fault(HallFault, label), cost=DOUBT_HIDDEN_PAD))
            else:
                proven = PROVEN if s in search.proven else 0.0
                out.append(Move("pad", s, fault=_fault(HallFault, label), cost=_LOG[catalog.HALL_FAULT] + math.log(HALL_WAS_WRONG) + proven))
        for f in idx.at(s):
            if isinstance(f, (SwitchStuck, PadNotHolding)) and ("fix", s, -1) not in taken and ("spare", s, -1) not in taken:
                out.append(Move("fix", s, fault=f, cost=math.log(FIXED)))
                # A sticky pivot or a pad that holds sometimes: it did not act on this coin.
                out.append(Move("spare", s, fault=f, cost=search.spare_cost(f)))
    out += release_moves(world, trace, labels, base)
    for s, side in sorted(sides):
        if (s, side) in idx.jams:
            if ("fix", s, side) in taken or ("spare", s, side) in taken:
                continue
            jam = _fault(Jam, labels[s], side)
            out.append(Move("fix", s, side, fault=jam, cost=math.log(FIXED)))
            # A chute that stopped a coin can let the next one by (the
            # stopped coin narrows it and stays, or is knocked on while the
            # next catches in its place): the jam is kept, like a sticky
            # pivot that did not act on this coin, so the drop it stopped a
            # coin in is not revised to a rival that needed no coin stopped.
            out.append(Move("spare", s, side, fault=jam, cost=search.spare_cost(jam)))
        elif ("chute", s, side) not in taken and ("chute1", s, side) not in taken:
            jam = _fault(Jam, labels[s], side)
            out.append(Move("chute", s, side, fault=jam, cost=_LOG[catalog.JAM]))
            n = sides[s, side]
            if n > 1:
                # A coin wedged there and the later coins of this cascade got
                # by it (the chute narrowed, not shut), as a known jam may let
                # a coin by (``spare``): one coin short below, not all of them.
                out.append(Move("chute1", s, side, fault=jam, cost=_LOG[catalog.JAM] + (n - 1) * search.spare_cost(jam)))
    if search.sensors.entries and not any(m.kind.startswith("entry") or m.kind == "phantom" for m in base):
        # A count with no coin behind it: the beam broke once and stays
        # broken (blocked), missing every coin from now on.
        out += [Move("phantom", e) for e in sorted(set(search.entries)) if search.entries.count(e) == 1 and e not in idx.dead_entries]
        g = search.physics.geometry
        for e in range(search.obs.entry_count):
            out.append(Move("entry", e))
            # A beam that misses coins missed the earlier coin that came to
            # rest on this entry's empty pad too (that drop made no event).
            sw = g.entry_switches[e]
            code = world.codes[sw]
            if code != HOLE and not code & COIN and (code & PAD_R) == g.inlets[sw] and sw not in base_pad:
                turns = pad_turns(search, world, sw)  # that earlier coin came in one of the turns the pad sat empty
                out.append(Move("entry+rest", e, cost=SILENT_DROP + turns))
                if e in search.entries:
                    # The coin of this drop meets a coin an earlier drop left
                    # there unseen: the beam that missed it misses coins. It
                    # saw this one, so it misses some only (a dirty beam), as
                    # against a coin put there by hand (issue 13).
                    known = e in world.index.dead_entries
                    out.append(Move("missed", e, fault=_fault(EntrySensorDead, e),
                                    cost=SILENT_DROP + turns + (0.0 if known else _LOG[catalog.ENTRY_SENSOR_DEAD] + SOME_MISSED)))
    # A rocker that went over slowly, as a hand moves it, during the drop;
    # or one that went over where no coin of this cascade came (a quick
    # hand, as unlikely as a hand that fast is).
    visited = None
    for s in search.obs.active:
        if s in base_pad or any(m.kind.startswith("hand") and m.s == s for m in base) or world.codes[s] == HOLE:
            continue
        spans = search.obs.flip_spans.get(s, ())
        extra = None
        if any(d is not None and d >= search.flip_limit for d in spans):
            extra = 0.0
        elif spans and search.obs.flips[s]:
            visited = trace.visited() if visited is None else visited
            if s not in visited:
                extra = QUICK_HAND
        if extra is not None:
            label = labels[s]
            cost = _LOG[catalog.MOVED_BY_HAND] + HAND_IN_DROP + extra
            out.append(Move("hand", s, fault=_fault(MovedByHand, label), cost=cost))
            out.append(Move("hand_after", s, fault=_fault(MovedByHand, label), cost=cost))
            # or at the moment its slow flip began: after the coins that had
            # gone in by then, before the later ones (overlapping turns)
            times = [t for t, _ in search.obs.entries]
            for t, d in zip(search.obs.flip_times.get(s, ()), spans):
                k = sum(1 for te in times if te < t - (d or 0.0))
                if d is not None and d >= search.flip_limit and 0 < k < len(times):
                    out.append(Move("hand_at", s, k, fault=_fault(MovedByHand, label), cost=cost))
    if search.sensors.entries and all(m.kind == "handful" for m in base):
        # (after a handful, one into another entry: a group of two turns can
        # hold a handful each)
        out += [m for m in handful_moves(search.entries) if all(b.s != m.s for b in base)]
    out += left_moves(search, world, base_pad)
    if search.settling and not any(m.kind == "late" for m in base):
        out += late_moves(search, world, base_pad)
    if not any(m.kind == "unchatter" for m in base):
        # Tried first: one coin counted twice by its beam is one cheap cascade.
        for e in sorted(set(search.entries)):
            times = [t for t, x in search.obs.entries if x == e]
            if any(b - a <= search.chatter_window for a, b in zip(times, times[1:])):
                out.insert(0, Move("unchatter", e, fault=None))
    return [m for m in out if (m.kind, m.s, m.side) not in taken]
