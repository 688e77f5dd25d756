"""board3's fault mechanics, one per fault name of sensing.md section 4, as
real parts fail: a pivot that seizes or sticks now and then (and is slow when
it does go over), a pad a coin slides off (at once, or after resting half on
it for a while), a chute with a burr that wedges a coin, stacks a few more on
it and lets them all go later, a magnet that creeps or a sensor whose zero
wanders, a sensor channel that freezes, a magnet re-glued on the wrong arm, a
rocker knocked off its seat, a beam that is dead, dirty (misses some coins) or
chattering, and people's hands.

A fault is a dict: {"id", "fault", "where", "from_drop", "rate", "mode"}; it
acts from ``t_on`` (set by the session when drop ``from_drop`` is due).
"""

from __future__ import annotations

import random

from .geometry import Board

INF = float("inf")


class Jam:
    def __init__(self, fid: int, rng: random.Random):
        self.fid = fid
        self.held = []  # coins wedged in the chute, first one lowest
        self.hold = rng.choice((1, 2, 2, 3, 4))  # coins the stack takes before its weight frees it
        self.release_at = INF
        self.cleared = False


class Faults:
    def __init__(self, board: Board, specs: list, rng: random.Random):
        self.b = board
        self.rng = rng
        self.specs = specs
        self.stuck = {}  # switch -> spec
        self.pad = {}
        self.jams = {}  # (switch, side) -> (spec, Jam)
        self.unseated = {}
        self.beams = {}  # ("entry"|"exit", index) -> spec
        for f in specs:
            f.setdefault("t_on", INF)
            name, where = f["fault"], f["where"]
            if name == "switch_stuck":
                self.stuck[board.by_label[where]] = f
            elif name == "pad_not_holding":
                self.pad[board.by_label[where]] = f
            elif name == "jam":
                label, side = where.split(" ")[:2]
                self.jams[(board.by_label[label], 0 if side == "left" else 1)] = (f, Jam(f["id"], rng))
            elif name == "switch_unseated":
                self.unseated[board.by_label[where]] = f
                f.setdefault("mode", rng.choice(("bump", "flip")))
            elif name.endswith("_sensor_dead") or name.endswith("_sensor_chatter"):
                kind, n = where.split(" ")
                self.beams[(kind, int(n) - 1)] = f
                if name.endswith("dead") and f.get("rate", 1.0) >= 1.0:
                    f.setdefault("mode", "blocked" if rng.random() < 0.2 else "dark")

    @staticmethod
    def on(f, t: float) -> bool:
        return f is not None and t >= f["t_on"]

    # -- the physics asks ---------------------------------------------------------------------

    def pivot_sticks(self, wood, t, coin, s):
        f = self.stuck.get(s)
        if not self.on(f, t):
            return None
        if f["rate"] >= 1.0 or self.rng.random() < f["rate"]:
            return f["id"], f["rate"] >= 1.0
        return None

    def flip_slowness(self, s: int) -> float:
        f = self.stuck.get(s)
        return self.rng.uniform(1.3, 1.8) if f is not None and f["t_on"] < INF and f["rate"] < 1.0 else 1.0

    def pad_slips(self, wood, t, coin, s) -> bool:
        f = self.pad.get(s)
        if not self.on(f, t) or not (f["rate"] >= 1.0 or self.rng.random() < f["rate"]):
            return False
        if self.rng.random() < 0.3:  # it rests half on the pad, then slides off
            coin._slip = f["id"]  # noqa: SLF001
            return False
        wood.act(coin, f["id"])
        return True

    def after_rest(self, wood, t, coin, s) -> None:
        fid = getattr(coin, "_slip", None)
        if fid is not None:
            del coin._slip
            wood.push(t + self.rng.uniform(0.3, 4.0), "slip", s, coin, fid)

    def jam_catches(self, wood, t, coin, s, side) -> bool:
        got = self.jams.get((s, side))
        if got is None or not self.on(got[0], t):
            return False
        f, jam = got
        if jam.cleared and self.rng.random() > 0.15:  # the burr catches again now and then
            return False
        jam.cleared = False
        if not jam.held:
            jam.release_at = t + self.rng.uniform(20.0, 90.0)
            wood.push(jam.release_at, "jam_release", (s, side))
        jam.held.append(coin)
        wood.act(coin, f["id"])
        if len(jam.held) > jam.hold:  # the stack's weight pushes it through
            wood.push(t + self.rng.uniform(0.05, 0.6), "jam_release", (s, side))
        return True

    def release(self, wood, t: float, chute) -> None:
        f, jam = self.jams[chute]
        if not jam.held:
            return
        s, side = chute
        key = wood.stray(f["id"])
        for i, coin in enumerate(jam.held):
            coin.drop = key
            coin.tags.add(f["id"])
            wood.touch(coin, t)
            wood.fall(t + i * self.rng.uniform(0.015, 0.04), coin, self.b.outlet(s, side), self.b.switches[s].row, chute)
        jam.held = []
        jam.cleared = True
        jam.hold = self.rng.choice((1, 2, 3))

    def rest_angle(self, wood, t: float, coin, s: int, y: int) -> float:
        f = self.unseated.get(s)
        if not self.on(f, t) or f.get("mode") != "flip" and not f.get("shown"):
            return float(y)
        if f.get("shown") and self.rng.random() < 0.35:
            return float(y)  # this time it seated
        f["shown"] = True
        wood.act(coin, f["id"])
        a = self.rng.uniform(0.3, 0.42)
        return a if y == 0 else 1.0 - a

    # -- beams ------------------------------------------------------------------------------

    def beam_pulses(self, wood, kind: str, n: int, pulses: list, t_end: float) -> list:
        """The beam's broken intervals (t0, t1, tags, coin) as its optics saw the coins."""
        rng = self.rng
        f = self.beams.get((kind, n))
        out = []
        for t0, t1, coin, drop in pulses:
            tags = ()
            if rng.random() < 0.25:  # a coin's ragged edge: the beam flickers for a moment
                cut = rng.uniform(t0 + 0.2 * (t1 - t0), t0 + 0.8 * (t1 - t0))
                gap = rng.uniform(0.00005, 0.00035)
                segs = [(t0, cut), (cut + gap, t1)]
            else:
                segs = [(t0, t1)]
            if rng.random() < 0.05:  # dust or a glint just before the coin
                b = t0 - rng.uniform(0.0006, 0.002)
                segs.insert(0, (b, b + rng.uniform(0.0001, 0.00035)))
            if self.on(f, t0):
                hit = f["rate"] >= 1.0 or rng.random() < f["rate"]
                if f["fault"].endswith("dead"):
                    if hit:
                        wood.act(coin, f["id"], drop)
                        if f.get("mode") in ("dark", "blocked") or rng.random() < 0.5:
                            segs = []
                        else:  # dirty: a coin shows only as a glint too short to count
                            segs = [(t0, t0 + rng.uniform(0.0001, 0.0004))]
                elif hit:
                    wood.act(coin, f["id"], drop)
                    tags = (f["id"],)
                    if rng.random() < 0.6 and t1 - t0 > 0.004:  # the coin's edge at the threshold
                        cut = rng.uniform(t0 + 0.3 * (t1 - t0), t0 + 0.6 * (t1 - t0))
                        segs = [(t0, cut), (cut + rng.uniform(0.0007, 0.004), t1 + 0.002)]
                    else:  # it bounces back up through the beam
                        b = t1 + rng.uniform(0.003, 0.02)
                        segs = [(t0, t1), (b, b + rng.uniform(0.001, 0.005))]
            out += [(a, b, tags) for a, b in segs]
        if f is not None and f.get("mode") == "blocked" and f["t_on"] < t_end:
            out.append((f["t_block"], t_end + 10.0, (f["id"],)))
        return out
