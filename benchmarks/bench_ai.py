"""Look-ahead speed and solo-level strength.

1. Hint time: ``hint()`` on positions taken from real matches (every 5th
   drop of greedy-vs-random matches, all four rounds), with a fresh searcher
   each time (a cold cache: what one button press costs), for look-ahead
   depths 1 to 5. The aim for the default two-drop hint is under 100 ms.
2. Win rates: each solo level (easy, medium, hard) against the random and
   the greedy player, and against the level below, over N matches each
   (default 1,000; ``--quick``: 100). Each side plays first in half of the
   matches; every match starts from its own seeded random board.

Run: ``python benchmarks/bench_ai.py`` (a few minutes on 2 cores; the
matches are spread over all cores) or ``--quick``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from coindrel.ai import GreedyPlayer, Position, RandomPlayer, Searcher, hint, player_by_name
from coindrel.ai.hint import HINT_THREAT
from coindrel.engine import Match, MatchSetup


def sample_positions(count: int) -> list[Position]:
    positions, seed = [], 0
    while len(positions) < count:
        m = Match(MatchSetup(seed=10_000 + seed))
        players = (GreedyPlayer(seed), RandomPlayer(seed + 1))
        turn = 0
        while not m.over and len(positions) < count:
            if turn % 5 == 0:
                positions.append(Position.from_match(m))
            m.play(players[m.to_move - 1].choose(m))
            turn += 1
        seed += 1
    return positions


def hint_times(positions, depth: int) -> tuple[float, float, float]:
    times = []
    for p in positions:
        start = time.perf_counter()
        hint(p, depth=depth, searcher=Searcher(depth, HINT_THREAT))
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.mean(times), times[int(len(times) * 0.95) - 1], times[-1]


def play_match(args) -> tuple[int, float]:
    """One match; returns (result for side A: 1 win, 0 draw, -1 loss, A's margin)."""
    a_name, b_name, seed = args
    a, b = player_by_name(a_name, seed), player_by_name(b_name, seed + 500_000)
    a_first = seed % 2 == 0
    players = (a, b) if a_first else (b, a)
    m = Match(MatchSetup(seed=seed))
    while not m.over:
        m.play(players[m.to_move - 1].choose(m))
    totals = m.totals if a_first else m.totals[::-1]
    margin = totals[0] - totals[1]
    return (margin > 0) - (margin < 0), margin


def win_rate(pool, a: str, b: str, n: int) -> dict:
    start = time.perf_counter()
    results = list(pool.map(play_match, [(a, b, seed) for seed in range(n)], chunksize=max(1, n // 40)))
    return {
        "a": a, "b": b, "n": n,
        "win": sum(1 for r, _ in results if r > 0) / n,
        "draw": sum(1 for r, _ in results if r == 0) / n,
        "loss": sum(1 for r, _ in results if r < 0) / n,
        "margin": statistics.mean(m for _, m in results),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="100 matches per pairing instead of 1,000, fewer hint positions")
    ap.add_argument("--matches", type=int, help="matches per pairing (default 1000, --quick 100)")
    ap.add_argument("--positions", type=int, help="positions for the hint timing (default 300, --quick 100)")
    ap.add_argument("--max-depth", type=int, default=5, help="deepest hint to time (default 5)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for the matches")
    args = ap.parse_args()
    n = args.matches or (100 if args.quick else 1000)
    positions = sample_positions(args.positions or (100 if args.quick else 300))

    print(f"Coindrel look-ahead benchmark — Python {platform.python_version()} on {platform.machine()}, "
          f"{args.workers} worker process(es) for the matches")
    print(f"\nHint time ({len(positions)} positions from real matches, fresh cache each time):")
    print("  depth   mean ms   95% ms    max ms")
    for depth in range(1, args.max_depth + 1):
        mean, p95, worst = hint_times(positions, depth)
        mark = "  <- default hint" if depth == 2 else ""
        print(f"  {depth:>5}  {mean:>8.1f}  {p95:>7.1f}  {worst:>8.1f}{mark}")

    pairings = [("easy", "random"), ("easy", "greedy"), ("medium", "random"), ("medium", "greedy"),
                ("hard", "random"), ("hard", "greedy"), ("medium", "easy"), ("hard", "medium")]
    print(f"\nWin rates over {n:,} matches per pairing (each side first in half):")
    print("  level    opponent   win      draw    loss     mean margin   time")
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for a, b in pairings:
            r = win_rate(pool, a, b, n)
            print(f"  {a:<8} {b:<9} {r['win']:>6.1%}  {r['draw']:>6.1%}  {r['loss']:>6.1%}  {r['margin']:>+10.1f}  "
                  f"{r['seconds']:>6.1f}s", flush=True)


if __name__ == "__main__":
    main()
