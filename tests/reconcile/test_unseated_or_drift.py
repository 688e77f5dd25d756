"""A hall reading ``mid`` at rest: an unseated rocker or a drifted magnet
(sensing.md section 4: switch_unseated is what the hall shows at rest,
hall_fault a sensor that disagrees with what a cascade proves). At rest they
tie; a coin's flip tells: it seats a knocked rocker again, and a drifted
sensor keeps disagreeing. The first diagnosis is then revised or confirmed."""

import json

from benchmarks import scoring
from benchmarks.models.board2 import Session
from coindrel.engine import Jam, standard_geometry, ExitSensorDead
from coindrel.reconcile.faults import SwitchUnseated, twins
from coindrel.reconcile.offline import load, reconcile_log


def lines(log):
    return [r.to_json() for r in reconcile_log(load([json.dumps(d) for d in log]))[1]]


def top(r):
    return r["diagnosis"][0]["fault"], r["diagnosis"][0]["where"]


def test_a_drifting_magnet_first_taken_for_an_unseated_rocker_is_revised_once_coins_flip_it():
    log, truth = Session(26417446, drops=45, faults=[("hall_fault", "R5S1", 12, 1.0, {"mode": "drift"})]).run()
    out = lines(log)
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert top(first) == ("switch_unseated", "R5S1")  # at rest the likelier cause
    rev = next(r for r in out if r["verdict"] == "revised" and r["revises"] == first["drop"])
    assert top(rev) == ("hall_fault", "R5S1")
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and res["top1"]


def test_a_knocked_rocker_a_coin_seated_again_stays_unseated_in_the_revision():
    for seed, where in ((837108038, "R5S3"), (929360195, "R3S5")):
        log, truth = Session(seed, drops=45, faults=[("switch_unseated", where, 12, 1.0, {})]).run()
        out = lines(log)
        first = next(r for r in out if r["verdict"] == "mismatch")
        assert top(first) == ("switch_unseated", where)
        revs = [r for r in out if r["verdict"] == "revised" and r["revises"] == first["drop"]]
        assert revs and all(top(r) == ("switch_unseated", where) for r in revs)


def test_only_a_dead_exit_and_its_one_chute_stay_twins_once_coins_have_passed():
    g = standard_geometry()
    assert twins(SwitchUnseated("R3S2"), g) and not twins(SwitchUnseated("R3S2"), g, at_rest=False)
    (jam,) = twins(ExitSensorDead(0), g, at_rest=False)
    assert isinstance(jam, Jam)
