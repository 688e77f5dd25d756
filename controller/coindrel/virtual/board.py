"""The virtual board: physics, sensors, hub firmware and faults on one clock.

    board = VirtualBoard(BoardConfig(seed=7), faults=[...], outputs=[writer])
    board.drop(3, t=0.5)          # entry 4 (0-based in code), at 0.5 s
    board.finish()                # run until every coin has come to rest

Time is virtual: ``run_until(t)`` advances it, nothing waits. Drops and
faults can be added while running (a keyboard, a controller's dropper, a
simulated player): they happen at the board's current time or later.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..engine import BoardState, EngineError, Geometry, MatchRandom, Variants, geometry_by_name
from ..engine.core import COIN, HOLE
from .classify import Calibration, HallRules
from .faults import FaultSpec, numbered
from .hall import HallSpec
from .hubmodel import HubModel, Sinks
from .inject import FaultState
from .kernel import Scheduler
from .physics import World
from .rand import derive
from .timing import TimingModel
from .truth import TruthLog


class _Hands:
    """What a person's hands are to the physics: an actor without a fault."""

    id = 0
    name = "hands"


_HANDS = _Hands()


@dataclass(frozen=True)
class BoardConfig:
    board: str = "standard"  # standard, mirrored or a board file (as the observation log header names it)
    start: str | None = None  # board text; None: seeded random pads, every pad empty
    variants: Variants = Variants()
    seed: int = 0
    timing: TimingModel = TimingModel()
    hall: HallSpec = HallSpec()
    rules: HallRules = HallRules()  # the hub's hysteresis and hall filter
    band: float = 0.3  # calibrated band half-width, as a fraction of the closest two of a switch's L, R, none
    scan_hz: int = 250  # full hall scans per second (the reference hub's channel map)
    beam_hz: int = 10000  # beam samples per second
    beam_filter: int = 5  # a beam change counts after this many equal samples (the firmware's default)

    @cached_property
    def geometry(self) -> Geometry:
        return geometry_by_name(self.board)

    def start_state(self) -> BoardState:
        g = self.geometry
        if self.start is None:
            state = BoardState.random(MatchRandom(derive(self.seed, "start") & 0xFFFFFFFF), g)
        else:
            state = BoardState.parse(self.start, g)
        if self.variants.holes:
            holes = set(g.hole_switches)
            for s in holes:
                if state.codes[s] != HOLE and state.codes[s] & COIN:
                    raise EngineError(f"the start board has a coin on {g.labels[s]}, which the Holes variant removes")
            state.make_holes_in_place()
        return state

    def calibration(self) -> list[Calibration]:
        """What calibrating this board gives: each sensor's seated and
        quiescent readings, and a band of ``band`` of the gap between the
        closest two of them."""
        out = []
        for c in self.hall.curves(self.seed, self.geometry.switch_count):
            gap = min(abs(c.left - c.right), abs(c.left - c.none), abs(c.right - c.none))
            out.append(Calibration(round(c.left), round(c.right), round(c.none), max(1, round(self.band * gap))))
        return out

    def check(self) -> None:
        """Refuse settings with which the hub could not see what the sensing
        contract promises: a healthy rocker's reading never leaves its band
        by noise, and every flip's new side is held long enough to count."""
        rules, tm = self.rules, self.timing
        need = rules.filter / self.scan_hz  # any stretch this long holds ``filter`` scans
        if tm.settle[0] < need:
            raise EngineError(
                f"timing settle {tm.settle[0] * 1000:.1f} ms is shorter than the hub needs to count a side "
                f"({rules.filter} scans at {self.scan_hz} Hz = {need * 1000:.1f} ms); settle longer or scan faster"
            )
        if tm.beam[0] < self.beam_filter / self.beam_hz or min(tm.chatter_gap[0], tm.beam_gap) < self.beam_filter / self.beam_hz:
            raise EngineError(
                f"beams: a coin breaks a beam for {tm.beam[0] * 1000:.1f} ms at least, and beams clear for "
                f"{min(tm.chatter_gap[0], tm.beam_gap) * 1000:.1f} ms; the hub's filter needs "
                f"{self.beam_filter / self.beam_hz * 1000:.1f} ms to count a change"
            )
        noise = 3 * self.hall.noise + 1
        for s, cal in enumerate(self.calibration()):
            where = f"calibration of {self.geometry.labels[s]}"
            cal.check(where, rules.hyst)
            if cal.band <= noise:
                raise EngineError(f"{where}: band {cal.band} is within the sensor noise ({noise:.0f} counts); widen the band or quieten the sensors")


class VirtualBoard:
    def __init__(self, config: BoardConfig | None = None, faults: list[FaultSpec] = (), outputs=(),
                 truth: TruthLog | None = None, link=None, record=None):
        self.config = config = config or BoardConfig()
        config.check()
        self.geometry = g = config.geometry
        self.sched = Scheduler()
        self.start = config.start_state()
        self.sinks = Sinks(*outputs)
        self.truth = truth if truth is not None else TruthLog()
        self.calibration = config.calibration()
        self.hub = HubModel(self.sched, g.labels, self.calibration, config.rules, 1.0 / config.scan_hz, self.sinks,
                            beam_hz=config.beam_hz, beam_filter=config.beam_filter, record=record)
        self.world = World(self.sched, self.start, config.timing, config.seed, config.hall, self.hub, self.truth)
        self.hub.attach(self.world)
        self.fault_list = numbered(list(faults))
        for f in self.fault_list:
            self._check_fault(f)
        self.truth.write(self.header())
        self.faults = FaultState(self.sched, self.world, self.hub, self.truth, self.fault_list, config.seed, link)
        self.world.faults = self.faults
        self.pending = 0  # drops scheduled but not yet made
        self.horizon = max([0.0] + [f.until if f.until is not None else f.t for f in self.fault_list])

    def _check_fault(self, f: FaultSpec) -> None:
        if f.switch is not None and self.start.codes[f.switch] == HOLE and f.name != "hall_fault":
            raise EngineError(f"{f.name} at {f.where}: that switch is a hole in this run (Holes variant); choose a switch that is on the board")

    def header(self) -> dict:
        c = self.config
        return {
            "kind": "header", "log": "ground-truth", "format": 1, "source": "virtual-board",
            "board": c.board, "variants": c.variants.to_dict(), "seed": c.seed,
            "state": self.start.rows(), "timing": c.timing.to_dict(),
            "hub": {"scan_hz": c.scan_hz, "beam_hz": c.beam_hz, "beam_filter": c.beam_filter, "hyst": c.rules.hyst,
                    "hall_filter": c.rules.filter},
            "calibration": {self.geometry.labels[s]: cal.to_json() for s, cal in enumerate(self.calibration)},
        }

    # -- time --------------------------------------------------------------------

    @property
    def now(self) -> float:
        return self.sched.now

    def next_time(self) -> float:
        return self.sched.next_time()

    def run_until(self, t: float) -> None:
        self.sched.run_until(t)

    def busy(self) -> bool:
        """Coins in flight, drops or faults still to come, or rockers moving."""
        w = self.world
        return self.pending > 0 or w.in_flight() > 0 or self.now < self.horizon or any(w.busy)

    def finish(self, tail: float = 0.5) -> float:
        """Run until everything scheduled has happened and every coin rests,
        then ``tail`` seconds more for the sensors to settle. Returns the time."""
        sched = self.sched
        while self.busy():
            if not sched.step():
                sched.run_until(max(sched.now, self.horizon))  # nothing left to happen before the horizon
                break
        sched.run_until(sched.now + tail)
        return sched.now

    # -- input -------------------------------------------------------------------

    def drop(self, entry: int, t: float | None = None, player: int | None = None) -> None:
        """A coin into ``entry`` (0-based) at time ``t`` (default: now)."""
        g = self.geometry
        if not isinstance(entry, int) or isinstance(entry, bool) or not 0 <= entry < g.entry_count:
            raise EngineError(f"entry {entry!r} is not on the board; entries are 1..{g.entry_count}")
        when = self.now if t is None else t
        if when < self.now:
            raise EngineError(f"a drop at {when:.3f} s is in the past; the board is at {self.now:.3f} s")
        self.pending += 1
        self.sched.at(when, self._insert, entry, player)

    def set_by_hand(self, label: str, side: str) -> dict:
        """A person pushes a rocker over (a lesson's set-up, a player putting
        the board back): it moves as a hand moves it, a resting coin falls out."""
        s = self.geometry.index(label)
        info = self.world.hand_move(s, 0 if side == "L" else 1, _HANDS)
        self.truth.write({"kind": "hands", "t": round(self.now, 6), "moved": label, **info})
        return info

    def place_coin(self, label: str) -> bool:
        """A person puts a coin on a pad (nothing senses it)."""
        info = self.world.add_coin(self.geometry.index(label))
        self.truth.write({"kind": "hands", "t": round(self.now, 6), "coin_on": label, **info})
        return info.get("applied", True)

    def take_coin(self, label: str) -> bool:
        info = self.world.remove_coin(self.geometry.index(label))
        self.truth.write({"kind": "hands", "t": round(self.now, 6), "coin_off": label, **info})
        return info.get("applied", True)

    def take_out_switch(self, label: str) -> bool:
        """A person takes a switch out of the board (the Holes variant)."""
        info = self.world.remove_switch(self.geometry.index(label))
        self.truth.write({"kind": "hands", "t": round(self.now, 6), "switch_out": label, **info})
        return info.get("applied", True)

    def put_back_switch(self, label: str, side: str = "L") -> bool:
        info = self.world.insert_switch(self.geometry.index(label), 0 if side == "L" else 1)
        self.truth.write({"kind": "hands", "t": round(self.now, 6), "switch_in": label, "side": side, **info})
        return info.get("applied", True)

    def pass_coin_through(self, kind: str, index: int) -> None:
        """A person pushes a coin through an entry or exit beam (0-based) by hand."""
        count = self.geometry.entry_count if kind == "entry" else self.geometry.exit_count
        if kind not in ("entry", "exit") or not 0 <= index < count:
            raise EngineError(f"no {kind} beam {index + 1}: entries are 1..{self.geometry.entry_count}, exits 1..{count}")
        self.world.pass_through_beam(kind, index)

    def clear_pads(self) -> list[str]:
        """The players take every resting coin off the pads, as before a new
        match (nothing senses it; the ground truth says so). Returns the pads."""
        w, g = self.world, self.geometry
        cleared = [g.labels[s] for s, c in enumerate(w.codes) if c != HOLE and c & COIN]
        for label in cleared:
            w.codes[g.index(label)] &= ~COIN & 0xFF
        if cleared:
            self.truth.write({"kind": "hands", "t": round(self.now, 6), "cleared": cleared, "board": w.text()})
        return cleared

    def _insert(self, entry: int, player) -> None:
        self.pending -= 1
        self.world.insert(entry, player)

    def end(self) -> dict:
        """The closing ground-truth line: where the board ended up."""
        w = self.world
        line = {"kind": "end", "t": round(self.now, 6), "board": w.text(), "drops": w.drops,
                "jammed_in_board": sum(len(v) for v in w.jammed.values())}
        self.truth.write(line)
        self.truth.flush()
        return line
