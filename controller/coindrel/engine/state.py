"""Board state: every switch's pad side and resting coin, plus holes.

One byte per switch (see ``core``): copying a state is copying a 38-byte
``bytearray``. The text form of rules.md section 9 parses back exactly::

    >>> s = BoardState.parse("lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL")
    >>> str(s)
    'lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL'
"""

from __future__ import annotations

from operator import itemgetter

from .core import COIN, HOLE, PAD_R, BoardTextError, EngineError, L, R, switch_label
from .geometry import Geometry, standard_geometry

_CHARS = {0: "L", PAD_R: "R", COIN: "l", COIN | PAD_R: "r", HOLE: "o"}
_CODES = {c: code for code, c in _CHARS.items()}
_TEXT = bytes(ord(_CHARS.get(b, "?")) for b in range(256))  # codes -> their letters, in one translate


class BoardState:
    """Mutable board state. Methods that change it say so (``set_``, ``place_``,
    ``remove_``, ``make_``, ``..._in_place``); everything else leaves it alone."""

    __slots__ = ("geometry", "codes")

    def __init__(self, geometry: Geometry | None = None, codes: Iterable[int] | None = None):
        self.geometry = geometry or standard_geometry()
        n = self.geometry.switch_count
        self.codes = bytearray(n) if codes is None else bytearray(codes)
        if len(self.codes) != n:
            raise EngineError(f"a state of board {self.geometry.name!r} has {n} switches, not {len(self.codes)}")

    # -- construction ---------------------------------------------------------

    @classmethod
    def parse(cls, text: str | Sequence[str], geometry: Geometry | None = None) -> "BoardState":
        """Parse the one-line (``/``-joined), multi-line or list-of-rows text form."""
        geometry = geometry or standard_geometry()
        if isinstance(text, str):
            rows = [r.strip() for r in text.replace("\n", "/").strip().strip("/").split("/")]
        elif isinstance(text, (list, tuple)) and all(isinstance(r, str) for r in text):
            rows = [r.strip() for r in text]
        else:
            raise BoardTextError(f"a board state is text like 'LLLLLLLL/LLLLLLL/...' or a list of row strings, not {type(text).__name__}")
        sizes = geometry.row_sizes
        if len(rows) != len(sizes):
            raise BoardTextError(
                f"board text {'/'.join(rows)!r} has {len(rows)} row(s); board {geometry.name!r} has {len(sizes)} "
                f"(rows of {', '.join(map(str, sizes))} switches, top first, joined with '/')"
            )
        codes = bytearray()
        for r, (row, size) in enumerate(zip(rows, sizes)):
            if len(row) != size:
                raise BoardTextError(f"row {r + 1} {row!r} has {len(row)} switches; row {r + 1} of board {geometry.name!r} has {size}")
            for j, ch in enumerate(row):
                code = _CODES.get(ch)
                if code is None:
                    raise BoardTextError(
                        f"row {r + 1} {row!r}, character {j + 1} ({switch_label(r, j)}): {ch!r} is not "
                        "L or R (pad side, lowercase when a coin rests on it) or o (hole)"
                    )
                codes.append(code)
        return cls(geometry, codes)

    @classmethod
    def empty(cls, geometry: Geometry | None = None, pad: int = L) -> "BoardState":
        geometry = geometry or standard_geometry()
        return cls(geometry, bytes([pad]) * geometry.switch_count)

    @classmethod
    def random(cls, rng, geometry: Geometry | None = None, coin_chance: float = 0.0, holes: bool = False) -> "BoardState":
        """Seeded random pads (and, for tests and benchmarks, resting coins)."""
        geometry = geometry or standard_geometry()
        state = cls(geometry)
        for i in range(geometry.switch_count):
            code = rng.randbelow(2)
            if coin_chance and rng.random() < coin_chance:
                code |= COIN
            state.codes[i] = code
        if holes:
            state.make_holes_in_place()
        return state

    def copy(self) -> "BoardState":
        new = BoardState.__new__(BoardState)
        new.geometry = self.geometry
        new.codes = bytearray(self.codes)
        return new

    # -- text form -------------------------------------------------------------

    def rows(self) -> list[str]:
        g = self.geometry
        try:
            split = g._split_rows
        except AttributeError:
            split = _splitter(g)
        return list(split(self.codes.translate(_TEXT).decode()))

    def text(self) -> str:
        try:
            cut = self.geometry._cut_rows
        except AttributeError:
            cut = _cutter(self.geometry)
        return b"/".join(cut(self.codes.translate(_TEXT))).decode()

    __str__ = text

    def __repr__(self) -> str:
        return f"BoardState.parse({self.text()!r})"

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, BoardState)
            and self.codes == other.codes
            and (self.geometry is other.geometry or self.geometry.rows == other.geometry.rows)
        )

    __hash__ = None  # mutable

    def key(self) -> bytes:
        """An immutable, hashable snapshot (for caches and transposition tables)."""
        return bytes(self.codes)

    # -- queries ----------------------------------------------------------------

    def pad(self, switch) -> int | None:
        """The pad side (L or R), or None for a hole."""
        code = self.codes[self.geometry.index(switch)]
        return None if code == HOLE else code & PAD_R

    def has_coin(self, switch) -> bool:
        return bool(self.codes[self.geometry.index(switch)] & COIN) and not self.is_hole(switch)

    def is_hole(self, switch) -> bool:
        return self.codes[self.geometry.index(switch)] == HOLE

    def resting(self) -> int:
        return sum(1 for c in self.codes if c != HOLE and c & COIN)

    def coin_labels(self) -> list[str]:
        """The switches with a coin resting on the pad, in reading order."""
        return [self.geometry.labels[i] for i, c in enumerate(self.codes) if c != HOLE and c & COIN]

    def holes(self) -> list[str]:
        return [self.geometry.labels[i] for i, c in enumerate(self.codes) if c == HOLE]

    def pads(self) -> list[int | None]:
        return [None if c == HOLE else c & PAD_R for c in self.codes]

    # -- changes (names say they mutate) -------------------------------------------

    def set_pad(self, switch, side: int) -> None:
        i = self._real_switch(switch)
        self.codes[i] = (self.codes[i] & COIN) | (PAD_R if side == R else 0)

    def place_coin(self, switch) -> None:
        i = self._real_switch(switch)
        if self.codes[i] & COIN:
            raise EngineError(f"{self.geometry.labels[i]} already has a coin on its pad")
        self.codes[i] |= COIN

    def remove_coin(self, switch) -> None:
        i = self._real_switch(switch)
        if not self.codes[i] & COIN:
            raise EngineError(f"{self.geometry.labels[i]} has no coin on its pad to remove")
        self.codes[i] &= ~COIN & 0xFF

    def make_holes_in_place(self, switches=None) -> None:
        """Take switches out (the Holes variant by default). A resting coin there is an error."""
        g = self.geometry
        for s in g.hole_switches if switches is None else [g.index(s) for s in switches]:
            if self.codes[s] != HOLE and self.codes[s] & COIN:
                raise EngineError(f"{g.labels[s]} holds a coin; take it off before removing the switch")
            self.codes[s] = HOLE

    def clear_coins_in_place(self) -> None:
        for i, c in enumerate(self.codes):
            if c != HOLE:
                self.codes[i] = c & PAD_R

    def _real_switch(self, switch) -> int:
        i = self.geometry.index(switch)
        if self.codes[i] == HOLE:
            raise EngineError(f"{self.geometry.labels[i]} is a hole (switch removed)")
        return i

    # -- symmetry ---------------------------------------------------------------

    def mirrored(self, geometry: Geometry | None = None) -> "BoardState":
        """The state seen in a mirror, on ``geometry`` (default: the mirrored board)."""
        g = geometry or self.geometry.mirrored()
        rows = [
            row[::-1].translate(_SWAP)
            for row in self.rows()
        ]
        return BoardState.parse(rows, g)


class _Made(BoardState):
    """A board the engine makes itself from bytes it has just computed (a
    drop's board after): a ``BoardState`` in every way but that making one runs
    no constructor checks, about 30 ns less on a call everything makes."""

    __slots__ = ()
    __init__ = object.__init__


_SWAP = str.maketrans("LRlr", "RLrl")


def _splitter(g: Geometry):
    """One C call that cuts a board's letters into its rows (kept on the geometry)."""
    slices = g.row_slices
    split = itemgetter(*slices) if len(slices) > 1 else (lambda letters: (letters[slices[0]],))
    object.__setattr__(g, "_split_rows", split)  # frozen: cached beside the fields, like the drop tables
    return split


def _cutter(g: Geometry):
    """One C call that cuts a board's letters (bytes) into its rows: a match
    logs the text of every drop, and five slices cost more than the drop."""
    from struct import Struct

    cut = Struct("".join(f"{size}s" for size in g.row_sizes)).unpack
    object.__setattr__(g, "_cut_rows", cut)
    return cut
