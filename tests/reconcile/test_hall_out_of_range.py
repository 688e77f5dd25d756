"""A hall that reads ``none`` (no magnet, beyond its range) on a switch that
has a rocker is the sensor's doing: a rocker's magnet, seated, unseated or
swinging, stays between the hall's two sides (issue 13, h16n).

The log (cut from a board4 session): R4S4's hall drifts into ``mid`` at rest
(an unseated rocker or a drifted sensor: they tie); then a coin turns R4S4
over twice and its hall reads R, none, R and mid again. Before, the drop
still ranked ``switch_unseated`` first (0.6 against 0.4)."""

from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

LOG = Path(__file__).parent / "logs" / "hall_reads_none_after_mid.jsonl"


def _records(text: str):
    _, reports = reconcile_log(load(text.splitlines()))
    return [r.to_json() for r in reports]


def _first(r) -> tuple:
    return r["diagnosis"][0]["fault"], r["diagnosis"][0]["where"]


def test_a_hall_reading_no_magnet_on_a_rocker_is_the_sensor_not_an_unseated_rocker():
    out = _records(LOG.read_text(encoding="utf-8"))
    stray, drop = out
    assert stray["drop"] is None and {_first(stray)[0]} <= {"switch_unseated", "hall_fault"}
    assert drop["drop"] == 1 and drop["verdict"] == "mismatch"
    assert _first(drop) == ("hall_fault", "R4S4") and drop["diagnosis"][0]["confidence"] > 0.8


def test_without_the_none_reading_the_two_still_tie():
    # The same drop with R4S4's out-of-range reading left out: nothing else
    # tells a rocker that cannot seat on its left side from a drifted hall.
    lines = [x for x in LOG.read_text(encoding="utf-8").splitlines() if '"pos": "none"' not in x]
    drop = _records("\n".join(lines))[-1]
    conf = {(d["fault"], d["where"]): d["confidence"] for d in drop["diagnosis"]}
    assert conf.get(("switch_unseated", "R4S4"), 0) >= 0.3 and conf.get(("hall_fault", "R4S4"), 0) >= 0.3
