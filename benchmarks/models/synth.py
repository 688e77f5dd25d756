"""Synthetic observation logs with known faults: the reconciler's test and
benchmark data.

A run is a match's drops (entries and times) on a board with faults injected
between drops. ``synthesize`` plays it on the timing simulation (the events a
hub would send) and, drop by drop, on a logical replay that says what the
truth was: where every coin went, whether the drop was *affected* (what the
sensors reported differs from what a healthy board would report in the state
a perfect observer believes: everything any sensor showed so far, nothing it
could not see) and whether it was *wrong* (differs from the same match with no
faults injected). Those are what the benchmark scores the reconciler on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from coindrel.engine import BoardState, EntrySensorDead, ExitSensorDead, HallFault, Jam, MatchRandom, Variants
from coindrel.engine.core import COIN, HOLE, PAD_R
from coindrel.obslog import LogHeader, LogWriter
from coindrel.reconcile.faults import CoinAdded, CoinRemoved, EntrySensorChatter, ExitSensorChatter, MovedByHand, SwitchUnseated, is_persistent
from coindrel.reconcile.physics import Physics
from .synth_time import SynthTiming, TimeSim

HALL_MODES = ("inverted", "stuck", "drift")
QUIET_BEFORE = 4.0  # seconds of calm before a drop with a fault injected in front of it
INJECT_BEFORE = 1.2  # the fault comes (or goes) this long before that drop


@dataclass(frozen=True)
class Injection:
    """A fault that starts (or, for one-offs, happens) in the gap before drop
    ``drop`` (0-based) and, if persistent, is fixed before drop ``until``."""

    fault: object
    drop: int
    until: int | None = None
    mode: str = ""  # hall_fault: inverted | stuck | drift

    def to_json(self) -> dict:
        d = {"fault": self.fault.name, "where": self.fault.where, "drop": self.drop + 1}
        if self.until is not None:
            d["until"] = self.until + 1
        if self.mode:
            d["mode"] = self.mode
        return d


@dataclass
class DropTruth:
    index: int
    t: float
    entry: int
    exits: tuple  # where the coins really went (0-based, sorted)
    affected: bool  # sensors differ from a healthy board in the state a perfect observer believes
    wrong: bool  # sensors differ from the same match without any injected fault
    active: tuple = ()  # (name, where) of the faults present during the drop
    silent: bool = False  # no sensor reported anything of this drop (it cannot be checked)
    hidden: tuple = ()  # (coin_added | coin_removed, switch): where the real board's coins differ from the observer's before the drop
    masked: bool = False  # in flight with other drops whose sensors, taken together, show what a healthy board would

    def to_json(self) -> dict:
        return {"drop": self.index + 1, "t": round(self.t, 4), "entry": self.entry + 1, "exits": [x + 1 for x in self.exits],
                "affected": self.affected, "wrong": self.wrong, "silent": self.silent, "active": [list(a) for a in self.active]}


@dataclass
class SynthRun:
    header: LogHeader
    events: list
    drops: list
    injections: list
    stray_times: list = field(default_factory=list)  # when hands / jams made events outside drops

    def write(self, log_path, truth_path=None) -> None:
        with LogWriter(log_path, self.header) as w:
            for ev in self.events:
                w.event(ev)
        if truth_path:
            with open(truth_path, "w", encoding="utf-8") as f:
                f.write(json.dumps({"kind": "injections", "faults": [i.to_json() for i in self.injections]}) + "\n")
                for d in self.drops:
                    f.write(json.dumps(d.to_json()) + "\n")


class _Logical:
    """The drop-by-drop truth, without time."""

    def __init__(self, physics: Physics, codes: bytes):
        self.p = physics
        self.codes = bytearray(codes)
        self.faults: set = set()
        self.modes: dict = {}
        self.display = ["none" if c == HOLE else "LR"[c & PAD_R] for c in codes]
        self.jammed: dict = {}

    def apply(self, inj: Injection, on: bool) -> None:
        g, f = self.p.geometry, inj.fault
        if isinstance(f, MovedByHand):
            s = g.index(f.switch)
            old, coin = self.codes[s] & PAD_R, self.codes[s] & COIN
            self.codes[s] = 1 - old
            self._shown(s, 1, "LR"[1 - old])
            if coin:
                self._run([g.outs[s][old]])
        elif isinstance(f, CoinAdded):
            self.codes[g.index(f.switch)] |= COIN
        elif isinstance(f, CoinRemoved):
            self.codes[g.index(f.switch)] &= ~COIN & 0xFF
        elif isinstance(f, (HallFault, SwitchUnseated)):
            s = g.index(f.switch)
            if on:
                self.modes[s] = inj.mode or ("unseated" if isinstance(f, SwitchUnseated) else "drift")
                if self.modes[s] != "stuck":
                    self._shown(s, 0, "LR"[self.codes[s] & PAD_R])
            else:
                self.modes.pop(s, None)
                self._shown(s, 0, "LR"[self.codes[s] & PAD_R])
        elif on:
            self.faults.add(f)
        else:
            self.faults.discard(f)
            if isinstance(f, Jam):
                k = (g.index(f.switch), f.side)
                count = self.jammed.pop(k, 0)
                if count:
                    self._run([g.outs[k[0]][k[1]]] * count)

    def _shown(self, s: int, flips: int, true_pos: str) -> tuple:
        mode = self.modes.get(s)
        if mode == "stuck":
            return (0, self.display[s])
        pos = true_pos
        if mode == "inverted":
            pos = "R" if pos == "L" else "L"
        elif mode in ("drift", "unseated"):
            pos, flips = "mid", 0
        self.display[s] = pos
        return (flips, pos)

    def _run(self, starts):
        g = self.p.geometry
        stuck = {g.index(f.switch) for f in self.faults if f.name == "switch_stuck"}
        slips = {g.index(f.switch) for f in self.faults if f.name == "pad_not_holding"}
        jams = {(g.index(f.switch), f.side) for f in self.faults if isinstance(f, Jam)}
        trace = self.p.run(self.codes, starts, self.p.table(stuck, slips, jams))
        for k, v in trace.jams.items():
            self.jammed[k] = self.jammed.get(k, 0) + v
        return trace

    def drop(self, entry: int) -> tuple[tuple, object]:
        """Make the drop; returns (what the sensors report, the trace)."""
        trace = self._run(self.p.starts([entry]))
        seen_entry = EntrySensorDead(entry) not in self.faults
        chatter_entry = seen_entry and EntrySensorChatter(entry) in self.faults
        exits = []
        for x, n in enumerate(trace.exits):
            if ExitSensorDead(x) in self.faults:
                n = 0
            elif ExitSensorChatter(x) in self.faults:
                n *= 2
            exits.append(n)
        halls = tuple((s, self._shown(s, f, "LR"[self.codes[s] & PAD_R])) for s, f in enumerate(trace.flips) if f)
        return (seen_entry, chatter_entry, tuple(exits), halls), trace


def healthy_observation(physics: Physics, codes: bytes, entry: int) -> tuple:
    trace = physics.run(bytearray(codes), physics.starts([entry]), physics.base)
    halls = tuple((s, (f, "LR"[trace.codes[s] & PAD_R])) for s, f in enumerate(trace.flips) if f)
    return (True, False, tuple(trace.exits), halls)


def drop_times(count: int, rng: MatchRandom, quiet_before: set, overlap: float = 0.15, start: float = 1.0) -> list[float]:
    """When each drop goes in: usually 1.2-4 s apart, sometimes (``overlap``)
    0.15-0.6 s after the last (coins in flight together); ``QUIET_BEFORE`` s of
    calm before a drop that has a fault injected before it."""
    times, t = [], start
    for k in range(count):
        if k:
            if k in quiet_before:
                t += QUIET_BEFORE
            elif rng.random() < overlap:
                t += 0.15 + 0.45 * rng.random()
            else:
                t += 1.2 + 2.8 * rng.random()
        times.append(t)
    return times


def synthesize(
    start: BoardState,
    entries: list[int],
    injections=(),
    seed: int = 0,
    timing: SynthTiming = SynthTiming(),
    overlap: float = 0.15,
    variants: Variants = Variants(),
    calm: tuple = (),
) -> SynthRun:
    """``calm``: drops (0-based) before which the players wait long enough for
    everything to come to rest (as before a drop with a fault injected)."""
    g = start.geometry
    physics = Physics(g)
    rng = MatchRandom(seed)
    injections = sorted(injections, key=lambda i: i.drop)
    quiet = {i.drop for i in injections} | {i.until for i in injections if i.until is not None} | set(calm)
    times = drop_times(len(entries), rng, quiet, overlap)
    sim = TimeSim(physics, bytearray(start.codes), MatchRandom(seed ^ 0x5EED), timing)
    real = _Logical(physics, start.codes)
    counterfactual = _Logical(physics, start.codes)
    # What a perfect observer believes: everything any sensor showed, nothing
    # it could not see (a coin put on a pad, a drop no beam or hall noticed).
    observer = bytes(start.codes)
    truths, strays = [], []
    pres, seens = [], []
    for k, (t, e) in enumerate(zip(times, entries)):
        for inj in injections:
            when = t - INJECT_BEFORE
            if inj.drop == k:
                sim.inject(when, inj.fault, inj.mode, True)
                real.apply(inj, True)
                if isinstance(inj.fault, MovedByHand) or (inj.fault.name == "hall_fault" and inj.mode != "stuck") or isinstance(inj.fault, SwitchUnseated):
                    strays.append(when)
                if isinstance(inj.fault, MovedByHand):
                    observer = bytes(real.codes)
            if inj.until == k and is_persistent(inj.fault):
                sim.inject(when, inj.fault, inj.mode, False)
                real.apply(inj, False)
                strays.append(when)
                if isinstance(inj.fault, Jam):
                    observer = bytes(real.codes)
        sim.drop(t, e)
        hidden = tuple(
            ("coin_added" if r & COIN else "coin_removed", g.labels[i])
            for i, (r, o) in enumerate(zip(real.codes, observer))
            if r != HOLE and o != HOLE and (r & COIN) != (o & COIN)
        )
        pres.append(observer)
        seen, trace = real.drop(e)
        seens.append(seen)
        silent = not seen[0] and not any(seen[2]) and not any(f for _, (f, _) in seen[3])
        affected = seen != healthy_observation(physics, observer, e)
        if not silent:
            # The observer's prediction, except where this drop's coins showed the truth.
            believed = bytearray(observer)
            physics.run(believed, physics.starts([e]), physics.base)
            if affected:
                for s in trace.visited():
                    believed[s] = real.codes[s]
            observer = bytes(believed)
        truths.append(DropTruth(
            index=k, t=t, entry=e,
            exits=tuple(x for x, n in enumerate(trace.exits) for _ in range(n)),
            affected=affected,
            wrong=seen != counterfactual.drop(e)[0],
            active=tuple(sorted((f.name, f.where) for f in real.faults) + sorted(("hall_fault" if m in HALL_MODES else "switch_unseated", g.labels[s]) for s, m in real.modes.items())),
            silent=silent,
            hidden=hidden,
        ))
    _mark_masked(physics, truths, pres, seens)
    sim.run()
    header = LogHeader(board=g.name if g.name in ("standard",) else g.name, variants=variants, state=tuple(start.rows()),
                       extra={"synthetic": {"seed": seed}})
    return SynthRun(header, sim.sorted_events(), truths, list(injections), strays)


CLUSTER_GAP = 1.3  # drops closer than this may have coins in flight together


def _mark_masked(physics: Physics, truths: list, pres: list, seens: list) -> None:
    """Coins in flight together are one cascade (rules.md section 4): a drop
    whose own outcome is wrong is not observable as such when the whole
    group's sensors agree with a healthy board."""
    k = 0
    while k < len(truths):
        j = k
        while j + 1 < len(truths) and truths[j + 1].t - truths[j].t < CLUSTER_GAP:
            j += 1
        if j > k:
            codes = bytearray(pres[k])
            entries = [truths[i].entry for i in range(k, j + 1)]
            trace = physics.run(codes, physics.starts(entries), physics.base)
            exits = [sum(seens[i][2][x] for i in range(k, j + 1)) for x in range(physics.exit_count)]
            flips: dict = {}
            for i in range(k, j + 1):
                for s, (f, pos) in seens[i][3]:
                    n, _ = flips.get(s, (0, None))
                    flips[s] = (n + f, pos)
            healthy = {s: (f, "LR"[codes[s] & 1]) for s, f in enumerate(trace.flips) if f}
            same = (all(seens[i][0] and not seens[i][1] for i in range(k, j + 1)) and exits == trace.exits
                    and {s: v for s, v in flips.items() if v[0]} == healthy)
            if same and any(truths[i].wrong or truths[i].affected for i in range(k, j + 1)):
                for i in range(k, j + 1):
                    truths[i].masked = True
        k = j + 1


def match_entries(seed: int, start: BoardState | None = None, players: str = "greedy-random",
                  variants: Variants = Variants()) -> tuple[BoardState, list[int]]:
    """A full match's entries, chosen by computer players on the engine's board."""
    from coindrel.ai import GreedyPlayer, RandomPlayer
    from coindrel.engine import Match, MatchSetup

    board = "standard"
    if start is not None:
        board = "mirrored" if start.geometry.name == "standard-mirrored" else start.geometry.name
    setup = MatchSetup(seed=seed, start=start.text() if start is not None else None, variants=variants, board=board)
    m = Match(setup)
    first = m.board.copy()
    kinds = players.split("-")
    make = {"greedy": GreedyPlayer, "random": RandomPlayer}
    ps = [make[kinds[0]](seed * 2 + 1), make[kinds[-1]](seed * 2 + 2)]
    out = []
    while not m.over:
        if m.phase == "reveal":
            m.reveal_done()
        e = ps[m.to_move - 1].choose(m)
        m.play(e)
        out.append(e)
    return first, out
