"""Diagnosis on synthetic runs: healthy boards never cry wolf, and each fault
type is flagged at its first wrong drop and named."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coindrel.engine import (
    BoardState,
    EntrySensorDead,
    ExitSensorDead,
    HallFault,
    MatchRandom,
    PadNotHolding,
    SwitchStuck,
    Variants,
    drop,
    standard_geometry,
)
from coindrel.reconcile.faults import CoinRemoved, EntrySensorChatter, ExitSensorChatter, MovedByHand, SwitchUnseated
from benchmarks.models.synth import INJECT_BEFORE, Injection, match_entries, synthesize
from coindrel.reconcile.world import marginals

from .helpers import keys, reconcile_run

G = standard_geometry()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.booleans(), st.floats(0.0, 0.6))
def test_a_healthy_board_never_cries_wolf(seed, holes, overlap):
    variants = Variants(holes=holes)
    start = BoardState.random(MatchRandom(seed), G, holes=holes)
    start, entries = match_entries(seed, start, variants=variants)
    run = synthesize(start, entries, seed=seed, overlap=overlap, variants=variants)
    rec, reports = reconcile_run(run, start)
    assert [r.drop for r in reports] == list(range(1, len(entries) + 1))
    assert all(r.ok for r in reports), [r.to_json() for r in reports if not r.ok][:1]
    assert rec.belief.text() == _final(start, entries)
    assert not rec.health().faults


def _final(start, entries):
    s = start
    for e in entries:
        s = drop(s, [e]).board
    return s.text()


def _state_at(start, entries, k):
    s = start
    for e in entries[:k]:
        s = drop(s, [e]).board
    return s


def first_evidence(run, reports, inj):
    """The report that should first flag the fault."""
    t = run.drops[inj.drop].t - INJECT_BEFORE
    if run.stray_times and abs(run.stray_times[0] - t) < 1e-9:
        return next(r for r in reports if r.t >= t - 1e-9)
    wrong = next(d for d in run.drops if d.wrong and not d.silent and not d.masked)
    numbered = [r for r in reports if r.drop is not None]
    return next(r for r in numbered if r.entry == wrong.entry and abs(r.t - wrong.t) < 0.3)


CASES = [
    (SwitchStuck, "switch", 3),
    (PadNotHolding, "rest", 5),
    (HallFault, "switch", 7),
    (ExitSensorDead, "exit", 2),
    (ExitSensorChatter, "exit", 4),
    (EntrySensorDead, "entry", 1),
    (EntrySensorChatter, "entry", 6),
    (MovedByHand, "switch", 9),
    (SwitchUnseated, "switch", 11),
]


def _place(kind, k, start, entries):
    """A place the match exercises after the fault starts."""
    outs = []
    s = _state_at(start, entries, 10)
    for e in entries[10:30]:
        o = drop(s, [e])
        outs.append(o)
        s = o.board
    if kind == "switch":
        flipped = sorted({sw for o in outs for sw in o.flipped})
        return G.labels[flipped[k % len(flipped)]]
    if kind == "rest":  # where a coin comes to rest on an empty pad
        before = _state_at(start, entries, 10)
        rested = sorted({sw for o in outs for sw in range(G.switch_count) if o.board.has_coin(sw) and not before.has_coin(sw)})
        return G.labels[rested[k % len(rested)]]
    if kind == "exit":
        reached = sorted({x for o in outs for x in o.exits})
        return reached[k % len(reached)]
    used = sorted(set(entries[10:30]))
    return used[k % len(used)]


@pytest.mark.parametrize("cls, kind, k", CASES, ids=[c[0].name for c in CASES])
def test_each_fault_is_flagged_and_named(cls, kind, k):
    start, entries = match_entries(100 + k)
    entries = entries[:34]
    inj = Injection(cls(_place(kind, k, start, entries)), 10, None if cls is MovedByHand else 30)
    run = synthesize(start, entries, [inj], seed=100 + k)
    rec, reports = reconcile_run(run, start)
    r = first_evidence(run, reports, inj)
    if cls is EntrySensorChatter and r.ok:
        # Two breaks whose cascade is what one coin does and also what two do
        # (the second came to rest unseen on the entry's pad) are two coins
        # (sensing.md section 4); the next drop through that entry tells.
        assert r.observed_flips == r.expected_flips and r.observed_exits == r.expected_exits
        r = next(x for x in reports if x.t > r.t and not x.ok)
    assert not r.ok
    assert (inj.fault.name, inj.fault.where) in keys(r) or (cls is SwitchUnseated and ("hall_fault", inj.fault.where) in keys(r))
    # Every report before the fault is ok.
    assert all(x.ok for x in reports if x.t < run.drops[10].t - INJECT_BEFORE - 1e-9)


def _busiest(start, entries):
    """The switch the drops 11..30 flip most often."""
    s = _state_at(start, entries, 10)
    count = [0] * G.switch_count
    for e in entries[10:30]:
        o = drop(s, [e])
        for sw in set(o.flipped):
            count[sw] += 1
        s = o.board
    return G.labels[max(range(G.switch_count), key=lambda i: count[i])]


def test_a_stuck_switch_gains_confidence_and_after_the_fix_drops_are_ok():
    start, entries = match_entries(5)
    label = _busiest(start, entries)
    inj = Injection(SwitchStuck(label), 10, 30)
    run = synthesize(start, entries[:44], [inj], seed=5)
    rec, reports = reconcile_run(run, start)
    affected = [r for r, d in zip([r for r in reports if r.drop], run.drops) if d.affected]
    confs = [dict((k, f.confidence) for k, f in zip(keys(r), r.diagnosis)).get(("switch_stuck", label), 0.0) for r in affected]
    assert confs and max(confs) > 0.95
    later = [r for r in reports if r.drop and r.t > run.drops[31].t]
    assert later and all(r.ok for r in later)
    # A rocker that stuck on every coin and then let one pass may be
    # intermittent rather than fixed: its confidence falls, it is not dropped
    # on the first good coin (issue 13: no flip-flopping between names).
    health = {(f["fault"], f["where"]): f["confidence"] for f in rec.health().faults}
    assert health.get(("switch_stuck", label), 0.0) < 0.8


def test_a_dead_exit_is_listed_in_health_and_does_not_stop_scoring():
    start, entries = match_entries(8)
    x = _place("exit", 0, start, entries)
    run = synthesize(start, entries[:40], [Injection(ExitSensorDead(x), 10)], seed=8)
    rec, reports = reconcile_run(run, start)
    top = {(f["fault"], f["where"]): f["confidence"] for f in rec.health().faults}
    assert ("exit_sensor_dead", f"exit {x + 1}") in top
    # What the best explanation says really happened is what the rules score.
    numbered = [r for r in reports if r.drop]
    for r, d in zip(numbered, run.drops):
        assert r.scored_exits == d.exits


def test_coin_removed_is_found_where_the_coin_was():
    start, entries = match_entries(21)
    s = _state_at(start, entries, 10)
    ahead = [drop(_state_at(start, entries, k), [entries[k]]) for k in range(10, 30)]
    spot = next(G.labels[sw] for o in ahead for sw in o.flipped if s.has_coin(sw))
    run = synthesize(start, entries[:32], [Injection(CoinRemoved(spot), 10)], seed=21)
    rec, reports = reconcile_run(run, start)
    r = first_evidence(run, reports, Injection(CoinRemoved(spot), 10))
    assert not r.ok and ("coin_removed", spot) in keys(r)


def test_two_faults_at_once_are_both_named():
    start, entries = match_entries(31)
    label = _place("switch", 2, start, entries)
    x = _place("exit", 1, start, entries)
    run = synthesize(start, entries[:40], [Injection(SwitchStuck(label), 10), Injection(ExitSensorDead(x), 10)], seed=31)
    rec, reports = reconcile_run(run, start)
    health = {(f["fault"], f["where"]) for f in rec.health().faults}
    assert ("switch_stuck", label) in health
    assert ("exit_sensor_dead", f"exit {x + 1}") in health


def test_marginals_sum_over_worlds():
    from coindrel.reconcile.world import World

    a = World(G, bytes(38), frozenset({SwitchStuck("R1S1")}), 0.0)
    b = World(G, bytes(38), frozenset({HallFault("R1S1")}), 0.0)
    m = marginals([a, b])
    assert m[SwitchStuck("R1S1")] == pytest.approx(0.5) == m[HallFault("R1S1")]


def test_twins_are_named_together_in_health():
    from coindrel.reconcile.faults import twins

    x = 9
    (jam,) = twins(ExitSensorDead(x), G)
    assert jam.name == "jam" and twins(jam, G) == [ExitSensorDead(x)]
    assert twins(SwitchUnseated("R2S2"), G) == [HallFault("R2S2")]
    start, entries = match_entries(8)
    x = _place("exit", 0, start, entries)
    run = synthesize(start, entries[:40], [Injection(ExitSensorDead(x), 10)], seed=8)
    rec, _ = reconcile_run(run, start)
    health = rec.health()
    line = next(f for f in health.faults if f["fault"] == "exit_sensor_dead")
    assert line["or"][0]["fault"] == "jam"
    assert "cannot tell this from jam" in health.text()
