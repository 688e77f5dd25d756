"""The daemon's diagnosis in a child process (table/diagnosing.py,
reconcile/process.py): the same verdicts, scores and journal as the table
stepped inline, with the child killed now and then; a slow diagnosis holds
up its drop's score and nothing else; ``coindrel run`` starts the child
once, in its own cgroup, and a SIGKILL of the daemon leaves no child behind."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.models.board2 import Session
from coindrel.engine import standard_geometry
from coindrel.reconcile.offline import load
from coindrel.reconcile.process import ProcessDiagnosis
from coindrel.sources.base import Capabilities
from coindrel.table.daemon import Table
from coindrel.table.journal import read_journal
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore

G = standard_geometry()
CEILING = 120.0  # s: only a hang reaches it
FOUR = [("switch_stuck", "R3S4", 8, 1.0, {}), ("exit_sensor_dead", "exit 7", 8, 1.0, {}),
        ("hall_fault", "R2S3", 9, 1.0, {"mode": "frozen"}), ("jam", "R4S2 left outlet", 10, 1.0, {})]


class Board2Source:
    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=G.labels)


def _table(tmp_path, now):
    table = Table(G, Choices(clock="off"), source=Board2Source(), store=MatchStore(tmp_path).open(),
                  clock=lambda: now[0], reveal_seconds=0.0, new_seed=lambda: 1234)
    table.resume(table.store.recover())
    table.positions.update({label: "L" for label in G.labels})
    for _ in range(3):  # start, pads set, past the reveal
        table.handle_action("select")
        table.step()
    assert table.flow.match is not None
    return table


def _journal(table):
    out = []
    for r in read_journal(table.journal.path).records:
        if r.kind in ("verdict", "act"):
            out.append((r.kind, {k: v for k, v in r.data.items() if k not in ("search_ms", "cpu_ms", "at", "t_wall")}))
    return out


async def _settled(table, kill=False):
    """Let the child finish everything it was given (a bounded wait)."""
    loop = asyncio.get_running_loop()
    if kill:
        os.kill(table._diag.pid, signal.SIGKILL)
    for _ in range(int(CEILING / 0.01)):
        if table._diag.idle:
            return
        await loop.run_in_executor(None, time.sleep, 0.01)
    raise AssertionError("the diagnosis child never finished")


def _play(tmp_path, events, in_process: bool, kills=()):
    now = [0.0]
    table = _table(tmp_path, now)

    async def step():
        table.step()
        if in_process:  # the poll that step queued has its answer: a second step takes it
            await _settled(table)
            table.step()
            await _settled(table)

    async def main():
        if in_process:
            table._off_loop()
        try:
            for i, ev in enumerate(events):
                table.handle_event(ev)
                if in_process:
                    await _settled(table, kill=i in kills)
                now[0] = max(now[0], ev.t - (table.board_offset or 0.0))
                await step()
            for k in range(40):  # the last drops' quiet windows, a second at a time
                now[0] += 1.0
                await step()
        finally:
            if in_process:
                restarts = table._diag.restarts
                table.close_diagnosis()
                assert restarts >= len(kills)

    asyncio.run(asyncio.wait_for(main(), 600))
    m = table.flow.match
    return _journal(table), [(r.entry, r.exits) for r in m.results], table.reconciler.drops


@pytest.mark.parametrize("seed", [98, 97])
def test_the_table_with_its_child_scores_and_journals_as_the_table_inline(tmp_path, seed):
    log, _ = Session(seed, drops=20, faults=FOUR).run()
    events = list(load([json.dumps(d) for d in log]).events)
    inline = _play(tmp_path / "inline", events, False)
    kills = {len(events) // 3, 2 * len(events) // 3}
    child = _play(tmp_path / "child", events, True, kills)
    assert any(kind == "verdict" and d.get("verdict") not in ("ok", None) for kind, d in inline[0])
    assert child == inline
    # the board's faults, as the child knew them, saved as the inline table saved them (known_faults.py)
    from coindrel.table.known_faults import FaultsFile

    saved = [FaultsFile(tmp_path / way).load()[0] for way in ("inline", "child")]
    assert saved[0] is not None and saved[0]["faults"]["records"]
    assert {**saved[1], "match": None} == {**saved[0], "match": None}  # (the match ids are the start's wall time)


class _Gate:
    """A call that holds the child until ``path`` exists (a long diagnosis; bounded)."""

    def __init__(self, path):
        self.path = str(path)

    def __call__(self, rec):
        deadline = time.monotonic() + CEILING
        while not os.path.exists(self.path) and time.monotonic() < deadline:
            time.sleep(0.01)


def test_a_slow_diagnosis_in_the_child_holds_up_its_score_and_nothing_else(tmp_path):
    from coindrel.events import EntryEvent, ExitEvent

    now = [0.0]
    table = _table(tmp_path, now)
    gate = tmp_path / "go"

    async def main():
        table._off_loop()
        assert isinstance(table._diag, ProcessDiagnosis)
        try:
            table.handle_event(EntryEvent(1.0, 3))
            table.handle_event(ExitEvent(1.5, 3))
            table._diag.call(_Gate(gate))  # the child is busy before it gets to the drop
            now[0] += 30.0
            for _ in range(5):
                table.step()
                table.handle_action("hold")
                table.handle_action("back")
            assert table.reports == 0 and table.diagnosing and table.flow.match.phase == "falling"
            gate.touch()
            for _ in range(int(CEILING / 0.02)):  # a bounded wait for the child's report
                table.step()
                if table.reports:
                    break
                await asyncio.sleep(0.02)
            assert table.reports == 1 and len(table.flow.match.results) == 1
        finally:
            gate.touch()
            table.close_diagnosis()

    asyncio.run(asyncio.wait_for(main(), 300))
    assert table.reconciler.drops == 1  # the loop's again, as the child left it


def _children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (p / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == pid and b"coindrel.reconcile.child" in cmd and stat[0] not in ("Z", "X"):
            out.append(int(p.name))
    return out


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_coindrel_run_starts_one_child_in_its_cgroup_and_sigkill_leaves_none(tmp_path):
    config = tmp_path / "coindrel.toml"
    config.write_text(f'[storage]\nstate_dir = "{tmp_path / "state"}"\n[board]\nsource = "none"\n'
                      f'[display]\ndriver = "dummy"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    daemon = subprocess.Popen([sys.executable, "-m", "coindrel", "run", "--config", str(config)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + CEILING
        kids = []
        while not kids and daemon.poll() is None and time.monotonic() < deadline:
            kids = _children(daemon.pid)
            time.sleep(0.05)
        assert len(kids) == 1, f"the daemon's diagnosis children: {kids} (daemon exit {daemon.poll()})"
        child = kids[0]
        assert Path(f"/proc/{child}/cgroup").read_text() == Path(f"/proc/{daemon.pid}/cgroup").read_text()
        daemon.send_signal(signal.SIGKILL)
        daemon.wait(CEILING)
        deadline = time.monotonic() + CEILING  # only an orphan reaches it
        while not _gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(child)
    finally:
        daemon.kill()
        daemon.wait()


def test_coindrel_run_with_diagnosis_thread_starts_no_child(tmp_path):
    """[board] diagnosis = "thread": the loop diagnoses on its worker thread.
    The control socket listens once the loop has placed the diagnosis
    (loop.py: the child, were there one, is started before it)."""
    sock = tmp_path / "control.sock"
    config = tmp_path / "coindrel.toml"
    config.write_text(f'[storage]\nstate_dir = "{tmp_path / "state"}"\n[board]\nsource = "none"\ndiagnosis = "thread"\n'
                      f'[display]\ndriver = "dummy"\n[control]\nsocket = "{sock}"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    daemon = subprocess.Popen([sys.executable, "-m", "coindrel", "run", "--config", str(config)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + CEILING
        while not sock.exists() and daemon.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sock.exists(), f"the control socket never came (daemon exit {daemon.poll()})"
        assert _children(daemon.pid) == []
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(CEILING) == 0
    finally:
        daemon.kill()
        daemon.wait()
