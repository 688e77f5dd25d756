"""Coin-by-coin physics of the board, in time order.

Each coin is an event: it arrives at a switch, the engine's ``switch_rule``
says what the switch does, and the timing model says when the coins it
sends on arrive below. Because the switch network is abelian (rules.md
section 4) processing coins in time order gives the engine's outcome, while
the timing gives what sensors see.

Physical facts kept here, so the sensors can never report an impossible board:

- a rocker finishes one flip (and settles) before it can move again: a coin
  that meets a busy switch waits its turn, first come first served;
- nothing reaches a row before the coin that caused it left the row above,
  and coins in one chute stay in order;
- a beam is broken once per coin: two coins in one beam are apart in time.
"""

from __future__ import annotations

from collections import deque

from ..engine import BoardState, drop as engine_drop, switch_rule
from ..engine.core import COIN, HOLE, PAD_R, entry_label, exit_label
from .hall import HallSensor, HallSpec, Rocker
from .rand import Stream, derive
from .timing import TimingModel
from .truth import Cascade, TruthLog

ENTRY, EXIT = "entry", "exit"


class Coin:
    __slots__ = ("cascade",)

    def __init__(self, cascade: Cascade):
        self.cascade = cascade


class World:
    def __init__(self, sched, state: BoardState, timing: TimingModel, seed: int, hall: HallSpec, hub, truth: TruthLog):
        self.sched = sched
        self.g = g = state.geometry
        self.n = n = g.switch_count
        self.codes = bytearray(state.codes)
        self.timing = timing
        self.rng = Stream(seed, "timing")
        self.hub = hub
        self.truth = truth
        self.faults = None  # the run's FaultState, set by the board
        self.unseat = [0.0] * n  # how far from its seat each rocker rests
        self.rockers = [Rocker(float(c & PAD_R), c != HOLE) for c in self.codes]
        noise_seed = derive(seed, "hall-noise")
        self.sensors = [HallSensor(c, hall.noise, noise_seed, s) for s, c in enumerate(hall.curves(seed, n))]
        self.busy = [False] * n
        self.waiting: list[deque] = [deque() for _ in range(n)]
        self.chute: dict[tuple[int, int], float] = {}
        self.beam_free: dict[tuple[str, int], float] = {}
        self.cascades: list[Cascade] = []  # in flight
        self.drops = 0
        self.strays = 0
        self.last_row = len(g.row_sizes) - 1
        self.jammed: dict[tuple[int, int], list[Coin]] = {}

    # -- reading the true board ---------------------------------------------------------

    def board(self) -> BoardState:
        return BoardState(self.g, self.codes)

    def text(self) -> str:
        return self.board().text()

    def in_flight(self) -> int:
        return sum(c.in_flight for c in self.cascades)

    # -- cascades ---------------------------------------------------------------

    def _open(self, cascade: Cascade) -> Cascade:
        if cascade.kind == "drop":
            for other in self.cascades:
                if other.kind == "drop":
                    other.overlap.add(cascade.id)
                    cascade.overlap.add(other.id)
        self.cascades.append(cascade)
        return cascade

    def _coin(self, cascade: Cascade) -> Coin:
        cascade.in_flight += 1
        return Coin(cascade)

    def _done(self, coin: Coin) -> None:
        c = coin.cascade
        c.in_flight -= 1
        if c.in_flight == 0:
            self.cascades.remove(c)
            self.truth.write(c.to_json(self.sched.now, self.text()))

    def stray(self, cause: str, fault: int | None) -> Cascade:
        self.strays += 1
        return self._open(Cascade(id=-self.strays, kind="stray", t=self.sched.now, cause=cause, fault=fault))

    # -- drops ----------------------------------------------------------------------

    def insert(self, entry: int, player: int | None = None) -> int:
        """A coin goes into ``entry`` now; returns the drop number (from 1)."""
        self.drops += 1
        board = self.board()
        expected = engine_drop(board, [entry])
        cascade = self._open(Cascade(id=self.drops, kind="drop", t=self.sched.now, entry=entry, player=player, before=board.text()))
        cascade.engine = {"exits": [x + 1 for x in expected.exits], "flips": dict(sorted(expected.flips_by_label().items()))}
        coin = self._coin(cascade)
        t_beam = self._beam(ENTRY, entry, coin, self.sched.now)
        self.sched.at(t_beam + self.rng.span(self.timing.entry_fall), self._arrive, self.g.entry_switches[entry], coin)
        return cascade.id

    # -- switches ---------------------------------------------------------------------

    def _arrive(self, s: int, coin: Coin) -> None:
        if self.busy[s]:
            self.waiting[s].append(coin)
        else:
            self._process(s, coin)

    def _process(self, s: int, coin: Coin) -> None:
        now, tm, rng = self.sched.now, self.timing, self.rng
        code = self.codes[s]
        if code == HOLE:
            coin.cascade.swallowed += 1
            self._done(coin)
            return
        stuck = slip = None
        if self.faults is not None:
            stuck, slip = self.faults.switch(s)
        inlet = self.g.inlets[s]
        new, sides, flipped = switch_rule(code, inlet, stuck is not None, slip is not None)
        if stuck is not None or slip is not None:
            healthy = switch_rule(code, inlet)
            if slip is not None and healthy[1] == () and sides != ():
                self.faults.acted(slip, coin.cascade)
            if stuck is not None and healthy[2] and not flipped:
                self.faults.acted(stuck, coin.cascade)
        self.codes[s] = new
        self.busy[s] = True
        if not sides:  # caught by the empty pad
            coin.cascade.rested.append(self.g.labels[s])
            self._done(coin)
            self.sched.at(now + rng.span(tm.catch), self._free, s)
            return
        t = now + (rng.span(tm.bounce) if (code & PAD_R) == inlet else 0.0)
        if not flipped:  # a stuck lever: the coin slides past, nothing moves
            t_out = t + rng.span(tm.stuck_pass)
            self.sched.at(t_out, self._leave, s, sides[0], coin)
            self.sched.at(t_out, self._free, s)
            return
        t_end = self._flip(s, t, rng.span(tm.flip), new & PAD_R, coin.cascade)
        self.sched.at(t + (t_end - t) * rng.span(tm.leave), self._leave, s, sides[0], coin)
        if len(sides) == 2:  # a resting coin tipped out, through the pad's old side
            self.sched.at(t_end + rng.span(tm.tip), self._leave, s, sides[1], self._coin(coin.cascade))
        self.sched.at(t_end + rng.span(tm.settle), self._free, s)

    def _flip(self, s: int, t0: float, duration: float, side: int, cascade: Cascade | None) -> float:
        """Move rocker ``s`` to ``side`` over ``[t0, t0 + duration]``; returns the end."""
        t1 = t0 + duration
        if self.faults is not None:
            self.faults.on_move(s, cascade)
        u = self.unseat[s]
        self.rockers[s].move(t0, t1, u if side == 0 else 1.0 - u)
        if cascade is not None:
            label = self.g.labels[s]
            cascade.flips[label] = cascade.flips.get(label, 0) + 1
        self.hub.watch(s, t0)
        return t1

    def _free(self, s: int) -> None:
        q = self.waiting[s]
        if q:
            self.busy[s] = False
            self._process(s, q.popleft())
        else:
            self.busy[s] = False

    def when_free(self, s: int, fn, *args) -> None:
        """Run ``fn`` once switch ``s`` is not busy (a hand waits for a moving rocker)."""
        if self.busy[s] or self.waiting[s]:
            self.sched.at(self.sched.now + 0.005, self.when_free, s, fn, *args)
        else:
            fn(*args)

    # -- falling ------------------------------------------------------------------------

    def _leave(self, s: int, side: int, coin: Coin) -> None:
        now, g = self.sched.now, self.g
        if self.faults is not None:
            jam = self.faults.jam(s, side)
            if jam is not None:
                self.faults.acted(jam, coin.cascade)
                coin.cascade.jammed.append(f"{g.labels[s]} {'left' if side == 0 else 'right'} outlet")
                self.jammed.setdefault((s, side), []).append(coin)
                self._done(coin)
                return
        self.fall(s, side, coin, now)

    def fall(self, s: int, side: int, coin: Coin, now: float) -> None:
        g, tm, rng = self.g, self.timing, self.rng
        target = g.outs[s][side]
        if target < self.n:
            rows = g.row_of[target] - g.row_of[s]
            t = now + rng.span(tm.row_fall) * rows
        else:
            rows = self.last_row - g.row_of[s]
            t = now + rng.span(tm.exit_fall) + (rng.span(tm.row_fall) * rows if rows else 0.0)
        key = (s, side)
        last = self.chute.get(key)
        if last is not None and t < last + tm.lane_gap:
            t = last + tm.lane_gap  # coins in one chute cannot overtake
        self.chute[key] = t
        if target < self.n:
            self.sched.at(t, self._arrive, target, coin)
        else:
            self.sched.at(t, self._exit, target - self.n, coin)

    def _exit(self, x: int, coin: Coin) -> None:
        coin.cascade.exits.append(x)
        t = self._beam(EXIT, x, coin, self.sched.now)
        if t > self.sched.now:  # it waited for the coin ahead of it in the beam
            self.sched.at(t, self._done, coin)
        else:
            self._done(coin)

    def release_jam(self, s: int, side: int, fault) -> None:
        """A jam clears: the coins stopped there fall on, as a stray cascade."""
        coins = self.jammed.pop((s, side), [])
        if not coins:
            return
        cascade = self.stray("jam released", fault.id)
        t = self.sched.now
        for _ in coins:
            self.fall(s, side, self._coin(cascade), t)
            t += self.timing.lane_gap

    # -- beams --------------------------------------------------------------------------

    def _beam(self, kind: str, index: int, coin: Coin, t: float) -> float:
        """A coin passes a beam from ``t`` (or once the previous coin cleared it)."""
        tm, rng = self.timing, self.rng
        key = (kind, index)
        free = self.beam_free.get(key)
        if free is not None and t < free + tm.beam_gap:
            t = free + tm.beam_gap
        end = t + rng.span(tm.beam)
        dead = chatter = None
        if self.faults is not None:
            dead, chatter = self.faults.beam(kind, index)
        label = entry_label(index) if kind == ENTRY else exit_label(index)
        if dead is not None:
            self.faults.acted(dead, coin.cascade)
            coin.cascade.missed.append(label)
            self.beam_free[key] = end
            return t
        edges = [(t, end)]
        if chatter is not None:
            self.faults.acted(chatter, coin.cascade)
            for _ in range(chatter.params["count"]):
                start = edges[-1][1] + rng.span(tm.chatter_gap)
                edges.append((start, start + rng.span(tm.beam)))
        for a, b in edges:
            self.sched.at(a, self.hub.beam, kind, index, True)
            self.sched.at(b, self.hub.beam, kind, index, False)
        self.beam_free[key] = edges[-1][1]
        return t

    # -- things people do (faults that are actions) -----------------------------------

    def hand_move(self, s: int, to: int, fault) -> dict:
        """A person pushes rocker ``s`` over to ``to``; a resting coin falls out."""
        code = self.codes[s]
        if code == HOLE:
            return {"applied": False, "why": f"{self.g.labels[s]} is taken out"}
        old = code & PAD_R
        if old == to:
            return {"applied": False, "why": f"the rocker already sits {'L' if to == 0 else 'R'}"}
        duration = self.rng.span(self.timing.hand_move)
        self.busy[s] = True
        t_end = self._flip(s, self.sched.now, duration, to, None)
        self.codes[s] = to
        info = {"from": "L" if old == 0 else "R", "to": "L" if to == 0 else "R"}
        if code & COIN:  # the pad tilts away and the coin slides off its old side
            cascade = self.stray("moved_by_hand", fault.id)
            self.sched.at(t_end + self.rng.span(self.timing.tip), self._leave, s, old, self._coin(cascade))
            info["tipped"] = True
        self.sched.at(t_end + self.rng.span(self.timing.settle), self._free, s)
        return info

    def remove_switch(self, s: int) -> dict:
        """A person lifts the switch out (the Holes variant): its hall then
        sees no magnet, and a coin resting on it goes with it."""
        if self.codes[s] == HOLE:
            return {"applied": False, "why": f"{self.g.labels[s]} is out already"}
        if self.busy[s]:
            return {"applied": False, "why": f"{self.g.labels[s]} is moving"}
        self.codes[s] = HOLE
        self.rockers[s].present = False
        self.hub.watch(s, self.sched.now)
        return {}

    def insert_switch(self, s: int, side: int) -> dict:
        """A person puts the switch back, pad on ``side``, nothing on it."""
        if self.codes[s] != HOLE:
            return {"applied": False, "why": f"{self.g.labels[s]} is in its place already"}
        self.codes[s] = side
        rocker = self.rockers[s]
        rocker.present = True
        rocker.p0 = rocker.p1 = float(side)
        rocker.t0 = rocker.t1 = self.sched.now
        self.hub.watch(s, self.sched.now)
        return {}

    def pass_through_beam(self, kind: str, index: int) -> None:
        """A person pushes a coin through a beam and takes it back (a sensor
        check): the beam sees a coin, dead or chattering as it is, nothing else."""
        coin = self._coin(self.stray("coin through a beam by hand", None))
        t = self._beam(kind, index, coin, self.sched.now)
        self.sched.at(t, self._done, coin)

    def add_coin(self, s: int) -> dict:
        code = self.codes[s]
        if code == HOLE:
            return {"applied": False, "why": f"{self.g.labels[s]} is taken out: there is no pad to put a coin on"}
        if code & COIN:
            return {"applied": False, "why": f"{self.g.labels[s]} already has a coin on its pad"}
        self.codes[s] = code | COIN
        return {}

    def remove_coin(self, s: int) -> dict:
        code = self.codes[s]
        if code == HOLE or not code & COIN:
            return {"applied": False, "why": f"no coin rests on {self.g.labels[s]}"}
        self.codes[s] = code & ~COIN & 0xFF
        return {}

    def set_unseated(self, s: int, offset: float) -> None:
        """The rocker slips ``offset`` of the way off its seat (0: seated)."""
        self.unseat[s] = offset
        side = self.codes[s] & PAD_R
        now = self.sched.now
        self.rockers[s].move(now, now + 0.02, offset if side == 0 else 1.0 - offset)
        self.hub.watch(s, now)
