"""Instruction counts of the engine against bench_engine's table-driven
reference, under valgrind: deterministic where a shared machine's times are
not, so a change of a few per cent can be judged in one run.

Each row runs a fixed workload (1,000 dense boards, or 4 whole matches) once
and three times in separate valgrind processes (``cachegrind``, no cache
simulation); the difference is two passes alone, without start-up and the
cases' making. Matches are let go one by one once played, as in the bench.
Python's cyclic collector is off while the passes run: when it runs depends on
what the process holds from before (the same matches were counted 15% apart
with it on, from one order of making the cases to another), not on either
engine; the bench's times include it.
Printed: instructions per drop (matches: per drop of the matches) for each
side and their ratio, reference ÷ ours.

Run: ``python benchmarks/count_engine.py [single multi asif match shuffled]``
(needs valgrind: ``apt-get install valgrind``; a few minutes).
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = ("single", "multi", "asif", "match", "shuffled")


def workload(row: str, side: str, passes: int) -> int:
    """Run ``passes`` passes of one side of a row; returns the drops of one pass."""
    sys.path.insert(0, HERE)
    import bench_engine as be
    from coindrel.engine import Match, SwitchStuck, drop, predict

    ref = be.Reference(be.BOARD_FILE)
    stuck_at = ("R3S4",)
    stuck = tuple(SwitchStuck(label) for label in stuck_at)
    if row in ("match", "shuffled"):
        cases = be.match_cases(4, 5, shuffled=row == "shuffled")
        be.check_matches(ref, cases)  # and warms both sides' tables and caches
        drops = sum(sum(1 for _ in _played(Match(s), e)) for s, _, e, _, _ in cases)
        # as many new matches whatever the passes (their making is not counted), for ours only, as in the bench
        batches = [[(Match(s), e) for s, _, e, _, _ in cases] for _ in range(3)] if side == "ours" else []
        gc.collect()
        gc.disable()  # see the module's docstring
        for _ in range(passes):
            if side == "ref":
                for _, codes, entries, values, rng in cases:
                    ref.match(codes, values, entries, rng)
            else:
                batch = batches.pop()
                while batch:
                    m, entries = batch.pop()
                    pick = iter(entries)
                    while not m.over:
                        m.play(next(pick))
        return drops
    boards = be.dense_boards(1000, 1 if row != "multi" else 3)
    cases = be.drop_cases(boards, 2 if row != "multi" else 4, (1,) if row != "multi" else (2, 3, 4))
    be.check_drops(ref, cases, stuck_at if row == "asif" else ())
    gc.collect()
    gc.disable()
    for _ in range(passes):
        if side == "ref" and row == "asif":
            for _, codes, entries in cases:
                ref.predict(codes, entries, stuck_at)
        elif side == "ref":
            for _, codes, entries in cases:
                ref.drop(codes, entries)
        elif row == "asif":
            for state, _, entries in cases:
                o = predict(state, entries, stuck).outcome
                o.exit_counts, o.flip_counts, o.board
        else:
            for state, _, entries in cases:
                o = drop(state, entries)
                o.exit_counts, o.flip_counts, o.board
    return len(cases)


def _played(m, entries):
    pick = iter(entries)
    while not m.over:
        yield m.play(next(pick))


def count(row: str, side: str, passes: int) -> tuple[int, int]:
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, __file__, "--child", row, side, str(passes)],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=True)
    refs = int(re.search(r"I\s+refs:\s+([\d,]+)", out.stderr).group(1).replace(",", ""))
    return refs, int(out.stdout.split()[-1])


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        print(workload(sys.argv[2], sys.argv[3], int(sys.argv[4])))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    rows = sys.argv[1:] or ROWS
    bad = [r for r in rows if r not in ROWS]
    if bad:
        raise SystemExit(f"unknown row(s) {', '.join(bad)}; rows are {', '.join(ROWS)}")
    print(f"instructions per drop under valgrind, two passes counted ({sys.executable})")
    for row in rows:
        per = {}
        for side in ("ref", "ours"):
            (one, drops), (three, _) = count(row, side, 1), count(row, side, 3)
            per[side] = (three - one) / (2 * drops)
        print(f"  {row:9s} reference {per['ref']:8,.0f}  ours {per['ours']:8,.0f}  ratio {per['ref'] / per['ours']:.3f}")


if __name__ == "__main__":
    main()
