"""The flow's other modes: keyed drops, boards without hall sensors, hints,
solo play and lessons."""

from coindrel.display import LessonView, MatchView, MenuView, MessageView, render
from coindrel.engine import BoardState, drop, standard_geometry
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile.report import DropReport
from coindrel.table import effects as fx
from coindrel.table.flow import TableFlow
from coindrel.table.setupmenu import Choices

G = standard_geometry()
FLAT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def flow_for(board=FLAT, **kw):
    choices = kw.pop("choices", Choices(clock="off"))
    return TableFlow(G, choices, new_seed=lambda: 7, read_board=lambda: BoardState.parse(board) if board else None, **kw)


def start(flow, now=0.0):
    flow.on_action("select", now)
    flow.on_action("select", now)
    assert flow.mode == "turn"
    return flow.match


def test_keyed_drops_on_a_board_without_sensors():
    flow = flow_for(board=None, keyed=True, has_halls=False, has_beams=False)
    flow.on_action("select", 0)
    v = flow.view(0)
    assert isinstance(v, MessageView) and "pad to the left" in v.text  # nothing senses the rockers
    flow.on_action("select", 1)  # done: start
    assert flow.mode == "reveal" and flow.match.board.text() == FLAT
    flow.on_action("select", 2)
    m = flow.match
    assert flow.view(2).status == "Entry 1? turn, press"
    flow.on_action("next", 3)
    flow.on_action("next", 3)
    assert flow.view(3).status == "Entry 3? turn, press"
    flow.on_action("select", 4)
    assert m.results[0].entry == 2 and m.results[0].player == 1
    assert m.board.text() == drop(BoardState.parse(FLAT), [2]).board.text()


def test_hold_select_shows_the_think_ahead_hint():
    flow = flow_for()
    start(flow)
    flow.on_action("hold-select", 1.0)
    v = flow.view(1.0)
    assert isinstance(v, MessageView) and v.title == "Think ahead" and v.text.startswith("Best: entry ")
    assert v.clock is None  # no clock, none shown
    flow.tick(20.0)
    assert isinstance(flow.view(20.0), MatchView)


def test_the_hint_keeps_the_turn_clock_in_sight_and_ends_with_the_turn():
    # Turbo: 5 s a turn, and the hint used to cover it all, clock hidden, for 8 s.
    flow = flow_for(choices=Choices(clock="turbo"))
    m = start(flow, 0.0)
    flow.on_action("hold-select", 1.0)
    v = flow.view(1.0)
    assert isinstance(v, MessageView) and "entry" in v.text
    assert getattr(v, "clock", None) == m.remaining(1.0) and v.clock <= 5
    flow.tick(3.0)
    assert flow.view(3.0).clock == m.remaining(3.0) < v.clock  # it keeps counting
    img = render(flow.view(3.0))
    assert img.crop((100, 0, 127, 11)).getbbox() is not None  # drawn in the title bar's corner
    flow.tick(6.0)  # the clock runs out: the entry it chose must be seen, not the hint
    flow.tick(6.1)
    assert m.forced_entry is not None
    after = flow.view(6.1)
    assert isinstance(after, MatchView) and f"entry {m.forced_entry + 1}" in after.status


def test_the_hint_goes_when_its_coin_goes_in():
    flow = flow_for(choices=Choices(clock="60"))
    m = start(flow, 0.0)
    flow.on_action("hold-select", 1.0)
    o = drop(m.board, [0])
    flow.on_event(EntryEvent(2.0, 0), 2.0)
    flow.on_report(DropReport(drop=1, entry=0, entry_seen=True, t=2.0, expected_exits=o.exits, observed_exits=o.exits,
                              state=o.board.rows(), scored_exits=o.exits), 3.0)
    flow.tick(3.1)
    assert isinstance(flow.view(3.1), MatchView) and m.to_move == 2  # the next player's turn, uncovered


def test_solo_play_asks_a_person_to_drop_the_computers_coin():
    choices = Choices(clock="off", opponent="medium")
    flow = flow_for(choices=choices)
    m = start(flow)
    assert m.setup.players[1] == "Coindrel medium"
    o = drop(m.board, [0])
    flow.on_event(EntryEvent(1.0, 0), 1.0)
    flow.on_report(DropReport(drop=1, entry=0, entry_seen=True, t=1.0, expected_exits=o.exits, observed_exits=o.exits,
                              state=o.board.rows(), scored_exits=o.exits), 2.0)
    flow.effects.clear()
    flow.tick(2.1)  # the computer's turn: it chooses, and asks for its coin
    assert flow.computer is not None
    entry = flow.computer.entry
    assert (fx.LED, "blink", entry) in [(e.kind, e.name, e.entry) for e in flow.effects]
    assert flow.view(2.2).status == f"Drop my coin: entry {entry + 1}"
    wrong = (entry + 1) % 8
    flow.on_event(EntryEvent(3.0, wrong), 3.0)
    assert "went in entry" in flow.view(3.0).text


def test_solo_with_a_dropper_drops_by_itself():
    flow = flow_for(choices=Choices(clock="off", opponent="easy"), has_dropper=True)
    m = start(flow)
    m.record(0, [], None, 1.0)  # the person's drop
    flow.effects.clear()
    flow.tick(1.5)
    drops = [e for e in flow.effects if e.kind == fx.DROP]
    assert len(drops) == 1 and drops[0].entry == flow.computer.entry


def test_a_lesson_runs_from_the_menu_on_board_events():
    flow = flow_for()
    while flow.menu.selected != 9:  # Learn by playing
        flow.on_action("next", 0)
    flow.on_action("select", 0)
    assert flow.mode == "lessons" and isinstance(flow.view(0), MenuView)
    flow.on_action("select", 0)
    assert flow.mode == "lesson"
    v = flow.view(0)
    assert isinstance(v, LessonView) and v.step == 1
    lesson = flow.runner.lesson
    # Set every switch the step asks for, as the hall sensors would report it.
    for label, want in flow.runner.step.required:
        flow.on_event(SwitchEvent(0.1, label, want), 0.1)
    for _ in range(3):
        if flow.runner.phase in ("coins",):
            flow.on_action("select", 0.2)
    assert flow.runner.phase == "drop", flow.runner.phase
    entry = flow.runner.prompt.entry
    board = flow.runner.prompt.board
    o = drop(board, [entry])
    flow.on_event(EntryEvent(1.0, entry), 1.0)
    t = 1.1
    for s in o.flipped:
        flow.on_event(SwitchEvent(t, G.labels[s], "mid"), t)
        t += 0.02
    after = o.board
    for s in set(o.flipped):
        flow.on_event(SwitchEvent(t, G.labels[s], "LR"[after.codes[s] & 1]), t)
    for x in o.exits:
        flow.on_event(ExitEvent(t + 0.1, x), t + 0.1)
    flow.tick(10.0, board_now=10.0)
    assert flow.runner.phase == "explain" and flow.runner.prompt.matched is not False
    assert lesson.title
    for _ in range(40):
        if flow.mode != "lesson":
            break
        flow.on_action("back", 11.0)
    assert flow.mode == "lessons"


def test_the_pads_question_stays_until_answered_when_the_holes_one_comes_between():
    """Found by a newcomer: coins dropped at the menu, then Start (asks to take
    every coin off the pads), then Holes on and Start again: the Holes
    question replaced the pads one, and the press that answered it counted
    as the pads cleared: the match began believing full pads empty."""
    from coindrel.engine import BoardState
    from coindrel.table.flow import TableFlow
    from coindrel.table.setupmenu import Choices

    from .flowkit import FLAT, G

    board = {"text": FLAT}
    flow = TableFlow(G, Choices(), new_seed=lambda: 1, read_board=lambda: BoardState.parse(board["text"]))
    flow.on_entry(3, 0.0)  # a coin at the menu: it may rest on a pad
    flow.start_match(1.0)
    assert flow.match is None and "take every coin off the pads" in flow.message.text
    flow.message = None  # (a ctl new-match asks again with other choices)
    flow.menu.choices.variants = flow.menu.choices.variants.replace(holes=True)
    flow.start_match(2.0)
    assert flow.match is None and flow.message.text.startswith("Holes: take out")
    b = BoardState.parse(FLAT)
    b.make_holes_in_place()
    board["text"] = b.text()
    flow.on_action("select", 3.0)  # the Holes switches are out: the press answers that question
    assert flow.match is None and "take every coin off the pads" in flow.message.text, flow.message
    flow.on_action("select", 4.0)  # now the pads
    assert flow.match is not None


def test_a_match_does_not_start_while_a_coin_falls():
    """Found by a newcomer: ctl new-match --pads-clear 0.03 s after a coin went
    in started the match with that coin still falling: it came to rest on pads
    the match believed empty and its flips were taken for the match's."""
    from coindrel.events import EntryEvent, SwitchEvent

    from .flowkit import make_flow

    flow = make_flow()
    flow.on_event(EntryEvent(10.0, 2), 10.0)
    flow.on_event(SwitchEvent(10.06, "R1S3", "mid"), 10.06)
    flow.clear_confirmed = True  # the players say the pads are clear (--pads-clear)
    flow.start_match(10.1)
    assert flow.match is None and "still moving" in flow.message.text
    flow.on_event(SwitchEvent(10.09, "R1S3", "R"), 10.3)
    flow.on_action("select", 10.8)  # pressed too soon: asked again
    assert flow.match is None and "still moving" in flow.message.text
    flow.on_action("select", 11.5)  # still for a second
    assert flow.match is not None


def test_end_match_asks_first_and_back_or_keep_playing_returns_to_the_pause_menu():
    """One press on a knob scrolled a row too far ended a match for good: the
    pause menu's End match asks "End the match?", the mark on Keep playing."""
    flow = flow_for()
    m = start(flow)
    effects = len(flow.effects)
    flow.on_action("back", 1)  # pause
    for press in ("next", "next", "next", "select"):  # End match
        flow.on_action(press, 1)
    v = flow.view(1)
    assert isinstance(v, MenuView) and v.title == "End the match?" and v.selected == 0
    assert [i.label for i in v.items] == ["Keep playing", "End match"] and flow.match is m
    for way_back in (("back",), ("select",), ("prev", "select"), ("next", "prev", "select")):  # no wrap to End
        for press in way_back:
            flow.on_action(press, 2)
        v = flow.view(2)
        assert flow.mode == "paused" and v.title == "Paused" and v.items[v.selected].label == "End match"
        assert flow.match is m
        flow.on_action("select", 2)  # asks again
    assert not any(isinstance(e, fx.EndMatch) for e in flow.effects[effects:])
    render(flow.view(2))  # fits the panel
    flow.on_action("next", 3)
    flow.on_action("next", 3)  # the list ends at End match; it does not wrap round to Keep playing
    assert flow.view(3).selected == 1
    flow.on_action("select", 3)
    assert flow.mode == "menu" and flow.match is None
    assert [e.name for e in flow.effects[effects:] if isinstance(e, fx.EndMatch)] == ["abandoned"]


def test_leaving_the_pause_menu_forgets_the_question():
    flow = flow_for()
    start(flow)
    for press in ("back", "next", "next", "next", "select", "back"):  # asked, then Back to the pause menu
        flow.on_action(press, 1)
    flow.on_action("back", 1)  # resume
    assert flow.mode == "turn"
    flow.on_action("back", 2)
    v = flow.view(2)
    assert v.title == "Paused" and v.selected == 0
