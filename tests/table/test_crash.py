"""Crash safety: a simulated match is SIGKILLed at random points (with a
simulated power cut on top, half of the time), restarted, and every resume
must give exactly the scores, round, board belief, log and records of an
uninterrupted run up to that point, losing nothing that was confirmed.

No sleeps: the parent reads the child's progress lines and kills it after a
random number of them, wherever the child is by then (mid-write, between a
write and its fsync, while finishing the match...).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from coindrel.engine import Match
from coindrel.table.history import history_files
from coindrel.table.records import scan
from coindrel.table.store import MatchStore

from . import crash_child as cc

CHILD = Path(__file__).with_name("crash_child.py")
CONTROLLER = Path(__file__).resolve().parents[2] / "controller"


def state(match: Match) -> tuple:
    return (match.totals, match.round_scores, match.round, match.board.text(), match.to_move, match.phase,
            len(match.results), match.last_drop_pending, match.values)


def payloads(data: bytes) -> list[tuple]:
    """(kind, payload) of every record after the header, without the end
    record's wall-clock times."""
    out = []
    for r in scan(data).records[1:]:
        d = r.data
        if r.kind == "end":
            d = {k: v for k, v in d.items() if k not in ("started", "ended", "id")}
        out.append((r.kind, d))
    return out


def reference(root: Path, seed: int):
    snaps = {}
    fresh = Match(cc.setup_for(seed))
    snaps[len(fresh.log)] = state(fresh)

    def on_op(match, journal):
        snaps[len(match.log)] = state(match)

    with MatchStore(root) as store:
        cc.drive(store, seed, on_op=on_op)
    (path,) = history_files(root)
    final = Match.replay([r.data for r in scan(path.read_bytes()).records if r.kind == "act"])
    return payloads(path.read_bytes()), snaps, final.log


def run_child(state_dir: Path, seed: int, lines_before_kill: int) -> tuple[list[str], bool]:
    env = dict(os.environ, PYTHONPATH=str(CONTROLLER))
    proc = subprocess.Popen([sys.executable, str(CHILD), str(state_dir), str(seed)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    lines, killed = [], False
    try:
        for _ in range(lines_before_kill):
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
        else:
            proc.kill()  # SIGKILL, wherever the child is now
            killed = True
        lines += [line.strip() for line in proc.stdout.read().splitlines()]
    finally:
        err = proc.stderr.read()
        proc.wait(timeout=60)
    if not killed:
        assert proc.returncode == 0, err
    return lines, killed


def simulate_power_cut(path: Path, acked: int, rng: random.Random) -> bytes:
    """Keep what was confirmed; of the rest keep a random prefix, maybe
    followed by zero-filled or garbage blocks, as a power cut can leave it."""
    data = path.read_bytes()
    cut = rng.randint(acked, len(data))
    junk = rng.choice([b"", b"\0" * rng.randint(1, 700), rng.randbytes(rng.randint(1, 300))])
    data = data[:cut] + junk
    path.write_bytes(data)
    return data


@pytest.mark.slow
def test_kill_at_random_points_resumes_exactly(tmp_path):
    kills = resumes = cuts = 0
    for seed in (3, 10):  # holes + shuffled exits; halved final round
        ref_records, snaps, ref_log = reference(tmp_path / f"ref{seed}", seed)
        rng = random.Random(seed)
        state_dir = tmp_path / f"run{seed}"
        acked_size = acked_records = 0
        current = state_dir / "match.journal"
        while True:
            lines, killed = run_child(state_dir, seed, rng.randint(1, 40))
            kills += killed
            for line in lines:
                assert not line.startswith("U "), "a write reported durable was never fdatasynced"
                if line.startswith("A "):
                    _, records, size, _ = line.split()
                    acked_records, acked_size = max(acked_records, int(records)), max(acked_size, int(size))
            done = any(line.startswith("DONE") for line in lines)
            if current.exists() and rng.random() < 0.5:
                simulate_power_cut(current, acked_size, rng)
            # A SIGKILL alone can tear a write too (the kernel stops a write
            # between pages for a fatal signal), so look at what is there.
            on_disk_before = current.read_bytes() if current.exists() else b""
            before = set((state_dir / "damaged").glob("*")) if (state_dir / "damaged").exists() else set()
            with MatchStore(state_dir) as store:
                rec = store.recover()
                if rec.match is None:
                    (path,) = history_files(state_dir)
                    assert payloads(path.read_bytes()) == ref_records
                    break
                resumes += 1
                rec.journal.close()
                on_disk = payloads(current.read_bytes())
                assert on_disk == ref_records[: len(on_disk)]
                assert len(on_disk) + 1 >= acked_records, "a confirmed record was lost"
                match = rec.match
                assert match.log == ref_log[: len(match.log)]
                assert state(match) == snaps[len(match.log)]
            new = set((state_dir / "damaged").glob("*")) - before
            if scan(on_disk_before).damage is not None:
                (copy,) = new
                kept = copy.read_bytes()
                assert kept and on_disk_before.endswith(kept)
                assert len(on_disk_before) - len(kept) >= acked_size
                assert any(str(copy) in m and "cut short" in m for m in rec.messages)
                cuts += 1
            else:
                assert not new and not rec.messages
            assert not done
    print(f"kills={kills} resumes={resumes} cuts={cuts}")
    assert kills >= 30, f"only {kills} kills"
    assert resumes >= 30 and cuts >= 5
