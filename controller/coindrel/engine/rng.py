"""The match's seeded random generator.

A match replays exactly from its log for as long as logs are kept, across
Python upgrades, so the generator is spelled out here (PCG32, O'Neill 2014)
instead of borrowing ``random.Random``, whose ``randrange``/``shuffle`` may
change between Python versions.
"""

from __future__ import annotations

_MASK64 = (1 << 64) - 1
_MULT = 6364136223846793005
_INC = 1442695040888963407
_FLOOR = tuple((1 << 32) % n if n else 0 for n in range(64))  # randbelow's rejection threshold per n


class MatchRandom:
    __slots__ = ("_state",)

    def __init__(self, seed: int = 0):
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError("a match seed is an integer")
        self._state = 0
        self._next32()
        self._state = (self._state + (seed & _MASK64)) & _MASK64
        self._next32()

    def _next32(self) -> int:
        old = self._state
        self._state = (old * _MULT + _INC) & _MASK64
        xorshifted = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & 0xFFFFFFFF

    def randbelow(self, n: int) -> int:
        """Uniform in ``0..n-1``, without modulo bias."""
        if not 0 < n <= 1 << 32:
            raise ValueError("randbelow needs 0 < n <= 2**32")
        threshold = (1 << 32) % n
        while True:
            r = self._next32()
            if r >= threshold:
                return r % n

    def random(self) -> float:
        """Uniform in [0, 1) with 53 bits."""
        hi = self._next32() >> 5
        lo = self._next32() >> 6
        return (hi * 67108864.0 + lo) / 9007199254740992.0

    def shuffle(self, items: list) -> None:
        """Fisher-Yates, in place: ``j = randbelow(i + 1)`` for ``i`` from the
        last index down, with ``randbelow`` and ``_next32`` written out (a
        shuffled match shuffles its values every round; the same numbers: a
        rotation by ``32 - rot`` is ``(-rot) & 31``'s but for 0, where both give ``x``)."""
        state = self._state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            floor = _FLOOR[n] if n < 64 else 4294967296 % n
            while True:
                old = state
                state = (old * _MULT + _INC) & _MASK64
                x = ((old >> 18 ^ old) >> 27) & 0xFFFFFFFF
                rot = old >> 59
                r = (x >> rot | x << 32 - rot) & 0xFFFFFFFF
                if r >= floor:
                    break
            j = r % n
            items[i], items[j] = items[j], items[i]
        self._state = state

    def choice(self, items):
        return items[self.randbelow(len(items))]

    def getstate(self) -> int:
        return self._state

    def setstate(self, state: int) -> None:
        self._state = state & _MASK64
