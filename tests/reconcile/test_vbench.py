"""The reconciler on the virtual board's own logs (its physics, hub model and
fault injection): healthy matches reconcile ok; an injected fault is named."""

import pytest

pytest.importorskip("coindrel.virtual")

from coindrel.reconcile import vbench  # noqa: E402


def test_healthy_virtual_matches_are_all_ok():
    h = vbench.healthy_virtual(3, seed=7)
    assert h["drops"] > 100
    assert h["mismatches"] == 0 and h["outside"] == 0 and h["count_errors"] == 0, h["examples"]


@pytest.mark.parametrize("kind, place", [("switch_stuck", "R3S4"), ("exit_sensor_chatter", 5), ("moved_by_hand", "R2S3")])
def test_a_virtual_fault_is_caught(kind, place):
    for seed in range(40, 48):
        header, events, truth = vbench.run_virtual(seed, [vbench.spec_text(kind, place, 20.0, None)])
        rec, reports, track = vbench.reconcile_virtual(header, events)
        res = vbench.score(kind, truth, reports, track)
        if res["exercised"]:
            break
    assert res["exercised"]
    assert res["false_alarms_before"] == 0
    assert res["flagged"] and res["caught"]
