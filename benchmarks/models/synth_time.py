"""Time for the synthetic board: every coin, rocker and beam on one clock.

Coins are processed in time order from a heap. A coin reaching a rocker that
is still moving waits for it (sensing.md section 2), a flip shows on the
hall as ``mid`` and then the new side, a coin takes 60-120 ms to fall a row,
two coins in one exit chute keep apart, a beam is broken 5-40 ms. Faults
change the physics (through the same transition rows the diagnosis uses,
which the engine's ``switch_rule`` builds) or what a sensor reports.

This is deliberately independent of the virtual board (controller/virtual):
the tests and benchmarks of the reconciler need a generator they control,
and the two agreeing on the same matches is itself a check.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from coindrel.engine import EntrySensorDead, ExitSensorDead, HallFault, Jam, PadNotHolding, SwitchStuck
from coindrel.engine.core import COIN, HOLE, PAD_R
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile.faults import CoinAdded, CoinRemoved, EntrySensorChatter, ExitSensorChatter, MovedByHand, SwitchUnseated


@dataclass(frozen=True)
class SynthTiming:
    entry_fall: tuple = (0.045, 0.085)
    row_fall: tuple = (0.060, 0.120)
    exit_fall: tuple = (0.040, 0.080)
    flip: tuple = (0.020, 0.040)
    mid_at: tuple = (0.10, 0.35)  # when in the flip the hall leaves its band (fraction)
    leave: tuple = (0.50, 0.90)  # when in the flip the passing coin slides off (fraction)
    tip: tuple = (0.005, 0.030)
    settle: tuple = (0.012, 0.020)
    catch: tuple = (0.008, 0.016)
    stuck_pass: tuple = (0.010, 0.025)
    beam: tuple = (0.005, 0.040)
    beam_gap: float = 0.004
    chatter_gap: tuple = (0.015, 0.045)
    hand_move: tuple = (0.150, 0.400)


class TimeSim:
    """Runs coins, hands and sensor faults on one clock; collects board events."""

    def __init__(self, physics, codes: bytearray, rng, timing: SynthTiming = SynthTiming()):
        self.physics = physics
        self.g = physics.geometry
        self.codes = codes
        self.rng = rng
        self.tm = timing
        n = physics.n
        self.busy = [0.0] * n
        self.beam_free = [0.0] * physics.exit_count
        self.display = ["none" if c == HOLE else "LR"[c & PAD_R] for c in codes]
        self.hall_mode: dict = {}  # switch -> inverted | stuck | drift | unseated
        self.faults: set = set()
        self.jammed: dict = {}  # (s, side) -> coins stopped
        self.events: list = []
        self._heap: list = []
        self._seq = 0

    # -- scheduling --------------------------------------------------------------

    def u(self, span) -> float:
        lo, hi = span
        return lo + (hi - lo) * self.rng.random()

    def at(self, t: float, kind: str, payload) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, kind, payload))

    def run(self, until: float | None = None) -> None:
        while self._heap and (until is None or self._heap[0][0] <= until):
            t, _, kind, payload = heapq.heappop(self._heap)
            getattr(self, "_" + kind)(t, payload)

    # -- sensors ---------------------------------------------------------------------

    def _show(self, t: float, s: int, true_pos: str) -> None:
        mode = self.hall_mode.get(s)
        if mode == "stuck":
            return
        pos = true_pos
        if mode == "inverted" and pos in ("L", "R"):
            pos = "R" if pos == "L" else "L"
        elif mode in ("drift", "unseated"):
            pos = "mid"
        if pos != self.display[s]:
            self.display[s] = pos
            self.events.append(SwitchEvent(t, self.g.labels[s], pos))

    def _beam_exit(self, t: float, x: int) -> None:
        t = max(t, self.beam_free[x])
        dur = self.u(self.tm.beam)
        self.beam_free[x] = t + dur + self.tm.beam_gap
        if ExitSensorDead(x) in self.faults:
            return
        self.events.append(ExitEvent(t, x))
        if ExitSensorChatter(x) in self.faults:
            t2 = t + dur + self.u(self.tm.chatter_gap)
            self.events.append(ExitEvent(t2, x))
            self.beam_free[x] = max(self.beam_free[x], t2 + self.tm.beam_gap)

    # -- coins -----------------------------------------------------------------------

    def drop(self, t: float, entry: int) -> None:
        self.at(t, "entry", entry)

    def _entry(self, t: float, e: int) -> None:
        if EntrySensorDead(e) not in self.faults:
            self.events.append(EntryEvent(t, e))
            if EntrySensorChatter(e) in self.faults:
                self.events.append(EntryEvent(t + self.u(self.tm.beam) + self.u(self.tm.chatter_gap), e))
        self.at(t + self.u(self.tm.entry_fall), "arrive", self.g.entry_switches[e])

    def _send(self, t: float, s: int, target: int) -> None:
        p = self.physics
        row = self.g.row_of[s]
        if target < p.n:
            hops = self.g.row_of[target] - row
            self.at(t + sum(self.u(self.tm.row_fall) for _ in range(hops)), "arrive", target)
        elif target < p.swallow:
            hops = len(self.g.row_sizes) - 1 - row
            fall = sum(self.u(self.tm.row_fall) for _ in range(hops)) + self.u(self.tm.exit_fall)
            self.at(t + fall, "arrive", target)
        elif target >= p.jam_base:
            k = divmod(target - p.jam_base, 2)
            self.jammed[k] = self.jammed.get(k, 0) + 1

    def _arrive(self, t: float, s: int) -> None:
        p = self.physics
        if s >= p.n:
            if s < p.swallow:
                self._beam_exit(t, s - p.n)
            return
        if t < self.busy[s]:
            self.at(self.busy[s], "arrive", s)  # the rocker is still moving: wait for it
            return
        code = self.codes[s]
        label = self.g.labels[s]
        row = p.row(s, SwitchStuck(label) in self.faults, PadNotHolding(label) in self.faults,
                    Jam(label, 0) in self.faults, Jam(label, 1) in self.faults)
        new, targets, flipped = row[code]
        self.codes[s] = new
        if flipped:
            dur = self.u(self.tm.flip)
            self._show(t + dur * self.u(self.tm.mid_at), s, "mid")
            self._show(t + dur, s, "LR"[new & PAD_R])
            self.busy[s] = t + dur + self.u(self.tm.settle)
            leave = [t + dur * self.u(self.tm.leave), t + dur + self.u(self.tm.tip)]
            for target, tl in zip(targets, leave):
                self._send(tl, s, target)
        elif targets:
            for target in targets:
                self._send(t + self.u(self.tm.stuck_pass), s, target)
        else:
            self.busy[s] = t + self.u(self.tm.catch)

    # -- faults coming and going ------------------------------------------------------------

    def inject(self, t: float, fault, mode: str = "", on: bool = True) -> None:
        self.at(t, "fault", (fault, mode, on))

    def _fault(self, t: float, payload) -> None:
        fault, mode, on = payload
        g = self.g
        if isinstance(fault, MovedByHand):
            s = g.index(fault.switch)
            old = self.codes[s] & PAD_R
            coin = self.codes[s] & COIN
            dur = self.u(self.tm.hand_move)
            self.codes[s] = 1 - old
            self._show(t + 0.02, s, "mid")
            self._show(t + dur, s, "LR"[1 - old])
            self.busy[s] = t + dur + 0.02
            if coin:
                self._send(t + dur * 0.6, s, g.outs[s][old])
            return
        if isinstance(fault, CoinAdded):
            self.codes[g.index(fault.switch)] |= COIN
            return
        if isinstance(fault, CoinRemoved):
            self.codes[g.index(fault.switch)] &= ~COIN & 0xFF
            return
        if isinstance(fault, (HallFault, SwitchUnseated)):
            s = g.index(fault.switch)
            true_pos = "LR"[self.codes[s] & PAD_R]
            if on:
                self.hall_mode[s] = mode or ("unseated" if isinstance(fault, SwitchUnseated) else "drift")
                self._show_now(t, s, true_pos)
            else:
                self.hall_mode.pop(s, None)
                self._show(t, s, true_pos)
            return
        if on:
            self.faults.add(fault)
            return
        self.faults.discard(fault)
        if isinstance(fault, Jam):
            k = (g.index(fault.switch), fault.side)
            for i in range(self.jammed.pop(k, 0)):
                self._send(t + 0.05 * (i + 1), k[0], g.outs[k[0]][k[1]])

    def _show_now(self, t: float, s: int, true_pos: str) -> None:
        """A sensor fault starting: the report changes without the rocker moving."""
        mode = self.hall_mode.get(s)
        if mode == "stuck":
            return
        self._show(t, s, true_pos)

    def sorted_events(self) -> list:
        return sorted(self.events, key=lambda e: e.t)
