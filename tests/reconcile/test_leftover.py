"""A coin on a pad no coin has met since the board was set (a coin left on
the board at the start of a match, or a log that starts mid-match): the
belief there is the setup's word, not a sensor's, so a coin found there is
first a coin left from before (coin_added), not a pad that stopped holding
(reconcile/search.py LEFTOVER)."""

import json

from coindrel.reconcile.offline import load, reconcile_log

# Every pad on its inlet side, empty.
STATE = ["LLLLRRRR", "LLLRRRR", "LLLLRRRR", "LLLRRRR", "LLLLRRRR"]


def _records(events):
    lines = [json.dumps({"kind": "header", "board": "standard", "variants": {"holes": False}, "state": STATE})]
    return [r.to_json() for r in reconcile_log(load(lines + [json.dumps(e) for e in events]))[1]]


# The first coin into entry 1 finds R1S1's pad full: it goes across the lever,
# R1S1 flips, the coin there is tipped out left (resting unseen on R3S1) and
# the coin falls right (resting unseen on R2S1). A pad that does not hold
# makes the same events (the coin goes across, rests on R2S1).
FLIP = [{"t": 5.1, "kind": "switch", "switch": "R1S1", "pos": "mid"}, {"t": 5.13, "kind": "switch", "switch": "R1S1", "pos": "R"}]


def test_a_coin_found_on_a_pad_no_coin_had_met_is_first_a_coin_left_there():
    out = _records([{"t": 5.0, "kind": "entry", "entry": 1}] + FLIP)
    (rec,) = [r for r in out if r["verdict"] == "mismatch"]
    first = rec["diagnosis"][0]
    assert (first["fault"], first["where"]) == ("coin_added", "R1S1"), rec["diagnosis"]
    assert "left there from before" in first["say"]
    assert ("pad_not_holding", "R1S1") in [(d["fault"], d["where"]) for d in rec["diagnosis"]]


def test_on_a_pad_a_coin_has_met_a_coin_found_there_is_not_called_left_from_before():
    # R1S1 starts on its lever side: the first coin into entry 1 flips it to
    # its (empty) pad side and falls on, resting unseen on R3S1. Its pad is
    # met; the next coin there finding it full again is a hand's coin, or a
    # pad that does not hold, as on any pad during a match.
    global STATE
    saved, STATE = STATE, ["RLLLRRRR"] + STATE[1:]
    try:
        first = [{"t": 1.0, "kind": "entry", "entry": 1},
                 {"t": 1.1, "kind": "switch", "switch": "R1S1", "pos": "mid"}, {"t": 1.13, "kind": "switch", "switch": "R1S1", "pos": "L"}]
        assert all(r["verdict"] == "ok" for r in _records(first))
        out = _records(first + [{"t": 5.0, "kind": "entry", "entry": 1}] + FLIP)
    finally:
        STATE = saved
    (rec,) = [r for r in out if r["verdict"] == "mismatch"]
    assert all("left there" not in d["say"] for d in rec["diagnosis"]), rec["diagnosis"]
