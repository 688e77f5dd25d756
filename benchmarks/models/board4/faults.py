"""This model's own fault mechanics for every fault name in sensing.md section 4.

Physical faults act from the moment their drop enters (``t_on``): a sticky
pivot that holds some coins (and twitches as it lets them by), a pad whose
felt is worn so some coins bounce off it, a lane where a coin wedges between
pins (the next coins squeeze past, or knock it loose), a dirty beam that
misses some coins, a ragged receiver that counts one coin twice. Things
people do happen in a pause between turns (``session.py``): a hand flips a
rocker, puts a coin on a pad or takes one off, knocks a rocker off its seat.
A hall sensor goes wrong by itself: its reading freezes, drifts, or reads
the other way round (a magnet glued back upside down).

Each decision is keyed by fault, coin and visit (``physics.keyed``), so the
same run without the fault (the shadow) draws the same numbers elsewhere.
"""

from __future__ import annotations

from .layout import BY_LABEL, L, R
from .physics import NoFaults, keyed

PHYSICAL = ("switch_stuck", "pad_not_holding", "jam", "exit_sensor_dead", "entry_sensor_dead",
            "exit_sensor_chatter", "entry_sensor_chatter")
BY_HAND = ("moved_by_hand", "coin_added", "coin_removed", "switch_unseated")


class Fault:
    def __init__(self, fid: int, name: str, where: str, start: int, rate: float, opts: dict, seed: int):
        self.id, self.name, self.where, self.start, self.rate, self.opts, self.seed = fid, name, where, start, rate, opts, seed
        self.t_on: float | None = None
        self.applied = True
        self.acted: set = set()
        self.count = 0
        self.switch = BY_LABEL.get(where.split(" ")[0]) if where.startswith("R") else None
        self.side = (L if " left" in where else R) if name == "jam" else None
        self.number = int(where.split(" ")[1]) - 1 if where.startswith(("exit ", "entry ")) else None
        self.frozen = None
        self.jammed_once = False

    def on(self, t: float) -> bool:
        return self.t_on is not None and t >= self.t_on

    def hit(self, tag, owner) -> bool:
        self.count += 1
        yes = self.rate >= 1.0 or keyed(self.seed, "fault", self.id, tag, self.count).random() < self.rate
        if yes:
            self.acted.add(owner)
        return yes

    # -- hall sensor ----------------------------------------------------------
    def windows(self):
        t = self.t_on
        if t is None:
            return ()
        if self.opts.get("mode") == "drift":
            return [(t, t + self.ramp + 0.3)]
        return [(t - 0.01, t + 0.06)]

    @property
    def ramp(self) -> float:
        return keyed(self.seed, "drift", self.id).uniform(3.0, 20.0)

    def raw(self, t: float, raw: float, theta: float, hall) -> float:
        if not self.on(t):
            return raw
        mode = self.opts.get("mode", "frozen")
        if mode == "frozen":  # the ADC channel or the sensor stops following the magnet
            if self.frozen is None:
                self.frozen = raw
            return self.frozen
        if mode == "inverted":
            return hall.raw(1.0 - theta) + (raw - hall.raw(theta))
        r = keyed(self.seed, "drift", self.id)
        r.random()
        size = r.uniform(250, 460) * (1 if r.random() < 0.5 else -1)
        return raw + size * min(1.0, (t - self.t_on) / self.ramp)


class FaultSet(NoFaults):
    """The hooks ``physics.Physics`` and ``hub.Hub`` call."""

    def __init__(self, faults: list[Fault]):
        self.faults = faults

    def _of(self, name):
        return [f for f in self.faults if f.name == name]

    def pad_holds(self, t, rocker, coin) -> bool:
        for f in self._of("pad_not_holding"):
            if f.switch is rocker.spot and f.on(t) and f.hit((coin.id, rocker.visits), coin.owner):
                return False
        return True

    def stuck(self, t, rocker, coin):
        for f in self._of("switch_stuck"):
            if f.switch is rocker.spot and f.on(t) and f.hit((coin.id, rocker.visits), coin.owner):
                r = keyed(f.seed, "twitch", f.id, f.count)
                amp = r.uniform(0.0, 0.06) if f.rate >= 1.0 else r.uniform(0.0, 0.3)
                return True, amp
        return False, 0.0

    def jam(self, t, rocker, side, coin, jammed) -> str:
        for f in self._of("jam"):
            if f.switch is rocker.spot and f.side == side and f.on(t):
                r = keyed(f.seed, "jam", f.id, coin.id, rocker.visits)
                if not jammed:
                    if not f.jammed_once or r.random() < 0.25:
                        f.jammed_once = True
                        f.acted.add(coin.owner)
                        return "stick"
                    return "pass"
                f.acted.add(coin.owner)
                return "free" if r.random() < 0.3 else "pass"
        return "pass"

    def beam(self, kind, num, t, owner, cid) -> list:
        for f in self.faults:
            if f.number != num or not f.name.startswith(kind) or not f.on(t):
                continue
            if f.name.endswith("dead") and f.hit((kind, cid), owner):
                return []
            if f.name.endswith("chatter") and f.hit((kind, cid), owner):
                gap = keyed(f.seed, "chatter", f.id, cid).uniform(0.004, 0.03)
                return [t, t + gap + 0.004]  # a second break after the coin is through
        return [t]

    def hall_of(self, n):
        for f in self._of("hall_fault"):
            if f.switch is not None and f.switch.n == n:
                return f
        return None
