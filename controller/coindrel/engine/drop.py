"""Drops (rules.md section 4): one coin per entry listed, all together.

The switch rule and its tables live in ``tables``. Because every switch has a
single inlet the network is abelian, so coins in flight are processed in
whatever order is cheapest: here each coin is followed down to where it rests
or leaves, and a coin it tips out joins a list to be followed after, each switch
looked up once per coin in the flat table, with nothing else on the way (no
flip list, no exit list, no sort). The board and the flip counts are then one
``bytes.translate`` each of the working bytes, the exit counts a slice (on the
standard board, of the last row's bytes, spread to one byte per exit: ``tables``).
The loop is ``run``, the one every drop runs; ``drop``, ``predict`` and a
match's ``play`` (which needs no ``Outcome``: the board and its exits from the
working bytes) write its five lines out, the call being 3-4% of a single drop.
The outcome, its board and a prediction are made by their types' own calls,
which run no constructor, and filled slot by slot (``Outcome``).
"""

from __future__ import annotations

from binascii import hexlify
from collections import Counter

from .core import EngineError, entry_label
from .faults import EntrySensorDead, ExitSensorDead, Fault, HallFault
from .outcome import Outcome, PlainOutcome
from .state import BoardState, _Made
from .tables import HEX_DIGIT, Topology, cascade, switch_rule, topology


_new = object.__new__
MAX_COUNT = 255  # coins through one exit or flips of one switch in a drop: its counts are bytes


def _topology(state: BoardState) -> Topology:
    try:
        return state.geometry._topology
    except AttributeError:
        return topology(state.geometry)


def _bad_entries(topo: Topology, entries) -> EngineError:
    count = len(topo.entries)
    try:
        items = list(entries)
    except TypeError:
        return EngineError(f"entries must be a list of entry numbers, not {type(entries).__name__}")
    for e in items:
        if not isinstance(e, int) or isinstance(e, bool) or not 0 <= e < count:
            return EngineError(f"entry {e!r} is not an entry of this board; entries are 0..{count - 1} (Entry 1..{count} to a player)")
    return EngineError("a drop needs at least one coin (one entry)")


def _starts(topo: Topology, entries) -> list[int]:
    try:
        q = [*map(topo.start, entries)]
    except (KeyError, TypeError):
        raise _bad_entries(topo, entries) from None
    if not q:
        raise _bad_entries(topo, entries)
    return q


def _fallback(topo: Topology, state: BoardState, entries, in_place: bool) -> Outcome:
    """More coins at one switch or counter than its byte range holds: the plain cascade."""
    q = _starts(topo, entries)
    before = bytes(state.codes)
    board = state.copy()  # the state is changed only once the outcome can be told
    sinks, flipped = cascade(board.codes, topo, q)
    exits = Counter(x for x in sinks if x < topo.swallow)  # swallowed and jammed coins are counted apart
    if len(q) > MAX_COUNT and max(max(exits.values(), default=0), max(Counter(flipped).values(), default=0)) > MAX_COUNT:
        raise EngineError(f"a drop of {len(q)} coins sends more than {MAX_COUNT} through one exit or switch, "
                          "more than an outcome counts; a turn is one coin, a few at once at most")
    if in_place:
        state.codes[:] = board.codes
        board = state
    return PlainOutcome._from_cascade(topo, before, board, sinks, flipped)


def run(w: bytearray, rows, q: list) -> None:
    """The cascade loop, the one every drop runs (``drop_in_place`` calls it;
    ``drop``, ``predict`` and a match's ``play`` have these lines written out): coins at the switch numbers in
    ``q`` go to rest on the working bytes ``w`` (``tables``), each switch looked
    up once per coin in ``rows``, whose cell says the byte's next value, where
    the coin goes next and where a coin it tipped out goes (None: nowhere the
    loop counts). The passing coin is followed at once, so only a tipped-out
    coin costs a list append (a list step per switch was a tenth of a single
    drop). ``q`` keeps the starting switches first, then one switch per
    tipped-out coin. A count past its byte's room raises ``IndexError`` (the
    caller falls back to ``cascade``)."""
    for s in q:
        while s is not None:
            w[s], s, more = rows[s][w[s]]
            if more is not None:
                q.append(more)


def drop(state: BoardState, entries) -> Outcome:
    """Predict a drop (one coin per entry listed, all together). ``state`` is untouched."""
    # This is the call everything makes, so it is written out in full, the
    # loop too (``run``'s five lines: the call was 3-4% of a single drop);
    # predict's and a match's play are the same lines.
    try:
        tail, starts, rows, code_of, flips_of, head, exits_from, exit_pairs, g, t = state.geometry._fast
    except AttributeError:
        tail, starts, rows, code_of, flips_of, head, exits_from, exit_pairs, g, t = topology(state.geometry).fast
    w = state.codes + tail if tail else state.codes.copy()  # a copy is the cheaper call
    try:
        q = [starts[entries[0]]] if len(entries) == 1 else [*map(t.start, entries)] or _starts(t, entries)
    except (KeyError, TypeError):
        q = _starts(t, entries)  # an iterable, or bad entries: the message
    try:
        for s in q:  # run()
            while s is not None:
                w[s], s, more = rows[s][w[s]]
                if more is not None:
                    q.append(more)
    except IndexError:  # t.overflow, past the table's end
        return _fallback(t, state, entries, False)
    o = Outcome()  # no __init__: the type's own call, cheaper than object.__new__
    b = o.board = _Made()
    b.geometry = g
    sw = w if head is None else w[head]  # no counters after the switch bytes: no slice
    b.codes = sw.translate(code_of)
    o.flip_counts = sw.translate(flips_of)
    o.exit_counts = bytes(w[exits_from]) if exit_pairs is None else hexlify(w[exits_from].translate(exit_pairs)).translate(HEX_DIGIT)
    o._w = w
    o._t = t
    o._q = q
    return o


def drop_in_place(state: BoardState, entries) -> Outcome:
    """Make a drop on ``state`` itself; the outcome's ``board`` is ``state``."""
    t = _topology(state)
    w = state.codes + t.tail
    q = _starts(t, entries)
    try:
        run(w, t.rows, q)
    except IndexError:
        return _fallback(t, state, entries, True)
    o = Outcome()
    sw = w[: t.n]
    state.codes[:] = sw.translate(t.code_of)
    o.board = state
    o.exit_counts = t.exit_counts(w)
    o.flip_counts = sw.translate(t.flips_of)
    o._w, o._t, o._q = w, t, q
    return o


BoardState.drop_in_place = drop_in_place  # the mutating form, on the state itself


class Observation:
    """What the sensors report for a drop: entries seen, exits seen (sorted),
    flips per switch (None where the hall tells nothing) and final pad sides."""

    __slots__ = ("entries", "exits", "flips", "positions")

    def __init__(self, entries, exits, flips, positions):
        self.entries, self.exits, self.flips, self.positions = tuple(entries), tuple(exits), tuple(flips), tuple(positions)

    def _key(self):
        return (self.entries, self.exits, self.flips, self.positions)

    def __eq__(self, other):
        return self._key() == other._key() if isinstance(other, Observation) else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Observation(entries={self.entries}, exits={self.exits}, flips={self.flips}, positions={self.positions})"


class Prediction:
    """A drop as if ``faults`` were present: what the board does
    (``outcome``) and, worked out when first asked, what its sensors report.

    ``Prediction(outcome, observed, faults, entries)`` holds an outcome made
    elsewhere; ``predict`` makes one that is its own outcome (``_Predicted``):
    as-if predictions are made in loops, and a second object per call cost
    more than reading ``outcome`` through a property."""

    __slots__ = ()

    def __new__(cls, outcome: Outcome, observed: Observation | None = None, faults=(), entries=None):
        p = _new(_Given)
        p.outcome, p.faults, p._entries = outcome, tuple(faults), entries
        if observed is not None:
            p._observed = observed
        return p

    @property
    def observed(self) -> Observation:
        try:
            return self._observed
        except AttributeError:  # not worked out yet: predict() leaves the slot empty
            self._observed = seen = observe(self.outcome, self._entries, self.faults)
            return seen

    def __repr__(self) -> str:
        return f"Prediction(outcome={Outcome.__repr__(self.outcome)}, faults={self.faults!r})"


class _Given(Prediction):
    """A prediction of an outcome given to it (``Prediction(...)``, or
    ``predict``'s when the drop fell back to the plain cascade)."""

    __slots__ = ("outcome", "faults", "_entries", "_observed")
    __new__ = object.__new__  # copied or pickled as any slotted object (Prediction's takes the outcome)


class _Predicted(Outcome, Prediction):
    """A prediction as ``predict`` makes it: the outcome's slots and the
    prediction's in one object, made by its type's own call (no constructor)
    and filled slot by slot; ``outcome`` is the object itself."""

    __slots__ = ("faults", "_entries", "_observed")
    __new__ = object.__new__  # not Prediction's: the type's call stays the C one
    __repr__ = Prediction.__repr__

    @property
    def outcome(self) -> Outcome:
        return self


def _fault_fast(geometry, faults: tuple) -> tuple:
    """The drop tables of a fault set, kept as the last one predict used.
    Equal faults made anew take the memo's place, so the next call is an
    identity test again rather than each fault's __eq__."""
    t = topology(geometry)
    last = t.last_faults
    fast = last[1] if last[0] == faults else topology(geometry, faults).fast
    t.last_faults = (faults, fast)
    return fast


def predict(state: BoardState, entries, faults=()) -> Prediction:
    """Predict a drop as if ``faults`` were present: what the board does and
    what its sensors would report. With no faults this is a healthy board."""
    # Faults are frozen values, so the same tuple as last time means the same
    # tables: one identity test first, before any other look at ``faults``
    # (``_fault_fast`` compares equal ones; the memo starts as the empty
    # tuple with the healthy tables).
    try:
        last = state.geometry._topology.last_faults
    except AttributeError:
        last = topology(state.geometry).last_faults
    if last[0] is faults:
        fast = last[1]
    else:
        if faults.__class__ is not tuple:
            faults = tuple(faults)
        fast = _fault_fast(state.geometry, faults) if faults else state.geometry._fast
    # drop()'s body again, with the fault set's tables: as-if predictions are
    # made in loops (the property tests, the benchmark).
    tail, starts, rows, code_of, flips_of, head, exits_from, exit_pairs, g, t = fast
    w = state.codes + tail if tail else state.codes.copy()
    try:
        q = [starts[entries[0]]] if len(entries) == 1 else [*map(t.start, entries)] or _starts(t, entries)
    except (KeyError, TypeError):
        q = _starts(t, entries)
    try:
        for s in q:  # run()
            while s is not None:
                w[s], s, more = rows[s][w[s]]
                if more is not None:
                    q.append(more)
    except IndexError:
        p = _new(_Given)
        p.outcome = _fallback(t, state, entries, False)
        p.faults = faults
        p._entries = entries
        return p
    p = _Predicted()  # its own outcome: filled as drop() fills an Outcome
    b = p.board = _Made()
    b.geometry = g
    sw = w if head is None else w[head]
    b.codes = sw.translate(code_of)
    p.flip_counts = sw.translate(flips_of)
    p.exit_counts = bytes(w[exits_from]) if exit_pairs is None else hexlify(w[exits_from].translate(exit_pairs)).translate(HEX_DIGIT)
    p._w = w
    p._t = t
    p._q = q
    p.faults = faults
    p._entries = entries
    return p


def observe(outcome: Outcome, entries, faults=()) -> Observation:
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


__all__ = ["Fault", "Observation", "Outcome", "Prediction", "Topology", "cascade", "drop", "drop_in_place",
           "observe", "predict", "run", "switch_rule", "topology"]
