"""The tabletop match flow, driven with a fake clock and reconciler reports."""

from coindrel.display import (ConnectionView, DiagnosisView, MatchResultView, MatchView, MenuView, MessageView,
                              RevealView, notice_text, page_count)
from coindrel.engine import BoardState, Variants, drop
from coindrel.reconcile.report import DropReport
from coindrel.table import effects as fx

from .flowkit import kinds, make_flow, report_for, started


def test_menu_toggles_and_start_reveals_round_one():
    flow = make_flow()
    assert isinstance(flow.view(0), MenuView)
    flow.on_action("next", 0)  # Clock
    flow.on_action("select", 0)  # 60 -> 120
    assert flow.menu.choices.clock == "120"
    flow.on_action("next", 0)  # Holes
    flow.on_action("next", 0)  # Halved
    flow.on_action("select", 0)
    assert flow.menu.choices.variants == Variants(halved=True)
    for _ in range(3):
        flow.on_action("prev", 0)
    flow.on_action("select", 0)  # Start
    assert flow.mode == "reveal" and isinstance(flow.view(0.5), RevealView)
    assert flow.match.setup.clock == 120 and flow.match.setup.seed == 1234
    assert (fx.NEW_MATCH, "", None) in kinds(flow)
    flow.tick(10.0)  # the reveal ends by itself
    assert flow.mode == "turn" and flow.match.remaining(10.0) == 120


def test_a_drop_scores_what_the_exits_saw():
    flow = make_flow()
    m = started(flow)
    flow.on_entry(0, 5.0)
    assert m.phase == "falling" and m.remaining(50.0) == m.remaining(5.0)
    rep = report_for(m, 0, 1)
    flow.on_report(rep, 6.0)
    assert m.results[-1].entry == 0 and flow.mode == "turn"
    assert isinstance(flow.view(6.0), MatchView)


def test_clock_expiry_lights_the_entry_or_drives_the_dropper():
    for dropper, kind in ((False, fx.LED), (True, fx.DROP)):
        flow = make_flow(dropper=dropper, clock="turbo")
        m = started(flow)
        kinds(flow)
        flow.tick(5.0)
        assert m.forced_entry is None
        flow.tick(6.1)
        forced = m.forced_entry
        assert forced is not None
        assert (kind, "blink", forced) in kinds(flow)
        assert f"entry {forced + 1}" in flow.view(6.2).status
        wrong = (forced + 1) % 8
        flow.on_entry(wrong, 7.0)
        flow.on_report(report_for(m, wrong, 1), 8.0)
        assert flow.mode == "mismatch" and "the clock chose" in flow.view(8.0).facts[0]


def test_link_loss_pauses_the_match_and_says_so():
    flow = make_flow()
    m = started(flow)
    flow.on_link(False, "/dev/coindrel-hub", 10.0)
    v = flow.view(12.0)
    assert isinstance(v, ConnectionView) and v.since == 2.0
    left = m.remaining(10.0)
    assert m.remaining(100.0) == left
    flow.on_link(True, "", 100.0)
    assert isinstance(flow.view(100.0), MatchView) and m.remaining(101.0) == left - 1


def test_whole_match_to_a_result_and_back_to_the_menu():
    flow = make_flow(clock="off")
    m = started(flow)
    n, now = 0, 2.0
    while not m.over:
        if flow.mode in ("reveal", "round-result"):
            flow.on_action("select", now)
            continue
        entry = n % 8
        flow.on_entry(entry, now)
        n += 1
        flow.on_report(report_for(m, entry, n), now + 0.5)
        now += 1
    assert flow.mode == "round-result"
    flow.on_action("select", now)
    assert flow.mode == "result" and isinstance(flow.view(now), MatchResultView)
    assert any(e.kind == fx.END_MATCH and e.name == "finished" for e in flow.effects)
    flow.on_action("select", now)
    assert flow.mode == "menu" and flow.match is None


def test_holes_need_the_switches_out_first():
    flow = make_flow(variants=Variants(holes=True))
    flow.on_action("select", 0)
    v = flow.view(0)
    assert isinstance(v, MessageView) and "R2S2" in v.text and flow.match is None
    flow.read_board = lambda: BoardState.parse("LLLLLLLL/LoLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL")
    flow.on_action("select", 1)  # dismiss and try again
    assert flow.mode == "reveal" and flow.match.board.holes() == ["R2S2", "R2S6", "R4S3", "R4S5"]


def test_names_are_edited_with_the_encoder():
    flow = make_flow()
    while flow.menu.selected != 6:
        flow.on_action("next", 0)
    flow.on_action("select", 0)
    assert flow.mode == "names"
    flow.on_action("next", 0)  # 'P' -> 'Q'
    flow.on_action("hold-select", 0)
    assert flow.menu.choices.players[0] == "Qlayer 1"


def test_events_outside_a_drop_are_flagged_not_scored():
    from coindrel.events import ExitEvent

    flow = make_flow()
    m = started(flow)
    flow.on_report(DropReport(drop=None, entry=None, entry_seen=False, t=1.0, events=[ExitEvent(1.0, 4)]), 1.0)
    v = flow.view(1.0)
    assert isinstance(v, DiagnosisView) and "exit 5" in notice_text(v)
    assert m.totals == (0, 0)
    flow.tick(7.0)  # the note goes away by itself
    assert isinstance(flow.view(7.0), MatchView)


def test_a_coin_outside_a_drop_can_be_read_to_the_end_before_it_goes():
    from coindrel.events import ExitEvent
    from coindrel.reconcile.belief import Finding
    from coindrel.reconcile.faults import StrayCoin

    flow = make_flow()
    started(flow)
    flow.on_report(DropReport(drop=None, entry=None, entry_seen=False, t=1.0, events=[ExitEvent(1.0, 4)],
                              diagnosis=[Finding(StrayCoin(4), 0.9)]), 1.0)
    assert page_count(flow.view(1.0)) == 2
    flow.on_action("next", 4.0)
    v = flow.view(4.0)
    assert isinstance(v, DiagnosisView) and v.page == 1  # turned to the rest, not dismissed
    flow.tick(8.5)
    assert isinstance(flow.view(8.5), DiagnosisView)  # reading keeps it up a while
    flow.on_action("select", 9.0)  # OK
    assert isinstance(flow.view(9.0), MatchView)


def test_a_second_coin_while_the_turns_coin_falls_is_out_of_turn_not_the_next_players_drop():
    # the newcomer's keyboard: 3 then 5 while the first coin still fell (coindrel sim --players keyboard,hard)
    flow = make_flow(clock="off")
    m = started(flow)
    flow.on_entry(2, 5.0)
    flow.on_entry(4, 5.2)  # extra coin, Ann's coin still falling
    first = report_for(m, 2, 1)
    flow.on_report(first, 6.0)
    assert len(m.results) == 1 and m.results[0].player == 1 and m.to_move == 2
    after_first = BoardState.parse(first.state)
    second = drop(after_first, [4])
    flow.on_report(DropReport(drop=2, entry=4, entry_seen=True, t=5.2, expected_exits=second.exits,
                              observed_exits=second.exits, state=second.board.rows(),
                              scored_exits=second.exits), 6.5)
    assert len(m.results) == 1, "the extra coin must not be scored as Bo's turn"
    assert m.to_move == 2 and m.phase == "turn" and m.totals == (m.results[0].points, 0)
    assert m.board.text() == second.board.text(), "the board follows what the extra coin did"
    note = flow.view(6.6)
    assert isinstance(note, MessageView) and note.alert and "Out of turn" in note.text and "to drop" in note.text
    # Bo's own coin is Bo's turn, and the log replays to the same match
    flow.on_action("select", 7.0)
    flow.on_entry(1, 8.0)
    flow.on_report(report_for(m, 1, 3), 9.0)
    assert [r.player for r in m.results] == [1, 2]
    from coindrel.engine import Match
    again = Match.replay(list(m.log))
    assert again.totals == m.totals and again.board.text() == m.board.text()


def test_a_coin_after_the_turns_coin_was_scored_is_the_next_players_drop():
    flow = make_flow(clock="off")
    m = started(flow)
    flow.on_entry(2, 5.0)
    flow.on_report(report_for(m, 2, 1), 6.0)
    flow.on_entry(4, 6.5)
    flow.on_report(report_for(m, 4, 2), 7.0)
    assert [r.player for r in m.results] == [1, 2] and flow.mode == "turn"
