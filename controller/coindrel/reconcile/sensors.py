"""From what really happened to what the sensors should have said.

Given a hypothesis's cascade (the truth if the hypothesis is right) and what
the sensors reported, ``derive`` finds the sensor faults that must be present
for the report to follow: a beam that saw fewer coins than passed is dead, one
that saw more chatters, a hall that disagrees with the cascade is faulty (or
the rocker is unseated when it reads ``mid`` at rest). Sensor faults are never
searched for; they follow, so the search only tries physical faults and
belief changes, and a pair like "R3S2 stuck and exit 5 dead" costs one try.

It also says which of the world's known faults showed (exercised), which
could have shown and did not (maybe fixed, maybe intermittent) and which are
proven gone.
"""

from __future__ import annotations

import math
from itertools import compress

from ..engine import EntrySensorDead, ExitSensorDead, HallFault
from ..engine.core import HOLE, PAD_R
from .faults import PRIOR, EntrySensorChatter, ExitSensorChatter, StrayCoin, SwitchUnseated
from .observed import SIDES, Observed, Sensors

_LOG = {name: math.log(p) for name, p in PRIOR.items()}
# A chatter explanation whose extra count is far (in time) from any other
# break of that beam is unlikely: a chattering beam re-triggers within tens of ms.
IMPLAUSIBLE_CHATTER = math.log(0.02)
# A hall supposed to have been lying at rest that reads a flip right now.
RIGHT_AGAIN = math.log(0.01)
CLEAN_FLIP = math.log(0.05)
STRAY_IN_DROP = math.log(1e-4)
SLOW_FLIP = math.log(0.01)
# A coin flip slower than this board's coins have made, yet as quick as a
# coin teetering on a lever edge or a stiff rocker makes one (a third board
# model's took 130-310 ms): slowness alone is weak evidence of a hand, and a
# flip the cascade makes where a coin came is the coin's (122 false alarms
# in 50,400 healthy drops named a hand there). Past this, a hand's pace.
COIN_SLOW_LIMIT = 0.45
PLAUSIBLY_SLOW = math.log(0.25)
LOOKS_HEALTHY = math.log(0.2)
# Of beams that stop seeing coins, those that go by being blocked (a coin
# stuck in the slot, debris): the one break they make is no coin.
BLOCKED = math.log(0.3)


class Derivation:
    __slots__ = ("new", "exercised", "unshown", "fixed", "cost")

    def __init__(self):
        self.new: list = []
        self.exercised: list = []
        self.unshown: list = []
        self.fixed: list = []
        self.cost = 0.0

    def add(self, fault, extra: float = 0.0) -> None:
        self.new.append(fault)
        self.cost += _LOG[fault.name] + extra


def _close_repeats(times: list[float], window: float) -> int:
    return sum(1 for a, b in zip(times, times[1:]) if b - a <= window)


LIVE_SENSOR = math.log(0.1)
SEATED_THEN_MID = math.log(0.05)
# A rocker's magnet, seated, unseated or swinging, stays between the hall's
# two sides: a hall that read ``none`` (no magnet, beyond its range) on a
# switch that has a rocker is the sensor's doing, not an unseated rocker's.
OUT_OF_RANGE = math.log(0.05)


def _reached(readings, side: int) -> bool:
    """The readings show ``side`` (0 left, 1 right) before the last one."""
    return any(SIDES.get(p) == side for _, p in readings[:-1])


def _visits_unseated(readings, before, flips: int) -> bool:
    """A rocker that cannot seat on one side, turned over there and back by
    ``flips`` coins (an even number): each flip there shows as ``mid`` (it
    leaves its side and never reaches the other band) and each flip back as
    its side again, so the readings are the side before, then one ``mid``
    spell back to that side per two flips, and never the other side."""
    side = SIDES.get(before)
    if side is None or flips < 2 or flips % 2:
        return False
    away = visits = 0
    for _, p in readings:
        s = SIDES.get(p)
        if s is None:
            away = 1
        elif s != side:
            return False
        elif away:
            visits, away = visits + 1, 0
    return not away and visits == flips // 2


_FAULTS: dict = {}


def _fault(cls, *place):
    """One fault value per kind and place: they are frozen, and a diagnosis
    derives the same few hundreds of times."""
    key = (cls, place)
    f = _FAULTS.get(key)
    if f is None:
        f = _FAULTS[key] = cls(*place)
    return f


def derive(
    obs: Observed,
    index,
    labels,
    entry_counts: list[int],
    trace,
    assumed_hall: frozenset | set = frozenset(),
    sensors: Sensors = Sensors(),
    chatter_window: float = 0.1,
    stray: bool = False,
    hand_flips: dict | None = None,
    blocked: tuple = (),
) -> Derivation | None:
    """The sensor faults a hypothesis needs, or None when no sensor fault can
    turn its cascade into the report (a coin seen where none could be)."""
    d = Derivation()
    # (counts the beams saw as they should, no known dead beam among them: nothing to derive)
    if sensors.entries and not (entry_counts == obs.entry_counts and not index.dead_entries):
        for e, (t, o) in enumerate(zip(entry_counts, obs.entry_counts)):
            if o == t:
                if t and e in index.dead_entries:
                    d.unshown.append(_fault(EntrySensorDead, e))
                continue
            if o < t:
                if e in index.dead_entries:
                    d.exercised.append(_fault(EntrySensorDead, e))
                else:
                    d.add(_fault(EntrySensorDead, e))
            elif t == 0 and e in blocked:
                d.add(_fault(EntrySensorDead, e), BLOCKED)  # broken once, by no coin: blocked, it misses all from now on
            elif t == 0:
                return None  # an entry event with no coin there
            else:
                times = [te for te, ee in obs.entries if ee == e]
                extra = 0.0 if _close_repeats(times, chatter_window) >= o - t else IMPLAUSIBLE_CHATTER
                if e in index.chatter_entries and not extra:
                    d.exercised.append(_fault(EntrySensorChatter, e))
                else:
                    d.add(_fault(EntrySensorChatter, e), extra)
    if sensors.exits and not (trace.exits == obs.exit_counts and not index.dead_exits):
        texits = trace.exits
        for x, o in enumerate(obs.exit_counts):
            t = texits[x]
            if o == t:
                if t and x in index.dead_exits:
                    d.unshown.append(_fault(ExitSensorDead, x))
                continue
            if o < t:
                if x in index.dead_exits:
                    d.exercised.append(_fault(ExitSensorDead, x))
                else:
                    d.add(_fault(ExitSensorDead, x))
                continue
            times = [tx for tx, xx in obs.exits if xx == x]
            plausible = t > 0 and _close_repeats(times, chatter_window) >= o - t
            if not plausible:
                # A coin no cascade could bring: put in by hand or a false break.
                # Between drops that is the likely story; inside a drop, a last resort.
                each = _LOG[StrayCoin.name] if stray else STRAY_IN_DROP
                d.add(_fault(StrayCoin, x), each - _LOG[StrayCoin.name] + (o - t - 1) * each)
            elif x in index.chatter_exits and plausible:
                d.exercised.append(_fault(ExitSensorChatter, x))
            else:
                d.add(_fault(ExitSensorChatter, x), 0.0 if plausible else IMPLAUSIBLE_CHATTER)
    if sensors.halls and _halls(d, obs, index, labels, trace, assumed_hall, hand_flips) is None:
        return None
    return d


def _halls(d: Derivation, obs: Observed, index, labels, trace, assumed, hand_flips):
    flips, codes = trace.flips, trace.codes
    check = set(obs.active)
    check.update(compress(range(len(flips)), flips))
    check.update(assumed)
    if hand_flips:
        check.update(hand_flips)
    for s, n in obs.slow.items():
        # A rocker that took as long as a hand takes, explained as a coin's flip
        # (the hands in the story took the slowest of them).
        extra = n - (hand_flips.get(s, 0) if hand_flips else 0)
        if extra > 0 and s not in index.halls:
            slow = sorted(x for x in obs.flip_spans.get(s, ()) if x is not None and x >= obs.slow_limit)[:extra]
            slow += [COIN_SLOW_LIMIT] * (extra - len(slow))
            d.cost += sum(PLAUSIBLY_SLOW if x < COIN_SLOW_LIMIT else SLOW_FLIP for x in slow)
    final, oflips, halls, unseated = obs.final, obs.flips, index.halls, index.unseated
    for s in check:
        tf = flips[s] + (hand_flips.get(s, 0) if hand_flips else 0)
        code = codes[s]
        fin = final[s]
        of = oflips[s]
        if code == HOLE:
            ok = fin == "none" and not of
        else:
            side = SIDES.get(fin)
            ok = side is not None and side == (code & PAD_R) and (of is None or of == tf)
        if ok and s not in halls and s not in unseated and s not in assumed:
            continue  # (most of them: a working hall that read what the cascade did)
        if s in assumed and s not in index.halls:
            # The hypothesis says this hall was wrong before the drop. If it
            # reads this drop right, it was wrong a moment ago and right now.
            if ok and s in obs.readings:
                d.cost += RIGHT_AGAIN
            continue
        if s in index.halls:
            fault = _fault(HallFault, labels[s])
            if not ok or s in assumed:
                d.exercised.append(fault)
                if obs.coin_like.get(s, 0) > tf:
                    d.cost += CLEAN_FLIP  # a known-bad sensor drawing a clean flip that did not happen
                elif obs.coin_like.get(s, 0) and SIDES.get(fin) is not None:
                    d.cost += LOOKS_HEALTHY  # clean flips ending on a side: readings a working sensor gives
                elif not tf and of == 0 and SIDES.get(fin) is not None and s in obs.readings:
                    # It read a wrong side at rest and moved just now (left
                    # that side and came back) while its rocker, this story
                    # says, stayed put: a frozen sensor does not move, a
                    # lying one rarely does; a sticky rocker wiggles.
                    d.cost += LIVE_SENSOR
            elif tf:
                d.unshown.append(fault)  # it read a real flip right: working again?
            continue
        # A rocker a coin turned over that reached its new side's band and
        # then read ``mid`` at rest is not unseated: one knocked off its seat
        # is seated by the flip (it stays on that side), one that cannot seat
        # never reaches the band. A drifted sensor passes through it.
        seated_then_mid = fin == "mid" and tf and code != HOLE and _reached(obs.readings.get(s, ()), code & PAD_R)
        unseated_cost = (SEATED_THEN_MID if seated_then_mid else 0.0) + (OUT_OF_RANGE if fin == "mid" and code != HOLE and any(
            p == "none" for _, p in obs.readings.get(s, ())) else 0.0)
        # Turned to its far side and back, reading ``mid`` there each time.
        there_and_back = not ok and code != HOLE and of == 0 and SIDES.get(fin) == (code & PAD_R) and _visits_unseated(
            obs.readings.get(s, ()), obs.pre[s], tf)
        if s in index.unseated:
            fault = _fault(SwitchUnseated, labels[s])
            if fin == "mid" or there_and_back:
                d.exercised.append(fault)
                d.cost += unseated_cost
                continue
            if ok:
                d.fixed.append(fault)  # read seated on the right side: it is seated now
                continue
        if ok:
            continue
        if (fin == "mid" or there_and_back) and code != HOLE:
            d.add(_fault(SwitchUnseated, labels[s]), unseated_cost)
        else:
            # A faulty sensor rarely draws a clean, coin-fast flip that did not
            # happen; and a hall that twitched (left its side and came back)
            # while the rocker is said to have gone over is alive: the rocker
            # tried and did not flip (stuck) rather than the sensor missing it.
            twitched = of == 0 and tf > 0 and any(SIDES.get(p) is None for _, p in obs.readings.get(s, ()))
            # One that showed some of the flips, each as a rocker moves, and
            # not the others is alive too: the rocker stuck on some coins.
            twitched = twitched or (of is not None and 0 < of < tf and obs.coin_like.get(s, 0) >= of)
            d.add(_fault(HallFault, labels[s]), (CLEAN_FLIP if obs.coin_like.get(s, 0) > tf else 0.0) + (LIVE_SENSOR if twitched else 0.0))
    return d


def swapped(d, old, new, extra: float) -> "Derivation":
    """``d`` with the sensor fault ``old`` named ``new`` instead, at ``extra`` more cost."""
    alt = Derivation()
    alt.new = [new if f is old else f for f in d.new]
    alt.exercised, alt.unshown, alt.fixed = d.exercised, d.unshown, d.fixed
    alt.cost = d.cost + extra
    return alt
