"""Rules-engine speed: drop predictions per second and whole matches per second.

Dense random boards: every pad side random and half of the pads holding a coin,
the hardest case (long cascades). Run: ``python benchmarks/bench_engine.py``.
"""

from __future__ import annotations

import argparse
import platform
import time

from coindrel.ai import RandomPlayer
from coindrel.engine import BoardState, Match, MatchSetup, SwitchStuck, Variants, drop, predict, standard_geometry
from coindrel.engine.rng import MatchRandom


def boards(n: int, seed: int) -> list[BoardState]:
    rng = MatchRandom(seed)
    return [BoardState.random(rng, standard_geometry(), coin_chance=0.5) for _ in range(n)]


def rate(fn, items, min_seconds: float) -> tuple[float, int]:
    count, start = 0, time.perf_counter()
    while True:
        for item in items:
            fn(item)
        count += len(items)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return count / elapsed, count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=2.0, help="minimum time per measurement")
    args = ap.parse_args()
    rng = MatchRandom(1)
    states = boards(2000, 7)
    singles = [(s, [rng.randbelow(8)]) for s in states]
    multis = [(s, [rng.randbelow(8) for _ in range(2 + rng.randbelow(3))]) for s in states]
    exits = sum(len(drop(s, e).exits) for s, e in singles) / len(singles)

    print(f"Coindrel engine benchmark — Python {platform.python_version()} on {platform.machine()}, one core")
    r, n = rate(lambda c: drop(c[0], c[1]), singles, args.seconds)
    print(f"  single-coin drops, dense boards:     {r:>10,.0f} predictions/s  ({n:,} drops, {exits:.1f} exits per drop)")
    r, n = rate(lambda c: drop(c[0], c[1]), multis, args.seconds)
    print(f"  2-4 coins together, dense boards:    {r:>10,.0f} predictions/s  ({n:,} drops)")
    stuck = [SwitchStuck("R3S4")]
    r, n = rate(lambda c: predict(c[0], c[1], stuck), singles[:500], args.seconds)
    print(f"  as-if predictions (a stuck switch):  {r:>10,.0f} predictions/s  ({n:,} drops)")

    def one_match(seed: int) -> None:
        m = Match(MatchSetup(seed=seed, variants=Variants(shuffled=seed % 2 == 0)))
        players = (RandomPlayer(seed), RandomPlayer(seed + 1))
        while not m.over:
            m.play(players[m.to_move - 1].choose(m))

    seeds = list(range(200))
    r, n = rate(one_match, seeds, args.seconds)
    turns = 0
    for seed in seeds[:50]:
        m = Match(MatchSetup(seed=seed))
        p = (RandomPlayer(seed), RandomPlayer(seed + 1))
        while not m.over:
            m.play(p[m.to_move - 1].choose(m))
        turns += len(m.results)
    print(f"  full random matches:                 {r:>10,.1f} matches/s      ({n:,} matches, ~{turns / 50:.0f} drops each)")


if __name__ == "__main__":
    main()
