"""Coins in time: each coin falls lane by lane, meets its switch's inlet,
rests on an empty pad or passes the lever and flips the rocker (rules.md
section 3), and rocker motions are recorded for the hub to render.

This board's own mechanics: two coin sizes (a small light coin and a large
heavy one: beam times, chute speeds, how hard they push a lever), coins
dropped from high, a coin rolling on its edge down a chute now and then, a
stiffness per rocker, a coin meeting a moving rocker waits for it, a coin
behind another in one chute breaks the beam after the first has cleared.
Faults act through the hooks of ``faults.Faults``."""

from __future__ import annotations

import heapq

from . import layout as lay


class Coin:
    __slots__ = ("drop", "large", "speed")

    def __init__(self, drop, large: bool, speed: float):
        self.drop = drop  # the coin number of the drop it belongs to (None: set loose by a hand)
        self.large = large
        self.speed = speed  # multiplies travel times


class Physics:
    def __init__(self, rng, pads: list[int], faults):
        self.rng = rng
        self.pads = list(pads)
        self.coins = [0] * len(lay.SWITCHES)
        self.faults = faults
        self.heap: list = []
        self.seq = 0
        self.now = 0.0
        self.busy = [0.0] * len(lay.SWITCHES)
        self.stiff = [rng.uniform(0.035, 0.095) for _ in lay.SWITCHES]  # seconds for a full flip
        self.beam_clear = {}  # ("entry"|"exit", n) -> time the beam is clear again
        self.motions = [[] for _ in lay.SWITCHES]  # (t0, d, a_from, a_to)
        self.beams = []  # (true time, kind, number 0-based, coin)
        self.acted: dict = {}  # coin number -> set of fault ids
        self.acted_at: dict = {}  # fault id -> the first time it acted
        self.span: dict = {}  # coin number -> [first, last] time anything of its drop moved
        self.seen: dict = {}  # coin number -> {"entry": edges, "exits": [lanes of exit edges], "flips": {switch: n}}
        self.last_event = 0.0
        self.exits = []  # (true time, lane, coin)
        self.tags: dict = {}  # coin number -> what its cascade did that is unusual (for classes.py)

    # -- plumbing -----------------------------------------------------------------

    def push(self, t: float, kind: str, *args) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, kind, args))

    def tag(self, coin: Coin, what: str) -> None:
        if coin.drop is not None:
            self.tags.setdefault(coin.drop, set()).add(what)

    def act(self, coin: Coin, fid) -> None:
        if fid is not None and coin.drop is not None:
            self.acted.setdefault(coin.drop, set()).add(fid)
            self.acted_at.setdefault(fid, self.now)

    def moved(self, coin: Coin, t: float) -> None:
        self.last_event = max(self.last_event, t)
        if coin.drop is not None:
            span = self.span.setdefault(coin.drop, [t, t])
            span[0], span[1] = min(span[0], t), max(span[1], t)

    def overlapped(self, drop: int) -> bool:
        """Did this drop's coins fall together with another drop's (which coin did what is then not told)?"""
        a = self.span.get(drop)
        return a is not None and any(d != drop and b[0] <= a[1] + 0.05 and a[0] <= b[1] + 0.05 for d, b in self.span.items())

    def run_until(self, t: float) -> None:
        while self.heap and self.heap[0][0] < t:
            tt, _, kind, args = heapq.heappop(self.heap)
            self.now = tt
            getattr(self, "_" + kind)(tt, *args)

    def quiet(self) -> float:
        """Run until nothing moves; the time the last thing happened."""
        self.run_until(float("inf"))
        return self.last_event

    def busy_now(self, t: float) -> bool:
        return bool(self.heap) or any(b > t for b in self.busy)

    # -- coins ------------------------------------------------------------------------

    def drop_coin(self, t: float, entry: int, coin: Coin, beam_ms: float) -> float:
        """A coin into ``entry`` at ``t``: its beam break, then its fall on to row 1. The time its beam clears."""
        clear = self.beam_clear.get(("entry", entry), -1.0)
        if t < clear + 0.001:
            t = clear + 0.001 + self.rng.uniform(0, 0.002)  # the coin behind another: after it
        self._beam(t, "entry", entry, coin, beam_ms)
        self.push(t + self.rng.uniform(0.030, 0.055) * coin.speed, "arrive", coin, lay.entry_switch(entry))
        return t + beam_ms / 1000.0

    def _beam(self, t: float, kind: str, n: int, coin: Coin, ms: float) -> None:
        self.beam_clear[(kind, n)] = t + ms / 1000.0
        self.moved(coin, t + ms / 1000.0)
        for tt in self.faults.beam(kind, n, t, ms, coin, self):
            self.beams.append((tt, kind, n, coin))
            if coin.drop is not None:
                seen = self.seen_of(coin.drop)
                if kind == "entry":
                    seen["entry"] += 1
                else:
                    seen["exits"].append(n)

    def seen_of(self, drop: int) -> dict:
        return self.seen.setdefault(drop, {"entry": 0, "exits": [], "flips": {}})

    def _arrive(self, t: float, coin: Coin, s: int) -> None:
        self.moved(coin, t)
        if t < self.busy[s]:  # the rocker is still moving: the coin waits on it
            self.push(self.busy[s] + self.rng.uniform(0.001, 0.005), "arrive", coin, s)
            self.tag(coin, "waited")
            return
        x = lay.inlet(s)
        if self.pads[s] == x:
            if not self.coins[s]:
                fid = self.faults.slips(s, coin, self)
                if fid is None:
                    self.coins[s] = 1  # comes to rest on the pad
                    self.busy[s] = t + 0.004
                    return
                self.act(coin, fid)
            y = 1 - x  # across the (full, or slipping) pad to the lever
            t += self.rng.uniform(0.006, 0.016) * coin.speed
        else:
            y = x
        self.lever(t, coin, s, y)

    def lever(self, t: float, coin: Coin, s: int, y: int) -> None:
        t_lever = t + self.rng.uniform(0.004, 0.010) * coin.speed
        fid = self.faults.sticks(s, coin, self)
        old = self.pads[s]
        if fid is not None:
            self.act(coin, fid)
            a = float(old)
            if self.rng.random() < 0.4:  # the sticky pivot gives a little, and springs back
                peak = a + (0.3 + 0.25 * self.rng.random()) * (1 - 2 * a)
                d = self.rng.uniform(0.015, 0.035)
                self.motions[s].append((t_lever, d, a, peak))
                self.motions[s].append((t_lever + d, d * 1.3, peak, a))
                self.busy[s] = t_lever + d * 2.3
            else:
                self.busy[s] = t_lever + 0.01
            self.push(t_lever + self.rng.uniform(0.012, 0.030), "leave", coin, s, y)
            return
        d = self.stiff[s] * self.rng.uniform(0.9, 1.15) * (0.88 if coin.large else 1.0)
        self.motions[s].append((t_lever, d, float(old), float(y)))
        self.faults.flipped(s, coin, t_lever, self)
        if coin.drop is not None:
            flips = self.seen_of(coin.drop)["flips"]
            flips[s] = flips.get(s, 0) + 1
        self.busy[s] = t_lever + d
        self.pads[s] = y
        self.push(t_lever + 0.45 * d, "leave", coin, s, y)
        if self.coins[s]:
            self.coins[s] = 0
            resting = Coin(coin.drop, self.rng.random() < 0.4, self.rng.uniform(0.95, 1.1))
            # a coin lying on the pad slides off once it tilts far enough: a moment later
            self.push(t_lever + 0.75 * d + self.rng.uniform(0.0, 0.06), "leave", resting, s, old)

    def hand_flip(self, t: float, s: int) -> None:
        """A person turns a rocker over (slowly); a coin on its pad falls out."""
        old = self.pads[s]
        d = self.rng.uniform(0.08, 0.4)
        self.motions[s].append((t, d, float(old), float(1 - old)))
        self.busy[s] = t + d
        self.pads[s] = 1 - old
        if self.coins[s]:
            self.coins[s] = 0
            self.push(t + 0.6 * d, "leave", Coin(None, False, 1.0), s, old)

    def tap(self, t: float, s: int, depth: float, hold: float) -> None:
        """A finger on a rocker that does not turn it: it tilts and springs back."""
        a = float(self.pads[s])
        peak = a + depth * (1 - 2 * a)
        d = self.rng.uniform(0.01, 0.04)
        self.motions[s].append((t, d, a, peak))
        self.motions[s].append((t + d + hold, d, peak, a))
        self.busy[s] = t + 2 * d + hold

    def _leave(self, t: float, coin: Coin, s: int, side: int) -> None:
        self.moved(coin, t)
        held = self.faults.jams(s, side, coin, t, self)
        if held:
            return
        kind, n, rows = lay.below(s, side)
        travel = sum(self.rng.uniform(0.055, 0.095) for _ in range(rows)) * coin.speed
        if self.rng.random() < 0.03:  # rolling on its edge along the chute
            travel += self.rng.uniform(0.08, 0.30)
            self.tag(coin, "slow_roll")
        if kind == "switch":
            self.push(t + travel, "arrive", coin, n)
        else:
            self.push(t + travel - 0.02, "exit", coin, n)

    def _exit(self, t: float, coin: Coin, lane: int) -> None:
        clear = self.beam_clear.get(("exit", lane), -1.0)
        if t < clear + 0.001:
            t = clear + 0.001 + self.rng.uniform(0, 0.002)
        ms = (self.rng.uniform(12, 30) if coin.large else self.rng.uniform(5, 12)) * coin.speed
        self._beam(t, "exit", lane, coin, min(ms, 40.0))
        self.exits.append((t, lane, coin))
