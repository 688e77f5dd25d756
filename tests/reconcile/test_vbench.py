"""The reconciler on the virtual board's own logs (its physics, hub model and
fault injection), scored from the JSON lines only: healthy matches reconcile
ok; an injected fault is flagged and named."""

import json

import pytest

pytest.importorskip("coindrel.virtual")

from benchmarks import scoring  # noqa: E402
from benchmarks.models.virtual_runs import run_virtual  # noqa: E402
from coindrel.reconcile.offline import load, reconcile_log  # noqa: E402


def lines(log):
    rec, reports = reconcile_log(load([json.dumps(d) for d in log]))
    return [r.to_json() for r in reports]


def test_healthy_virtual_matches_are_all_ok():
    drops = 0
    for seed in (7, 8, 11):
        log, truth = run_virtual(seed, holes=seed == 11)
        s = scoring.score_healthy(lines(log), scoring.virtual_truth(truth, log[1:]))
        drops += s["coins"]
        assert s["false_alarms"] == 0 and s["unmatched"] == 0, s["examples"]
    assert drops > 100


@pytest.mark.parametrize("spec", ["switch_stuck@R3S4", "exit_sensor_chatter@exit 6", "moved_by_hand@R2S3"])
def test_a_virtual_fault_is_caught(spec):
    for seed in range(40, 48):
        log, truth = run_virtual(seed, [spec + ",t=20.0"])
        res = scoring.score_faults(lines(log), scoring.virtual_truth(truth, log[1:]))
        if res and res[0]["exercised"]:
            break
    assert res[0]["exercised"]
    assert res[0]["flagged"] and res[0]["listed"]
