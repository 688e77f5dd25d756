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


def _pair(out, entry):
    """The first two drop records of ``entry`` that went in together (within 0.1 s)."""
    drops = [r for r in out if r["drop"] is not None and r["entry"] == entry]
    return next((a, b) for a, b in zip(drops, drops[1:]) if b["t"] - a["t"] <= 0.1 and a["t_end"] == b["t_end"]
                and "mismatch" in (a["verdict"], b["verdict"]))


def test_two_counts_of_one_entry_together_share_the_flag_of_their_cascade():
    # Entry 5 counts its coin twice 4 ms apart; the rules' one-after-another
    # split rests the first count on R1S5 and gives the second the cascade,
    # which tells the repeat. Which of the two rested is a convention: the
    # turn's own record is flagged too (before: only the extra one, which the
    # table notes as an extra coin and never asks about).
    out, truth = run(285651861, 0.5)
    a, b = _pair(out, 5)
    assert a["verdict"] == b["verdict"] == "mismatch"
    assert a["diagnosis"] == b["diagnosis"] and a["diagnosis"][0]["fault"] == "entry_sensor_chatter"
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and res["top1_first"]


def test_a_fault_met_by_two_coins_dropped_together_is_flagged_on_both():
    # Two coins into entry 6, 27 ms apart; R4S6's pad lets the first bounce
    # (R4S6 flips twice). The split puts the first coin at rest on R1S6.
    log, truth = Session(622301269, drops=45, faults=[("pad_not_holding", "R4S6", 12, 1.0, {})]).run()
    out = [r.to_json() for r in reconcile_log(load([json.dumps(d) for d in log]))[1]]
    a, b = _pair(out, 6)
    assert a["verdict"] == b["verdict"] == "mismatch"
    assert a["diagnosis"][0]["fault"] == "pad_not_holding" and a["diagnosis"][0]["where"] == "R4S6"
    (res,) = scoring.score_faults(out, truth)
    assert res["flagged"] and res["top1_first"]


def test_two_coins_taken_for_a_repeat_later_are_revised_on_the_turn_s_own_drop():
    # Virtual board: entry 8 counts drop 21's coin twice 49 ms apart; the
    # second count's coin would have rested on R1S8 unseen, so drop 21 is ok
    # as two coins (sensing.md section 4). The next coin there finds R1S8's
    # pad empty: a revision record of drop 21 names the beam.
    from benchmarks.models.virtual_runs import run_virtual

    log, truth = run_virtual(38854387, ["entry_sensor_chatter@entry 8,t=25.0"])
    out = [r.to_json() for r in reconcile_log(load([json.dumps(d) for d in log]))[1]]
    first = next(r for r in out if r["drop"] == 21)
    assert first["verdict"] == "ok" and first["entry"] == 8
    rev = next(r for r in out if r["verdict"] == "revised" and r["revises"] == 21)
    assert (rev["diagnosis"][0]["fault"], rev["diagnosis"][0]["where"]) == ("entry_sensor_chatter", "entry 8")
    assert rev["diagnosis"][0]["say"].startswith("Drop 21 was taken for two coins in entry 8; later drops rule that out.")
    (res,) = scoring.score_faults(out, scoring.virtual_truth(truth, log[1:]))
    assert res["top1"] and res["listed"]
