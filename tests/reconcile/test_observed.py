"""Counting flips and finding final readings from hall events."""

import pytest

from coindrel.engine import standard_geometry
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile.observed import Sensors, observe_events

G = standard_geometry()
INDEX = {label: i for i, label in enumerate(G.labels)}


def observe(events, pre=None):
    pre = pre or ["L"] * G.switch_count
    return observe_events(events, pre, INDEX, G.switch_count, G.exit_count, G.entry_count)


def sw(t, label, pos):
    return SwitchEvent(t, label, pos)


@pytest.mark.parametrize(
    "readings, flips, final",
    [
        (["mid", "R"], 1, "R"),
        (["mid", "R", "mid", "L"], 2, "L"),
        (["mid", "L"], 0, "L"),  # knocked, did not flip
        (["R"], 1, "R"),  # the hub missed the mid: still a flip
        (["mid"], 0, "mid"),  # stopped between the sides
        (["mid", "R", "mid"], 1, "mid"),
    ],
)
def test_flips_are_changes_of_the_settled_side(readings, flips, final):
    obs = observe([sw(1.0 + i / 100, "R3S2", p) for i, p in enumerate(readings)])
    s = G.index("R3S2")
    assert obs.flips[s] == flips
    assert obs.final[s] == final
    assert obs.active == (s,)


def test_unknown_start_gives_unknown_flips():
    pre = ["L"] * G.switch_count
    s = G.index("R2S2")
    pre[s] = "mid"
    obs = observe([sw(1.0, "R2S2", "R")], pre)
    assert obs.flips[s] is None
    assert obs.final[s] == "R"
    assert obs.settled_final(s) == 1


def test_counts_and_times():
    events = [EntryEvent(1.0, 3), sw(1.05, "R1S4", "mid"), sw(1.07, "R1S4", "R"), ExitEvent(1.5, 9), ExitEvent(1.52, 9)]
    obs = observe(events)
    assert obs.entry_counts[3] == 1 and sum(obs.entry_counts) == 1
    assert obs.exit_counts[9] == 2
    assert obs.t0 == 1.0 and obs.t1 == 1.52
    assert obs.flip_times[G.index("R1S4")] == [1.07]
    assert obs.flip_spans[G.index("R1S4")] == [pytest.approx(0.02)]
    assert obs.flips_json(G.labels) == {"R1S4": 1}


def test_coin_like_flips():
    obs = observe([sw(1.0, "R1S1", "mid"), sw(1.02, "R1S1", "R"), sw(2.0, "R1S2", "mid"), sw(2.3, "R1S2", "R")])
    obs.mark_coin_like(0.08)
    assert obs.coin_like == {G.index("R1S1"): 1}


def test_re_sent_readings_change_nothing():
    assert observe([sw(1.0, "R1S1", "L"), sw(1.1, "R2S2", "L")]).changes_nothing()
    assert not observe([sw(1.0, "R1S1", "mid"), sw(1.1, "R1S1", "L")]).changes_nothing()
    assert not observe([ExitEvent(1.0, 2)]).changes_nothing()


def test_sensors_from_dict():
    assert Sensors.from_dict({"halls": False}) == Sensors(halls=False)
    assert Sensors.from_dict(None) == Sensors()
    assert Sensors(exits=False).missing() == ["exit beams"]
    from coindrel.engine import EngineError

    with pytest.raises(EngineError, match="unknown sensor"):
        Sensors.from_dict({"lasers": True})
