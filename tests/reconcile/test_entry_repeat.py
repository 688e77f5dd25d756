"""An entry beam counting one coin twice where two coins at once would look
the same (sensing.md section 4: two coins when the cascade cannot tell; the
next coin there tells)."""

import json

from benchmarks import scoring
from benchmarks.models.board2 import Session
from coindrel.reconcile.offline import load, reconcile_log


def run(seed, rate):
    log, truth = Session(seed, drops=45, faults=[("entry_sensor_chatter", "entry 5", 12, rate, {})]).run()
    out = [r.to_json() for r in reconcile_log(load([json.dumps(d) for d in log]))[1]]
    return out, truth


def test_a_long_group_is_never_cut_between_two_counts_of_one_entry_close_together():
    # Entry 5 counts its coin twice 28 ms apart while the next turns' coins keep
    # the group open past the stream horizon: cut between the two counts, the
    # second looks like a coin of its own that did nothing.
    out, truth = run(38854386, 1.0)
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and res["top1"]
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert (first["diagnosis"][0]["fault"], first["diagnosis"][0]["where"]) == ("entry_sensor_chatter", "entry 5")


def test_the_next_coin_there_tells_a_repeat_from_a_second_coin_and_says_so():
    # Drop 14's two counts were taken for two coins (the second resting on
    # R1S5 unseen); the next coin into entry 5 finds R1S5 empty: it was one
    # coin counted twice. That drop is flagged, naming the beam.
    out, truth = run(738411854, 0.5)
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and res["top1_first"]
    flagged = [r for r in out if r["verdict"] == "mismatch"]
    assert flagged and flagged[0]["entry"] == 5 and flagged[0]["diagnosis"][0]["fault"] == "entry_sensor_chatter"
