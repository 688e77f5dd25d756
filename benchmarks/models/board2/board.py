"""A second board model, written from rules.md section 2-3 and sensing.md
sections 1-3 and from how a wooden board with rockers, beams and magnets
behaves, independently of coindrel.virtual and of the engine: its own
geometry, its own coin-by-coin physics in continuous time, its own sensors.

Physical behaviour modelled (all seeded, reproducible):

- coins fall at their own speed (a coin is 0.8-1.3x as fast as another),
  sometimes hesitate on an edge (0.08-0.5 s) before falling on;
- a rocker takes 20-70 ms to flip; a coin that meets it moving waits;
- a coin landing on a pad jostles the rocker: its hall sometimes leaves the
  band for a few ms and comes back (bounce);
- hall sensors are analog with their own calibration per switch; the hub
  classifies them L / R / mid with bands and reports every change;
- beams stay broken 5-40 ms; a beam reports one break per coin when clean.

Faults (``faults.py``) are mechanisms acting on this physics, with a rate.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field

LEFT, RIGHT = 0, 1


@dataclass(frozen=True)
class Switch:
    row: int
    j: int
    lane: int  # left lane L; the right one is L + 1
    inlet: int
    label: str


class Geometry:
    """The standard board of rules.md section 2, built from its sentences."""

    def __init__(self):
        self.switches: list[Switch] = []
        self.rows: list[list[int]] = []
        for r in range(5):
            n = 8 if r % 2 == 0 else 7
            ids = []
            for j in range(n):
                lane = 2 * j + (r % 2)
                if r % 2 == 0:
                    inlet = LEFT if j < 4 else RIGHT
                else:
                    inlet = LEFT if j < 3 else RIGHT
                if (r, j) == (1, 3):
                    inlet = RIGHT
                if (r, j) == (3, 3):
                    inlet = LEFT
                ids.append(len(self.switches))
                self.switches.append(Switch(r, j, lane, inlet, f"R{r + 1}S{j + 1}"))
            self.rows.append(ids)
        self.by_label = {s.label: i for i, s in enumerate(self.switches)}

    def entry_switch(self, e: int) -> int:
        return self.rows[0][e]

    def below(self, s: int, side: int) -> tuple[str, int, int]:
        """Where a coin leaving ``s`` through ``side`` goes: ("switch", id, rows
        fallen) or ("exit", lane, rows fallen)."""
        sw = self.switches[s]
        lane = sw.lane + side
        for r in range(sw.row + 1, 5):
            for t in self.rows[r]:
                o = self.switches[t]
                if o.lane <= lane <= o.lane + 1:
                    return "switch", t, r - sw.row
        return "exit", lane, 5 - sw.row

    def text(self, pads, coins) -> list[str]:
        out = []
        for ids in self.rows:
            out.append("".join(("LR"[pads[i]].lower() if coins[i] else "LR"[pads[i]]) for i in ids))
        return out


@dataclass
class Hall:
    """A linear hall sensor on one rocker, with its calibrated bands."""

    left: float
    right: float
    band: float
    noise: float
    frozen: float | None = None  # a stuck reading
    offset: float = 0.0  # a magnet that moved on its rocker
    drift_rate: float = 0.0  # counts per second the magnet keeps moving
    drift_from: float = 0.0
    inverted: bool = False
    unseated: float = 0.0  # rocker resting this far (0..1) from its seat towards the middle

    def raw(self, pos: float, t: float, rng: random.Random) -> float:
        """``pos`` 0 (left) .. 1 (right) of the rocker."""
        if self.frozen is not None:
            return self.frozen
        if self.inverted:
            pos = 1.0 - pos
        v = self.left + (self.right - self.left) * pos
        v += self.offset + self.drift_rate * max(0.0, t - self.drift_from)
        return v + rng.gauss(0, self.noise)

    def classify(self, v: float) -> str:
        if abs(v - self.left) <= self.band:
            return "L"
        if abs(v - self.right) <= self.band:
            return "R"
        return "mid"


@dataclass(order=True)
class _Ev:
    t: float
    seq: int
    what: str = field(compare=False)
    args: tuple = field(compare=False, default=())


class Board:
    """The board in continuous time; coins carry the drop (cause) they belong to."""

    def __init__(self, seed: int, pads=None, faults=None):
        self.g = Geometry()
        self.rng = random.Random(seed)
        n = len(self.g.switches)
        self.pads = list(pads) if pads is not None else [self.rng.randrange(2) for _ in range(n)]
        self.coins = [False] * n
        self.busy_until = [0.0] * n  # a rocker finishes one flip before the next begins
        self.moving = [False] * n
        self.halls = []
        for _ in range(n):
            left = self.rng.uniform(700, 1100)
            right = self.rng.uniform(2900, 3400)
            self.halls.append(Hall(left, right, band=0.22 * (right - left), noise=self.rng.uniform(2, 12)))
        self.reading = [self.halls[i].classify(self.halls[i].raw(self.pads[i], 0.0, self.rng)) for i in range(n)]
        self.healthy_reading = list(self.reading)
        self.queue: list[_Ev] = []
        self.seq = 0
        self.now = 0.0
        self.events: list[dict] = []  # sensing.md section 2 events, in time order once sorted
        self.faults = faults  # a faults.Faults, asked coin by coin
        self.in_flight = 0
        self.last_activity = 0.0
        self.speed: dict[int, float] = {}

    # -- scheduling ------------------------------------------------------------------

    def at(self, t: float, what: str, *args) -> None:
        self.seq += 1
        heapq.heappush(self.queue, _Ev(t, self.seq, what, args))

    def run_until(self, t: float) -> None:
        while self.queue and self.queue[0].t <= t:
            ev = heapq.heappop(self.queue)
            self.now = ev.t
            getattr(self, "_" + ev.what)(*ev.args)
        if t < float("inf"):
            self.now = max(self.now, t)

    def quiet(self) -> bool:
        return self.in_flight == 0 and not any(self.moving)

    # -- sensors ---------------------------------------------------------------------

    def emit(self, d: dict) -> None:
        self.events.append(d)
        self.last_activity = max(self.last_activity, d["t"])

    def beam(self, kind: str, index: int, t: float, drop: int) -> None:
        f = self.faults
        if f is not None and f.beam_misses(kind, index, t, drop):
            return
        self.emit({"t": round(t, 5), "kind": kind, kind: index + 1})
        if f is not None:
            for extra in f.beam_repeats(kind, index, t, drop):
                self.emit({"t": round(t + extra, 5), "kind": kind, kind: index + 1})

    def hall_report(self, s: int, pos: float, t: float, drop: int | None = None, noise: bool = False) -> None:
        h = self.halls[s]
        v = h.raw(pos, t, self.rng)
        c = h.classify(v)
        healthy = h.classify(h.left + (h.right - h.left) * pos)
        # A misreport is one the event stream shows: the hub reports (or keeps
        # back) a reading a healthy sensor would not. A jostle a faulty sensor
        # hides (``noise``) is no evidence anyone could use.
        was_healthy, self.healthy_reading[s] = self.healthy_reading[s], healthy
        sent = c if c != self.reading[s] else None
        would = healthy if healthy != was_healthy else None
        if sent != would and not noise and self.faults is not None:
            self.faults.hall_misreports(s, t, drop)
        if c != self.reading[s]:
            self.reading[s] = c
            self.emit({"t": round(t, 5), "kind": "switch", "switch": self.g.switches[s].label, "pos": c, "raw": int(v)})

    def rest_pos(self, s: int) -> float:
        u = self.halls[s].unseated
        return u * 0.5 if self.pads[s] == LEFT else 1.0 - u * 0.5

    # -- coins -------------------------------------------------------------------------

    def drop_coin(self, t: float, entry: int, drop: int) -> None:
        self.speed[drop] = self.rng.uniform(0.8, 1.3)
        self.in_flight += 1
        self.beam("entry", entry, t, drop)
        self.at(t + self.rng.uniform(0.05, 0.11) / self.speed[drop], "arrive", self.g.entry_switch(entry), drop)

    def _fall(self, t: float, s: int, side: int, drop: int) -> None:
        f = self.faults
        if f is not None and f.jammed(s, side, t, drop):
            self.in_flight -= 1
            return
        kind, target, rows = self.g.below(s, side)
        dt = (0.075 * rows + self.rng.uniform(0.0, 0.03)) / self.speed.get(drop, 1.0)
        if self.rng.random() < 0.03:  # balanced on an edge for a moment
            dt += self.rng.uniform(0.08, 0.5)
        if kind == "exit":
            self.at(t + dt, "exit", target, drop)
        else:
            self.at(t + dt, "arrive", target, drop)

    def _exit(self, lane: int, drop: int) -> None:
        self.in_flight -= 1
        self.beam("exit", lane, self.now, drop)
        if self.faults is not None:
            self.faults.note_exit(lane, drop)

    def _arrive(self, s: int, drop: int) -> None:
        t = self.now
        if self.busy_until[s] > t:  # the rocker is still moving: the coin waits for it
            self.at(self.busy_until[s] + 0.002, "arrive", s, drop)
            return
        f = self.faults
        if f is not None:
            f.coin_reaches(s, t, drop)
        sw = self.g.switches[s]
        x = sw.inlet
        if self.pads[s] == x:
            slips = f is not None and not self.coins[s] and f.pad_slips(s, t, drop)
            if not self.coins[s] and not slips:
                self.coins[s] = True
                self.in_flight -= 1
                if self.rng.random() < 0.06:  # the landing coin jostles the rocker
                    p = self.rest_pos(s)
                    self.busy_until[s] = t + 0.013
                    self.hall_report(s, 0.5 + (p - 0.5) * 0.3, t + 0.002, drop, noise=True)
                    self.hall_report(s, p, t + self.rng.uniform(0.004, 0.012), drop, noise=True)
                return
            y = 1 - x
        else:
            y = x
        self._lever(s, y, t, drop)

    def _lever(self, s: int, y: int, t: float, drop: int) -> None:
        f = self.faults
        if f is not None and f.pivot_sticks(s, t, drop):
            # The rocker does not go over: the coin slides out on the lever side.
            if f.wiggles(s):
                self.busy_until[s] = t + 0.013
                self.hall_report(s, 0.5 + (self.rest_pos(s) - 0.5) * 0.4, t + 0.003, drop)
                self.hall_report(s, self.rest_pos(s), t + 0.012, drop)
            self._fall(t + 0.01, s, y, drop)
            return
        old = self.pads[s]
        tipped = self.coins[s]
        dur = self.rng.uniform(0.02, 0.07)
        self.pads[s] = y
        self.coins[s] = False
        self.busy_until[s] = t + dur
        self.moving[s] = True
        if self.halls[s].unseated and f is not None:
            f.reseat(s)
        self.hall_report(s, 0.5, t + 0.002, drop)
        self.at(t + dur, "settle", s, drop)
        self._fall(t + 0.006, s, y, drop)
        if tipped:
            self.in_flight += 1
            self._fall(t + dur * 0.6, s, old, drop)

    def _settle(self, s: int, drop: int | None = None) -> None:
        self.moving[s] = False
        self.hall_report(s, self.rest_pos(s), self.now, drop)

    # -- what a coin would do now (for the truth: would a sensor have seen it?) --------

    def silent_rest(self, s: int) -> int | None:
        """The switch a coin arriving at ``s`` now would come to rest on without
        any flip or exit, or None when it would make the sensors see something."""
        sw = self.g.switches[s]
        if self.pads[s] == sw.inlet and not self.coins[s]:
            return s
        return None

    def silent_second(self, s: int) -> int | None:
        """A second coin right behind one arriving at ``s``: where it would rest unseen."""
        sw = self.g.switches[s]
        if self.pads[s] == sw.inlet:
            return None  # the first rests (or bounces), the second bounces across: a flip
        return s  # the first flips the pad to the inlet side; the second rests on it

    # -- hands -------------------------------------------------------------------------

    def hand_flip(self, s: int, t: float, cause: int) -> float:
        """A person turns rocker ``s`` over slowly; a resting coin falls off."""
        dur = self.rng.uniform(0.25, 0.8)
        old = self.pads[s]
        self.busy_until[s] = t + dur
        self.moving[s] = True
        self.hall_report(s, 0.5, t + 0.05, cause)
        self.pads[s] = 1 - old
        self.at(t + dur, "settle", s, cause)
        if self.coins[s]:
            self.coins[s] = False
            self.in_flight += 1
            self.speed.setdefault(cause, 1.0)
            self._fall(t + dur * 0.5, s, old, cause)
        return t + dur
