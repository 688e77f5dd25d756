"""The report lines: sensing.md section 4's shape, 1-based, and how events
are shared out among drops that were in flight together."""

from coindrel.engine import BoardState, ExitSensorDead
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile import Reconciler
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.report import DropReport, attribute

from .helpers import run_events

FLAT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def test_line_shape_and_numbers_are_one_based():
    r = DropReport(drop=7, entry=3, entry_seen=True, t=81.2, expected_exits=(8, 9), expected_flips={"R1S5": 1},
                   observed_exits=(8,), observed_flips={"R1S5": 1}, verdict="mismatch",
                   diagnosis=[Finding(ExitSensorDead(9), 0.81)], state=BoardState.parse(FLAT).rows())
    d = r.to_json()
    assert list(d) == ["drop", "entry", "entry_seen", "t", "expected", "observed", "verdict", "diagnosis", "state"]
    assert d["entry"] == 4
    assert d["expected"] == {"exits": [9, 10], "flips": {"R1S5": 1}}
    assert d["observed"]["exits"] == [9]
    assert d["diagnosis"] == [{"fault": "exit_sensor_dead", "where": "exit 10", "confidence": 0.81,
                               "say": "Exit 10 did not see a coin the cascade sent there: its beam is dead or misaligned."}]
    assert len(d["state"]) == 5


def test_outside_a_drop_the_line_carries_its_events():
    rec = Reconciler(state=FLAT)
    reports = run_events(rec, [ExitEvent(5.0, 11)])
    (r,) = reports
    d = r.to_json()
    assert d["drop"] is None and d["entry"] is None and d["entry_seen"] is False
    assert d["events"] == [{"t": 5.0, "kind": "exit", "exit": 12}]
    assert d["observed"]["exits"] == [12]
    assert d["verdict"] == "mismatch"
    assert d["diagnosis"][0]["fault"] == "stray_coin"


def test_attribute_by_quota_in_drop_order():
    got = attribute({"x": [1.0, 2.0, 3.0]}, [{"x": 1}, {"x": 2}])
    assert got == [{"x": 1}, {"x": 2}]
    # one missing: the later drop is short
    assert attribute({"x": [1.0]}, [{"x": 1}, {"x": 1}]) == [{"x": 1}, {}]


def test_an_event_too_late_for_the_earlier_drop_is_the_later_drops():
    # Both drops' coins should pass x; one count, 4.9 s after the first coin
    # went in and 0.7 s after the second: the first coin's was missed.
    starts = [41.1, 45.25]
    assert attribute({"x": [45.97]}, [{"x": 1}, {"x": 1}], None, starts, 3.0) == [{}, {"x": 1}]
    # in time for the first: in drop order, as before
    assert attribute({"x": [41.7]}, [{"x": 1}, {"x": 1}], None, starts, 3.0) == [{"x": 1}, {}]
    # too late for both (no later drop can have made it): in drop order, nothing lost
    assert attribute({"x": [49.0]}, [{"x": 1}, {"x": 1}], None, starts, 3.0) == [{"x": 1}, {}]
    ends = list(starts)
    assert attribute({"x": [41.7, 45.97]}, [{"x": 1}, {"x": 1}], ends, starts, 3.0) == [{"x": 1}, {"x": 1}]
    assert ends == [41.7, 45.97]


def test_attribute_gives_a_repeat_to_the_event_it_repeats():
    # drop 1's coin at 1.00 counted again at 1.02; drop 2's coin at 1.50
    got = attribute({"x": [1.0, 1.02, 1.5]}, [{"x": 1}, {"x": 1}])
    assert got == [{"x": 2}, {"x": 1}]


def test_overlapping_drops_are_reported_one_by_one():
    # Two coins in flight together on a flat board; each report shows its own share.
    # entry 1: R1S1 flips to L, its coin rests on R3S1; entry 8: R1S8 flips to R, its coin rests on R3S8
    rec = Reconciler(state="RRRRRRRL/LLLLLLL/LLLLLLLR/LLLLLLL/LLLLLLLL")
    events = [
        EntryEvent(1.00, 0), SwitchEvent(1.06, "R1S1", "mid"), SwitchEvent(1.09, "R1S1", "L"),
        EntryEvent(1.20, 7), SwitchEvent(1.26, "R1S8", "mid"), SwitchEvent(1.29, "R1S8", "R"),
    ]
    reports = run_events(rec, events)
    assert [r.drop for r in reports] == [1, 2]
    assert all(r.ok for r in reports)
    assert reports[0].observed_flips == {"R1S1": 1} and reports[1].observed_flips == {"R1S8": 1}
    assert reports[1].state == rec.belief.rows() == ["LRRRRRRR", "LLLLLLL", "lLLLLLLr", "LLLLLLL", "LLLLLLLL"]


def test_a_finding_says_its_sentence():
    f = Finding(ExitSensorDead(9), 0.8)
    assert f.say == f.to_json()["say"] and f.say.startswith("Exit 10")
