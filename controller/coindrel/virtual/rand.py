"""Every random number of a virtual-board run comes from one seed.

Separate purposes (coin timing, sensor noise, fault details, players, link
garbage) draw from separate streams derived from that seed by name, so adding
a fault does not shift every coin's fall time, and a run repeats exactly.

Streams are the engine's ``MatchRandom`` (PCG32, spelled out in the engine so
it never changes with the Python version). Hall noise is *counter based*: the
noise of switch ``s`` at scan tick ``k`` is a pure function of (seed, s, k), so
the virtual hub may skip scans whose result cannot matter without changing
any other reading.
"""

from __future__ import annotations

from ..engine.rng import MatchRandom

_MASK = (1 << 64) - 1


def mix64(x: int) -> int:
    """SplitMix64's finaliser: a cheap, well-mixed 64-bit hash of an integer."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def derive(seed: int, *names: str | int) -> int:
    """A 64-bit seed for a named purpose, stable across runs and Python versions
    (``hash()`` of a string is salted per process, so it is not used)."""
    h = mix64(seed & _MASK)
    for name in names:
        data = str(name).encode("utf-8")
        for b in data:
            h = mix64(h ^ b)
        h = mix64(h ^ 0xFF)  # separates ("ab",) from ("a", "b")
    return h


class Stream:
    """A named random stream with the few draws the simulation needs."""

    __slots__ = ("rng",)

    def __init__(self, seed: int, *names: str | int):
        self.rng = MatchRandom(derive(seed, *names))

    def random(self) -> float:
        return self.rng.random()

    def uniform(self, lo: float, hi: float) -> float:
        return lo + (hi - lo) * self.rng.random()

    def span(self, span: tuple[float, float]) -> float:
        return span[0] + (span[1] - span[0]) * self.rng.random()

    def below(self, n: int) -> int:
        return self.rng.randbelow(n)

    def chance(self, p: float) -> bool:
        return p >= 1.0 or (p > 0.0 and self.rng.random() < p)

    def choice(self, items):
        return items[self.rng.randbelow(len(items))]

    def bytes(self, n: int) -> bytes:
        return bytes(self.rng.randbelow(256) for _ in range(n))


def noise_unit(seed: int, channel: int, tick: int) -> float:
    """Bounded, roughly normal noise with standard deviation 1 and range
    [-3, 3): the sum of three uniforms on [-1, 1). Bounded noise lets a healthy
    board be proved free of spurious readings: a band wider than 3 sigma is
    never left by noise alone."""
    h = mix64(seed ^ mix64((channel << 40) ^ tick))
    a = h & 0x1FFFFF
    b = (h >> 21) & 0x1FFFFF
    c = (h >> 42) & 0x1FFFFF
    return (a + b + c) / 1048576.0 - 3.0  # each part / 2**20 is in [0, 2)
