"""The match generator is fixed forever (logs must replay); the clock takes time as input."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coindrel.engine import EngineError, MatchRandom, TurnClock


def test_generator_sequence_is_pinned():
    # If this changes, every saved match log stops replaying: never change it.
    r = MatchRandom(2026)
    assert [r.randbelow(8) for _ in range(12)] == PINNED
    assert r.random() == pytest.approx(PINNED_FLOAT, abs=0)


def test_state_round_trip_and_shuffle():
    r = MatchRandom(5)
    state = r.getstate()
    a = list(range(16))
    r.shuffle(a)
    assert sorted(a) == list(range(16)) and a != list(range(16))
    r.setstate(state)
    b = list(range(16))
    r.shuffle(b)
    assert a == b


@given(st.integers(0, 2**64), st.integers(0, 40))
def test_shuffle_draws_what_randbelow_draws(seed, size):
    # shuffle() writes randbelow and the generator step out: the same permutation and state after.
    fast, plain = MatchRandom(seed), MatchRandom(seed)
    a, b = list(range(size)), list(range(size))
    fast.shuffle(a)
    for i in range(size - 1, 0, -1):
        j = plain.randbelow(i + 1)
        b[i], b[j] = b[j], b[i]
    assert a == b and fast.getstate() == plain.getstate()


def test_bad_seeds_and_ranges():
    with pytest.raises(TypeError):
        MatchRandom("7")
    with pytest.raises(ValueError):
        MatchRandom(1).randbelow(0)


def test_clock_counts_only_while_running_and_not_paused():
    c = TurnClock(30)
    assert c.remaining(0) == 30 and not c.expired(100)
    c.start(10)
    c.pause(15)
    c.resume(100)
    assert c.remaining(110) == 15
    c.stop(110)
    assert c.remaining(1000) == 15 and not c.expired(1000)
    c.start(1000)
    assert c.expired(1030) and not c.expired(1029.9)
    assert TurnClock.from_dict(c.to_dict()) == c


def test_pause_while_stopped_stays_stopped_after_resume():
    c = TurnClock(5)
    c.start(0)
    c.stop(1)
    c.pause(2)
    c.resume(3)
    assert c.remaining(50) == 4 and not c.active


def test_clock_refuses_time_going_backwards_and_bad_limits():
    c = TurnClock(5)
    c.start(10)
    with pytest.raises(EngineError, match="backwards"):
        c.pause(9)
    with pytest.raises(EngineError, match="positive"):
        TurnClock(0)


PINNED = [2, 1, 7, 2, 1, 1, 7, 5, 6, 0, 4, 4]
PINNED_FLOAT = 0.8602718427805925
