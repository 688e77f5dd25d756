"""The diagnosis counts its work, not seconds (issue 13): the same log gives
the same diagnosis on a machine a thousand times slower, and every part of a
group's diagnosis (hypotheses evaluated, moves made, explanations timed) is
counted in one deterministic unit and bounded."""

import json
import time

from benchmarks.models.board2 import Session
from coindrel.reconcile import reconciler as reconciler_module
from coindrel.reconcile.offline import load, reconcile_log, reconciler_for, replay
from coindrel.reconcile.search import Search

FAULTS = [("switch_stuck", "R3S4", 8, 1.0, {}), ("exit_sensor_dead", "exit 7", 8, 1.0, {}),
          ("hall_fault", "R2S3", 9, 1.0, {"mode": "frozen"}), ("jam", "R4S2 left outlet", 10, 1.0, {})]


def _log():
    log, _ = Session(7, drops=30, faults=FAULTS).run()
    return load([json.dumps(d) for d in log])


class SlowClock:
    """Every reading of any clock half a second after the last: a machine on
    which each step of the diagnosis takes as long as a whole drop."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        self.now += 0.5
        return self.now


def test_the_same_log_gives_the_same_diagnosis_under_a_slow_clock(monkeypatch):
    log = _log()
    quick = list(reconcile_log(log)[1])
    clock = SlowClock()
    with monkeypatch.context() as m:
        for name in ("perf_counter", "thread_time", "monotonic", "time", "process_time"):
            m.setattr(time, name, clock)
        slow = list(reconcile_log(log)[1])
    assert [r.to_json() for r in slow] == [r.to_json() for r in quick]
    assert [getattr(r, "work", None) for r in slow] == [getattr(r, "work", None) for r in quick]
    diagnosed = [r for r in slow if getattr(r, "search_ms", 0)]
    assert diagnosed and min(r.search_ms for r in diagnosed) >= 500.0  # the slow clock was the one read
    assert any(r.verdict != "ok" for r in quick)  # (faults there to diagnose)


def test_moves_made_and_timing_checked_are_counted_with_the_evaluations(monkeypatch):
    searches = []

    class Spy(Search):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            searches.append(self)

    monkeypatch.setattr(reconciler_module, "Search", Spy)
    log = _log()
    rec = reconciler_for(log)
    reports = [r for r in replay(rec, log.events) if hasattr(r, "work")]
    assert searches and all(s.work == s.evaluations + s.other for s in searches)
    assert any(s.other > 0 for s in searches)
    assert max(r.work for r in reports) == max(s.work for s in searches)


def test_a_tight_limit_bounds_the_whole_diagnosis():
    log = _log()
    rec = reconciler_for(log)
    rec.budget = 30  # the whole diagnosis: at most twice that
    reports = [r for r in replay(rec, log.events) if hasattr(r, "work")]
    # (one step past the limit at most: a move generation, or the group's timing plan)
    assert reports and max(r.work for r in reports) <= 2 * 30 + 20
