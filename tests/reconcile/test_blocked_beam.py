"""An entry beam that gets blocked (a coin wedged in the slot, debris) breaks
once with no coin behind it and then misses every coin: the count that
started it is no coin, and the coins after it fall unseen. The count is
explained as the beam going dead (entry_sensor_dead), and once the next
coin falls unseen the drop is revised to it (reconcile/search.py phantom)."""

import json

from coindrel.reconcile.offline import load, reconcile_log

# R1S3 (entry 3) rests on its right, its lever on the inlet side: a coin into
# entry 3 must flip it left and fall on to R2S2's empty pad.
STATE = ["LLRLRRRR", "LLLRRRR", "LLLLRRRR", "LLLRRRR", "LLLLRRRR"]


def _records(events):
    lines = [json.dumps({"kind": "header", "board": "standard", "variants": {"holes": False}, "state": STATE})]
    return [r.to_json() for r in reconcile_log(load(lines + [json.dumps(e) for e in events]))[1]]


def test_a_beam_blocked_by_no_coin_is_named_dead_once_coins_fall_unseen():
    events = [{"t": 5.0, "kind": "entry", "entry": 3},  # the beam blocked: no coin, nothing moves
              # a coin into entry 3, unseen by the blocked beam, flips R1S3 and rests on R2S2
              {"t": 10.1, "kind": "switch", "switch": "R1S3", "pos": "mid"},
              {"t": 10.13, "kind": "switch", "switch": "R1S3", "pos": "L"}]
    out = _records(events)
    first = next(r for r in out if r.get("drop") == 1)
    assert first["verdict"] == "mismatch"
    keys = [(d["fault"], d["where"]) for d in first["diagnosis"]]
    assert ("entry_sensor_dead", "entry 3") in keys, first["diagnosis"]
    revised = [r for r in out if r["verdict"] == "revised" and r["revises"] == 1]
    top = (revised[-1] if revised else first)["diagnosis"][0]
    assert (top["fault"], top["where"]) == ("entry_sensor_dead", "entry 3"), (first["diagnosis"], revised)
