"""People at awkward moments: each finding of the first newcomer's try, on
the real table, journal and virtual board (``coindrel sim --fast``'s rig).

Coins out of turn: a coin while the round's result shows, while the match is paused, or while
the last coin still falls, scores as the board says and the turns go on.
"""

from __future__ import annotations


from .awkward import rig_for, run_until


def test_a_coin_while_the_round_result_shows_scores_and_the_table_plays_on(tmp_path):
    rig = rig_for(tmp_path, seed=4)
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.mode == "round-result")
    m = flow.match
    drops = len(m.results)
    to_move = m.to_move
    rig.board.drop(3)  # a person drops while "Round 1 over" is on screen
    people, rig.players.step = rig.players.step, lambda: None  # nobody presses for now
    assert run_until(rig, lambda: len(m.results) == drops + 1, 20)
    assert m.results[-1].player == to_move and m.results[-1].entry == 3
    assert flow.mode == "mismatch" and "out of turn, while the round's result was on screen" in flow.diagnosis.facts[0]
    rig.table.handle_action("back")  # "Board is right": no MatchError, the turns go on
    assert flow.mode == "turn" and m.phase == "turn"
    rig.players.step = people
    assert run_until(rig, lambda: rig.players.finished.is_set(), 900)
    assert rig.errors == [] and rig.out.matches[-1].over


def test_a_coin_while_paused_counts_and_resumes_the_match(tmp_path):
    rig = rig_for(tmp_path, seed=5)
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.mode == "turn" and flow.match.phase == "turn" and len(flow.match.results) >= 2)
    rig.players.step = lambda: None
    assert run_until(rig, lambda: rig.board.world.in_flight() == 0 and rig.board.pending == 0 and not rig.table.reconciler.busy and flow.mode == "turn", 30)
    rig.table.handle_action("back")
    assert flow.mode == "paused"
    n = len(flow.match.results)
    rig.board.drop(0)
    assert run_until(rig, lambda: len(flow.match.results) == n + 1, 20)
    assert flow.mode == "mismatch" and "paused" in flow.diagnosis.facts[0]
    rig.table.handle_action("back")
    assert flow.mode == "turn" and not flow.pauses


def test_a_second_coin_while_the_first_falls_is_flagged_and_the_next_player_keeps_their_turn(tmp_path):
    # the newcomer pressed 3 then 5 while the first coin fell: the second scored as Bo's turn, unflagged
    rig = rig_for(tmp_path, seed=7, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.mode == "turn" and flow.match.to_move == 1 and flow.match.phase == "turn"
                     and len(flow.match.results) >= 2)
    m = flow.match
    rig.players.step = lambda: None  # nobody else drops or presses for now
    assert run_until(rig, lambda: rig.board.world.in_flight() == 0 and rig.board.pending == 0
                     and not rig.table.reconciler.busy and flow.mode == "turn", 30)
    if m.to_move != 1:  # the careful player's coin was already on its way: Bo drops it by hand
        rig.board.drop(0)
        assert run_until(rig, lambda: m.to_move == 1 and flow.mode == "turn" and rig.board.world.in_flight() == 0
                         and not rig.table.reconciler.busy, 30)
    drops, totals = len(m.results), m.totals
    rig.board.drop(2)
    assert run_until(rig, lambda: m.phase == "falling", 5)
    rig.board.drop(4)  # while the first coin still falls
    assert run_until(rig, lambda: flow.note is not None and flow.note.title == "Extra coin", 20)
    assert len(m.results) == drops + 1 and m.results[-1].player == 1 and m.results[-1].entry == 2
    assert m.to_move == 2 and m.totals[1] == totals[1], "the extra coin is not the next player's drop"
    assert "Out of turn" in flow.note.text and "to drop" in flow.note.text
    assert run_until(rig, lambda: rig.board.world.board().text() == m.board.text(), 10), "the belief follows the board"
    rig.players.step = type(rig.players).step.__get__(rig.players)
    assert run_until(rig, lambda: len(m.results) == drops + 2, 60)
    assert m.results[-1].player == 2
    assert run_until(rig, lambda: rig.players.finished.is_set(), 900)
    assert rig.errors == [] and rig.out.matches[-1].over


def test_a_coin_dropped_at_the_menu_has_the_pads_cleared_before_the_match(tmp_path):
    """Found by a newcomer: a coin dropped while the table showed its menu
    rested on R1S1 unknown to the table, and drop 4 was blamed on R1S1's pad
    (then on entry 1's beam). Nothing senses pads, so the table asks."""
    from coindrel.table.fastsim import FastRig
    from coindrel.table.script import parse_script
    from coindrel.table.sim import SimOptions

    from .awkward import FAST, G

    opts = SimOptions(think=0.2, pause=0.3, reveal_seconds=0.5, display="none", state_dir=str(tmp_path),
                      clock="turbo", seed=1)
    rig = FastRig(opts, parse_script('{"t": 0.15, "drop": 1}', G), step=0.05, store_options=FAST)
    flow = rig.table.flow
    asked = []
    assert run_until(rig, lambda: asked.append(flow.view(rig.table.now()))
                     or (flow.match is not None and len(flow.match.results) >= 8), 300)
    assert any(getattr(v, "title", "") == "Before we start" and "between matches" in getattr(v, "text", "")
               for v in asked), "the table asked for the pads to be cleared"
    assert rig.out.mismatches == [] and rig.errors == [], rig.out.mismatches


def test_a_coin_after_the_last_one_landed_is_the_next_turn_even_before_its_verdict(tmp_path):
    """Found by a newcomer on a served board with `coindrel run`: 9 of 86 coins,
    each dropped 0.1-0.6 s after the previous one had come to rest, scored
    nothing as "extra coins": that coin's verdict had not come yet. Board time
    decides: a coin that went in after the last one's cascade ended is the next
    turn's drop; one that went in while it still fell is a second coin."""
    from coindrel.engine import drop
    from coindrel.events import EntryEvent
    from coindrel.reconcile.report import DropReport
    from coindrel.table.daemon import Table
    from coindrel.table.setupmenu import Choices
    from coindrel.table.store import MatchStore

    from .awkward import FAST, G

    def table_in_turn():
        table = Table(G, Choices(clock="off"), store=MatchStore(tmp_path / str(len(list(tmp_path.iterdir()))),
                                                              **FAST).open(), new_seed=lambda: 7)
        for press in ("select", "select", "select"):
            table.handle_action(press)
        assert table.flow.match.phase == "turn"
        return table

    def report(table, entry, t, t_end, n):
        m = table.flow.match
        o = drop(m.board, [entry])
        table.flow.on_report(DropReport(drop=n, entry=entry, entry_seen=True, t=t, expected_exits=o.exits,
                                        observed_exits=o.exits, verdict="ok", diagnosis=[], state=o.board.rows(),
                                        scored_exits=o.exits, t_end=t_end), table.now())
        table._after_flow()

    for second_at, scores in ((2.5, True), (1.2, False)):  # after coin 1 landed at 1.8 s; while it still fell
        table = table_in_turn()
        flow, m = table.flow, table.flow.match
        flow.on_event(EntryEvent(1.0, 2), table.now())
        flow.on_event(EntryEvent(second_at, 5), table.now())  # coin 1's verdict is not out yet
        report(table, 2, 1.0, 1.8, 1)
        assert [r.entry for r in m.results] == [2] and m.to_move == 2
        report(table, 5, second_at, second_at + 0.8, 2)
        if scores:
            assert [(r.entry, r.player) for r in m.results] == [(2, 1), (5, 2)], "the next turn's drop"
        else:
            assert [r.entry for r in m.results] == [2] and m.to_move == 2, "a second coin in Ann's turn"
            assert flow.note is not None and flow.note.title == "Extra coin"


def test_a_simulated_player_thinks_for_think_seconds_before_every_drop(tmp_path):
    """Found by a newcomer: with --think 4 the players dropped 0.2-1.5 s after
    each other's coin (the wait ran from the turn's screen, which stays up
    from turn to turn)."""
    rig = rig_for(tmp_path, seed=2, think=4.0, clock="off")
    flow = rig.table.flow
    times, drop = [], rig.board.drop

    def timed(entry):
        times.append(rig.board.now)
        return drop(entry)

    rig.board.drop = timed
    assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 6, 300)
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(gaps) >= 5 and all(g >= 4.0 for g in gaps), gaps


def test_a_handful_of_extra_coins_is_one_note_that_counts_them(tmp_path):
    """Found by a newcomer: after 8 coins at once only one note showed ("a
    second coin in entry 8"), though 7 extra coins were handled."""
    from coindrel.engine import drop
    from coindrel.events import EntryEvent
    from coindrel.reconcile.report import DropReport
    from coindrel.table.daemon import Table
    from coindrel.table.setupmenu import Choices
    from coindrel.table.store import MatchStore

    from .awkward import FAST, G

    table = Table(G, Choices(clock="off"), store=MatchStore(tmp_path, **FAST).open(), new_seed=lambda: 7)
    for press in ("select", "select", "select"):
        table.handle_action(press)
    flow, m = table.flow, table.flow.match
    for k, entry in enumerate((7, 7, 7, 7)):  # Ann's coin, then three more while it falls
        flow.on_event(EntryEvent(1.0 + 0.05 * k, entry), table.now())
    for k, entry in enumerate((7, 7, 7, 7)):
        o = drop(m.board, [entry])
        flow.on_report(DropReport(drop=k + 1, entry=entry, entry_seen=True, t=1.0 + 0.05 * k, expected_exits=o.exits,
                                  observed_exits=o.exits, verdict="ok", diagnosis=[], state=o.board.rows(),
                                  scored_exits=o.exits, t_end=3.0), table.now())
        table._after_flow()
    assert len(m.results) == 1 and m.to_move == 2
    assert flow.note.title == "3 extra coins" and "3 extra coins while Player 1's coin fell" in flow.note.text


def test_one_chattering_entry_beam_is_named_alone_and_every_drop_scores(tmp_path):
    """Found by a newcomer: with only entry 2's beam chattering, the table
    named five faults (halls, a stuck rocker, a jam) and scored drops "as
    predicted, its events lost": the chattered count waited as a second coin,
    and the next coin into entry 2 was taken for it."""
    rig = rig_for(tmp_path, seed=3, faults=("entry_sensor_chatter@entry 2,t=10",), matches=1, think=0.6, clock="30",
                  pause=2.0, reveal_seconds=3.0)  # the pace of `coindrel sim --fast`: the next turn's coin while asked
    assert run_until(rig, lambda: rig.players.finished.is_set(), 900)
    assert rig.errors == [] and rig.out.matches[-1].over
    said = [what for *_, what in rig.out.mismatches]
    assert said and all("Entry 2 counted one coin more than once" in s for s in said), said
    assert not [a for a in rig.out.alerts if "chatters" not in a[1]], rig.out.alerts
    named = {f["fault"] for f in rig.table.reconciler.health().faults}
    assert named == {"entry_sensor_chatter"}, named


def test_the_players_own_coin_just_before_back_is_their_drop_not_one_out_of_turn():
    """Found by a newcomer: `3 BSpace` (back a few ms after Ann's own coin, whose
    entry reached the table after the press) said "A coin came in out of turn,
    while the match was paused", though it was Ann's turn."""
    from coindrel.events import EntryEvent

    from .flowkit import make_flow, report_for, started

    flow = make_flow(players=("Ann", "Bo"))
    m = started(flow)
    flow.on_action("back", 2.0)
    assert flow.mode == "paused"
    flow.on_event(EntryEvent(1.99, 2), 2.01)  # in before the press, heard after it
    flow.on_report(report_for(m, 2, 1, t=1.99), 3.0)
    assert [r.player for r in m.results] == [1] and flow.mode == "mismatch"
    [fact] = flow.diagnosis.facts
    assert fact == "A coin went in as the match was paused: it counts as Ann's drop.", fact
    assert "out of turn" not in " ".join(flow.diagnosis.facts + flow.diagnosis.findings)


def _extra_coins_then_bo(bo_first: bool):
    """Ann's coin into entry 3 and two more into entry 6 while it fell; then
    Bo's coin into entry 5, in before the extra coins' reports or after."""
    from coindrel.events import EntryEvent

    from .flowkit import make_flow, report_for, started

    flow = make_flow(players=("Ann", "Bo"))
    m = started(flow)
    for t, entry in ((2.0, 2), (2.1, 5), (2.2, 5)):
        flow.on_event(EntryEvent(t, entry), t)
    flow.on_report(report_for(m, 2, 1, t=2.0), 3.0)
    assert m.to_move == 2
    if bo_first:
        flow.on_event(EntryEvent(3.1, 4), 3.1)
    for k in (2, 3):
        flow.on_report(report_for(m, 5, k, t=2.1), 3.2)
    assert flow.note.title == "2 extra coins" and len(m.results) == 1
    return flow, m


def test_the_extra_coins_note_never_names_a_turn_that_is_over():
    """Found by a newcomer: "2 extra coins ... Bo to drop." stayed on screen
    while Ann was to move: the note named the player to move when the extra
    coins' reports came, and stayed up (5 s) after Bo's drop."""
    from coindrel.events import EntryEvent

    from .flowkit import report_for

    flow, m = _extra_coins_then_bo(bo_first=False)
    assert flow.note.text.endswith("Bo to drop.") and m.to_move == 2  # true while it is Bo's turn
    flow.on_event(EntryEvent(3.5, 4), 3.5)
    flow.on_report(report_for(m, 4, 2, t=3.5), 4.0)
    assert m.to_move == 1 and len(m.results) == 2
    for now in (4.0, 4.1):  # as the drop is scored, and at the next tick
        if now > 4.0:
            flow.tick(now)
        v = flow.view(now)
        assert v.title == "2 extra coins" and "score nothing" in v.text, v  # still said, for its few seconds
        assert "Bo to drop" not in v.text and "to drop" not in v.text, v.text

    # Bo's coin already in when the extra coins' reports came: "Bo to drop" was wrong as it was shown
    flow, m = _extra_coins_then_bo(bo_first=True)
    assert "to drop" not in flow.note.text, flow.note.text


def test_a_press_that_puts_the_not_yet_note_away_never_carries_out_the_undo():
    """Found by a newcomer: `8`, then 0.12 s later `BSpace Right Enter` (pause
    menu, Undo) said "A coin is still falling. Undo once it has landed". The
    note stayed up after the coin landed and went by itself 5 s after the
    press: the press meant to put it away, a moment later, carried out the
    undo. The note stays until pressed, says what a press does once the coin
    is down, and that press only puts it away."""
    from coindrel.events import EntryEvent

    from .flowkit import make_flow, report_for, started

    flow = make_flow(players=("Ann", "Bo"))
    m = started(flow)
    flow.on_event(EntryEvent(2.0, 7), 2.0)
    for press in ("back", "next", "select"):
        flow.on_action(press, 2.12)
    assert flow.mode == "paused" and flow.note.title == "Not yet" and "still falling" in flow.note.text
    flow.tick(2.6)
    assert flow.note.title == "Not yet"  # the coin still falls
    flow.on_report(report_for(m, 7, 1, t=2.0), 3.2)
    flow.tick(3.2)
    assert len(m.results) == 1 and m.phase == "turn"
    v = flow.view(3.2)
    assert "still falling" not in v.text and "Undo" in v.text and "press" in v.text.lower(), v
    for now in (7.2, 8.0, 30.0):  # past the 5 s of a passing note: still up, as long as the players read it
        flow.tick(now)
        assert flow.view(now) == v
    flow.on_action("select", 30.0)
    assert len(m.results) == 1 and flow.mode == "paused" and flow.note is None, "the press only put the note away"
    flow.on_action("select", 31.0)  # now the menu's Undo, as the note said
    assert flow.mode == "restore" and m.results == []


def test_the_not_yet_note_passes_as_any_note_once_its_screen_is_gone():
    """The note holds only over the screen where it was shown (the pause menu,
    whose press would undo): a landing coin that takes the table on (its drop
    a mismatch, asked about) leaves it a passing note, gone in its few seconds."""
    from coindrel.events import EntryEvent

    from .flowkit import make_flow, report_for, started

    flow = make_flow(players=("Ann", "Bo"))
    m = started(flow)
    flow.on_event(EntryEvent(2.0, 7), 2.0)
    for press in ("back", "next", "select"):
        flow.on_action(press, 2.12)
    assert flow.note.title == "Not yet"
    odd = report_for(m, 7, 1, t=2.0, verdict="mismatch", diagnosis=[type("F", (), {"say": "R1S1 stuck?"})()])
    flow.on_report(odd, 3.2)
    flow.tick(3.2)
    assert flow.mode == "mismatch" and flow.note is not None
    flow.tick(3.2 + 5.0)
    assert flow.note is None and flow.view(8.2) is flow.diagnosis
