"""kill -9, unplug and hub reset with real processes (issue 11's test).

    python benchmarks/bench_kill.py                 # 150 drops over 2 matches, ~58 kills (most while coins fall)
    python benchmarks/bench_kill.py --mode unplug   # the hub unplugged 1-30 s at random moments
    python benchmarks/bench_kill.py --mode reset    # the hub reset at random moments

A served virtual board (``coindrel virtual-board --serve socket://``) drops
coins on its own schedule; ``coindrel run`` plays the match ``coindrel ctl
new-match`` started; every drop of the journal is compared with the board's
``--truth`` (benchmarks/killrig.py). Prints the figures; real time, so one
run takes about interval x drops. A match is about 50-60 drops: a longer run
goes on into new matches, the rig's players taking the coins off the pads
(the board's keyboard) and pressing on when the table asks, as people do.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from killrig import KillRig  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("kill", "unplug", "reset", "none"), default="kill")
    ap.add_argument("--drops", type=int, default=150)
    ap.add_argument("--kills", type=int, default=75, help="kills planned (those under 1 s after the last are skipped)")
    ap.add_argument("--events", type=int, default=12, help="unplugs or resets (--mode unplug/reset)")
    ap.add_argument("--interval", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--dir", help="keep the run's files here (default: a temporary folder)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    first = 8.0
    end = first + args.drops * args.interval
    faults: list[str] = []
    kills = args.kills if args.mode == "kill" else 0
    if args.mode == "unplug":
        faults = [f"unplug,t={rng.uniform(first, end - 5):.2f},duration={rng.uniform(1, 30):.1f}" for _ in range(args.events)]
    elif args.mode == "reset":
        faults = [f"hub_reset,t={rng.uniform(first, end - 2):.2f}" for _ in range(args.events)]
    work = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="coindrel-kill-"))
    rig = KillRig(work, drops=args.drops, interval=args.interval, first=first, seed=args.seed, kills=kills,
                  falling_share=0.45, faults=tuple(faults))
    t0 = time.monotonic()
    try:
        res = rig.run(settle=60)
    finally:
        rig.close()
    print(f"mode {args.mode}: {args.drops} drops every {args.interval} s, seed {args.seed}, "
          f"{len(faults)} link faults, {time.monotonic() - t0:.0f} s, files in {work}")
    for line in res.lines():
        print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
