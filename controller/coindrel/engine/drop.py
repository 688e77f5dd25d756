"""The switch rule and drops (rules.md sections 3 and 4).

The rule is written once, in ``switch_rule``. For speed it is applied ahead of
time to every (switch, state) pair of a geometry, giving a transition table of
small integers; a drop then only looks entries up. Because every switch has a
single inlet the network is abelian, so coins in flight are processed in
whatever order is cheapest (a stack) with the same outcome as any other order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Sequence

from .core import COIN, HOLE, PAD_R, EngineError, entry_label
from .faults import EntrySensorDead, ExitSensorDead, Fault, HallFault, Jam, PadNotHolding, SwitchStuck
from .geometry import Geometry
from .state import BoardState


def switch_rule(code: int, inlet: int, stuck: bool = False, pad_slips: bool = False):
    """One coin arriving at a switch's inlet side.

    Returns ``(new_code, outlet_sides, flipped)``: the outlets (0 = left,
    1 = right) the coins leave through, the passing coin first.
    """
    if code == HOLE:
        raise EngineError("a hole has no switch rule; the coin is swallowed")
    pad, coin = code & PAD_R, code & COIN
    if pad == inlet:
        if not coin and not pad_slips:
            return code | COIN, (), False  # the empty pad catches it
        lever = 1 - inlet  # pad full (or slipping): bounce across to the lever
    else:
        lever = inlet
    if stuck:
        return code, (lever,), False
    # Passing the lever moves the pad to that side; a resting coin tips out
    # through the pad's old side.
    return lever, ((lever, 1 - lever) if coin else (lever,)), True


class Topology:
    """Transition tables for one geometry (and, optionally, physical faults).

    ``table[s][code] = (new_code, targets, flipped)`` where targets are switch
    numbers, ``n + x`` for exit ``x``, ``swallow`` for a hole and ``jammed``
    for a coin stuck in the board.
    """

    __slots__ = ("geometry", "n", "exit_base", "swallow", "jammed", "table", "entries")

    def __init__(self, geometry: Geometry, faults: Sequence[Fault] = (), base: "Topology | None" = None):
        self.geometry = g = geometry
        self.n = n = g.switch_count
        self.exit_base = n
        self.swallow = n + g.exit_count
        self.jammed = n + g.exit_count + 1
        self.entries = g.entry_switches
        stuck = {g.index(f.switch) for f in faults if isinstance(f, SwitchStuck)}
        slips = {g.index(f.switch) for f in faults if isinstance(f, PadNotHolding)}
        jams = {(g.index(f.switch), f.side) for f in faults if isinstance(f, Jam)}
        touched = stuck | slips | {s for s, _ in jams}
        # With a fault-free base, only the faulty switches' rows are rebuilt.
        table = list(base.table) if base is not None else [None] * n
        for s in range(n) if base is None else touched:
            outs = g.outs[s]
            row = []
            for code in range(HOLE):
                new, sides, flipped = switch_rule(code, g.inlets[s], s in stuck, s in slips)
                targets = tuple(self.jammed if (s, side) in jams else outs[side] for side in sides)
                row.append((new, targets, flipped))
            row.append((HOLE, (self.swallow,), False))
            table[s] = tuple(row)
        self.table = tuple(table)


def topology(geometry: Geometry, faults: Sequence[Fault] = ()) -> Topology:
    """The tables of a geometry, built once per geometry; with physical faults,
    derived from those (and remembered for the last few hundred fault sets)."""
    if not faults:
        topo = geometry.__dict__.get("_topology")
        if topo is not None:
            return topo
    cache = geometry.__dict__.get("_topologies")
    if cache is None:
        cache = geometry.__dict__["_topologies"] = {}  # frozen dataclass: cache beside the fields
    key = frozenset(f for f in faults if f.physical)
    topo = cache.get(key)
    if topo is None:
        base = cache.get(frozenset()) if key else None
        if key and base is None:
            base = topology(geometry)
        topo = Topology(geometry, tuple(key), base)
        if len(cache) > 512:
            for k in list(cache)[1:257]:  # keep the fault-free tables, forget the oldest fault sets
                del cache[k]
        cache[key] = topo
        if not key:
            geometry.__dict__["_topology"] = topo
    return topo


def cascade(codes: bytearray, topo: Topology, starts: Iterable[int]):
    """Run coins starting at switch numbers ``starts`` to rest; mutates ``codes``.

    Returns ``(sinks, flipped)``: where each coin ended up leaving the board
    (exit/hole/jam targets) and one switch number per flip.
    """
    table, n = topo.table, topo.n
    stack = list(starts)
    pop, push = stack.pop, stack.extend
    sinks: list[int] = []
    flipped: list[int] = []
    while stack:
        s = pop()
        if s >= n:
            sinks.append(s)
            continue
        new, targets, f = table[s][codes[s]]
        codes[s] = new
        if f:
            flipped.append(s)
        if targets:
            push(targets)
    return sinks, flipped


@dataclass(frozen=True, eq=False)
class Outcome:
    """What a drop did: exits reached (sorted lanes), flips per switch,
    coins swallowed by holes or jammed, and the board afterwards."""

    geometry: Geometry
    exits: tuple[int, ...]
    flipped: tuple[int, ...]  # one switch number per flip, in processing order
    swallowed: int
    jammed: int
    board: BoardState

    @cached_property
    def flips(self) -> tuple[int, ...]:
        counts = [0] * self.geometry.switch_count
        for s in self.flipped:
            counts[s] += 1
        return tuple(counts)

    def flips_by_label(self) -> dict[str, int]:
        labels = self.geometry.labels
        return {labels[s]: c for s, c in sorted(enumerate(self.flips)) if c}

    def to_json(self) -> dict:
        """The vectors' ``expect`` shape (0-based exits, labelled flips)."""
        return {
            "exits": list(self.exits),
            "flips": dict(sorted(self.flips_by_label().items())),
            "swallowed": self.swallowed,
            "board": self.board.rows(),
        }


def _entry_starts(topo: Topology, entries: Sequence[int]) -> list[int]:
    count = len(topo.entries)
    starts = []
    for e in entries:
        if not isinstance(e, int) or isinstance(e, bool) or not 0 <= e < count:
            raise EngineError(f"entry {e!r} is not an entry of this board; entries are 0..{count - 1} (Entry 1..{count} to a player)")
        starts.append(topo.entries[e])
    if not starts:
        raise EngineError("a drop needs at least one coin (one entry)")
    return starts


def _outcome(topo: Topology, board: BoardState, sinks, flipped) -> Outcome:
    base, swallow = topo.exit_base, topo.swallow
    exits = sorted(s - base for s in sinks if s < swallow)
    swallowed = sum(1 for s in sinks if s == swallow)
    return Outcome(topo.geometry, tuple(exits), tuple(flipped), swallowed, len(sinks) - len(exits) - swallowed, board)


def drop(state: BoardState, entries: Sequence[int]) -> Outcome:
    """Predict a drop (one coin per entry listed, all together). ``state`` is untouched."""
    board = state.copy()
    topo = topology(state.geometry)
    sinks, flipped = cascade(board.codes, topo, _entry_starts(topo, entries))
    return _outcome(topo, board, sinks, flipped)


def drop_in_place(state: BoardState, entries: Sequence[int]) -> Outcome:
    """Make a drop on ``state`` itself; the outcome's ``board`` is ``state``."""
    topo = topology(state.geometry)
    sinks, flipped = cascade(state.codes, topo, _entry_starts(topo, entries))
    return _outcome(topo, state, sinks, flipped)


BoardState.drop_in_place = drop_in_place  # the mutating form, on the state itself


@dataclass(frozen=True)
class Observation:
    """What the sensors report for a drop: entries seen, exits seen (sorted),
    flips per switch (None where the hall tells nothing) and final pad sides."""

    entries: tuple[int, ...]
    exits: tuple[int, ...]
    flips: tuple[int | None, ...]
    positions: tuple[int | None, ...]


@dataclass(frozen=True, eq=False)
class Prediction:
    outcome: Outcome
    observed: Observation
    faults: tuple[Fault, ...]


def predict(state: BoardState, entries: Sequence[int], faults: Sequence[Fault] = ()) -> Prediction:
    """Predict a drop as if ``faults`` were present: what the board does and
    what its sensors would report. With no faults this is a healthy board."""
    faults = tuple(faults)
    geometry = state.geometry
    topo = topology(geometry, faults)
    board = state.copy()
    sinks, flipped = cascade(board.codes, topo, _entry_starts(topo, entries))
    outcome = _outcome(topo, board, sinks, flipped)
    return Prediction(outcome, observe(outcome, entries, faults), faults)


def observe(outcome: Outcome, entries: Sequence[int], faults: Sequence[Fault] = ()) -> Observation:
    """What healthy sensors, minus the dead ones in ``faults``, would report."""
    g = outcome.geometry
    dead_exits = {f.exit for f in faults if isinstance(f, ExitSensorDead)}
    dead_entries = {f.entry for f in faults if isinstance(f, EntrySensorDead)}
    blind = {g.index(f.switch) for f in faults if isinstance(f, HallFault)}
    for e in dead_entries:
        if not 0 <= e < g.entry_count:
            raise EngineError(f"{entry_label(e)} is not on this board")
    flips = tuple(None if s in blind else c for s, c in enumerate(outcome.flips))
    positions = tuple(None if s in blind else p for s, p in enumerate(outcome.board.pads()))
    return Observation(
        entries=tuple(sorted(e for e in entries if e not in dead_entries)),
        exits=tuple(x for x in outcome.exits if x not in dead_exits),
        flips=flips,
        positions=positions,
    )
