"""The quiet window is learned from the board's own healthy drops."""

import pytest

from coindrel.engine import EngineError, standard_geometry
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile.observed import observe_events
from coindrel.reconcile.timing import Timing

G = standard_geometry()
INDEX = {label: i for i, label in enumerate(G.labels)}


def obs(events):
    return observe_events(events, ["L"] * G.switch_count, INDEX, G.switch_count, G.exit_count, G.entry_count)


def drop_at(t, gap):
    return obs([EntryEvent(t, 0), SwitchEvent(t + 0.05, "R1S1", "mid"), SwitchEvent(t + 0.07, "R1S1", "R"), ExitEvent(t + 0.07 + gap, 1)])


def test_prior_until_enough_drops():
    tm = Timing(prior_quiet=0.8, min_samples=5)
    for i in range(4):
        tm.learn(drop_at(10.0 * i, 0.2))
    assert tm.quiet == 0.8 and not tm.ready
    tm.learn(drop_at(50.0, 0.2))
    assert tm.ready
    assert tm.quiet == pytest.approx(1.8 * 0.2)
    assert tm.patience == pytest.approx(max(1.2, 2.5 * tm.quiet))  # a coin balancing on an edge is waited for


def test_follows_a_slower_board_and_clamps():
    tm = Timing(min_samples=3, ceiling=1.0)
    for i in range(3):
        tm.learn(drop_at(10.0 * i, 0.4))
    assert tm.quiet == pytest.approx(0.72)
    tm.learn(drop_at(40.0, 2.0))
    assert tm.quiet == 1.0  # never waits longer than the ceiling


def test_silence_before_a_coin_goes_in_is_not_the_boards():
    tm = Timing(min_samples=1)
    group = obs([EntryEvent(1.0, 0), SwitchEvent(1.05, "R1S1", "mid"), SwitchEvent(1.07, "R1S1", "R"), EntryEvent(2.0, 3)])
    tm.learn(group)
    assert max(tm.gaps) == pytest.approx(0.05)


def test_flip_speed_separates_coins_from_hands():
    tm = Timing(min_samples=2)
    assert tm.flip_limit == 0.12
    for i in range(2):
        tm.learn(drop_at(10.0 * i, 0.2))
    # 20 ms flips learned: a flip well past that (2.5x) is a hand's; never below 50 ms
    assert tm.flip_limit == pytest.approx(0.05)
    slow = Timing(min_samples=2)
    for i in range(2):
        slow.learn(obs([EntryEvent(10.0 * i, 0), SwitchEvent(10.0 * i + 0.05, "R1S1", "mid"),
                        SwitchEvent(10.0 * i + 0.09, "R1S1", "R"), ExitEvent(10.0 * i + 0.3, 1)]))
    assert slow.flip_limit == pytest.approx(0.1)  # 40 ms rockers here
    for i in range(2, 4):
        slow.learn(obs([EntryEvent(10.0 * i, 0), SwitchEvent(10.0 * i + 0.05, "R1S1", "mid"),
                        SwitchEvent(10.0 * i + 0.12, "R1S1", "R"), ExitEvent(10.0 * i + 0.3, 1)]))
    assert slow.flip_limit == pytest.approx(0.15)  # and never above what a hand takes at the least


def test_save_and_restore():
    tm = Timing(min_samples=2)
    for i in range(3):
        tm.learn(drop_at(10.0 * i, 0.3))
    again = Timing(min_samples=2)
    again.restore(tm.to_json())
    assert again.quiet == pytest.approx(tm.quiet)
    assert again.summary()["learned_from"] == 3
    with pytest.raises(EngineError, match="damaged"):
        Timing().restore({"gaps": ["x"]})
    with pytest.raises(EngineError, match="negative"):
        Timing().restore({"gaps": [-1.0]})
    with pytest.raises(EngineError):
        Timing(prior_quiet=0.1, floor=0.2)
