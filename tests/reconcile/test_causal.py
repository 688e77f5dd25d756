"""The timing a cascade must keep (reconcile.causal): a flip a working hall
shows needs a coin that left a rocker above through a chute the explanation
keeps open, shortly before it."""

import math

import pytest

from coindrel.engine import BoardState, standard_geometry
from coindrel.events import EntryEvent, SwitchEvent
from coindrel.reconcile.causal import NO_CAUSE, feeders, time_candidates, untimely
from coindrel.reconcile.observed import Sensors, observe_events
from coindrel.reconcile.physics import Physics
from coindrel.reconcile.reconciler import initial_readings
from coindrel.reconcile.search import Search
from coindrel.reconcile.world import World

# R2S2 holds a coin (believed); R1S2 holds one too, so a coin into entry 2
# flips R1S2 and leaves it through both outlets: right into R2S2, left into
# R2S1 (empty: it rests there). A coin into entry 3 flips R1S3 and leaves it
# to the left, into R2S2 too. Below R2S2 the pads are empty: whatever R2S2
# lets go rests unseen.
STATE = ["LlRLLLLL", "LlLLLLL", "LLLLLLLL", "LLLLLLL", "LLLLLLLL"]
FALL = 2.0


def _setup(gap: float):
    g = standard_geometry()
    state = BoardState.parse(STATE, g)
    events = [EntryEvent(0.0, 1), SwitchEvent(0.06, "R1S2", "mid"), SwitchEvent(0.09, "R1S2", "R"),
              EntryEvent(gap, 2), SwitchEvent(gap + 0.06, "R1S3", "mid"), SwitchEvent(gap + 0.09, "R1S3", "L"),
              SwitchEvent(gap + 0.16, "R2S2", "mid"), SwitchEvent(gap + 0.19, "R2S2", "R")]
    index = {label: i for i, label in enumerate(g.labels)}
    obs = observe_events(events, initial_readings(state), index, g.switch_count, g.exit_count, g.entry_count)
    physics = Physics(g)
    search = Search(physics, obs, [e for _, e in obs.entries], Sensors(), 0.1, g.labels)
    world = World(g, state.codes)
    trace, healthy = search.evaluate(world, ())
    moves = search.moves(world, trace)

    def cand(kind, label, side=-1):
        m = next(m for m in moves if m.kind == kind and m.s == g.index(label) and m.side == side)
        return search.evaluate(world, (m,))[1]

    return g, obs, physics, healthy, cand


def test_a_flip_seconds_after_the_only_coin_that_could_cause_it_is_untimely():
    g, obs, physics, healthy, cand = _setup(gap=2.5)
    assert healthy.size > 0  # the healthy board flips R2S2 twice: only with a faulty hall
    feeds = feeders(g)
    first_stopped = cand("chute", "R1S2", 1)  # the first coin stopped in its chute: the second flips R2S2
    taken = cand("remove", "R2S2")  # the first coin rested on the emptied pad: the second flips it
    second_stopped = cand("chute", "R1S3", 0)  # the first coin flips R2S2, 2.6 s after it left R1S2
    assert first_stopped is not None and taken is not None and second_stopped is not None
    assert untimely(obs, first_stopped, physics, feeds, FALL) == 0
    assert untimely(obs, taken, physics, feeds, FALL) == 0
    assert untimely(obs, second_stopped, physics, feeds, FALL) == 1
    before = [c.cost for c in (first_stopped, taken, second_stopped)]
    time_candidates([first_stopped, taken, second_stopped], obs, physics, feeds, FALL)
    assert [c.cost for c in (first_stopped, taken)] == before[:2]
    assert second_stopped.cost == pytest.approx(before[2] + NO_CAUSE)


def test_coins_close_together_fit_either_order():
    g, obs, physics, healthy, cand = _setup(gap=0.05)
    feeds = feeders(g)
    for c in (cand("chute", "R1S2", 1), cand("remove", "R2S2"), cand("chute", "R1S3", 0)):
        assert untimely(obs, c, physics, feeds, FALL) == 0


def test_a_flip_before_any_coin_left_the_rocker_above_is_untimely():
    g = standard_geometry()
    state = BoardState.parse(STATE, g)
    # R2S2 moves half a second before R1S3 does (more than a hall's lag
    # behind its rocker): only the coin from R1S2 can have done it.
    events = [EntryEvent(0.0, 1), SwitchEvent(0.06, "R1S2", "mid"), SwitchEvent(0.09, "R1S2", "R"),
              SwitchEvent(2.06, "R2S2", "mid"), SwitchEvent(2.09, "R2S2", "R"),
              EntryEvent(2.5, 2), SwitchEvent(2.56, "R1S3", "mid"), SwitchEvent(2.59, "R1S3", "L")]
    index = {label: i for i, label in enumerate(g.labels)}
    obs = observe_events(events, initial_readings(state), index, g.switch_count, g.exit_count, g.entry_count)
    physics = Physics(g)
    search = Search(physics, obs, [e for _, e in obs.entries], Sensors(), 0.1, g.labels)
    world = World(g, state.codes)
    trace, _ = search.evaluate(world, ())
    m = next(m for m in search.moves(world, trace) if m.kind == "chute" and m.s == g.index("R1S2") and m.side == 1)
    c = search.evaluate(world, (m,))[1]
    assert c is not None and untimely(obs, c, physics, feeders(g), 10.0) == 1
    # A few ms early is a hall that shows its rocker moving late, not a coin before its cause.
    early = [EntryEvent(0.0, 1), SwitchEvent(0.06, "R1S2", "mid"), SwitchEvent(0.09, "R1S2", "R"),
             EntryEvent(2.0, 2), SwitchEvent(2.06, "R2S2", "mid"), SwitchEvent(2.09, "R2S2", "R"),
             SwitchEvent(2.1, "R1S3", "mid"), SwitchEvent(2.13, "R1S3", "L")]
    obs = observe_events(early, initial_readings(state), index, g.switch_count, g.exit_count, g.entry_count)
    search = Search(physics, obs, [e for _, e in obs.entries], Sensors(), 0.1, g.labels)
    trace, _ = search.evaluate(world, ())
    m = next(m for m in search.moves(world, trace) if m.kind == "chute" and m.s == g.index("R1S2") and m.side == 1)
    assert untimely(obs, search.evaluate(world, (m,))[1], physics, feeders(g), 10.0) == 0


def test_a_rocker_turned_by_hand_needs_no_coin_and_the_coin_it_tips_needs_no_arrival():
    g = standard_geometry()
    state = BoardState.parse(STATE, g)
    # A slow turn of R1S2 (a hand) tips its coin into R2S1, which flips.
    events = [SwitchEvent(0.0, "R1S2", "mid"), SwitchEvent(0.5, "R1S2", "R"), SwitchEvent(0.4, "R2S1", "mid"),
              SwitchEvent(0.43, "R2S1", "R"), EntryEvent(0.6, 6), SwitchEvent(0.66, "R1S7", "mid"), SwitchEvent(0.69, "R1S7", "R")]
    index = {label: i for i, label in enumerate(g.labels)}
    obs = observe_events(sorted(events, key=lambda e: e.t), initial_readings(state), index, g.switch_count, g.exit_count, g.entry_count)
    physics = Physics(g)
    search = Search(physics, obs, [e for _, e in obs.entries], Sensors(), 0.1, g.labels)
    world = World(g, state.codes)
    trace, _ = search.evaluate(world, ())
    hands = [m for m in search.moves(world, trace) if m.kind == "hand" and m.s == g.index("R1S2")]
    assert hands
    c = search.evaluate(world, (hands[0],))[1]
    assert c is not None and untimely(obs, c, physics, feeders(g), FALL) == 0


def test_a_healthy_fit_is_never_charged():
    g, obs, physics, healthy, cand = _setup(gap=0.05)
    c = cand("remove", "R2S2")
    c.moves = ()  # (as if it claimed nothing new)
    c.derivation.new = []
    cost = c.cost
    time_candidates([c], obs, physics, feeders(g), FALL)
    assert c.size == 0 and c.cost == cost and not math.isnan(cost)


def test_timing_is_counted_as_work_and_stops_at_the_limit():
    g, obs, physics, healthy, cand = _setup(gap=2.5)
    feeds = feeders(g)
    cands = [cand("chute", "R1S2", 1), cand("remove", "R2S2"), cand("chute", "R1S3", 0)]
    search = Search(physics, obs, [e for _, e in obs.entries], Sensors(), 0.1, g.labels, budget=100)
    time_candidates(list(cands), obs, physics, feeds, FALL, search)
    assert search.other >= 1 + len(cands) // 2  # the group's plan, and half a unit per explanation checked
    # At the limit: nothing more is checked, and what was not checked is not kept
    # (an unchecked explanation would escape what the timing says against it).
    spent = Search(physics, obs, [e for _, e in obs.entries], Sensors(), 0.1, g.labels, budget=100)
    spent.evaluations = spent.limit
    kept = list(cands)
    before = [c.cost for c in cands]
    time_candidates(kept, obs, physics, feeds, FALL, spent)
    assert kept == [] and [c.cost for c in cands] == before
    # One unit left after the group's plan: two checks, the likeliest two explanations.
    one = Search(physics, obs, [e for _, e in obs.entries], Sensors(), 0.1, g.labels, budget=100)
    one.evaluations = one.limit - 2
    kept = list(cands)
    time_candidates(kept, obs, physics, feeds, FALL, one)
    assert kept == [c for c in cands if c in sorted(cands, key=lambda c: -c.logp)[:2]]
