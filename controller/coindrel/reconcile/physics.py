"""Fast cascades under hypothetical physical faults, for the diagnosis search.

The engine's ``predict`` builds a fresh transition table for every fault set;
the diagnosis tries hundreds of fault sets per drop, so here the fault-free
table is reused and only the rows of the faulty switches are swapped in. The
rows themselves come from the engine's ``switch_rule`` (the rule is written
once, in the engine), and a test checks every result against ``predict``.

Unlike the engine, a trace records each coin's arrival (switch and its state
then), which is what tells the search where a fault could have mattered, and
keeps jammed coins per outlet so a jam clearing later can be replayed.
"""

from __future__ import annotations

from ..engine import Geometry, switch_rule, topology
from ..engine.core import COIN, HOLE, PAD_R


TABLES = 512  # fault sets whose tables one Physics keeps (about 0.5 kB each: the rows are shared)


class Trace:
    """One cascade: exit counts, flips per switch, arrivals, sinks."""

    __slots__ = ("exits", "flips", "arrivals", "swallowed", "jams", "codes")

    def __init__(self, exits, flips, arrivals, swallowed, jams, codes):
        self.exits = exits  # list: coins per exit
        self.flips = flips  # list: flips per switch
        self.arrivals = arrivals  # list of s * 8 + code at arrival, in processing order
        self.swallowed = swallowed
        self.jams = jams  # {(switch, side): coins stopped there}
        self.codes = codes  # bytearray: the state afterwards

    def visited(self) -> set[int]:
        return {a >> 3 for a in self.arrivals}

    def merged(self, other: "Trace") -> "Trace":
        """This cascade followed by ``other`` (which ran on the same codes)."""
        jams = dict(self.jams)
        for k, v in other.jams.items():
            jams[k] = jams.get(k, 0) + v
        return Trace([a + b for a, b in zip(self.exits, other.exits)], [a + b for a, b in zip(self.flips, other.flips)],
                     self.arrivals + other.arrivals, self.swallowed + other.swallowed, jams, other.codes)


class Physics:
    """Transition tables of one geometry with per-switch fault overrides."""

    def __init__(self, geometry: Geometry):
        self.geometry = g = geometry
        self.n = n = g.switch_count
        self.exit_count = g.exit_count
        self.swallow = n + g.exit_count
        self.jam_base = self.swallow + 1  # jam sink for (s, side) is jam_base + 2 * s + side
        base = topology(g)
        # Re-target the engine's hole sink to ours (same numbering, checked).
        if base.swallow != self.swallow:  # pragma: no cover - engine layout changed
            raise RuntimeError("engine topology numbering changed; update reconcile.physics")
        self.base = base.table
        self._rows: dict = {}
        self._tables: dict = {}  # fault set -> table: a diagnosis asks for the same few hundreds of times
        self._emits: dict = {}
        self._sides: dict = {}  # (stuck, slips) -> per arrival, the outlets its coins leave by
        self._entry_starts = g.entry_switches

    # The tables are caches: a checkpoint carries the rows (small), not them.
    def __getstate__(self):
        state = dict(self.__dict__)
        state["_tables"], state["_emits"], state["_sides"] = {}, {}, {}
        return state

    def __setstate__(self, state):
        state.setdefault("_tables", {})
        state.setdefault("_emits", {})
        state.setdefault("_sides", {})
        self.__dict__.update(state)

    def row(self, s: int, stuck: bool = False, slips: bool = False, jam_left: bool = False, jam_right: bool = False):
        """Switch ``s``'s transition row with the given faults (cached)."""
        k = (s, stuck, slips, jam_left, jam_right)
        row = self._rows.get(k)
        if row is None:
            g, outs = self.geometry, self.geometry.outs[s]
            jams = (jam_left, jam_right)
            cells = []
            for code in range(HOLE):
                new, sides, flipped = switch_rule(code, g.inlets[s], stuck, slips)
                targets = tuple(self.jam_base + 2 * s + side if jams[side] else outs[side] for side in sides)
                cells.append((new, targets, flipped))
            cells.append((HOLE, (self.swallow,), False))
            row = self._rows[k] = tuple(cells)
        return row

    def table(self, stuck=(), slips=(), jams=()):
        """The fault-free table with the faulty switches' rows swapped in
        (one tuple per fault set, kept for the last ``TABLES`` sets: the
        same sets come back group after group; nobody writes into it)."""
        if not stuck and not slips and not jams:
            return self.base
        key = (frozenset(stuck), frozenset(slips), frozenset(jams))
        table = self._tables.get(key)
        if table is None:
            stuck, slips, jams = key
            table = list(self.base)
            for s in stuck | slips | {j[0] for j in jams}:
                table[s] = self.row(s, s in stuck, s in slips, (s, 0) in jams, (s, 1) in jams)
            if len(self._tables) >= TABLES:
                self._tables.clear()  # (a board with that many fault sets in play: start again)
            table = self._tables[key] = tuple(table)
        return table

    def emitters(self, s: int, side: int, stuck: bool, slips: bool) -> tuple:
        """The arrivals at ``s`` (``s * 8 + code``) after which a coin leaves by ``side``."""
        k = (s, side, stuck, slips)
        out = self._emits.get(k)
        if out is None:
            out = self._emits[k] = tuple(a for a in range(s * 8, s * 8 + HOLE + 1) if side in self.sides_used(a, stuck, slips))
        return out

    def starts(self, entries) -> list[int]:
        es = self._entry_starts
        return [es[e] for e in entries]

    def run_between(self, codes: bytearray, starts, tipped, table, between) -> Trace:
        """The coins from ``starts`` with hands between them: ``between`` is
        ``(switch, k)``, a hand moved it after the first k coins went in (a coin
        on its pad tips out its old side), then the later coins fell."""
        outs = self.geometry.outs
        trace, k0 = None, 0
        for s, k in sorted(between, key=lambda x: x[1]):
            part = self.run(codes, list(starts[k0:k]) + (tipped if trace is None else []), table)
            trace = part if trace is None else trace.merged(part)
            old, coin = codes[s] & PAD_R, codes[s] & COIN
            codes[s] = 1 - old
            if coin:
                trace = trace.merged(self.run(codes, [outs[s][old]], table))
            k0 = k
        return trace.merged(self.run(codes, list(starts[k0:]), table))

    def run(self, codes: bytearray, starts, table) -> Trace:
        """Process coins from switch numbers ``starts`` to rest; mutates ``codes``."""
        n, swallow = self.n, self.swallow
        stack = list(starts)
        pop, push = stack.pop, stack.extend
        flips = [0] * n
        exits = [0] * self.exit_count
        arrivals = []
        note = arrivals.append
        swallowed = 0
        jams = None
        while stack:
            s = pop()
            if s < n:
                c = codes[s]
                new, targets, f = table[s][c]
                note(s * 8 + c)
                codes[s] = new
                if f:
                    flips[s] += 1
                if targets:
                    push(targets)
            elif s < swallow:
                exits[s - n] += 1
            elif s == swallow:
                swallowed += 1
            else:
                k = divmod(s - self.jam_base, 2)
                jams = jams or {}
                jams[k] = jams.get(k, 0) + 1
        return Trace(exits, flips, arrivals, swallowed, jams or {}, codes)

    def run_sticky(self, codes: bytearray, starts, table, s: int, stuck_row, fails: frozenset, passes: list) -> Trace:
        """``run`` with a sticky pivot at ``s``: of the coins that would flip
        it, those numbered in ``fails`` (0-based, counted in ``passes[0]``
        across calls) find it stuck (``stuck_row``); the others flip it."""
        n, swallow = self.n, self.swallow
        stack = list(starts)
        flips = [0] * n
        exits = [0] * self.exit_count
        arrivals = []
        swallowed = 0
        jams = None
        while stack:
            x = stack.pop()
            if x < n:
                c = codes[x]
                new, targets, f = table[x][c]
                if x == s and f:
                    if passes[0] in fails:
                        new, targets, f = stuck_row[c]
                    passes[0] += 1
                arrivals.append(x * 8 + c)
                codes[x] = new
                if f:
                    flips[x] += 1
                if targets:
                    stack.extend(targets)
            elif x < swallow:
                exits[x - n] += 1
            elif x == swallow:
                swallowed += 1
            else:
                k = divmod(x - self.jam_base, 2)
                jams = jams or {}
                jams[k] = jams.get(k, 0) + 1
        return Trace(exits, flips, arrivals, swallowed, jams or {}, codes)

    def rests_via(self, codes: bytearray, starts, table) -> dict:
        """``run``, tracking each coin's chute: {switch: {(parent, side), ...}}
        for the coins that came to rest through an outlet (mutates ``codes``):
        every chute a coin of this cascade reached that switch by. Which of
        them brought the coin left resting is the order the coins met the
        rocker in, which the board's timing decides and the abelian cascade
        does not (rules.md section 4). Only the few worlds kept after a group
        need it, so ``run`` stays lean."""
        n, outs = self.n, self.geometry.outs
        stack = [(s, -1, -1) for s in starts]
        came: dict = {}
        via: dict = {}
        while stack:
            s, parent, side = stack.pop()
            if s >= n:
                continue
            if parent >= 0:
                via.setdefault(s, set()).add((parent, side))
            c = codes[s]
            new, targets, _ = table[s][c]
            codes[s] = new
            if not targets and new & COIN and new != HOLE:
                if s in via:
                    came[s] = via[s]
                continue
            came.pop(s, None)  # whatever rested here left with this coin
            o = outs[s]
            for x in targets:
                stack.append((x, s, 0 if x == o[0] else 1 if x == o[1] else -1))
        return came

    # -- what a coin did at a switch, from an arrival (for pruning) -------------

    def rested(self, arrival: int) -> bool:
        """The coin came to rest on the empty pad (so a slipping pad matters)."""
        s, code = arrival >> 3, arrival & 7
        return code != HOLE and (code & PAD_R) == self.geometry.inlets[s] and not code & COIN

    def sides_used(self, arrival: int, stuck: bool = False, slips: bool = False) -> tuple[int, ...]:
        """Outlets the coins left by, so a jam there would have mattered."""
        try:
            return self._sides[stuck, slips][arrival]
        except KeyError:
            pass
        g = self.geometry
        self._sides[stuck, slips] = table = tuple(
            () if a & 7 >= HOLE else switch_rule(a & 7, g.inlets[a >> 3], stuck, slips)[1] for a in range(self.n * 8))
        return table[arrival]
