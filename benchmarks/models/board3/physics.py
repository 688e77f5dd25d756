"""board3's wood: coins falling with their own speeds, rockers that take their
time to go over (each rocker its own), coins that teeter on a lever before it
gives, rockers that bounce off their stop, coins queueing in a chute, a coin
that meets a moving rocker waiting for it. Discrete events in time order.

Faults act here through ``Faults`` (faults.py): the physics asks it at every
place a real fault would change what happens.
"""

from __future__ import annotations

import heapq
import random

from .geometry import Board, Physical
from .sensors import Track

LONG_TEETER = (0.06, 0.25)  # seconds a coin may balance on a lever's edge, the long ones


class Coin:
    __slots__ = ("drop", "speed", "tags", "_slip")

    def __init__(self, drop, speed: float, tags=()):
        self.drop = drop  # the drop number whose cascade this coin is, ("stray", n) for a stray
        self.speed = speed
        self.tags = set(tags)


class Wood:
    def __init__(self, board: Board, state: Physical, rng: random.Random, faults):
        self.b = board
        self.rng = rng
        self.state = state
        self.faults = faults
        n = len(board.switches)
        self.resting = [None] * n  # the Coin on each pad
        for i in range(n):
            if state.coin[i]:
                self.resting[i] = Coin(("stray", 0), 1.0)
        self.busy = [0.0] * n
        self.settled = [0.0] * n  # when each rocker last came to rest after going over
        self.theta = [float(state.side[i]) for i in range(n)]
        self.tracks = [Track(self.theta[i]) for i in range(n)]
        # this board's own timing
        self.flip_base = [min(0.12, max(0.02, rng.lognormvariate(-3.05, 0.35))) for _ in range(n)]
        self.entry_fall = [rng.uniform(0.045, 0.085) for _ in range(8)]
        self.row_gap = [rng.uniform(0.055, 0.11) for _ in range(5)]
        self.lane_bias = [rng.uniform(0.93, 1.07) for _ in range(16)]
        self.q = []
        self.seq = 0
        self.chute_last = {}  # (where) -> last arrival time (coins do not overtake in a chute)
        self.entry_pulses = {e: [] for e in range(8)}
        self.exit_pulses = {x: [] for x in range(16)}
        self.mutations = []  # (t, switch, side, coin) the wood after each change
        self.activity = {}  # drop or ("stray", k) -> [t0, t1]
        self.acted = {}  # drop -> fault ids that changed its coins
        self.swallowed = 0
        self.strays = 0
        self.stray_of = {}  # stray key -> the fault that set it off

    # -- bookkeeping ------------------------------------------------------------------------

    def push(self, t: float, kind: str, *args) -> None:
        self.seq += 1
        heapq.heappush(self.q, (t, self.seq, kind, args))

    def stray(self, fid=None) -> tuple:
        """A new cascade no drop set off (a jam letting go, a slipping coin, a hand)."""
        self.strays += 1
        self.stray_of[("stray", self.strays)] = fid
        return ("stray", self.strays)

    def touch(self, coin: Coin, t: float) -> None:
        a = self.activity.setdefault(coin.drop, [t, t])
        a[0] = min(a[0], t)
        a[1] = max(a[1], t)

    def act(self, coin: Coin, fid: int, drop=None) -> None:
        coin.tags.add(fid)
        drop = coin.drop if drop is None else drop
        if isinstance(drop, int):
            self.acted.setdefault(drop, set()).add(fid)

    def mutate(self, t: float, s: int) -> None:
        self.mutations.append((t, s, self.state.side[s], self.state.coin[s]))

    # -- coins --------------------------------------------------------------------------------

    def drop(self, t: float, entry: int, drop_no: int) -> float:
        """A coin let go into ``entry`` at ``t``; returns its entry beam time."""
        coin = Coin(drop_no, min(1.15, max(0.87, self.rng.gauss(1.0, 0.05))))
        self.touch(coin, t)
        pulses = self.entry_pulses[entry]
        t0 = t + self.rng.uniform(0.004, 0.012)
        if pulses and t0 < pulses[-1][1] + 0.0012:  # two coins in one slot: one after the other
            t0 = pulses[-1][1] + self.rng.uniform(0.0012, 0.004)
        dur = self.rng.uniform(0.009, 0.032) / coin.speed
        pulses.append((t0, t0 + dur, coin, coin.drop))
        self.push(t0 + self.entry_fall[entry] * coin.speed * self.rng.uniform(0.95, 1.06), "arrive", coin,
                  self.b.entry_switch(entry))
        return t0

    def send(self, t: float, coin: Coin, s: int, side: int) -> None:
        """``coin`` leaves switch ``s`` by outlet ``side`` at ``t``."""
        self.touch(coin, t)
        if self.faults.jam_catches(self, t, coin, s, side):
            return
        self.fall(t, coin, self.b.outlet(s, side), self.b.switches[s].row, (s, side))

    def fall(self, t: float, coin: Coin, dest, row: int, chute) -> None:
        kind, where = dest
        if kind == "switch":
            rows = self.b.switches[where].row - row
            lane = self.b.switches[where].left
        else:
            rows = 5 - row
            lane = where
        fall = sum(self.row_gap[min(4, row + i)] for i in range(rows)) * coin.speed * self.lane_bias[lane]
        fall *= self.rng.uniform(0.94, 1.07)
        ta = t + fall
        last = self.chute_last.get(chute)
        if last is not None and ta < last + 0.003:
            ta = last + self.rng.uniform(0.003, 0.006)
        self.chute_last[chute] = ta
        if kind == "switch":
            self.push(ta, "arrive", coin, where)
        else:
            self.push(ta, "exit", coin, where)

    def run_until(self, t_stop: float) -> None:
        steps = 0
        while self.q and self.q[0][0] <= t_stop:
            steps += 1
            assert steps < 1_000_000
            t, _, kind, args = heapq.heappop(self.q)
            getattr(self, "on_" + kind)(t, *args)

    def on_exit(self, t: float, coin: Coin, lane: int) -> None:
        self.touch(coin, t)
        pulses = self.exit_pulses[lane]
        if pulses and t < pulses[-1][1] + 0.0012:
            t = pulses[-1][1] + self.rng.uniform(0.0012, 0.003)
        dur = self.rng.uniform(0.005, 0.02) / coin.speed
        pulses.append((t, t + dur, coin, coin.drop))
        self.touch(coin, t + dur)

    def on_jam_release(self, t: float, chute) -> None:
        self.faults.release(self, t, chute)

    def on_slip(self, t: float, s: int, coin: Coin, fid: int) -> None:
        """A coin resting half on a pad slides off to the lever side."""
        if self.resting[s] is not coin:
            return
        if self.busy[s] > t:
            self.push(self.busy[s] + 0.002, "slip", s, coin, fid)
            return
        self.resting[s] = None
        self.state.coin[s] = 0
        self.mutate(t, s)
        coin.drop = self.stray(fid)  # its drop was over: what it sets off now is a stray cascade
        self.act(coin, fid)
        self.lever(t + self.rng.uniform(0.01, 0.03), coin, s, 1 - self.b.switches[s].inlet)

    def on_arrive(self, t: float, coin: Coin, s: int) -> None:
        self.touch(coin, t)
        if s in self.b.holes:
            self.swallowed += 1
            return
        if self.busy[s] > t:  # the rocker is still moving: the coin waits for it
            self.push(self.busy[s] + self.rng.uniform(0.001, 0.004), "arrive", coin, s)
            return
        x = self.b.switches[s].inlet
        st = self.state
        if st.side[s] == x:
            if self.resting[s] is None:
                if self.faults.pad_slips(self, t, coin, s):
                    self.lever(t + self.rng.uniform(0.012, 0.035), coin, s, 1 - x)
                    return
                self.resting[s] = coin
                st.coin[s] = 1
                self.mutate(t, s)
                self.busy[s] = t + self.rng.uniform(0.008, 0.02)
                self.touch(coin, self.busy[s])
                self.faults.after_rest(self, t, coin, s)
                return
            self.lever(t + self.rng.uniform(0.012, 0.035), coin, s, 1 - x)  # bounces across the full pad
            return
        self.lever(t, coin, s, x)

    def lever(self, t: float, coin: Coin, s: int, y: int) -> None:
        """``coin`` presses the lever on side ``y`` of switch ``s`` at ``t``."""
        rng = self.rng
        # A rocker that just came over settles on its stop before the next
        # coin can take it back: the hub always sees it there (two scans).
        t = max(t, self.settled[s] + rng.uniform(0.014, 0.026))
        self.touch(coin, t)
        self.busy[s] = max(self.busy[s], t + 0.005)
        stuck = self.faults.pivot_sticks(self, t, coin, s)
        th0 = self.theta[s]
        target = float(y)
        delta = target - round(th0)
        if stuck is not None:
            fid, seized = stuck
            self.act(coin, fid)
            off = t + rng.uniform(0.015, 0.04)
            if not seized and rng.random() < 0.7:  # a sticky pivot gives a little, then holds
                w = rng.uniform(0.08, 0.38) * (1 if y == 1 else -1)
                self.tracks[s].move([(t, th0), (t + 0.012, th0 + w), (off, th0 + w * 0.8), (off + 0.015, th0)])
            self.busy[s] = off + 0.016
            self.send(off, coin, s, y)
            return
        start = t + rng.uniform(0.001, 0.006)
        knots = [(t, th0)]
        if rng.random() < 0.07:  # the coin teeters on the lever's edge before it gives
            h = rng.uniform(0.1, 0.45)
            hold = rng.uniform(0.015, 0.06) if rng.random() < 0.7 else rng.uniform(*LONG_TEETER)
            knots += [(start + 0.015, th0 + h * delta), (start + 0.015 + hold * 0.5, th0 + h * 0.6 * delta)]
            if rng.random() < 0.3:
                knots.append((start + 0.02 + hold * 0.7, th0 + 0.03 * delta))  # it rocks back first
            start += 0.02 + hold
            knots.append((start, th0 + h * 0.5 * delta))
        dur = self.flip_base[s] * rng.uniform(0.88, 1.15) * self.faults.flip_slowness(s)
        tipped = self.resting[s]
        if tipped is not None:
            dur *= 1.1
        th_start = knots[-1][1]
        knots += [(start + dur * 0.3, th_start + (target - th_start) * 0.15),
                  (start + dur * 0.7, th_start + (target - th_start) * 0.65), (start + dur, target)]
        end = start + dur
        if rng.random() < 0.6:  # it bounces off its stop
            b = rng.uniform(0.06, 0.3)
            d1, d2 = rng.uniform(0.003, 0.012), rng.uniform(0.004, 0.015)
            knots += [(end + d1, target - b * (target - th0)), (end + d1 + d2, target)]
            end += d1 + d2
        rest = self.faults.rest_angle(self, start + dur, coin, s, y)
        if rest != target:
            knots.append((end + 0.01, rest))
            end += 0.01
        self.tracks[s].move(knots)
        self.theta[s] = rest
        old = self.state.side[s]
        self.state.side[s] = y
        self.busy[s] = end
        self.settled[s] = end
        self.touch(coin, end)
        if tipped is not None:
            self.resting[s] = None
            self.state.coin[s] = 0
            tipped.drop = coin.drop
            tipped.tags |= coin.tags
            tipped.speed = coin.speed * rng.uniform(0.95, 1.05)
            self.send(start + dur * rng.uniform(0.75, 0.9) + rng.uniform(0.006, 0.02), tipped, s, old)
        self.mutate(start, s)
        self.send(start + dur * rng.uniform(0.55, 0.7) + rng.uniform(0.004, 0.012), coin, s, y)

    # -- hands ----------------------------------------------------------------------------------

    def hand_flip(self, t: float, s: int, fid: int) -> float:
        """A person pushes rocker ``s`` over; returns when the hand let go."""
        rng = self.rng
        th0 = self.theta[s]
        y = 1 - self.state.side[s]
        target = float(y)
        if rng.random() < 0.15:
            dur = rng.uniform(0.045, 0.1)  # a flick
            knots = [(t, th0), (t + dur, target)]
        else:
            dur = rng.uniform(0.15, 0.7)
            knots = [(t, th0), (t + dur * 0.3, th0 + (target - th0) * 0.35)]
            if rng.random() < 0.3:  # hesitates halfway
                knots.append((t + dur * 0.6, th0 + (target - th0) * 0.45))
            knots.append((t + dur, target))
        self.tracks[s].move(knots)
        self.theta[s] = target
        old = self.state.side[s]
        self.state.side[s] = y
        coin = self.resting[s]
        key = self.stray(fid)
        self.activity[key] = [t, t + dur]
        if coin is not None:  # the hand tips out the coin resting there
            self.resting[s] = None
            self.state.coin[s] = 0
            coin.drop = key
            self.act(coin, fid)
            self.send(t + dur * 0.8, coin, s, old)
        self.mutate(t, s)
        self.busy[s] = max(self.busy[s], t + dur)
        self.settled[s] = max(self.settled[s], t + dur)
        return t + dur

    def hand_coin(self, t: float, s: int, put: bool, fid: int) -> bool:
        if put == (self.resting[s] is not None) or self.busy[s] > t:
            return False
        self.activity[self.stray(fid)] = [t, t + 0.3]
        self.resting[s] = Coin(("stray", 0), 1.0) if put else None
        self.state.coin[s] = 1 if put else 0
        self.mutate(t, s)
        return True
