"""kill -9 with real processes (benchmarks/killrig.py): a served virtual
board, ``coindrel run`` against it, a match started with ``coindrel ctl
new-match``, SIGKILL at random moments (half of them while coins fall) and
an immediate restart. The long version with 50+ kills is
benchmarks/bench_kill.py.

What must hold already: no drop duplicated, none scored with other exits
than the board's without being flagged, the journal's drops in the board's
order, and the table's belief of the rockers equal to the board at the end.
Drops that fell entirely while the daemon was down are seen in the resumed
snapshot (flagged as changes outside a drop) but lost as drops until the
hub's replay ring supplies their events; each kill costs at most the drops
of its downtime.
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
    assert res.duplicated == 0 and res.silent == 0, report
    assert res.exact + res.flagged + res.lost == res.drops, report
    assert res.lost <= 2 * res.kills, report
    assert res.belief_ok, report


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
