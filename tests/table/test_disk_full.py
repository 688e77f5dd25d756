"""A disk that fills while a coin's cascade is in progress (a newcomer's
finding: after the restart the next coin was judged "Extra coin" and every
later turn went to the other player). The journal's k-th write fails with
ENOSPC, and so does every write after it (the disk stays full) until the
table has stopped; it restarts on a disk with room, the hub gives back what
came after the journal's last hub position, and every drop must score as on
a table whose disk never filled, or the players must be asked.

The board is the virtual board's model; the hub is test_kill_orphans'
stand-in (frames numbered, replay from a position)."""

from __future__ import annotations

import errno
import logging
import os

import pytest

from coindrel.events import StatusEvent
from coindrel.sources.base import Snapshot
from coindrel.table import journal as journal_module
from coindrel.table.daemon import Table
from coindrel.table.resync import resync
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore
from coindrel.virtual import BoardConfig, Collect, Scenario, build_board

from .test_kill_orphans import G, START, STEP, ReplayingHub

# Bo's coin goes in just after Ann's cascade ended on the board, while a slow
# diagnosis still holds Ann's verdict: the table notes it as a second coin
# until Ann's report says her cascade had ended before it went in.
DROPS = [(2.0, 1), (4.4, 0), (7.0, 3), (9.4, 5), (12.0, 2), (14.4, 7)]
HOLDS = [(2.0, 5.0), (7.0, 10.0), (12.0, 15.0)]


class Disk:
    """The state directory's writes, counted; from write ``full_at`` (or the
    data sync ``sync_full_at``) on, every one fails with ENOSPC until ``free()``."""

    def __init__(self, state_dir, full_at=None, sync_full_at=None):
        self.dir = str(state_dir)
        self.full_at, self.sync_full_at = full_at, sync_full_at
        self.writes = self.syncs = 0
        self.full = False

    def _ours(self, fd) -> bool:
        try:
            return os.readlink(f"/proc/self/fd/{fd}").startswith(self.dir)
        except OSError:
            return False

    def write_all(self, fd, data, _real=journal_module._write_all):
        if self._ours(fd):
            self.writes += 1
            if self.full or (self.full_at is not None and self.writes >= self.full_at):
                self.full = True
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        _real(fd, data)

    def datasync(self, fd):
        if self._ours(fd):
            self.syncs += 1
            if self.full or (self.sync_full_at is not None and self.syncs >= self.sync_full_at):
                self.full = True
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.fdatasync(fd)

    def free(self):
        self.full_at = self.sync_full_at = None
        self.full = False


def play(tmp_path, monkeypatch, disk=None, drops=DROPS, holds=HOLDS, until=None, down=1.0):
    """The match on the board's schedule; the disk fills as ``disk`` says,
    the table stops (as its loop does once a save failed), the disk is freed
    and a new table resumes. Returns (results, totals, table, answers)."""
    out = Collect()
    board, _ = build_board(Scenario(BoardConfig(seed=8, start=START)), outputs=[out])
    for t, e in drops:
        board.drop(e, t)
    now = [0.0]
    ring: list[tuple[int, object]] = []
    state = tmp_path / "state"
    disk = disk or Disk(state)
    disk.dir = str(state)
    monkeypatch.setattr(journal_module, "_write_all", disk.write_all)

    def positions():
        return {G.labels[s]: ("none" if c == 4 else "LR"[c & 1]) for s, c in enumerate(board.world.codes)}

    def new_table(src):
        store = MatchStore(state, datasync=disk.datasync).open()
        return Table(G, Choices(clock="off", players=("Ann", "Bo")), source=src, store=store,
                     clock=lambda: now[0], reveal_seconds=0.1), store

    def hear():
        new = out.events[len(ring):]
        for ev in new:
            ring.append((100 + len(ring), ev))
        return ring[len(ring) - len(new):]

    src = ReplayingHub()
    table, store = new_table(src)
    table.positions = positions()
    table.resume(store.recover())
    for _ in range(3):
        table.handle_action("select")
        now[0] += 0.2
        table.step()
    table.handle_event(StatusEvent(now[0], "connected", "hub"))
    restarted = False
    steps = 0
    until = until if until is not None else drops[-1][0] + 6.0 + down
    while now[0] < until:
        steps += 1
        assert steps < 10_000
        now[0] += STEP
        board.run_until(now[0])
        for num, ev in hear():
            src.give(table, num, ev)
        if any(a <= now[0] < b for a, b in holds) and not restarted:
            continue
        table.step()
        if table.flow.diagnosis is not None:
            table.handle_action("select")
            table.step()
        if table.failed is None or restarted:
            continue
        # the loop stops once a save failed; its shutdown as run() does it
        table.close_diagnosis()
        table.save_timing()
        store.close()
        restarted = True
        disk.free()
        now[0] += down
        board.run_until(now[0])
        hear()
        src = ReplayingHub()
        table, store = new_table(src)
        table.resume(store.recover())
        table.handle_event(StatusEvent(board.now, "connected", "hub"))
        after = src.resume_after
        for num, ev in ring:
            if after is None or num > after.num:
                src.give(table, num, ev)
        resync(table, Snapshot(board.now, positions()))
        table.learn_positions(positions())
    m = table.flow.match
    results = [(r.entry, tuple(r.exits)) for r in m.results]
    return results, (tuple(m.totals), tuple(m.round_scores), tuple(r.player for r in m.results)), table, restarted


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:
        return play(tmp_path_factory.mktemp("ref"), mp)
    finally:
        mp.undo()


def test_the_reference_has_a_second_coin_noted_while_a_verdict_waits(reference):
    results, scores, table, restarted = reference
    assert not restarted and len(results) == len(DROPS)


def _writes(tmp_path, monkeypatch) -> int:
    disk = Disk(tmp_path / "count" / "state")
    play(tmp_path / "count", monkeypatch, disk)
    return disk.writes


def test_a_disk_that_fills_at_any_write_never_misscores(tmp_path, monkeypatch, reference, caplog):
    ref, ref_scores, _, _ = reference
    total = _writes(tmp_path, monkeypatch)
    bad = []
    for k in range(2, total + 1):
        with caplog.at_level(logging.WARNING, logger="coindrel.table"):
            got, scores, table, restarted = play(tmp_path / f"w{k}", monkeypatch, Disk(None, full_at=k))
        if restarted and (got != ref or scores != ref_scores):
            bad.append((k, got, scores))
    assert not bad, f"mis-scored after a full disk at writes {[b[0] for b in bad]}: {bad[:2]} (truth {ref}, {ref_scores})"
