"""How a sim ends when it is not played out: Ctrl-C / SIGTERM give the same
"Not finished" summary as ``q``, and a journal recovery is said, as
``coindrel run`` says it."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from coindrel.table.fastsim import FastRig
from coindrel.table.sim import SimOptions
from coindrel.table.store import MatchStore

FAST = {"datasync": lambda fd: None}


def wait_for_line(stream, text: str, ceiling: float = 120.0) -> str:
    """Lines of ``stream`` until one holds ``text`` (bounded by a ceiling only a hang reaches)."""
    seen, end = "", time.monotonic() + ceiling
    while time.monotonic() < end:
        ready, _, _ = select.select([stream], [], [], 1.0)
        if not ready:
            continue
        line = stream.readline()
        if not line:
            break
        seen += line
        if text in line:
            return seen
    raise AssertionError(f"never said {text!r}; said:\n{seen}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_the_real_time_sim_with_its_summary(tmp_path, sig):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "coindrel", "sim", "--display", "text", "--state-dir", str(tmp_path)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        wait_for_line(proc.stderr, "to drop")  # (status lines on stderr) the table is up and a match is being played
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err, err
    assert "Not finished" in out, out
    assert proc.returncode == 0, (out, err)
    # the journal was synced and closed: the next start finds nothing to repair
    store = MatchStore(tmp_path).open()
    try:
        assert store.recover().messages == []
    finally:
        store.close()


def test_the_sim_says_what_recovery_repaired(tmp_path):
    opts = SimOptions(display="none", state_dir=str(tmp_path))
    rig = FastRig(opts, [], store_options=FAST)
    asyncio.run(rig.run(until=20, wall_limit=300))  # a match in progress, journal open
    journal = tmp_path / "match.journal"
    size = journal.stat().st_size
    os.truncate(journal, size - 5)  # the last write cut short
    proc = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--display", "none", "--until", "25",
                           "--state-dir", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "WARNING coindrel.table:" in proc.stderr
    assert "the last write was cut short" in proc.stderr
    assert str(tmp_path / "damaged") in proc.stderr
    assert list((tmp_path / "damaged").iterdir())


def test_a_sim_stuck_inside_a_step_still_ends_after_a_signal(monkeypatch):
    """Seen once: a firmware sim wedged inside one lockstep step ignored
    SIGTERM for 15 minutes (stop() is only looked at between ticks). After the
    grace time it ends anyway, as a power cut would."""
    from coindrel.table import simresult

    gave_up = []
    monkeypatch.setattr(simresult, "grace", 0.01)
    monkeypatch.setattr(simresult, "give_up", lambda: gave_up.append(True))
    stops = []

    async def stuck():
        restore = simresult.stop_on_signals(lambda: stops.append(True))
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100_000):  # a step that never looks at stop() (bounded: a failing test ends)
                await asyncio.sleep(0.001)
                if gave_up:
                    return
        finally:
            restore()

    asyncio.run(stuck())
    assert stops == [True] and gave_up == [True]


def test_a_sim_that_ends_in_time_after_a_signal_is_not_cut_short(monkeypatch):
    from coindrel.table import simresult

    gave_up = []
    monkeypatch.setattr(simresult, "give_up", lambda: gave_up.append(True))

    monkeypatch.setattr(simresult, "grace", 0.05)
    stops = []

    async def prompt():
        restore = simresult.stop_on_signals(lambda: stops.append(True))
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):
            if stops:
                break
            await asyncio.sleep(0.001)
        restore()  # the sim ended: its summary is printed; the grace timer goes with it
        await asyncio.sleep(0.1)  # past the grace time: the cancelled timer must not fire

    asyncio.run(prompt())
    assert stops == [True] and gave_up == []
