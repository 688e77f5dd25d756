"""Journal figures: what durability costs and how long a restart takes.

    python benchmarks/bench_journal.py [--dir DIR] [--quick]

Run it on the Pi with --dir on the SD card (e.g. --dir /var/lib/coindrel):
fsync costs almost nothing on tmpfs and little on a server SSD, and a lot on
an SD card, which is the figure that matters.

Prints: raw write/fsync/fdatasync costs; durable journal appends per second;
a cascade of board events committed together; a whole simulated match
journalled as the daemon does it; recovery time (scan + replay) of a long
match, clean and with a torn tail; listing a history of many matches.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "controller"))

from coindrel.ai import GreedyPlayer, RandomPlayer  # noqa: E402
from coindrel.engine import Match, MatchSetup, Variants, drop, side_name  # noqa: E402
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent  # noqa: E402
from coindrel.table.history import list_matches  # noqa: E402
from coindrel.table.store import MatchStore  # noqa: E402

LINE = b"5a0b7d1e " + b'{"n":123,"k":"act","w":1767225600.125,"d":{"do":"coin","t":1234.5}}' + b"\n"


def fs_type(path: Path) -> str:
    best, kind = "", "?"
    real = str(path.resolve())
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            if len(parts) > 2 and real.startswith(parts[1]) and len(parts[1]) > len(best):
                best, kind = parts[1], parts[2]
    return f"{kind} (mounted at {best})"


def per_op(fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def raw_costs(d: Path, n: int) -> None:
    path = d / "raw"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        w = per_op(lambda: os.write(fd, LINE), n * 10)
        ds = per_op(lambda: (os.write(fd, LINE), os.fdatasync(fd)), n)
        fs = per_op(lambda: (os.write(fd, LINE), os.fsync(fd)), n)
    finally:
        os.close(fd)
    dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    try:
        dirsync = per_op(lambda: os.fsync(dfd), max(10, n // 5))
    finally:
        os.close(dfd)
    print(f"raw write of a {len(LINE)}-byte record, no sync   {w * 1e6:10.1f} us")
    print(f"raw write + fdatasync                        {ds * 1e6:10.1f} us")
    print(f"raw write + fsync                            {fs * 1e6:10.1f} us")
    print(f"fsync of the directory                       {dirsync * 1e6:10.1f} us")


def events_of(match: Match, entry: int, t: float) -> list:
    g = match.geometry
    outcome = drop(match.board, [entry])
    pads = list(match.board.pads())
    evs = [EntryEvent(t, entry)]
    for k, sw in enumerate(outcome.flipped):
        pads[sw] = 1 - pads[sw]
        evs.append(SwitchEvent(t + 0.1 + k / 100, g.labels[sw], "mid", 2000))
        evs.append(SwitchEvent(t + 0.104 + k / 100, g.labels[sw], side_name(pads[sw])))
    evs += [ExitEvent(t + 0.6, x) for x in outcome.exits]
    return evs


def play_journalled(store: MatchStore, setup: MatchSetup, player):
    """A whole match as the daemon journals it; returns the match, its
    journal (still open) and the time each drop took to save."""
    match = Match(setup)
    journal = store.begin(match)
    per_drop, t, events = [], 1.0, 0
    while not match.over:
        if match.phase == "reveal":
            match.reveal_done(t)
            journal.sync_match(match)
        entry = player.choose(match)
        evs = events_of(match, entry, t)
        events += len(evs)
        start = time.perf_counter()
        journal.event(evs[0])
        match.coin_seen(t)
        journal.sync_match(match)
        for ev in evs[1:]:
            journal.event(ev)
        journal.verdict({"drop": len(match.results) + 1, "entry": entry + 1, "verdict": "ok"})
        match.play(entry, t + 1)
        journal.sync_match(match)
        per_drop.append(time.perf_counter() - start)
        t += 10
    return match, journal, per_drop, events


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, help="directory to measure in (default: a temporary one)")
    ap.add_argument("--quick", action="store_true", help="fewer iterations")
    args = ap.parse_args()
    n = 100 if args.quick else 500
    base = Path(tempfile.mkdtemp(prefix="coindrel-bench-", dir=args.dir))
    try:
        kind = fs_type(base)
        print(f"measuring in {base} on {kind}")
        if kind.startswith("tmpfs"):
            print("  (tmpfs: syncs cost nothing here; pass --dir on the SD card for real figures)")
        raw_costs(base, n)

        with MatchStore(base / "appends", datasync=os.fdatasync) as store:
            journal = store.begin(Match(MatchSetup(seed=1)))
            act = {"do": "drop", "t": 1234.5, "entry": 3, "exits": [9, 10], "board": "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"}
            d = per_op(lambda: journal.append("act", act), n)
            ev = {"t": 12.4871, "kind": "switch", "switch": "R1S4", "pos": "R", "raw": 2710}
            e = per_op(lambda: journal.append("ev", ev, durable=False), n * 10)

            def cascade():
                for _ in range(30):
                    journal.append("ev", ev, durable=False)
                journal.sync()

            c = per_op(cascade, max(10, n // 10))
            journal.close()
        print(f"durable journal appends (write + fdatasync)   {1 / d:10.0f} /s  ({d * 1e3:.2f} ms each)")
        print(f"board events written, sync deferred          {1 / e:10.0f} /s")
        print(f"a 30-event cascade committed with one sync   {c * 1e3:10.2f} ms")

        matches = 3 if args.quick else 8
        # The last one is a marathon: every exit pays 1, so reaching the
        # targets (10, 40, 20, 80) takes several hundred drops.
        setups = [MatchSetup(seed=seed, clock=5.0, variants=Variants(shuffled=True)) for seed in range(matches)]
        setups.append(MatchSetup(seed=99, clock=5.0, values=[[1] * 16] * 4))
        with MatchStore(base / "matches") as store:
            longest, drops_all = None, []
            for seed, setup in enumerate(setups):
                player = RandomPlayer(seed) if seed % 2 else GreedyPlayer(seed)
                match, journal, per_drop, events = play_journalled(store, setup, player)
                drops_all += per_drop
                size = store.current.stat().st_size
                if longest is None or size > longest[1]:
                    longest = (seed, size, len(match.results), events)
                    shutil.copy(store.current, base / "longest.journal")
                store.finish(journal, match)  # moves it to the history
        per = statistics.median(drops_all)
        print(f"saving one drop (events, coin, verdict, drop) median {per * 1e3:6.2f} ms, "
              f"p99 {sorted(drops_all)[int(len(drops_all) * 0.99)] * 1e3:.2f} ms over {len(drops_all)} drops")

        seed, size, drops, events = longest
        lines = (base / "longest.journal").read_bytes().count(b"\n")
        rec_times, torn_times = [], []
        for k in range(5 if args.quick else 20):
            d = base / f"recover{k}"
            d.mkdir()
            shutil.copy(base / "longest.journal", d / "match.journal")
            with MatchStore(d) as store:
                t = time.perf_counter()
                rec = store.recover()
                rec_times.append(time.perf_counter() - t)
                rec.journal.close()
            with open(d / "match.journal", "ab") as f:
                f.write(b'0badc0de {"n":99999,"k":"ev","d":{"t":1')
            with MatchStore(d) as store:
                t = time.perf_counter()
                rec = store.recover()
                torn_times.append(time.perf_counter() - t)
                rec.journal.close()
        print(f"longest match (the marathon): {drops} drops, {events} board events, {lines} records, {size / 1024:.0f} KiB")
        print(f"recovery (scan + replay + reopen)            {statistics.median(rec_times) * 1e3:10.1f} ms")
        print(f"recovery with a torn tail to cut             {statistics.median(torn_times) * 1e3:10.1f} ms")

        hist = base / "hist"
        (hist / "history").mkdir(parents=True)
        copies = 100 if args.quick else 1000
        (src,) = list((base / "matches" / "history").glob("*.journal"))[:1]
        for i in range(copies):
            shutil.copy(src, hist / "history" / f"{i + 1:04d}-copy.journal")
        t = time.perf_counter()
        rows = list_matches(hist)
        took = time.perf_counter() - t
        print(f"coindrel history over {len(rows)} matches          {took * 1e3:10.1f} ms")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
