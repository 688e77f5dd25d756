"""Coins and rockers in time: rules.md section 3 acted out by wooden parts.

Every coin is an object falling down lanes; every rocker has a stiffness
(how long a flip takes), a looseness (how far it bounces back off its seat
when it lands) and a record of its angle over time (``Motion``), which the
hub (``hub.py``) samples like a real ADC scan. A coin that meets a rocker
still moving waits for it (sensing.md section 2); a coin may hesitate on a
lever edge before it tips; a bouncing coin takes time to cross a full pad.

Randomness is keyed by what it belongs to (the coin, the switch, the visit),
never drawn from one shared stream, so a faulty run and its healthy shadow
(``session.py``) draw the same numbers for everything a fault did not touch.
"""

from __future__ import annotations

import heapq
import math
import random

from .layout import L, R, SPOTS, below, entry_spot

def keyed(*key) -> random.Random:
    return random.Random(":".join(map(str, key)))


class Coin:
    __slots__ = ("id", "owner", "speed", "heft", "visits")

    def __init__(self, cid, owner, rng: random.Random):
        self.id, self.owner = cid, owner
        self.speed = rng.uniform(0.88, 1.16)  # size and mass: a small light coin falls a bit slower down a wooden lane
        self.heft = rng.uniform(0.8, 1.3)
        self.visits = 0


class Motion:
    """A rocker's angle from ``t0``: a move from ``a`` to ``b`` taking ``d``
    (accelerating, as a lever pushed down by a coin does, or smooth for a
    hand), then a bounce off the seat back towards ``a`` by ``amp`` lasting
    ``bd``. A twitch is a move that returns (``b == a``, ``amp`` its peak)."""

    __slots__ = ("t0", "d", "a", "b", "amp", "bd", "kind", "t1", "owner")

    def __init__(self, t0, d, a, b, amp, bd, kind, owner):
        self.t0, self.d, self.a, self.b, self.amp, self.bd, self.kind, self.owner = t0, d, a, b, amp, bd, kind, owner
        self.t1 = t0 + d + bd

    def at(self, t: float) -> float:
        if t <= self.t0:
            return self.a
        u = (t - self.t0) / self.d if self.d > 0 else 1.0
        if self.kind == "twitch":
            if u >= 1.0:
                return self.a
            toward = 1.0 if self.a < 0.5 else -1.0
            return self.a + toward * self.amp * math.sin(math.pi * u)
        if u < 1.0:
            e = u * u if self.kind == "flip" else u * u * (3 - 2 * u)
            return self.a + (self.b - self.a) * e
        if self.bd <= 0:
            return self.b
        v = (t - self.t0 - self.d) / self.bd
        if v >= 1.0:
            return self.b
        back = 1.0 if self.b < self.a else -1.0  # towards where it came from
        return self.b + back * self.amp * math.sin(math.pi * v) * (1.0 - 0.6 * v)


class Rocker:
    __slots__ = ("spot", "pad", "coin", "busy", "stiff", "loose", "motions", "unseat", "hole", "visits")

    def __init__(self, spot, pad, rng):
        self.spot, self.pad, self.coin, self.busy = spot, pad, None, -1.0
        self.stiff = min(0.22, max(0.012, rng.lognormvariate(math.log(0.05), 0.45)))
        self.loose = rng.uniform(0.0, 0.05) if rng.random() < 0.85 else rng.uniform(0.07, 0.24)
        self.motions: list[Motion] = []
        self.unseat = {L: 0.0, R: 0.0}  # how far from its seat it rests on that side
        self.hole = False
        self.visits = 0

    def rest(self, side=None) -> float:
        side = self.pad if side is None else side
        return self.unseat[L] if side == L else 1.0 - self.unseat[R]


class NoFaults:
    def pad_holds(self, t, rocker, coin) -> bool:
        return True

    def stuck(self, t, rocker, coin):
        return False, 0.0

    def jam(self, t, rocker, side, coin, jammed) -> str:
        return "pass"  # or "stick" (this coin stops in the lane), or "free" (it knocks the stuck ones loose)


class Physics:
    def __init__(self, seed, pads, coins, holes, fx=None, rng=None):
        rng = rng or keyed("b4board", seed)
        self.seed = seed
        self.rockers = [Rocker(s, pads[s.n], rng) for s in SPOTS]
        for n in holes:
            self.rockers[n].hole = True
        self.fx = fx or NoFaults()
        self.row_t = rng.uniform(0.085, 0.15)
        self.entry_t = rng.uniform(0.03, 0.07)
        self.exit_t = rng.uniform(0.04, 0.10)
        self.cross_t = rng.uniform(0.02, 0.06)
        self.heap: list = []
        self.seq = 0
        self.beams: list[tuple] = []  # ("entry"|"exit", t, number, owner, coin id, how long it is broken)
        self.jammed: dict = {}  # (switch n, side) -> coins stuck in that lane
        self.flying = 0
        self.last = 0.0
        self.swallowed = 0
        self.exits: list[tuple] = []  # (t, exit, owner)
        self.flips: list[tuple] = []  # (t, switch n, owner)
        for s in SPOTS:
            if coins[s.n]:
                self.rockers[s.n].coin = Coin(f"start{s.n}", None, keyed(seed, "start", s.n))

    # -- scheduling ---------------------------------------------------------
    def _at(self, t, fn, *args):
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, fn, args))

    def run_until(self, t_stop: float) -> None:
        while self.heap and self.heap[0][0] <= t_stop:
            t, _, fn, args = heapq.heappop(self.heap)
            self.last = max(self.last, t)
            fn(t, *args)

    def settle(self, limit: float = 60.0) -> float:
        """Run until no coin is moving; the time of the last thing that happened."""
        start = self.last
        while self.heap and self.heap[0][0] <= start + limit:
            self.run_until(self.heap[0][0])
        busy = max((m.t1 for r in self.rockers for m in r.motions[-1:]), default=0.0)
        return max(self.last, busy)

    # -- what people do -------------------------------------------------------
    def drop(self, t: float, entry: int, cid: int, hold: float = 0.0) -> Coin:
        """A coin into ``entry`` at ``t``; ``hold``: a person slid it into the
        slot and let go that much later (the beam broke as it went in)."""
        coin = Coin(cid, cid, keyed(self.seed, "coin", cid))
        self.flying += 1
        r = keyed(self.seed, cid, "in")
        through = hold + r.uniform(0.012, 0.04) if hold else r.uniform(0.012, 0.04)  # let go from a hand: slow through the beam
        self.beams.append(("entry", t, entry, cid, cid, through))
        self._at(t + hold + self.entry_t * coin.speed * r.uniform(0.92, 1.08), self._arrive, coin, entry_spot(entry).n)
        return coin

    def hand_flip(self, t: float, n: int, rng) -> float:
        r = self.rockers[n]
        t = max(t, r.busy)
        d = rng.uniform(0.15, 0.6)
        old = r.pad
        r.pad = 1 - old
        r.motions.append(Motion(t, d, r.rest(old), r.rest(r.pad), rng.uniform(0.0, 0.04), 0.02, "hand", None))
        r.busy = t + d + 0.02
        if r.coin is not None:  # the pad lifts and the resting coin slides off its old side
            c, r.coin = r.coin, None
            c.owner = None
            self.flying += 1
            self._at(t + 0.6 * d, self._leave, c, n, old)
        return r.busy

    def bump(self, t: float, rng) -> None:
        """Someone knocks the table: every rocker rattles on its seat, none flips."""
        k = rng.uniform(0.2, 1.0)
        for r in self.rockers:
            if r.hole or t < r.busy:
                continue
            amp = k * r.loose * rng.uniform(0.5, 1.0)
            if amp > 0.004:
                r.motions.append(Motion(t + rng.uniform(0, 0.004), rng.uniform(0.02, 0.05), r.rest(), r.rest(), amp, 0.0,
                                        "twitch", None))

    # -- the switch rule, in time ---------------------------------------------
    def _arrive(self, t: float, coin: Coin, n: int) -> None:
        r = self.rockers[n]
        if r.hole:
            self.flying -= 1
            self.swallowed += 1
            return
        if t < r.busy:  # meets a moving rocker: waits on it, then meets it as it now sits
            self._at(r.busy + keyed(self.seed, coin.id, n, "wait", r.visits).uniform(0.003, 0.012), self._arrive, coin, n)
            return
        r.visits += 1
        coin.visits += 1
        rng = keyed(self.seed, coin.id, n, coin.visits)
        x = r.spot.inlet
        if r.pad == x:
            if r.coin is None and self.fx.pad_holds(t, r, coin):
                r.coin = coin
                self.flying -= 1
                r.busy = t + rng.uniform(0.01, 0.03)  # it rocks into place
                return
            delay = self.cross_t * rng.uniform(0.8, 1.3)  # bounces across the pad
        else:
            delay = rng.uniform(0.004, 0.02)
        lever = 1 - r.pad
        if rng.random() < (0.06 if r.stiff > 0.09 and coin.heft < 0.95 else 0.015):
            delay += rng.uniform(0.1, 0.55)  # balanced on the lever edge a moment before it tips
        ts = t + delay
        stuck, twitch = self.fx.stuck(ts, r, coin)
        if stuck:
            if twitch > 0:
                r.motions.append(Motion(ts, rng.uniform(0.03, 0.08), r.rest(), r.rest(), twitch, 0.0, "twitch", coin.owner))
            r.busy = ts + 0.05
            self._at(ts + rng.uniform(0.02, 0.05), self._leave, coin, n, lever)
            return
        d = min(0.3, max(0.01, r.stiff * coin.heft ** 0.5 * rng.uniform(0.88, 1.15)))
        bd = rng.uniform(0.012, 0.035)
        old = r.pad
        a, b = r.rest(old), r.rest(lever)
        r.pad = lever
        r.motions.append(Motion(ts, d, a, b, r.loose * rng.uniform(0.4, 1.0), bd, "flip", coin.owner))
        self.flips.append((ts, n, coin.owner))
        r.busy = ts + d + bd
        self._at(ts + d * rng.uniform(0.5, 0.85), self._leave, coin, n, lever)
        if r.coin is not None:
            c, r.coin = r.coin, None
            c.owner = coin.owner  # what a drop knocks loose is the dropper's
            self.flying += 1
            self._at(ts + d * rng.uniform(0.35, 0.7), self._leave, c, n, old)

    def _leave(self, t: float, coin: Coin, n: int, side: int) -> None:
        r = self.rockers[n]
        key = (n, side)
        stuck = self.jammed.get(key, [])
        what = self.fx.jam(t, r, side, coin, stuck)
        if what == "stick":
            stuck.append(coin)
            self.jammed[key] = stuck
            self.flying -= 1
            return
        if what == "free" and stuck:
            for k, c in enumerate(stuck):
                c.owner = coin.owner
                self.flying += 1
                self._fall(t + 0.01 + 0.015 * k, c, r.spot.row, r.spot.outlet_lane(side))
            self.jammed[key] = []
        self._fall(t, coin, r.spot.row, r.spot.outlet_lane(side))

    def _fall(self, t: float, coin: Coin, row: int, lane: int) -> None:
        spot, rows = below(row, lane)
        rng = keyed(self.seed, coin.id, "fall", row, lane, coin.visits)
        dt = rows * self.row_t * coin.speed * rng.uniform(0.93, 1.07)
        if spot is not None:
            self._at(t + dt, self._arrive, coin, spot.n)
        else:
            self._at(t + dt - self.row_t * coin.speed + self.exit_t * rng.uniform(0.9, 1.1), self._exit, coin, lane)

    def _exit(self, t: float, coin: Coin, lane: int) -> None:
        self.flying -= 1
        self.exits.append((t, lane, coin.owner))
        through = keyed(self.seed, coin.id, "out", coin.visits).uniform(0.005, 0.02) * coin.speed  # falling fast by now
        self.beams.append(("exit", t, lane, coin.owner, coin.id, through))

    # -- the board now ----------------------------------------------------------
    def state(self):
        pads = [r.pad for r in self.rockers]
        coins = [r.coin is not None for r in self.rockers]
        holes = {r.spot.n for r in self.rockers if r.hole}
        return pads, coins, holes

