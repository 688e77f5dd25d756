"""The live API the daemon uses: feed events, poll with the board clock."""

import pytest

from coindrel.engine import BoardState, SwitchStuck, Variants, drop, standard_geometry
from coindrel.events import EntryEvent, EventError, StatusEvent, SwitchEvent
from coindrel.reconcile import Reconciler, Sensors, Timing

G = standard_geometry()
# Entry 1 on this board: R1S1 flips to L, the coin rests on R3S1.
START = "RRRRRRRL/LLLLLLL/LLLLLLLR/LLLLLLL/LLLLLLLL"


def entry1(t):
    return [EntryEvent(t, 0), SwitchEvent(t + 0.06, "R1S1", "mid"), SwitchEvent(t + 0.085, "R1S1", "L")]


def test_a_drop_is_reported_once_the_board_is_quiet():
    rec = Reconciler(G, START, Variants())
    for ev in entry1(10.0):
        rec.feed(ev)
    assert rec.busy
    assert rec.poll(10.2) == []  # still inside the quiet window
    (r,) = rec.poll(10.085 + rec.timing.quiet + 0.001)
    assert r.drop == 1 and r.ok and r.entry == 0
    assert r.expected_flips == {"R1S1": 1} == r.observed_flips
    assert not rec.busy
    assert rec.belief.text() == "LRRRRRRL/LLLLLLL/lLLLLLLR/LLLLLLL/LLLLLLLL"
    assert rec.poll(100.0) == []


def test_waits_longer_while_the_prediction_still_expects_events():
    rec = Reconciler(G, START)
    rec.feed(EntryEvent(10.0, 0))  # R1S1's flip has not come yet
    assert rec.poll(10.0 + rec.timing.quiet + 0.01) == []
    (r,) = rec.poll(10.0 + rec.timing.patience + 0.01)
    assert not r.ok  # R1S1 never reported a flip


def test_the_next_coin_after_a_quiet_spell_starts_a_new_drop():
    rec = Reconciler(G, START)
    events = entry1(10.0) + [EntryEvent(10.085 + rec.timing.quiet + 0.5, 7)]
    for ev in events:
        rec.feed(ev)
    reports = rec.poll(10.085 + rec.timing.quiet + 0.5)
    assert [r.drop for r in reports] == [1] and reports[0].ok  # the first closed when the second coin went in
    assert [r.drop for r in rec.flush()] == [2]


def test_a_drop_still_waiting_for_its_coin_takes_the_next_coin_into_its_cascade():
    # A coin may fall silently for longer than the quiet window (two rows down an
    # edge lane, or waiting for a busy rocker): a coin going in meanwhile is part of
    # the same cascade, not a reason to give the first one up as missing.
    rec = Reconciler(G, START)
    t2 = 10.0 + rec.timing.quiet + 0.3
    events = [EntryEvent(10.0, 0), EntryEvent(t2, 7), *entry1(10.0)[1:]]
    late = [SwitchEvent(t2 + 0.2, "R1S1", "mid"), SwitchEvent(t2 + 0.225, "R1S1", "L")]
    for ev in [events[0], events[1], *late]:
        rec.feed(ev)
    assert rec.poll(t2 + 0.1) == []
    reports = rec.flush()
    assert [r.drop for r in reports] == [1, 2]
    assert reports[0].observed_flips == {"R1S1": 1}


def test_events_outside_drops_are_reported_with_drop_none():
    rec = Reconciler(G, START)
    rec.feed(SwitchEvent(5.0, "R4S4", "mid"))
    rec.feed(SwitchEvent(5.3, "R4S4", "R"))  # a hand: 300 ms between the sides
    (r,) = rec.flush()
    assert r.drop is None and not r.ok
    assert r.diagnosis[0].fault.name == "moved_by_hand" and r.diagnosis[0].fault.where == "R4S4"
    assert rec.belief.pad("R4S4") == 1


def test_a_re_sent_reading_is_not_an_event_to_report():
    rec = Reconciler(G, START)
    rec.feed(SwitchEvent(5.0, "R4S4", "L"))  # what the hall already read
    assert rec.flush() == []


def test_drops_after_an_explained_fault_reconcile_ok_again():
    state = BoardState.parse(START)
    rec = Reconciler(G, state)
    # A coin nobody knew of rests on R1S1: entry 1's coin bounces and tips it.
    real = state.copy()
    real.place_coin("R1S1")
    out = drop(real, [0])
    assert out.flips_by_label()["R1S1"] == 1
    events = [EntryEvent(1.0, 0), SwitchEvent(1.06, "R1S1", "mid"), SwitchEvent(1.09, "R1S1", "L")]
    reports = []
    for ev in events:
        rec.feed(ev)
    reports += rec.flush()
    assert reports[0].ok  # same flips: the tipped coin rested unseen on R2S1 or R3S1
    assert rec.belief.text() == "LRRRRRRL/LLLLLLL/lLLLLLLR/LLLLLLL/LLLLLLLL"


def test_status_lost_makes_the_drop_uncheckable():
    rec = Reconciler(G, START)
    rec.feed(EntryEvent(1.0, 0))
    rec.feed(StatusEvent(1.05, "lost", "queue", 3))
    rec.feed(SwitchEvent(1.09, "R1S1", "L"))
    (r,) = rec.flush()
    assert not r.ok and r.diagnosis[0].fault.name == "events_lost"
    assert rec.belief.pad("R1S1") == 0  # taken from the hall


def test_a_lost_drop_believes_a_quiet_hall_not_the_prediction():
    # The events were lost and R1S1's hall said nothing: its rocker is where it was
    # read (a stuck rocker sends a coin elsewhere), not where the engine sends it.
    # A flip whose event was lost is the reconnect's snapshot to find (table/resync.py).
    for sensors, r1s1 in ((Sensors(), "R"), (Sensors(halls=False), "L")):
        rec = Reconciler(G, START, sensors=sensors)
        rec.feed(EntryEvent(1.0, 0))
        rec.feed(StatusEvent(1.05, "lost", "queue", 3))
        (r,) = rec.flush()
        assert r.diagnosis[0].fault.name == "events_lost"
        assert rec.belief.text()[0] == r1s1, sensors  # without halls the prediction is all there is
        assert r.state[0][0] == r1s1


def test_unknown_switch_is_refused():
    rec = Reconciler(G, START)
    with pytest.raises(EventError, match="R9S9"):
        rec.feed(SwitchEvent(1.0, "R9S9", "L"))


def test_reset_keeps_faults_and_takes_the_new_board():
    rec = Reconciler(G, START)
    rec.worlds[0] = type(rec.worlds[0])(G, rec.worlds[0].codes, frozenset({SwitchStuck("R2S2")}))
    rec.reset(BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"))
    assert rec.belief.text() == "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
    assert SwitchStuck("R2S2") in rec.worlds[0].faults
    assert rec.health().faults[0]["fault"] == "switch_stuck"


def test_board_is_right_keeps_the_explanation_that_agrees_with_the_halls():
    from coindrel.engine import HallFault

    W = type(Reconciler(G).worlds[0])
    flat = BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    lying = BoardState.parse("LLLLLLLL/LRLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")  # R2S2 flipped, its hall lies
    stuck = BoardState.parse("LLLLLLLL/LLLLLLL/lLLLLLLL/LLLLLLL/LLLLLLLL")  # R2S2 stuck, a coin rests on R3S1
    rec = Reconciler(G, flat)
    rec.worlds = [W(G, lying.codes, frozenset({HallFault("R2S2")}), 0.0), W(G, stuck.codes, frozenset({SwitchStuck("R2S2")}), -3.0)]
    rec.reset(flat, halls_right=True)  # the players: the board is right, R2S2 is where its hall says
    assert rec.belief.text() == stuck.text() and rec.worlds[0].faults == {SwitchStuck("R2S2")}
    assert rec.worlds[0].logw == 0.0
    # none agrees: the board as given, without the hall faults the players denied
    rec.worlds = [W(G, lying.codes, frozenset({HallFault("R2S2"), SwitchStuck("R5S1")}), 0.0)]
    rec.reset(flat, halls_right=True)
    assert rec.belief.text() == flat.text() and rec.worlds[0].faults == {SwitchStuck("R5S1")}
    rec.worlds = [W(G, lying.codes, frozenset({HallFault("R2S2")}), 0.0), W(G, stuck.codes, frozenset(), -3.0)]
    rec.reset(flat)  # an undo, say: the hall fault stays
    assert rec.belief.text() == flat.text() and rec.worlds[0].faults == {HallFault("R2S2")}


def test_board_is_right_keeps_a_hall_fault_whose_reading_the_table_did_not_take():
    """Found by a newcomer: `sim --fault hall_fault@R4S1,mode=inverted` ended
    naming a jam. The players' "Board is right" (also the back button) wiped
    the hall fault the cascades had proven, and later drops fitted a jam
    below the side the lying hall read."""
    from coindrel.engine import HallFault

    W = type(Reconciler(G).worlds[0])
    flat = BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    lying = BoardState.parse("LLLLLLLL/LRLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")  # R2S2 flipped, its hall lies (reads L)
    hand = flat  # R2S2 put back by a hand, its hall right
    rec = Reconciler(G, flat)
    rec.worlds = [W(G, lying.codes, frozenset({HallFault("R2S2")}), 0.0), W(G, hand.codes, frozenset(), -3.0)]
    # the table kept R2S2 where the cascade proved it (its hall was blamed): the hall fault stays first
    rec.reset(lying, halls_right=True)
    assert rec.belief.text() == lying.text() and rec.worlds[0].faults == {HallFault("R2S2")}
    # the players took the hall's reading: the world that agrees comes first, the denied one is kept behind it
    rec.worlds = [W(G, lying.codes, frozenset({HallFault("R2S2")}), 0.0), W(G, hand.codes, frozenset(), -3.0)]
    rec.reset(flat, halls_right=True)
    assert rec.belief.text() == flat.text() and rec.worlds[0].faults == frozenset() and rec.worlds[0].logw == 0.0
    assert [w.faults for w in rec.worlds[1:]] == [{HallFault("R2S2")}] and -5.0 < rec.worlds[1].logw < 0.0
    # no world agrees: the board as given first, the denied explanation behind it
    rec.worlds = [W(G, lying.codes, frozenset({HallFault("R2S2")}), 0.0)]
    rec.reset(flat, halls_right=True)
    assert rec.worlds[0].faults == frozenset() and rec.worlds[1].faults == {HallFault("R2S2")}
    assert rec.worlds[1].logw < rec.worlds[0].logw


def test_a_link_lost_after_a_drop_ended_costs_that_drop_nothing_without_a_poll_between():
    """`coindrel history N --events | coindrel reconcile -` flagged events_lost
    for the drop before an unplug that the live table scored ok: live, the
    table's poll closed that drop before the link went; a log's replay feeds
    the status event next, and it took the still-open drop as lost."""
    rec = Reconciler(G, START)
    for ev in entry1(1.0):
        rec.feed(ev)
    rec.feed(StatusEvent(9.0, "disconnected", "unplugged"))  # long after the drop went quiet; no poll came
    (r,) = rec.poll(9.0)
    assert r.ok and r.diagnosis == [], r.to_json()
    # a link lost while the drop is still open still marks it
    rec = Reconciler(G, START)
    events = entry1(1.0)
    rec.feed(events[0])
    rec.feed(StatusEvent(events[0].t + 0.01, "lost", "ring overflow", 2))
    for ev in events[1:]:
        rec.feed(ev)
    (r,) = rec.flush()
    assert not r.ok and r.diagnosis[0].fault.name == "events_lost"


def test_holes_variant_makes_the_holes():
    rec = Reconciler(G, "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", Variants(holes=True))
    assert rec.belief.holes() == ["R2S2", "R2S6", "R4S3", "R4S5"]
    assert rec.readings[G.index("R2S2")] == "none"


def test_without_hall_sensors_positions_are_not_checked():
    rec = Reconciler(G, START, sensors=Sensors(halls=False))
    rec.feed(EntryEvent(1.0, 0))  # no hall events at all
    (r,) = rec.flush()
    assert r.ok
    assert any("hall" in c for c in rec.health().cannot_check)


def test_timing_is_learned_from_ok_drops():
    from benchmarks.models.synth import match_entries, synthesize

    start, entries = match_entries(4)
    run = synthesize(start, entries[:12], seed=4)
    tm = Timing(min_samples=3)
    rec = Reconciler(G, start, timing=tm)
    for ev in run.events:
        rec.feed(ev)
        rec.poll(ev.t)
    rec.flush()
    assert tm.ready and tm.quiet < 0.8
    assert rec.health().timing["prior_in_use"] is False


def unseen_entry1(t):
    # the hub was down while entry 1's coin fell: a lost status, then the
    # board as the snapshot shows it (R1S1 went to L; its coin rests on R3S1)
    return [StatusEvent(t, "lost", "changed unseen: R1S1 R->L", 1), SwitchEvent(t + 1e-4, "R1S1", "L")]


def test_a_coin_that_went_in_while_the_hub_was_down_is_the_drop_the_board_shows():
    rec = Reconciler(G, START)
    for ev in unseen_entry1(5.0):
        rec.feed(ev)
    (r,) = rec.flush()
    assert r.drop == 1 and r.entry == 0 and not r.entry_seen
    assert not r.ok and r.diagnosis[0].fault.name == "events_lost"  # the players are asked to confirm
    assert rec.belief.text() == "LRRRRRRL/LLLLLLL/lLLLLLLR/LLLLLLL/LLLLLLLL"  # the resting coin is known


def test_changes_no_single_coin_makes_stay_outside_any_drop():
    rec = Reconciler(G, START)
    rec.feed(StatusEvent(5.0, "lost", "changed unseen: R5S1 L->R", 1))
    rec.feed(SwitchEvent(5.0001, "R5S1", "R"))  # no coin from any entry leaves only this
    (r,) = rec.flush()
    assert r.drop is None and r.diagnosis[0].fault.name == "events_lost"
    assert rec.belief.pad("R5S1") == 1


def test_no_unseen_drop_while_no_drop_can_come():
    rec = Reconciler(G, START)
    rec.expecting = False  # a reveal, a pause: changes are hands, not a coin
    for ev in unseen_entry1(5.0):
        rec.feed(ev)
    (r,) = rec.flush()
    assert r.drop is None


def test_a_coin_cut_by_a_reset_then_an_unplug_is_one_drop_once_the_board_is_seen_again():
    # Entry 3 on an all-R board: R1S3, R2S2, R3S2, R4S1, R5S1, exit 1. The coin went in
    # while the hub rebooted; its snapshot showed R1S3 flipped, then the cable came out
    # before the rest fell. Judged apart, the two halves were two groups outside any drop.
    rec = Reconciler(G, "RRRRRRRR/RRRRRRR/RRRRRRRR/RRRRRRR/RRRRRRRR")
    rec.feed(StatusEvent(25.33, "resync", "the hub restarted", 0))
    rec.feed(StatusEvent(25.3301, "lost", "changed unseen: R1S3 R->L", 1))
    rec.feed(SwitchEvent(25.3302, "R1S3", "L"))
    rec.feed(StatusEvent(25.35, "disconnected", "unplugged"))
    assert rec.poll(25.35 + 10 * rec.timing.patience) == []  # not judged on what nobody saw
    rec.feed(StatusEvent(28.94, "connected", "plugged in"))
    rest = ("R2S2", "R3S2", "R4S1", "R5S1")
    rec.feed(StatusEvent(25.3303, "lost", "changed unseen: ...", len(rest)))  # resync.py: inside the open group
    for k, s in enumerate(rest):
        rec.feed(SwitchEvent(25.3304 + k * 1e-4, s, "L"))
    (r,) = rec.poll(28.96 + rec.timing.patience)
    assert r.drop == 1 and r.entry == 2 and not r.entry_seen
    assert r.scored_exits == (0,) and r.diagnosis[0].fault.name == "events_lost"  # scored, the players asked


def test_a_group_cut_by_an_unplug_is_held_only_while_the_link_is_down():
    rec = Reconciler(G, "RRRRRRRR/RRRRRRR/RRRRRRRR/RRRRRRR/RRRRRRRR")
    rec.feed(StatusEvent(5.0, "lost", "changed unseen: R5S1 R->L", 1))
    rec.feed(SwitchEvent(5.0001, "R5S1", "L"))
    rec.feed(StatusEvent(5.01, "disconnected", "unplugged"))
    assert rec.poll(60.0) == []
    rec.feed(StatusEvent(61.0, "connected", "plugged in"))  # the board as believed: nothing more came
    (r,) = rec.poll(61.0)
    assert r.drop is None and r.diagnosis[0].fault.name == "events_lost"


LEFT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def _entry5_cascade(t: float) -> list:
    """A coin into entry 5 of the all-left board: R1S5, R2S5, R3S6, R4S6, R5S7 go over, exit 14."""
    from coindrel.events import ExitEvent

    out = [EntryEvent(t, 4)]
    for k, label in enumerate(("R1S5", "R2S5", "R3S6", "R4S6", "R5S7")):
        out += [SwitchEvent(t + 0.08 + 0.12 * k, label, "mid"), SwitchEvent(t + 0.1 + 0.12 * k, label, "R")]
    return out + [ExitEvent(t + 0.75, 13)]


def test_a_reset_while_a_coin_falls_keeps_its_drop_when_asked():
    """The players answered the last drop while the next coin fell: the board
    they vouched for was read mid-cascade (R1S5 and R2S5 already over); the
    coin's drop is reconciled whole against the belief before it."""
    events = _entry5_cascade(10.0)
    rec = Reconciler(G, LEFT)
    for ev in events[:5]:
        rec.feed(ev)
    assert rec.busy
    sensed = BoardState.parse("LLLLRLLL/LLLLRLL/LLLLLLLL/LLLLLLL/LLLLLLLL", G)
    rec.reset(sensed, halls_right=True, keep_open=True)
    for ev in events[5:]:
        rec.feed(ev)
    (r,) = rec.flush()
    assert (r.drop, r.entry, r.observed_exits, r.verdict) == (1, 4, (13,), "ok")
    assert rec.belief.text() == drop(BoardState.parse(LEFT, G), [4]).board.text()

    rec = Reconciler(G, LEFT)  # a new match: what fell before it is no drop of it, and flags nothing
    for ev in events[:5]:
        rec.feed(ev)
    rec.reset(BoardState.parse(LEFT, G))
    for ev in events[5:]:
        rec.feed(ev)
    (r,) = rec.flush()
    assert (r.drop, r.verdict, r.diagnosis, r.to_json()["carried"]) == (None, "ok", [], True)


def test_a_lone_drop_nothing_explains_scores_the_exits_its_beams_saw(monkeypatch):
    """Found by a newcomer: coins the exit beams saw at 9 and 10 scored 0 when
    no explanation fitted (the engine's prediction from the belief was scored)."""
    from coindrel.reconcile import reconciler as module

    monkeypatch.setattr(module, "posterior", lambda cands: [])  # nothing fits
    rec = Reconciler(standard_geometry(), "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    for ev in entry1(1.0)[:1]:
        rec.feed(ev)
    from coindrel.events import ExitEvent

    rec.feed(ExitEvent(1.5, 8))
    rec.feed(ExitEvent(1.6, 9))
    (r,) = rec.poll(30.0)
    assert r.verdict == "mismatch" and r.diagnosis[0].fault.name == "unexplained"
    assert tuple(r.scored_exits) == (8, 9)


def test_a_new_match_keeps_the_likeliest_explanation_s_faults_and_lets_the_others_go():
    """What the README says is kept from an earlier match (a newcomer saw a
    low-confidence fault vanish at the next one): the faults of the most
    likely explanation, held from then on; a fault only a less likely
    explanation had is let go until the board shows it again."""
    import math

    from coindrel.engine import BoardState, SwitchStuck, standard_geometry
    from coindrel.reconcile.reconciler import Reconciler
    from coindrel.reconcile.world import World

    g = standard_geometry()
    board = BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    rec = Reconciler(g, board)
    likely, unlikely = SwitchStuck("R3S2"), SwitchStuck("R4S5")
    rec.worlds = [World(g, board.codes, {likely}, 0.0), World(g, board.codes, {unlikely}, math.log(0.4))]
    before = {f["where"]: f["confidence"] for f in rec.health().faults}
    assert before == {"R3S2": 0.71, "R4S5": 0.29}
    rec.reset(board)  # the table's new match
    after = {f["where"]: f["confidence"] for f in rec.health().faults}
    assert after == {"R3S2": 1.0}
