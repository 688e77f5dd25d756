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
