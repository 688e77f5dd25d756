"""After board events were lost (a hub that restarted, a replay ring that
could not give everything back) no sensor has seen the pads: coins that fell
meanwhile may rest on any of them, or have knocked one off. A later drop
whose difference such a pad explains says so (the outage), and blames no hand
and no fault; with nothing lost the same drop blames a hand, as before."""

from __future__ import annotations

from coindrel.engine import drop, standard_geometry
from coindrel.events import StatusEvent
from coindrel.reconcile import Reconciler
from coindrel.reconcile.faults import CoinAdded, CoinRemoved
from benchmarks.models.synth import INJECT_BEFORE, Injection, match_entries, synthesize

from .helpers import keys, run_events

G = standard_geometry()


def _state_at(start, entries, k):
    s = start
    for e in entries[:k]:
        s = drop(s, [e]).board
    return s


def _run(seed, fault, at, lost: bool):
    start, entries = match_entries(seed)
    run = synthesize(start, entries[:at + 12], [Injection(fault, at)], seed=seed)
    events = list(run.events)
    if lost:  # the hub restarted before the pad changed: its events meanwhile are unknown
        # (longer before the next coin than a coin falls: a restart 1.5 s before it, the drop
        # before long finished, could have lost that coin's first events, and says so)
        t = run.drops[at].t - INJECT_BEFORE - 1.5
        k = next(i for i, ev in enumerate(events) if ev.t > t)
        events.insert(k, StatusEvent(t, "resync", "the hub restarted; events while it was restarting are unknown"))
    rec = Reconciler(start.geometry, start, run.header.variants)
    reports = run_events(rec, events)
    after = [r for r in reports if r.drop is not None and r.t >= run.drops[at].t - 0.05]
    return rec, after, run


def _spot(seed, at, coin: bool):
    """A pad the next drops' coins reach that holds a coin (``coin``) or none."""
    start, entries = match_entries(seed)
    s = _state_at(start, entries, at)
    ahead = [drop(_state_at(start, entries, k), [entries[k]]) for k in range(at, at + 12)]
    return next(G.labels[sw] for o in ahead for sw in o.flipped if s.has_coin(sw) == coin)


def _first_flagged(reports):
    return next(r for r in reports if not r.ok)


def test_a_coin_gone_from_a_pad_nobody_saw_is_the_outage_not_a_hand():
    spot = _spot(21, 10, True)
    rec, after, _ = _run(21, CoinRemoved(spot), 10, lost=True)
    r = _first_flagged(after)
    assert ("coin_removed", spot) in keys(r)[:1], [f.say for f in r.diagnosis]
    said = r.diagnosis[0].say
    assert "events were lost" in said and "by hand" not in said
    assert not any(f.fault.name in ("switch_stuck", "jam", "hall_fault", "pad_not_holding", "exit_sensor_dead")
                   for f in r.diagnosis[:1])
    assert not rec.health().faults  # no persistent fault is believed


def test_the_same_change_with_nothing_lost_is_still_a_hand():
    spot = _spot(21, 10, True)
    _, after, _ = _run(21, CoinRemoved(spot), 10, lost=False)
    r = _first_flagged(after)
    assert ("coin_removed", spot) in keys(r)
    assert "by hand" in [f for f in r.diagnosis if f.fault.name == "coin_removed"][0].say


def test_a_coin_left_on_a_pad_nobody_saw_is_the_outage():
    spot = _spot(5, 12, False)
    rec, after, _ = _run(5, CoinAdded(spot), 12, lost=True)
    r = _first_flagged(after)
    assert ("coin_added", spot) in keys(r)[:1], [f.say for f in r.diagnosis]
    assert "events were lost" in r.diagnosis[0].say
    assert not rec.health().faults


def test_a_pad_a_clean_drop_reached_since_is_known_again():
    start, entries = match_entries(3)
    run = synthesize(start, entries[:3], seed=3)
    rec = Reconciler(start.geometry, start, run.header.variants)
    reports = run_events(rec, [StatusEvent(run.events[0].t - rec.timing.patience - 1.0, "lost", "board events could not be given back")]
                         + list(run.events))
    assert all(r.ok for r in reports if r.drop is not None)
    reached = {G.index(label) for o in [drop(_state_at(start, entries, k), [entries[k]]) for k in range(3)]
               for label in o.flipped}
    assert reached and not reached & rec.unsure
    assert len(rec.unsure) < G.switch_count
    rec.pads_known()  # the players checked the pads
    assert not rec.unsure
