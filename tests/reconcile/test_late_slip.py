"""A coin that came to rest on a pad and slid off it a moment later (it sat
half on the pad): its rocker flips, at a coin's pace, with no coin going in,
and the coin falls on through the lever side. That is the pad not holding
(sensing.md: a coin that should rest on the empty pad goes across instead),
late, not a hand or a dead entry beam (reconcile/stray.py)."""

import json

from coindrel.reconcile.offline import load, reconcile_log

# All pads on their inlet side except R1S1's lane-0 neighbour below (R3S1 on
# its lever side), so a second coin through R1S1's left outlet would show.
STATE = ["LLLLRRRR", "LLLRRRR", "RLLLRRRR", "LLLLRRR", "LLLLRRRR"]


def _log(events):
    return [json.dumps({"kind": "header", "board": "standard", "variants": {"holes": False}, "state": STATE})] + \
        [json.dumps(e) for e in events]


def _records(events):
    return [r.to_json() for r in reconcile_log(load(_log(events)))[1]]


def _drops():
    return [], 5.0


def _slide(t: float) -> list:
    """R1S1 going over as a coin flips it: the resting coin slides across its lever."""
    return [{"t": round(t, 4), "kind": "switch", "switch": "R1S1", "pos": "mid"},
            {"t": round(t + 0.035, 4), "kind": "switch", "switch": "R1S1", "pos": "R"}]


def _first_is_late_slip(events) -> None:
    out = _records(events)
    flagged = [r for r in out if r["verdict"] == "mismatch"]
    assert flagged, out
    first = flagged[0]["diagnosis"][0]
    assert (first["fault"], first["where"]) == ("pad_not_holding", "R1S1"), flagged[0]["diagnosis"]


def test_a_coin_that_rested_and_slid_off_a_moment_later_is_the_pad_not_holding():
    events, t = _drops()
    # Entry 1's coin rests on R1S1's empty pad (no event but the entry) ...
    events.append({"t": round(t, 4), "kind": "entry", "entry": 1})
    # ... and 1.6 s later slides across the lever: R1S1 goes over as a coin
    # flips it, the coin falls right to R2S1's empty pad and rests there.
    events += _slide(t + 1.6)
    _first_is_late_slip(events)


def test_a_coin_resting_for_minutes_that_goes_is_not_taken_for_a_late_slip():
    events, t = _drops()
    events.append({"t": round(t, 4), "kind": "entry", "entry": 1})
    t += 200.0  # long after: a coin that sat there this long did not slide by itself
    events += [{"t": round(t, 4), "kind": "switch", "switch": "R1S1", "pos": "mid"},
               {"t": round(t + 0.035, 4), "kind": "switch", "switch": "R1S1", "pos": "R"}]
    out = _records(events)
    flagged = [r for r in out if r["verdict"] == "mismatch"]
    assert flagged
    assert ("pad_not_holding", "R1S1") not in [(d["fault"], d["where"]) for d in flagged[0]["diagnosis"][:1]]


def test_a_coin_that_slides_off_while_the_next_coin_falls_is_the_pad_not_holding():
    events, t = _drops()
    events.append({"t": round(t, 4), "kind": "entry", "entry": 1})  # rests on R1S1
    # The next player's coin goes in at entry 8 (rests on R1S8's empty pad)
    # and, while it falls, the coin on R1S1 slides across its lever.
    events += [{"t": round(t + 1.5, 4), "kind": "entry", "entry": 8}, *_slide(t + 1.6)]
    _first_is_late_slip(events)
