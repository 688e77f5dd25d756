"""The switch rule, and the transition tables compiled from it (rules.md sections 3 and 4).

The rule is written once, in ``switch_rule``. For speed it is applied ahead of
time to every (switch, state) pair of a geometry. Two forms come out of it:

- ``Topology.table[s][code] = (new_code, targets, flipped)``: the readable
  table, one row of five cells per switch, walked by ``cascade`` (and by the
  lessons and the reconciler's physics).
- ``Topology.rows``: the drop's working table. A drop runs on one bytearray,
  the board's switch bytes followed, where needed, by counters (one per exit,
  holes, jams). A switch byte is the code it started the drop with (0-4) until a
  coin arrives; from then on it says *which code it started with and how many
  coins have arrived* (its history). Given the switch's kind (inlet side,
  stuck, slipping pad), that history fixes its code now and how often it
  flipped, so no flip costs the loop anything beyond the table look-up: two
  ``bytes.translate`` read the final board and the flip counts, a slice the
  exit counts (one counter byte per exit), and no sort. A hole's byte counts
  the coins it swallowed the same way (``swallowed_of``). A cell of ``rows[s]``
  is ``(next byte, next switch, tipped-out coin's switch)``, None where the loop
  follows no coin: a coin is followed switch by switch, and only one it tips out
  joins the loop's list.
  Where the last switches alone feed the exits, switch ``a + i`` into exits
  ``2i`` and ``2i + 1`` (the standard board's bottom row), their histories
  also say how many coins left each outlet, so coins leaving them cost the
  loop nothing: the exit counts are one translate of those switches' bytes
  into a nibble per outlet, spread to a byte each by ``hexlify``
  (``exit_pairs``). Then, without a jam, nothing is counted after the switch
  bytes (``tail`` is empty) and the board and flips need no slice either.

A switch that would see more coins than its history has room for, or a counter
that would leave its range, sends the loop to ``overflow``, an index past the
table's end: the ``IndexError`` makes the drop fall back to ``cascade`` (exact,
slower).
"""

from __future__ import annotations

from binascii import hexlify

from .core import COIN, HOLE, PAD_R, EngineError

UNTOUCHED = 5  # bytes 0..4: the code itself, no coin arrived yet
HEALTHY_ROOM = 20  # coins one healthy switch can see in one drop before the fallback
HOLE_ROOM = 12  # coins one hole can swallow in one drop before the fallback


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


class _Kinds:
    """Byte ranges of switch histories: one block of ``4 * room`` bytes per
    kind, after the holes' block (a hole's byte counts the coins it swallowed)."""

    def __init__(self, kinds: list, rooms: list):
        self.kinds, self.rooms, self.starts = kinds, rooms, []
        at = UNTOUCHED + HOLE_ROOM
        for room in rooms:
            self.starts.append(at)
            at += 4 * room
        if at > 256:  # pragma: no cover - rooms are sized to fit
            raise RuntimeError("switch histories do not fit in a byte")
        # Per byte: (kind, start code, coins arrived) or None.
        self.of = [None] * 256
        for v, (start, room) in enumerate(zip(self.starts, rooms)):
            for c0 in range(4):
                for k in range(1, room + 1):
                    self.of[self.byte(v, c0, k)] = (v, c0, k)

    def byte(self, v: int, c0: int, k: int) -> int:
        # Coins arrived first, start code second: the bytes a drop mostly
        # reaches (one or two coins, any start) sit together, and so do their
        # cells in a switch's row (fewer cache lines per look-up).
        return self.starts[v] + (k - 1) * 4 + c0


def _hole_byte(k: int) -> int:
    """The byte of a hole that has swallowed ``k`` coins (1..HOLE_ROOM) in this drop."""
    return UNTOUCHED + k - 1


def _kinds_for(specs: list) -> _Kinds:
    """Healthy left- and right-inlet switches first, with fixed ranges (so the
    fault-free rows serve every fault set); faulty kinds share what is left."""
    kinds = [(0, False, False), (1, False, False)]
    for k in specs:
        if k not in kinds:
            kinds.append(k)
    extra = len(kinds) - 2
    rest = 256 - UNTOUCHED - HOLE_ROOM - 8 * HEALTHY_ROOM
    rooms = [HEALTHY_ROOM, HEALTHY_ROOM] + [rest // (4 * extra)] * extra if extra else [HEALTHY_ROOM, HEALTHY_ROOM]
    return _Kinds(kinds, rooms)


def _trajectories(kinds: _Kinds):
    """For each kind and start code: (code, flips so far) after each coin."""
    out = []
    for (inlet, stuck, slips), room in zip(kinds.kinds, kinds.rooms):
        per_start = []
        for c0 in range(4):
            code, flips, steps = c0, 0, [(c0, 0)]
            for _ in range(room):
                code, _, f = switch_rule(code, inlet, stuck, slips)
                flips += f
                steps.append((code, flips))
            per_start.append(steps)
        out.append(per_start)
    return out


def _emitted(kinds: _Kinds) -> list:
    """Per history byte: coins that left the left and the right outlet so far."""
    out = [(0, 0)] * 256
    for v, ((inlet, stuck, slips), room) in enumerate(zip(kinds.kinds, kinds.rooms)):
        for c0 in range(4):
            code, left, right = c0, 0, 0
            for k in range(1, room + 1):
                code, sides, _ = switch_rule(code, inlet, stuck, slips)
                left += sides.count(0)
                right += sides.count(1)
                out[kinds.byte(v, c0, k)] = (left, right)
    return out


def _exit_cut(g, jams) -> int | None:
    """The first of the last switches when they alone feed the exits, switch
    ``a + i`` into exits ``2i`` (left) and ``2i + 1`` (right), none jammed."""
    n, x = g.switch_count, g.exit_count
    a = n - x // 2
    if x % 2 or a < 0:
        return None
    for s in range(n):
        outs = g.outs[s]
        if s >= a:
            if outs != (n + 2 * (s - a), n + 2 * (s - a) + 1) or (s, 0) in jams or (s, 1) in jams:
                return None
        elif outs[0] >= n or outs[1] >= n:
            return None
    return a


HEX_DIGIT = bytes(b"0123456789abcdef".find(c) & 255 for c in range(256))  # "0".."f" -> 0..15


class Topology:
    """Transition tables for one geometry (and, optionally, physical faults).

    ``table[s][code] = (new_code, targets, flipped)`` where targets are switch
    numbers, ``n + x`` for exit ``x``, ``swallow`` for a hole and ``jammed``
    for a coin stuck in the board. ``rows``, ``tail``, ``start`` and the
    ``*_of`` translation tables are the drop's flat form (module docstring):
    ``rows`` holds 256 cells per switch and counter, equal cells one object:
    about 0.26 MB per geometry (the standard board, measured with
    tracemalloc; 0.7 MB before cells were shared), and 40-70 kB per
    fault set, whose rows are the fault-free ones except the faulty switches'.
    """

    __slots__ = ("geometry", "n", "exit_base", "swallow", "jammed", "overflow", "table", "entries",
                 "rows", "tail", "start", "code_of", "flips_of", "before_of", "swallowed_of", "_kind_of", "last_faults",
                 "exit_slice", "exit_cut", "exit_pairs", "fast")

    def __init__(self, geometry, faults=(), base: "Topology | None" = None):
        from .faults import Jam, PadNotHolding, SwitchStuck

        self.geometry = g = geometry
        self.n = n = g.switch_count
        self.exit_base = n
        self.swallow = n + g.exit_count
        self.jammed = n + g.exit_count + 1
        self.overflow = n + g.exit_count + 2
        self.exit_slice = slice(n, n + g.exit_count)
        self.entries = g.entry_switches
        self.last_faults = ((), None)  # (faults, their tables' ``fast``): predict's memo of the last fault set, on the fault-free tables
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

        self._kind_of = [(g.inlets[s], s in stuck, s in slips) for s in range(n)]
        kinds = _kinds_for([self._kind_of[s] for s in sorted(touched)])
        trajectories = _trajectories(kinds)
        self.exit_cut = cut = _exit_cut(g, jams)
        emitted = _emitted(kinds) if cut is not None else None
        if base is not None and base.exit_cut != cut:  # a jam at a last switch: its exits are counted
            touched = touched | set(range(base.exit_cut, n))
        rows = list(base.rows[:n]) if base is not None else [None] * n
        cells: dict = {}
        for s in range(n) if base is None else touched:
            rows[s] = self._row(s, kinds, trajectories, jams, emitted if cut is not None and s >= cut else None, cells)
        over = self.overflow  # past the end of rows: the IndexError that means "fall back"
        counter = tuple((b + 1, None, None) if b < 255 else (b, over, None) for b in range(256))
        self.rows = tuple(rows) + (counter,) * (self.overflow - n)
        # Counters after the switch bytes only where the loop counts something
        # there: exits not read from the last row's histories, or jams. Without
        # them the working bytes are the board's, with no slice to cut.
        self.tail = bytes(self.overflow - n) if cut is None or jams else b""
        starts = dict(enumerate(self.entries))
        self.start = starts.__getitem__
        code_of, flips_of, before_of = bytearray(range(256)), bytearray(256), bytearray(range(256))
        swallowed_of = bytearray(256)
        for b, hist in enumerate(kinds.of):
            if hist is not None:
                v, c0, k = hist
                code_of[b], flips_of[b] = trajectories[v][c0][k]
                before_of[b] = c0
        for k in range(1, HOLE_ROOM + 1):
            code_of[_hole_byte(k)] = before_of[_hole_byte(k)] = HOLE
            swallowed_of[_hole_byte(k)] = k
        self.code_of, self.flips_of, self.before_of = bytes(code_of), bytes(flips_of), bytes(before_of)
        self.swallowed_of = bytes(swallowed_of)
        if cut is None:
            self.exit_pairs, exits_from = None, self.exit_slice
        else:
            self.exit_pairs = bytes(min(left, 15) << 4 | min(right, 15) for left, right in emitted)
            exits_from = slice(cut, n)
        # What a drop reads, in one attribute (one load and an unpack instead of
        # eight loads). ``head`` cuts the switch bytes from the counters, None
        # when there are none.
        head = slice(0, n) if self.tail else None
        self.fast = (self.tail, starts, self.rows, self.code_of, self.flips_of, head, exits_from, self.exit_pairs, g, self)
        if not faults:
            self.last_faults = ((), self.fast)  # no faults: these tables (predict's memo starts there)

    def exit_counts(self, w) -> bytes:
        """Coins per exit from a drop's working bytes (drop() writes this out)."""
        if self.exit_pairs is None:
            return bytes(w[self.exit_slice])
        return hexlify(w[self.exit_cut: self.n].translate(self.exit_pairs)).translate(HEX_DIGIT)

    def swallowed(self, w) -> int:
        """Coins swallowed by holes, from a drop's working bytes (each hole's byte counts them)."""
        return sum(w[: self.n].translate(self.swallowed_of))

    def jams(self, w) -> int:
        """Coins jammed in the board, from a drop's working bytes (0 without a jam: no counter)."""
        return w[self.jammed] if len(w) > self.jammed else 0

    def _row(self, s: int, kinds: _Kinds, trajectories, jams, emitted=None, cells=None) -> tuple:
        """``emitted`` (a last switch whose exits are read from its history):
        coins leaving it go nowhere in the loop, up to 15 per outlet. Equal
        cells are one object, kept in ``cells`` (the last row's, holes' and
        fall-backs' cells are alike across switches: less memory, fewer cache lines)."""
        g = self.geometry
        inlet, stuck, slips = kind = self._kind_of[s]
        v = kinds.kinds.index(kind)
        room, outs = kinds.rooms[v], g.outs[s]
        over = self.overflow
        targets = {}  # outlet sides -> (where the passing coin goes next, where a tipped-out coin goes)
        for sides in ((), (0,), (1,), (0, 1), (1, 0)):
            to = () if emitted else tuple(self.jammed if (s, side) in jams else outs[side] for side in sides)
            targets[sides] = (to + (None, None))[:2]
        row = [None] * 256
        row[HOLE] = (_hole_byte(1), None, None)  # a hole counts what it swallows in its own byte
        for k in range(1, HOLE_ROOM + 1):
            row[_hole_byte(k)] = (_hole_byte(k + 1), None, None) if k < HOLE_ROOM else (_hole_byte(k), over, None)
        for b in range(256):
            if row[b] is not None:
                continue
            hist = (v, b, 0) if b < HOLE else kinds.of[b]
            if hist is None or hist[0] != v:
                row[b] = (b, over, None)  # no switch of this kind holds this byte: never reached
                continue
            _, c0, k = hist
            if k == room:
                row[b] = (b, over, None)  # more coins than the history holds: fall back
                continue
            code = trajectories[v][c0][k][0]
            _, sides, _ = switch_rule(code, inlet, stuck, slips)
            after = kinds.byte(v, c0, k + 1)
            if emitted and max(emitted[after]) > 15:
                row[b] = (b, over, None)  # more than a nibble's worth out of one outlet: fall back
                continue
            row[b] = (after, *targets[sides])
        if cells is not None:
            row = [cells.setdefault(cell, cell) for cell in row]
        return tuple(row)


def topology(geometry, faults=()) -> Topology:
    """The tables of a geometry, built once per geometry; with physical faults,
    derived from those (and remembered for the last 64-128 fault sets: about 50 kB each, a few MB on a Pi)."""
    if not faults:
        try:
            return geometry._topology
        except AttributeError:
            pass
    cache = geometry.__dict__.get("_topologies")
    if cache is None:
        cache = geometry.__dict__["_topologies"] = {}  # frozen: cache beside the fields
    key = frozenset(f for f in faults if f.physical)
    topo = cache.get(key)
    if topo is None:
        base = cache.get(frozenset()) if key else None
        if key and base is None:
            base = topology(geometry)
        topo = Topology(geometry, tuple(key), base)
        if len(cache) > 128:
            for k in list(cache)[1:65]:  # keep the fault-free tables, forget the oldest fault sets
                del cache[k]
        cache[key] = topo
        if not key:
            object.__setattr__(geometry, "_topology", topo)  # frozen: cached beside the fields
            object.__setattr__(geometry, "_fast", topo.fast)  # drop() reads it in one attribute
    return topo


def cascade(codes: bytearray, topo: Topology, starts):
    """Run coins starting at switch numbers ``starts`` to rest, depth first;
    mutates ``codes``.

    Returns ``(sinks, flipped)``: where each coin ended up leaving the board
    (exit/hole/jam targets) and one switch number per flip, in processing order.
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
