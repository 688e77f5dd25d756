"""``coindrel ctl status`` read by a person: the winner by name, and what a
screen that waits for an answer is about."""

from __future__ import annotations

import json

import pytest

from coindrel.table import control


def test_status_names_the_winner_and_says_what_a_flagged_drop_waits_for(tmp_path, capsys):
    """``winner`` was the player's number (1, 2); a drop the reconciler found
    right but the table flagged (a coin out of turn) kept the status at mode
    "mismatch" while the history counted 0 mismatches, with nothing saying why."""
    from coindrel.commands.ctl import human
    from coindrel.table.modes import Mode

    from .awkward import rig_for, run_until

    rig = rig_for(tmp_path, matches=1, seed=3)
    try:
        flow = rig.table.flow
        assert run_until(rig, lambda: flow.mode is Mode.ROUND_RESULT and not flow.match.over, 1500)
        rig.board.drop(4)  # a coin while the round's result is on the screen: out of turn
        assert run_until(rig, lambda: flow.mode is Mode.MISMATCH, 60)
        st = control.status_of(rig.table)
        a = st["asking"]
        assert st["mode"] == "mismatch" and a is not None and a["drop"] == st["drops"]
        assert any("out of turn" in f for f in a["facts"]) and a["board_mismatch"] is (bool(a["findings"]))
        assert "press back" in a["answer"] and "Board is right" in a["answers"]
        text = human(json.loads(json.dumps(st, default=str)))
        assert f"Waiting for an answer about drop {st['drops']}" in text and "out of turn" in text
        assert run_until(rig, lambda: flow.match is not None and flow.match.over, 3000)
        st = control.status_of(rig.table)
        m = flow.match
        want = "draw" if m.winner == "draw" else m.setup.players[m.winner - 1]
        assert st["over"] and st["winner"] == want and isinstance(st["winner"], str)
        assert "match over, " in human(json.loads(json.dumps(st, default=str)))
    finally:
        rig.close()


def test_the_history_says_an_over_match_waits_for_its_last_answer():
    """A match over whose last drop's mismatch screen is still up is filed
    once that is answered (an undo there plays on in the same journal); the
    history said "in progress, round 4" while the status said over."""
    from coindrel.commands.history import _outcome
    from coindrel.table.history import MatchSummary

    s = MatchSummary(1, "0001-x", "in progress", players=("Ann", "Bo"), totals=(30, 12), round=4, winner=1)
    assert _outcome(s) == "over (Ann wins), the last drop waits for an answer on the table"
    assert _outcome(MatchSummary(1, "0001-x", "in progress", round=2)) == "in progress, round 2"


def test_status_while_the_players_correct_a_score_says_how():
    from coindrel.commands.ctl import human

    from .flowkit import choose, make_flow, report_for, started

    flow = make_flow(clock="off")
    m = started(flow)
    finding = type("F", (), {"say": "Exit 16 did not see a coin."})()
    flow.on_entry(3, 1.0)
    flow.on_report(report_for(m, 3, 1, verdict="mismatch", seen=(), diagnosis=[finding]), 1.5)
    a = control.asking(flow)
    assert a["board_mismatch"] is True and a["findings"] == ["Exit 16 did not see a coin."]
    choose(flow, "Correct score", 2.0)
    a = control.asking(flow)
    assert a["screen"] == "correct" and a["drop"] == 1 and "hold is done" in a["answer"]
    st = {"link": {"up": True, "detail": ""}, "round": None, "mode": "correct", "asking": a}
    assert "the players count its coins" in human(st)


def test_status_says_which_answer_is_marked_and_what_the_restore_screen_lists():
    """Found by a newcomer: on a mismatch a remote user could not see which
    answer select would choose ("right reads on page by page" meant counting
    pages blind), and after choosing Undo the restore screen had "asking" and
    "message" both null: nothing said what to put back."""
    from .flowkit import make_flow, report_for, started

    flow = make_flow(clock="off")
    m = started(flow)
    finding = type("F", (), {"say": "R1S4 should have flipped, but did not."})()
    flow.on_entry(3, 1.0)
    flow.on_report(report_for(m, 3, 1, verdict="mismatch", seen=(), diagnosis=[finding]), 1.5)
    a = control.asking(flow)
    assert a["page"] == 1 and a["pages"] >= 2 and a["marked"] is None  # still on the words
    flow.on_action("select", 2.0)  # a press on the words goes to the answers
    a = control.asking(flow)
    assert a["page"] == a["pages"] and a["marked"] == a["answers"][0]
    while control.asking(flow)["marked"] != "Undo last drop":
        flow.on_action("next", 2.1)
    flow.on_action("select", 2.2)
    assert flow.mode == "restore" and flow.restore  # drop 1 flipped a switch: it goes back by hand
    a = control.asking(flow)
    assert a["screen"] == "restore" and a["title"] == "Put the board back"
    assert a["drop"] == 1, "the drop undone (a newcomer read 'about drop 2' after undoing drop 3)"
    assert a["facts"] == [step.text for step in flow.restore] and "press select" in a["answer"]


def test_status_shows_a_passing_note_that_takes_the_next_press():
    """Found by a newcomer: with a note up ("Not a drop", "Events lost") ctl
    presses seemed swallowed: the note took them, and the status said nothing."""
    from coindrel.display import MessageView

    from .flowkit import make_flow, started

    flow = make_flow(clock="off")
    started(flow)
    table = type("T", (), {"flow": flow, "now": staticmethod(lambda: 5.0), "journal": None, "reconciler": None,
                           "reports": 0})()
    flow.note, flow.note_until = MessageView("Events lost", "Check the board."), 10.0
    st = control.status_of(table)
    assert st["note"]["title"] == "Events lost" and "next press puts this note away" in st["note"]["press"]
    flow.note_until = 4.0
    assert control.status_of(table)["note"] is None


def test_new_match_on_the_last_round_s_result_says_how_to_go_on(tmp_path):
    """Found by a newcomer: `coindrel ctl new-match` on the final result screen
    said "go back to the menu first" without saying how."""
    from coindrel.table.modes import Mode

    from .awkward import rig_for, run_until

    rig = rig_for(tmp_path, matches=1, seed=3)
    try:
        flow = rig.table.flow
        assert run_until(rig, lambda: flow.match is not None and flow.match.over, 3000)
        assert flow.mode is Mode.ROUND_RESULT
        with pytest.raises(control.RequestError) as e:
            control.handle(rig.table, {"cmd": "new-match", "players": ["Cy", "Di"]})
        assert "'round-result' screen" in str(e.value) and "`coindrel ctl press select` shows the match result" in str(e.value)
        control.handle(rig.table, {"cmd": "press", "button": "select"})  # as the message says
        assert flow.mode is Mode.RESULT
        answer = control.handle(rig.table, {"cmd": "new-match", "players": ["Cy", "Di"], "pads_clear": True})
        assert answer["status"]["players"] == ["Cy", "Di"] and not flow.match.over
    finally:
        rig.close()


@pytest.mark.parametrize("mode, words", [
    ("rules", "`coindrel ctl press back` (again until `coindrel ctl status` says menu)"),
    ("mismatch", "answer the table's question first"),
])
def test_every_screen_new_match_refuses_says_how_to_leave_it(mode, words):
    assert words in control._to_menu(mode)


def test_status_shows_the_panels_list_and_the_board_check_before_a_match():
    """Found by a newcomer: the pause menu and its mark, the coins counted
    while correcting, and the pads / Holes check before a match were not in
    ``ctl status`` at all (``asking`` null)."""
    from .flowkit import make_flow, started

    flow = make_flow(clock="off")
    table = type("T", (), {"flow": flow, "now": staticmethod(lambda: 5.0), "journal": None, "reconciler": None,
                           "reports": 0})()
    flow.on_entry(2, 1.0)  # a coin at the menu
    flow.start_match(2.0)
    st = control.status_of(table)
    assert st["asking"]["screen"] == "before start" and "off the pads" in st["asking"]["facts"][0]
    assert "--pads-clear" in st["asking"]["answer"] and st["menu"] is None  # the question is over the menu
    flow.on_action("select", 3.0)  # the pads are clear
    flow.on_action("select", 4.0)  # the reveal
    assert flow.mode == "turn"
    flow.on_action("back", 4.5)  # the pause menu
    st = control.status_of(table)
    assert st["menu"]["title"] == "Paused" and st["menu"]["marked"] == st["menu"]["items"][0]
    assert "Undo last drop" in st["menu"]["items"]
    flow.on_action("next", 4.6)
    assert control.status_of(table)["menu"]["marked"] == st["menu"]["items"][1]


def test_the_text_status_words_each_wait_and_the_panels_list():
    from coindrel.commands.ctl import human

    base = {"mode": "menu", "link": {"up": True, "detail": None}, "round": None, "message": None, "note": None,
            "faults": []}
    before = {"screen": "before start", "drop": None, "title": "Before we start", "board_mismatch": None,
              "findings": [], "facts": ["Take every coin off the pads, then press."], "answers": [],
              "answer": "do as it says on the board, then coindrel ctl press select"}
    text = human({**base, "asking": before, "menu": None})
    assert "Waiting before the match starts (before we start):" in text and "drop None" not in text
    restore = dict(before, screen="restore", drop=3, title="Put the board back")
    assert "Waiting for the board to be put back (drop 3 was undone):" in human({**base, "asking": restore})
    menu = {"title": "Paused", "items": ["Resume", "Undo last drop"], "marked": "Undo last drop", "press": "p"}
    assert "Paused: Resume, [Undo last drop]" in human({**base, "asking": None, "menu": menu})


def test_the_board_check_lists_every_pad_to_clear():
    """Found by a newcomer: "Take the coins off R1S1, R1S4, R1S5, R1S6 and 12
    more" was all ``asking`` said; and the menu's status had no "board"."""
    from coindrel.engine import BoardState

    from .flowkit import make_flow, started

    flow = make_flow(clock="off")
    m = started(flow)
    full = BoardState.parse("llllllll/lllllll/LLLLLLLL/LLLLLLL/LLLLLLLL")
    from coindrel.table.modes import Mode

    flow.last_board = full  # a match ended with these pads full
    flow.match = None
    flow._go(Mode.MENU, 4.0)
    flow.start_match(5.0)
    table = type("T", (), {"flow": flow, "now": staticmethod(lambda: 5.0), "journal": None, "reconciler": None,
                           "reports": 0})()
    st = control.status_of(table)
    assert "and 11 more" in st["asking"]["facts"][0], st["asking"]["facts"]
    assert len(st["asking"]["facts"]) == 1 + 15 and "board" in st and st["board"] is None
    del m


def test_status_says_which_entry_the_clock_chose_when_it_ran_out():
    """Found by a newcomer: with no dropper, a turn whose clock ran out shows
    "Time! Entry 3" on the panel, and ``ctl status`` said nothing of it."""
    from coindrel.commands.ctl import human

    from .flowkit import make_flow, started

    flow = make_flow(clock="30")
    m = started(flow)
    table = type("T", (), {"flow": flow, "now": staticmethod(lambda: 60.0), "journal": None, "reconciler": None,
                           "reports": 0})()
    assert control.status_of(table)["forced_entry"] is None
    for t in range(2, 40):
        flow.tick(float(t))
    assert m.forced_entry is not None
    st = control.status_of(table)
    assert st["forced_entry"] == m.forced_entry + 1
    assert f"into entry {m.forced_entry + 1} (the clock ran out and chose it)" in human(json.loads(json.dumps(st)))


def test_the_text_status_says_how_sure_each_fault_is_and_since_when():
    from coindrel.commands.ctl import human

    base = {"mode": "turn", "link": {"up": True, "detail": None}, "round": None, "message": None, "note": None,
            "asking": None, "menu": None}
    stuck = {"fault": "switch_stuck", "where": "R3S2", "confidence": 0.9, "first_drop": 11, "last_drop": 21,
             "say": "R3S2 did not flip when a coin passed its lever: the rocker is stuck."}
    once = dict(stuck, confidence=0.47, first_drop=4, last_drop=4)
    text = human({**base, "faults": [stuck, once, {"error": "busy"}]})
    assert "Fault (90%, drops 11-21): R3S2 did not flip" in text
    assert "Fault (47%, drop 4): R3S2" in text
    assert "Fault: {'error': 'busy'}" in text  # what the table could not say is still shown, unpadded


def test_status_says_the_seconds_left_on_the_turn_clock_beside_its_setting():
    """Found by a newcomer: `clock` was always 30.0, the setting."""
    from .flowkit import make_flow, started

    flow = make_flow(clock="30")
    started(flow)
    now = [3.0]
    table = type("T", (), {"flow": flow, "now": staticmethod(lambda: now[0]), "journal": None, "reconciler": None,
                           "reports": 0})()
    first = control.status_of(table)
    now[0] = 13.0
    later = control.status_of(table)
    assert first["clock"] == later["clock"] == 30.0
    assert first["clock_left"] is not None and later["clock_left"] == first["clock_left"] - 10.0


def test_a_press_prints_the_words_on_the_notice_s_page_as_the_status_does(capsys):
    """Found by a newcomer: `coindrel ctl press right` on a mismatch printed
    only "page 2 of 7"; the text status and the JSON must say the same."""
    from coindrel.commands import ctl
    from coindrel.display.render import panel
    from coindrel.display.screens_notice import text_pages

    from .flowkit import make_flow, report_for, started

    flow = make_flow(clock="off")
    m = started(flow)
    findings = [type("F", (), {"say": f"Reason {k}: R{k}S1 did not flip when a coin passed its lever."})()
                for k in range(1, 6)]
    flow.on_entry(3, 1.0)
    flow.on_report(report_for(m, 3, 1, verdict="mismatch", seen=(), diagnosis=findings), 1.5)
    table = type("T", (), {"flow": flow, "now": staticmethod(lambda: 2.0), "journal": None, "reconciler": None,
                           "reports": 0, "handle_action": staticmethod(lambda action: flow.on_action(action, 2.0))})()
    answer = control.handle(table, {"cmd": "press", "button": "right"})
    a = answer["status"]["asking"]
    pages = text_pages(flow.diagnosis, panel(tuple(flow.panel_size)))
    assert a["page"] == 2 and a["pages"] > 2 and a["page_text"] == " ".join(pages[1])
    assert a["facts"], "the panel's first words (the exits) are in the status too"
    text = ctl.human(json.loads(json.dumps(answer["status"], default=str)))
    assert f"  page 2 of {a['pages']}" in text and f"on the panel now: {a['page_text']}" in text
    for x in (*a["facts"], *a["findings"]):
        assert x in text
    while control.asking(flow)["page"] < a["pages"]:
        control.handle(table, {"cmd": "press", "button": "right"})
    last = control.asking(flow)
    assert last["page_text"] == "answers: " + ", ".join(
        f"[{o}]" if o == last["marked"] else o for o in last["answers"])
