"""What a drop did, read from the drop's working bytes (see ``tables``).

Every caller reads the board and the exit and flip counts, so the drop makes
them at once (a slice or a ``bytes.translate`` of its working array each), and
they are plain attributes: reading costs nothing. The tuple views (sorted exits, flips
per switch, the flip order) and the board before are worked out when asked.
"""

from __future__ import annotations

from itertools import compress

from .state import BoardState
from .tables import HEX_DIGIT

_new = object.__new__


class Outcome:
    """What a drop did: exits reached, flips per switch, coins swallowed by
    holes or jammed, and the board afterwards.

    ``board`` is the board after the drop (the caller's to keep);
    ``exit_counts`` (coins per exit, ``bytes``) and ``flip_counts`` (flips per
    switch, a ``bytearray``) are made for this outcome: read them, do not
    change them.
    ``exits`` (sorted exit numbers, one per coin), ``flips`` (a tuple per
    switch) and ``flipped`` (one switch per flip, in depth-first processing
    order) are the same facts as tuples, built when asked.
    """

    __slots__ = ("board", "exit_counts", "flip_counts", "_w", "_t", "_q")

    @property
    def geometry(self):
        return self._t.geometry

    @property
    def exits(self) -> tuple[int, ...]:
        x = _EXITS.get(self.exit_counts)  # exits_of's table first, without the call
        return exits_of(self.exit_counts) if x is None else x

    @property
    def flips(self) -> tuple[int, ...]:
        return tuple(self.flip_counts)

    @property
    def swallowed(self) -> int:
        return self._t.swallowed(self._w)

    @property
    def jammed(self) -> int:
        return self._t.jams(self._w)

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
        after = self._w[: t.n].translate(t.code_of)  # not self.board: a board made in place may have changed since
        coins_in = sum(self.exit_counts) + self.swallowed + self.jammed + _resting(after) - _resting(before)
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


_EXITS: dict[bytes, tuple[int, ...]] = {}  # exit counts -> sorted exits, for the patterns seen lately
_EXITS_KEPT = 4096  # about 0.7 MB at most


def exits_of(counts) -> tuple[int, ...]:
    """Sorted exit numbers, one per coin, from coins per exit. A match turns
    every drop's counts into this tuple; the table of patterns already seen
    costs one dict look-up instead of a walk over the exits (``Match.play``
    looks there itself first: an outcome's counts are ``bytes``)."""
    key = bytes(counts)
    x = _EXITS.get(key)
    if x is None:
        if not key.translate(None, b"\0\1"):  # at most one coin per exit
            x = tuple(compress(range(len(key)), key))
        else:
            x = tuple(e for e, c in enumerate(key) for _ in range(c))
        if len(_EXITS) >= _EXITS_KEPT:
            _EXITS.clear()
        _EXITS[key] = x
    return x


_PATTERNS: dict[bytes, tuple[int, ...]] = {}  # a match's exit pattern (see Match.play) -> sorted exits


def exits_of_pattern(key: bytes, hexed: bool) -> tuple[int, ...]:
    """Sorted exits from the key ``Match.play`` makes of a drop's working bytes:
    the last row's outlet nibbles as hex digits (``hexed``), else the exit
    counters' bytes and "=" (never a hex digit: the two kinds of key never meet).
    Remembered, as ``exits_of`` remembers counts: one coin makes a few dozen
    patterns, so a match mostly looks its exits up."""
    x = _PATTERNS[key] = exits_of(key.translate(HEX_DIGIT) if hexed else key[:-1])
    if len(_PATTERNS) > _EXITS_KEPT:
        _PATTERNS.clear()
    return x


def _resting(codes) -> int:
    return codes.count(2) + codes.count(3)  # COIN with either pad side; a hole (4) holds none


class PlainOutcome(Outcome):
    """The outcome of a drop that overflowed the working bytes, from ``cascade``."""

    __slots__ = ("_sw", "_jam", "_order", "_before")

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
        o._t, o.board, o._w, o._q = topo, board, None, None
        o.exit_counts, o.flip_counts, o._order = bytes(counts), flips, tuple(flipped)
        o._sw = sum(1 for s in sinks if s == swallow)
        o._jam = len(sinks) - sum(counts) - o._sw
        return o

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
