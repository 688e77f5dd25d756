"""The flow's mismatch screen and its answers (board is right, undo, correct the score),
revisions of earlier drops, and a mismatch on a match's last drop."""

import pytest

from coindrel.display import DiagnosisView, notice_text, page_count
from coindrel.engine import BoardState, drop
from coindrel.events import SwitchEvent
from coindrel.reconcile.report import DropReport
from coindrel.table import effects as fx
from coindrel.table.flow import TableFlow
from coindrel.table.setupmenu import Choices

from .flowkit import FLAT, G, choose, kinds, make_flow, report_for, started


def test_mismatch_pauses_shows_explanations_and_board_is_right_goes_on():
    flow = make_flow(board="LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    m = started(flow)
    # Entry 8 on a flat board reaches exit 16; the beam saw nothing.
    finding = type("F", (), {"say": "Exit 16 did not see a coin the cascade sent there."})()
    rep = report_for(m, 7, 1, verdict="mismatch", seen=(), diagnosis=[finding])
    flow.on_report(rep, 3.0)
    assert flow.mode == "mismatch"
    v = flow.view(3.0)
    assert isinstance(v, DiagnosisView) and v.findings[0].startswith("Exit 16")
    assert v.expected == (15,) and v.observed == ()
    assert m.totals == (2, 0)  # scored from the explained cascade, not the dead beam
    assert (fx.SOUND, "mismatch", None) in kinds(flow)
    left = m.remaining(3.0)
    assert m.remaining(30.0) == left  # the clock waits for the players
    choose(flow, "Board is right", 30.0)
    assert flow.mode == "turn" and m.remaining(31.0) == left - 1


def test_undo_after_a_mismatch_asks_to_put_the_board_back():
    flow = make_flow()
    m = started(flow)
    finding = type("F", (), {"say": "R1S1 stuck?"})()
    o = drop(m.board, [0])
    rep = report_for(m, 0, 1, verdict="mismatch", diagnosis=[finding])
    flow.on_report(rep, 2.0)
    choose(flow, "Undo last drop", 2.5)
    assert flow.mode == "restore" and m.results == [] and m.board.text() == FLAT
    assert any(e.kind == fx.BELIEF for e in flow.effects)
    text = flow.view(3.0).text
    assert o.board.has_coin("R1S1") and "Take coin off R1S1" in text
    flow.on_event(SwitchEvent(3.0, "R1S1", "L"), 3.0)
    flow.on_action("select", 4.0)
    assert flow.mode == "turn"


def test_correcting_the_score_of_the_last_drop():
    flow = make_flow()
    m = started(flow)
    finding = type("F", (), {"say": "Exit 16 did not see a coin."})()
    o = drop(m.board, [7])  # entry 8 on a flat board reaches exit 16
    rep = report_for(m, 7, 1, verdict="mismatch", seen=(), diagnosis=[finding])
    rep.scored_exits = ()  # suppose the reconciler could not tell: nothing scored
    flow.on_report(rep, 1.0)
    assert m.totals == (0, 0)
    choose(flow, "Correct score", 1.0)
    assert flow.mode == "correct"
    for _ in range(15):
        flow.on_action("next", 1.1)
    flow.on_action("select", 1.2)  # exit 16: one coin
    assert flow.view(1.2).items[15].value == "1"
    flow.on_action("hold-select", 1.3)  # done
    assert flow.mode == "turn" and m.totals == (2, 0) and m.results[-1].exits == (15,)
    assert len(m.results) == 1 and m.to_move == 2 and m.board.text() == o.board.text()


def test_the_mismatch_screen_says_what_differed_and_pages_through_the_whole_explanation():
    from coindrel.engine import HallFault, SwitchStuck
    from coindrel.reconcile.belief import Finding

    flow = make_flow()
    m = started(flow)
    rep = report_for(m, 2, 1, verdict="mismatch", diagnosis=[Finding(SwitchStuck("R3S2"), 0.6),
                                                              Finding(HallFault("R3S2"), 0.3)])
    rep.expected_flips = {"R1S3": 1, "R3S2": 1}
    rep.observed_flips = {"R1S3": 1, "R3S2": 0}  # the exits agree: only a flip differs
    flow.on_report(rep, 2.0)
    v = flow.view(2.0)
    assert v.facts == ("R3S2 should have flipped, but did not.",)
    pages = page_count(v)
    assert pages >= 3
    for k in range(1, pages):
        flow.on_action("next", 2.0 + k)
        assert flow.mode == "mismatch" and flow.view(3.0).page == k  # reading does not answer
    flow.on_action("prev", 9.0)
    assert flow.mode == "mismatch" and flow.view(9.0).page == pages - 2
    choose(flow, "Board is right", 10.0)
    assert flow.mode == "turn"


def test_a_press_before_the_board_is_put_back_says_what_is_left():
    """Found by a newcomer: the press changed nothing and said nothing."""
    flow = make_flow()
    m = started(flow)
    rep = report_for(m, 0, 1, verdict="mismatch", diagnosis=[type("F", (), {"say": "R1S1 stuck?"})()])
    flow.on_report(rep, 2.0)
    choose(flow, "Undo last drop", 2.5)
    flow.on_event(SwitchEvent(3.0, "R1S1", "R"), 3.0)  # the hall sees the drop's flip still there
    flow.note = None
    flow.on_action("select", 4.0)
    assert flow.mode == "restore" and flow.note is not None and flow.note.title == "Not yet"
    assert "R1S1" in flow.note.text and "Then press." in flow.note.text
    flow.note = None
    flow.on_event(SwitchEvent(5.0, "R1S1", "L"), 5.0)
    flow.on_action("select", 6.0)
    assert flow.mode == "turn"


def test_a_hall_that_never_sees_the_put_back_does_not_keep_the_table_in_restore():
    """A stuck hall sees its rocker on the old side for ever: "Not yet" each press
    kept the table there (no way on but killing it). Holding says it is done."""
    flow = make_flow()
    m = started(flow)
    rep = report_for(m, 0, 1, verdict="mismatch", diagnosis=[type("F", (), {"say": "R1S1 stuck?"})()])
    flow.on_report(rep, 2.0)
    choose(flow, "Undo last drop", 2.5)
    flow.on_event(SwitchEvent(3.0, "R1S1", "R"), 3.0)  # the hall still reads the drop's flip
    flow.note = None
    flow.on_action("select", 4.0)
    assert flow.mode == "restore" and flow.note.title == "Not yet" and "Hold" in flow.note.text
    flow.on_action("hold-select", 4.5)  # at once, over the note that asks for it
    assert flow.mode == "turn"
    assert not flow.asking


def test_undo_while_the_next_coin_falls_waits_for_it_to_land():
    """The put-back's hands met a coin still falling: its cascade and their
    flips were read as one drop, and parts were blamed for it."""
    flow = make_flow()
    m = started(flow)
    rep = report_for(m, 0, 1, verdict="mismatch", diagnosis=[type("F", (), {"say": "R1S1 stuck?"})()])
    flow.on_report(rep, 2.0)
    flow.on_event(SwitchEvent(2.2, "R1S1", "R"), 2.2)
    flow.on_entry(3, 2.3)  # the next coin goes in while the question is up
    choose(flow, "Undo last drop", 2.5)
    assert flow.note is not None and flow.note.title == "Not yet" and "still falling" in flow.note.text
    assert len(m.results) == 1 and flow.mode != "restore"
    assert flow.diagnosis is not None  # the question stays for when the coin has landed


def test_a_revision_of_an_earlier_drop_is_shown_on_the_same_paged_screen():
    from types import SimpleNamespace

    flow = make_flow()
    m = started(flow)
    say = "Earlier, exit 4 missed a coin. Exit 4 works now: a coin is probably stuck below R5S2; look there."
    record = SimpleNamespace(drop=None, revises=7, verdict="revised", t=9.0, events=[],
                             diagnosis=[type("F", (), {"say": say})()])
    flow.on_report(record, 9.0)
    v = flow.view(9.0)
    assert isinstance(v, DiagnosisView) and v.title == "About drop 7" and v.findings == (say,)
    assert m.totals == (0, 0) and not m.results  # a revision scores nothing
    assert "look there." in notice_text(v)


def test_a_revision_says_what_was_said_before_and_one_that_keeps_it_says_nothing():
    from types import SimpleNamespace

    flow = make_flow()
    m = started(flow)
    jam = type("F", (), {"say": "A coin is jammed below R2S1."})()
    stuck = type("F", (), {"say": "R3S2 did not flip: the rocker is stuck."})()
    flow.on_report(report_for(m, 0, 1, verdict="mismatch", diagnosis=[jam, stuck]), 2.0)
    choose(flow, "Board is right", 2.5)
    flow.note = None

    def revision(*findings):
        return SimpleNamespace(drop=None, revises=1, verdict="revised", t=9.0, events=[], diagnosis=list(findings))

    flow.on_report(revision(jam), 9.0)  # the same first explanation, surer: the log has it, the screen not
    assert flow.note is None
    flow.on_report(revision(stuck, jam), 10.0)
    v = flow.view(10.0)
    assert v.title == "About drop 1" and v.facts == ("Earlier it said: A coin is jammed below R2S1.",)
    assert "Likely: R3S2 did not flip" in notice_text(v)
    flow.note = None
    flow.on_report(revision(stuck), 11.0)  # what the last revision said, again
    assert flow.note is None


def _sensed_and_believed(flow, m):
    """A drop whose explanation left R3S4 and R4S4 (and a resting coin on R5S3) other
    than the hall sensors read them: the halls say the board is as a healthy drop left it."""
    o = drop(m.board, [3])
    for s, label in enumerate(G.labels):
        flow.on_event(SwitchEvent(1.0, label, "LR"[o.board.codes[s] & 1]), 1.0)
    flow.on_event(SwitchEvent(1.1, "R2S1", "mid"), 1.1)  # between sides: no word on where it is
    believed = bytearray(o.board.codes)
    for label in ("R3S4", "R4S4", "R2S1"):
        believed[G.labels.index(label)] ^= 1
    believed[G.labels.index("R5S3")] |= 2  # a resting coin the explanation supposes: nothing senses it
    finding = type("F", (), {"say": "R3S4's hall sensor reads wrong."})()
    rep = DropReport(drop=1, entry=3, entry_seen=True, t=1.0, expected_exits=o.exits, observed_exits=o.exits,
                     verdict="mismatch", diagnosis=[finding], state=BoardState(G, bytes(believed)).rows(),
                     scored_exits=o.exits)
    flow.on_report(rep, 2.0)
    assert flow.mode == "mismatch"
    return o.board, bytes(believed)


def test_board_is_right_believes_the_switches_as_the_halls_read_them():
    flow = make_flow()
    m = started(flow)
    sensed, believed = _sensed_and_believed(flow, m)
    assert m.board.codes == believed
    kinds(flow)
    choose(flow, "Board is right", 3.0)
    assert flow.mode == "turn"
    want = bytearray(sensed.codes)
    want[G.labels.index("R5S3")] |= 2  # the supposed coin stays: the players said nothing of pads
    r2s1 = G.labels.index("R2S1")
    want[r2s1] = believed[r2s1]  # a rocker between sides keeps its believed side
    assert bytes(m.board.codes) == bytes(want)
    beliefs = [e for e in flow.effects if e.kind == fx.BELIEF]
    assert len(beliefs) == 1 and bytes(beliefs[0].data.codes) == bytes(want)  # the reconciler is told too
    assert beliefs[0].halls_right  # and that the halls are right: it keeps an explanation that agrees with them
    assert any(e.get("do") == "board" for e in m.log)  # journalled: a restart believes it too


@pytest.mark.parametrize("confidence, first, kept", [(0.9, True, True), (0.6, True, True), (0.5, True, True),
                                                     (0.9, False, True), (0.4, False, False)])
def test_board_is_right_keeps_a_hall_the_diagnosis_holds_lying(confidence, first, kept):
    """Found by a newcomer (sim --fault hall_fault@R4S1,mode=inverted ended
    "Faults named: jam at R4S1 right outlet"): "Board is right" is also the
    back button, and players see rockers, not sensors; a hall the diagnosis
    on screen is sure of lying, or names lying first, keeps the side the
    cascade proved (a newcomer's hall_fault@R2S3,mode=stuck tied with a
    stuck rocker at 0.5: "Board is right" took the lying reading, believed
    R2S3 right with a coin on it, the rocker left, and the next mismatch was
    blamed on a jam). A hall fault named after a likelier explanation, and
    not sure, is the players' to deny."""
    from coindrel.engine import HallFault, SwitchStuck
    from coindrel.reconcile.belief import Finding

    flow = make_flow()
    m = started(flow)
    o = drop(m.board, [3])
    for s, label in enumerate(G.labels):
        flow.on_event(SwitchEvent(1.0, label, "LR"[o.board.codes[s] & 1]), 1.0)
    believed = bytearray(o.board.codes)
    r3s4 = G.labels.index("R3S4")
    believed[r3s4] ^= 1  # the cascade proved R3S4 on the other side than its hall reads
    hall, other = Finding(HallFault("R3S4"), confidence), Finding(SwitchStuck("R3S4"), 1.0 - confidence)
    diagnosis = [hall, other] if first else [other, hall]
    rep = DropReport(drop=1, entry=3, entry_seen=True, t=1.0, expected_exits=o.exits, observed_exits=o.exits,
                     verdict="mismatch", diagnosis=diagnosis,
                     state=BoardState(G, bytes(believed)).rows(), scored_exits=o.exits)
    flow.on_report(rep, 2.0)
    kinds(flow)
    choose(flow, "Board is right", 3.0)
    assert flow.mode == "turn"
    assert m.board.codes[r3s4] == (believed[r3s4] if kept else o.board.codes[r3s4])
    others = [s for s in range(G.switch_count) if s != r3s4]
    assert [m.board.codes[s] for s in others] == [o.board.codes[s] for s in others]


def test_board_is_right_without_hall_sensors_keeps_the_explained_board():
    flow = TableFlow(G, Choices(), new_seed=lambda: 1234, read_board=lambda: BoardState.parse(FLAT), has_halls=False)
    m = started(flow)
    _, believed = _sensed_and_believed(flow, m)
    kinds(flow)
    choose(flow, "Board is right", 3.0)
    assert flow.mode == "turn" and bytes(m.board.codes) == believed
    assert not [e for e in flow.effects if e.kind == fx.BELIEF]


def _to_the_last_drop(flow):
    """A clock-off match played with healthy drops until the next coin ends it; that coin's entry."""
    import copy

    m = started(flow)
    n, now = 0, 2.0

    def ends(entry):
        trial = copy.deepcopy(m)
        trial.coin_seen()
        return trial.play(entry).over

    steps = 0
    while not (m.phase == "turn" and ends(n % 8)):
        steps += 1
        assert steps < 400, f"no way to the last drop: mode {flow.mode}, phase {m.phase}"
        if flow.mode in ("reveal", "round-result"):
            flow.on_action("select", now)
            continue
        flow.on_entry(n % 8, now)
        n += 1
        flow.on_report(report_for(m, (n - 1) % 8, n), now + 0.5)
        now += 1
    kinds(flow)
    return m, n % 8, now


@pytest.mark.parametrize("answer", ["Board is right", "Correct score", "Correct score, cancelled"])
def test_a_mismatched_last_drop_files_the_match_as_it_ends_and_a_correction_reopens_it(answer):
    """The match is filed as it ends (the history and ``ctl status`` agree at
    once; it waited for the last mismatch's answer). Correcting the last drop
    reopens it, and it is filed again when it ends again."""
    flow = make_flow(clock="off")
    m, entry, now = _to_the_last_drop(flow)
    finding = type("F", (), {"say": "Exit 16 did not see a coin."})()
    flow.on_entry(entry, now)
    flow.on_report(report_for(m, entry, len(m.results) + 1, verdict="mismatch", seen=(), diagnosis=[finding]), now)
    assert m.over and flow.mode == "mismatch"
    ends = lambda got: [k for k in got if k[0] in (fx.END_MATCH, fx.REOPEN_MATCH)]  # noqa: E731
    assert ends(kinds(flow)) == [(fx.END_MATCH, "finished", None)]
    flow.tick(now + 60)  # however long the players take
    assert flow.mode == "mismatch" and not ends(kinds(flow))
    choose(flow, answer.split(",")[0], now + 61)
    if answer.startswith("Correct"):
        assert flow.mode == "correct" and ends(kinds(flow)) == [(fx.REOPEN_MATCH, "", None)]
        flow.on_action("back" if "cancelled" in answer else "hold-select", now + 62)
        assert m.over and flow.mode == "round-result"
        assert ends(kinds(flow)) == [(fx.END_MATCH, "finished", None)]  # filed again, with what it scores now
    assert m.over and flow.mode == "round-result" and not ends(kinds(flow))
    flow.tick(now + 70)
    flow.on_action("select", now + 71)
    assert flow.mode == "result" and not ends(kinds(flow))


def test_undoing_the_last_drop_of_a_filed_match_reopens_it():
    flow = make_flow(clock="off")
    m, entry, now = _to_the_last_drop(flow)
    finding = type("F", (), {"say": "Exit 16 did not see a coin."})()
    flow.on_entry(entry, now)
    flow.on_report(report_for(m, entry, len(m.results) + 1, verdict="mismatch", seen=(), diagnosis=[finding]), now)
    assert [k for k in kinds(flow) if k[0] == fx.END_MATCH] == [(fx.END_MATCH, "finished", None)]
    choose(flow, "Undo last drop", now + 1)
    assert not m.over and [k for k in kinds(flow) if k[0] == fx.REOPEN_MATCH] == [(fx.REOPEN_MATCH, "", None)]


def test_events_lost_asked_during_a_question_waits_for_the_turn_screen_and_a_press_clears_it():
    """Found by a newcomer: "Events lost" asked while the mismatch question was
    up stayed in ctl status for good, and never reached the screen."""
    from coindrel.display import MessageView

    flow = make_flow(board="LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    m = started(flow)
    finding = type("F", (), {"say": "Exit 16 did not see a coin the cascade sent there."})()
    flow.on_report(report_for(m, 7, 1, verdict="mismatch", seen=(), diagnosis=[finding]), 3.0)
    assert flow.mode == "mismatch"
    flow.ask(MessageView("Events lost", "Board events are lost. Check the board.", alert=True))
    assert isinstance(flow.view(3.5), DiagnosisView)  # the question stays on top
    choose(flow, "Board is right", 4.0)
    assert flow.mode == "turn"
    v = flow.view(4.5)
    assert getattr(v, "title", None) == "Events lost"
    flow.on_action("select", 5.0)
    assert flow.message is None and getattr(flow.view(5.5), "title", None) != "Events lost"


def test_an_undo_pressed_before_the_board_is_heard_up_to_it_waits_for_a_coin_just_in():
    """A coin that went in just before the undo press was not yet known to
    the table (the hub's frame comes a moment later): the undo went ahead, and
    that coin's cascade mixed with the put-back's hands. The press waits until
    the board is heard past it; a coin before it is the drop still falling."""
    from coindrel.events import EntryEvent

    flow = make_flow()
    m = started(flow)
    rep = report_for(m, 0, 1, verdict="mismatch", diagnosis=[type("F", (), {"say": "R1S1 stuck?"})()])
    flow.on_report(rep, 2.0)
    flow.tick(2.4, 2.4, heard=2.35)  # the hub has vouched for its board up to 2.35
    choose(flow, "Undo last drop", 2.5)
    assert flow.mode == "mismatch" and len(m.results) == 1  # held: the board is not heard up to the press
    flow.on_event(EntryEvent(2.45, 3), 2.55)  # the next coin went in before the press
    flow.tick(2.6, 2.6, heard=2.58)
    assert flow.note is not None and "still falling" in flow.note.text
    assert len(m.results) == 1 and flow.mode != "restore" and flow.diagnosis is not None


def test_a_held_undo_goes_ahead_once_the_board_is_heard_past_the_press():
    flow = make_flow()
    m = started(flow)
    rep = report_for(m, 0, 1, verdict="mismatch", diagnosis=[type("F", (), {"say": "R1S1 stuck?"})()])
    flow.on_report(rep, 2.0)
    flow.tick(2.4, 2.4, heard=2.35)
    choose(flow, "Undo last drop", 2.5)
    flow.tick(2.55, 2.55, heard=2.45)
    assert flow.mode == "mismatch" and len(m.results) == 1  # still not heard up to 2.5
    flow.tick(2.6, 2.6, heard=2.58)
    assert flow.mode == "restore" and m.results == []
    hands = [e for e in flow.effects if e.kind == fx.HANDS]
    assert hands and hands[-1].on and hands[-1].steps  # the list goes to the reconciler with the hands


def test_a_coin_in_during_the_put_back_ends_it_and_the_turn_goes_on():
    from coindrel.events import EntryEvent

    flow = make_flow()
    m = started(flow)
    rep = report_for(m, 0, 1, verdict="mismatch", diagnosis=[type("F", (), {"say": "R1S1 stuck?"})()])
    flow.on_report(rep, 2.0)
    choose(flow, "Undo last drop", 2.5)
    assert flow.mode == "restore" and flow.restore
    flow.on_event(EntryEvent(3.0, 4), 3.0)  # dropped before the press
    assert flow.mode == "turn" and not flow.restore and m.phase == "falling"
    flow.on_action("select", 3.1)  # the put-back's press, too late: nothing is believed put back
    assert not [e for e in flow.effects if e.kind == fx.BELIEF and e.by_hand]
    flow.on_report(report_for(m, 4, 1), 4.0)
    assert len(m.results) == 1 and flow.mode == "mismatch"
    assert "before the board was put back" in " ".join(flow.diagnosis.facts)
