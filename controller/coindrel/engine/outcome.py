"""What a drop did, read lazily from the drop's working bytes (see ``tables``).

A drop hands over its working bytearray untouched; each view is a
``bytes.translate`` or a slice the first time it is asked for, so a caller that
only scores exits pays for nothing else.
"""

from __future__ import annotations

from itertools import compress

from .state import BoardState

_new = object.__new__


class Outcome:
    """What a drop did: exits reached, flips per switch, coins swallowed by
    holes or jammed, and the board afterwards.

    ``exit_counts`` and ``flip_counts`` are byte strings (coins per exit, flips
    per switch; a fresh bytearray each time); ``exits`` (sorted exit numbers, one per coin), ``flips`` (a tuple
    per switch) and ``flipped`` (one switch per flip, in depth-first processing
    order) are the same facts as tuples, built on first use.
    """

    # _b, _x, _f: the board, exits and flips tuples once built (None until then);
    # three slots set by the drop cost less than one list made on the first read.
    __slots__ = ("_w", "_t", "_q", "_b", "_x", "_f")

    @property
    def geometry(self):
        return self._t.geometry

    @property
    def board(self) -> BoardState:
        b = self._b
        if b is None:
            t = self._t
            b = self._b = _new(BoardState)
            b.geometry = t.geometry
            b.codes = self._w[: t.n].translate(t.code_of)
        return b

    @property
    def exit_counts(self) -> bytearray:
        """Coins per exit (a fresh copy each time)."""
        return self._w[self._t.exit_slice]

    @property
    def flip_counts(self) -> bytearray:
        """Flips per switch (a fresh copy each time)."""
        t = self._t
        return self._w[: t.n].translate(t.flips_of)

    @property
    def exits(self) -> tuple[int, ...]:
        x = self._x
        if x is None:
            counts = self._w[self._t.exit_slice]
            if not counts.translate(None, b"\0\1"):  # at most one coin per exit
                x = tuple(compress(range(len(counts)), counts))
            else:
                x = tuple(e for e, c in enumerate(counts) for _ in range(c))
            self._x = x
        return x

    @property
    def flips(self) -> tuple[int, ...]:
        f = self._f
        if f is None:
            f = self._f = tuple(self.flip_counts)
        return f

    @property
    def swallowed(self) -> int:
        return self._w[self._t.swallow]

    @property
    def jammed(self) -> int:
        return self._w[self._t.jammed]

    def before(self) -> BoardState:
        """The board as it was before the drop."""
        t = self._t
        return BoardState(t.geometry, self._w[: t.n].translate(t.before_of))

    @property
    def flipped(self) -> tuple[int, ...]:
        """One switch number per flip, in depth-first processing order (a
        rocker never interleaves two flips), replayed from the board before."""
        from .tables import cascade

        t = self._t
        before = self._w[: t.n].translate(t.before_of)
        coins_in = (sum(self.exit_counts) + self.swallowed + self.jammed + _resting(self._w[: t.n].translate(t.code_of))
                    - _resting(before))
        return tuple(cascade(before, t, self._q[:coins_in])[1])

    def flips_by_label(self) -> dict[str, int]:
        labels = self._t.geometry.labels
        return {labels[s]: c for s, c in enumerate(self.flip_counts) if c}

    def to_json(self) -> dict:
        """The vectors' ``expect`` shape (0-based exits, labelled flips)."""
        return {
            "exits": list(self.exits),
            "flips": dict(sorted(self.flips_by_label().items())),
            "swallowed": self.swallowed,
            "board": self.board.rows(),
        }

    def __repr__(self) -> str:
        return f"Outcome(exits={self.exits}, flips={self.flips_by_label()}, swallowed={self.swallowed}, board={self.board.text()!r})"


def _resting(codes) -> int:
    return codes.count(2) + codes.count(3)  # COIN with either pad side; a hole (4) holds none


class PlainOutcome(Outcome):
    """The outcome of a drop that overflowed the working bytes, from ``cascade``."""

    __slots__ = ("_counts", "_flipcounts", "_sw", "_jam", "_order", "_before")

    @classmethod
    def _from_cascade(cls, topo, before: bytes, board: BoardState, sinks, flipped) -> "PlainOutcome":
        o = _new(cls)
        o._before = before
        n, swallow = topo.n, topo.swallow
        counts = bytearray(topo.geometry.exit_count)
        for s in sinks:
            if s < swallow:
                counts[s - n] += 1
        flips = bytearray(n)
        for s in flipped:
            flips[s] += 1  # at most one flip per coin arriving: far below 256
        o._t, o._b, o._x, o._f = topo, board, None, None
        o._counts, o._flipcounts, o._order = bytes(counts), bytes(flips), tuple(flipped)
        o._sw = sum(1 for s in sinks if s == swallow)
        o._jam = len(sinks) - sum(counts) - o._sw
        return o

    @property
    def exit_counts(self) -> bytearray:
        return bytearray(self._counts)

    @property
    def flip_counts(self) -> bytearray:
        return bytearray(self._flipcounts)

    @property
    def exits(self) -> tuple[int, ...]:
        return tuple(e for e, c in enumerate(self._counts) for _ in range(c))

    @property
    def flips(self) -> tuple[int, ...]:
        return tuple(self._flipcounts)

    @property
    def swallowed(self) -> int:
        return self._sw

    @property
    def jammed(self) -> int:
        return self._jam

    @property
    def flipped(self) -> tuple[int, ...]:
        return self._order

    def before(self) -> BoardState:
        return BoardState(self._t.geometry, self._before)
