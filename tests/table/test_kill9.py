"""kill -9 with real processes (benchmarks/killrig.py): a served virtual
board, ``coindrel run`` against it, a match started with ``coindrel ctl
new-match``, SIGKILL at random moments (half of them while coins fall) and
an immediate restart. The long version with 50+ kills is
benchmarks/bench_kill.py.

What must hold: every drop the board produced is in the journal once
(``coindrel history ID --json``), with the exits the board's ``--truth``
says, none lost, none duplicated, and the table's belief of the rockers
equal to the board at the end. Drops that fell entirely while the daemon
was down come back from the hub's replay ring: the daemon journals each
event's hub position and resumes after the last one on disk.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from killrig import KillRig  # noqa: E402


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_kill9_at_random_moments_loses_nothing_silently(tmp_path):
    rig = KillRig(tmp_path, drops=12, interval=3.0, first=6.0, seed=5, kills=6, falling_share=0.5)
    try:
        res = rig.run(settle=40)
    finally:
        rig.close()
    report = "\n".join(res.lines())
    assert res.drops + res.between == 12 and res.between == 0, report
    assert res.kills >= 4 and res.kills_falling >= 1, report
    assert res.duplicated == 0 and res.silent == 0 and res.lost == 0, report
    assert res.exact == res.drops == res.scored, report
    assert res.belief_ok and not res.problems, report


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_without_kills_every_drop_is_exact(tmp_path):
    rig = KillRig(tmp_path, drops=5, interval=2.5, first=6.0, seed=6, kills=0)
    try:
        res = rig.run(settle=30)
    finally:
        rig.close()
    assert (res.drops, res.exact, res.lost, res.duplicated) == (5, 5, 0, 0), "\n".join(res.lines())
    assert res.belief_ok
