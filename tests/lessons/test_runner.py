"""The lesson runner as a state machine: set-up checks, drops, surprises,
buttons, and boards with fewer sensors."""

import pytest

from coindrel.engine import BoardState, EngineError, SwitchStuck, predict
from coindrel.events import EntryEvent, ExitEvent, StatusEvent, SwitchEvent
from coindrel.lessons import BACK, REPLAY, SELECT, load_lesson, parse_lesson
from coindrel.lessons.hands import drop_events
from coindrel.lessons.runner import COINS, DONE, DROP, EXPLAIN, FALLING, LEFT, SWITCHES

from .support import Table


def levers():
    return load_lesson("levers-flip-switches")  # step 1: R1S2 R, entry 2 -> flips R1S2, rests on R2S1


def test_set_up_lists_the_switches_that_differ_and_moves_on_when_they_match():
    lesson = levers()
    board = BoardState.parse("LLLLLLLL/RLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")  # R1S2 and R2S1 wrong
    t = Table(lesson, board)
    p = t.prompt
    assert p.phase == SWITCHES and p.switches == (("R1S2", "R"), ("R2S1", "L"))
    assert "R1S2:R R2S1:L" in p.lines and p.lines[0] == "Set up 1 of 3:"
    t.runner.press(SELECT)  # not yet: still listed
    assert t.prompt.phase == SWITCHES
    t.set_switches([("R1S2", "R")])
    assert t.prompt.switches == (("R2S1", "L"),)
    t.set_switches([("R2S1", "L")])
    p = t.prompt
    assert p.phase == COINS and p.lines[:2] == ("Take every coin", "off the pads.")
    t.runner.press(SELECT)
    assert t.prompt.phase == DROP and t.prompt.lines == lesson.steps[0].text


def test_a_switch_moved_by_hand_before_the_drop_is_asked_for_again():
    t = Table(levers())
    t.set_up()
    t.feed([SwitchEvent(t.t + 1, "R2S1", "R")], settle=False)  # a seated change, no mid: a hand
    assert t.prompt.phase == SWITCHES and t.prompt.switches == (("R2S1", "L"),)
    t.feed([SwitchEvent(t.t + 1, "R2S1", "L")], settle=False)
    assert t.prompt.phase == DROP  # coins were confirmed already: straight back to the drop


def test_a_hand_moving_a_rocker_through_mid_is_not_taken_for_a_coin():
    t = Table(levers())
    t.set_up()
    t.board.set_pad("R2S1", 1)
    p = t.feed([SwitchEvent(t.t + 1, "R2S1", "mid"), SwitchEvent(t.t + 1.1, "R2S1", "R")])
    assert p.phase == SWITCHES and p.switches == (("R2S1", "L"),)
    assert p.lines[:2] == ("A switch moved, but", "no coin came.")
    p = t.set_switches()
    assert p.phase == DROP
    # A switch the step does not read: nothing to set again.
    t.board.set_pad("R5S8", 1)
    p = t.feed([SwitchEvent(t.t + 1, "R5S8", "mid"), SwitchEvent(t.t + 1.1, "R5S8", "R")])
    assert p.phase == DROP and p.lines == levers().steps[0].text


def test_coins_known_from_the_last_drop_are_asked_as_changes():
    lesson = load_lesson("every-coin-scores")  # step 2 wants the coin on R5S8 that step 1 left alone
    t = Table(lesson)
    t.set_up()
    t.drop(0)
    t.runner.press(SELECT)
    assert t.prompt.phase == DROP  # nothing to change: no coin screen
    t.runner.press(BACK)
    assert t.prompt.step == 1 and t.prompt.phase == SWITCHES  # the drop flipped them: set them back
    assert t.set_switches().phase == DROP  # the coins it knows are what step 1 wants

    t = Table(load_lesson("drop-a-coin"))
    t.set_up()
    t.drop(2)  # a coin now rests on R1S3; step 1 wants none
    t.runner.press(REPLAY)
    p = t.prompt
    assert p.phase == COINS and p.remove == ("R1S3",) and p.coins == ()
    assert p.lines == ("Take the coin off:", "R1S3", "Then press select.")
    t.runner.press(SELECT)
    assert t.prompt.phase == DROP


def test_the_board_doing_something_else_is_said_plainly_and_replay_sets_up_again():
    lesson = levers()
    t = Table(lesson)
    t.set_up()
    # A coin the lesson does not know rests on R2S1: the coin bounces on instead of resting.
    t.board.place_coin("R2S1")
    p = t.drop(1)
    assert p.phase == EXPLAIN and p.matched is False
    assert p.lines[:2] == ("The board did", "something else:")
    assert any(l.startswith("R2S1") and "flip" in l for l in p.lines)
    assert "Press replay to try" in p.lines and "Caught on R2S1." in p.lines  # what the engine expected
    t.runner.press(REPLAY)
    p = t.prompt
    assert p.step == 1 and p.phase == SWITCHES
    assert dict(p.switches) == {"R1S2": "R", "R2S1": "L"}


def test_a_stuck_switch_and_a_dead_exit_beam_are_differences():
    lesson = load_lesson("drop-a-coin")
    t = Table(lesson)
    for _ in range(2):
        t.set_up()
        t.drop(t.runner.step.entry)
        t.runner.press(SELECT)
    t.set_up()  # step 3: entry 1 flips R1S1 R3S1 R5S1 to exit 1
    real = predict(t.board, [0], [SwitchStuck("R3S1")]).outcome  # R3S1 does not flip
    events = [EntryEvent(t.t + 1, 0), SwitchEvent(t.t + 1.1, "R1S1", "mid"), SwitchEvent(t.t + 1.2, "R1S1", "L"),
              SwitchEvent(t.t + 1.3, "R5S1", "mid"), SwitchEvent(t.t + 1.4, "R5S1", "L")]
    events += [ExitEvent(t.t + 1.5, x) for x in real.exits]
    p = t.feed(events)
    assert p.matched is False and "R3S1 did not flip." in p.lines
    t.runner.press(REPLAY)
    t.set_up()
    p = t.feed([e for e in drop_events(t.runner.step.state, [0], t.t + 1) if not isinstance(e, ExitEvent)])
    assert p.matched is False and "Exits seen: none" in p.lines and "Engine said: 1" in p.lines


def test_a_different_entry_is_explained_and_the_step_offered_again():
    t = Table(levers())
    t.set_up()
    p = t.drop(4)
    assert p.matched is True and p.lines[-3:] == ("This step asks for", "entry 2. Press replay", "to try it again.")
    assert not set(levers().steps[0].after) & set(p.lines)


def test_an_unseen_entry_is_inferred_from_what_the_board_did():
    t = Table(levers())
    t.set_up()
    events = [e for e in drop_events(t.board, [1], t.t + 1) if not isinstance(e, EntryEvent)]
    t.board.drop_in_place([1])
    p = t.feed(events)
    assert p.matched is True and "Flipped: R1S2." in p.lines
    assert p.lines[-2:] == ("(The entry beam did", "not see the coin.)")


def test_a_drop_ends_only_after_the_board_is_quiet():
    t = Table(levers())
    t.set_up()
    events = drop_events(t.board, [1], 10.0)
    t.feed(events, settle=False)
    assert t.prompt.phase == FALLING and t.prompt.lines == ("Watching the board...",)
    t.runner.tick(events[-1].t + 0.5)
    assert t.prompt.phase == FALLING
    t.runner.tick(events[-1].t + 1.5)
    assert t.prompt.phase == EXPLAIN


def test_a_switch_left_unseated_is_reported():
    t = Table(levers())
    t.set_up()
    events = drop_events(t.board, [1], 1.0)
    events = [e for e in events if not (isinstance(e, SwitchEvent) and e.pos != "mid")]  # R1S2 stays mid
    p = t.feed(events)
    assert p.matched is False and "R1S2 is not seated." in p.lines


def test_without_hall_sensors_the_player_confirms_the_switches():
    t = Table(levers(), halls=False)
    p = t.prompt
    assert p.phase == SWITCHES and p.switches == levers().steps[0].required
    assert p.lines[1] == "Check switches:" and p.lines[-1] == "Then press select."
    t.runner.press(SELECT)
    assert t.prompt.phase == COINS
    t.set_up()
    p = t.drop(1)
    assert p.matched is True  # the exits still check the drop


def test_without_beams_select_says_the_coin_went_in():
    t = Table(levers(), beams=False)
    t.set_up()
    t.board.drop_in_place([1])
    t.feed([SwitchEvent(t.t + 1, "R1S2", "mid"), SwitchEvent(t.t + 1.1, "R1S2", "L")], settle=False)
    p = t.runner.press(SELECT)
    assert p.phase == EXPLAIN and p.matched is True and "Flipped: R1S2." in p.lines


def test_with_no_sensors_the_engine_explains_and_nothing_is_checked():
    t = Table(levers(), halls=False, beams=False)
    t.set_up()
    p = t.runner.press(SELECT)
    assert p.phase == EXPLAIN and p.matched is None and "Caught on R2S1." in p.lines


def test_buttons_move_between_steps_and_out_of_the_lesson():
    t = Table(levers())
    t.set_up()
    t.drop(1)
    t.runner.press(SELECT)
    assert t.prompt.step == 2
    t.runner.press(BACK)
    assert t.prompt.step == 1
    t.runner.press(BACK)
    assert t.runner.finished and t.prompt.phase == LEFT and t.prompt.actions == ()
    assert t.runner.press(SELECT).phase == LEFT
    with pytest.raises(EngineError, match="unknown lesson action"):
        t.runner.press("jump")


def test_done_screen_replays_the_lesson_or_leaves():
    lesson = parse_lesson({"format": 1, "title": "One", "order": 1, "step": [{
        "title": "Only", "board": "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", "text": ["Drop in entry 3."],
        "entry": 3, "expect": {"flips": [], "exits": []}}]}, "one")
    t = Table(lesson)
    t.set_up()
    t.drop(2)
    assert t.runner.press(SELECT).phase == DONE
    assert t.prompt.lines[0] == "Lesson done!"
    t.runner.press(REPLAY)
    assert t.prompt.step == 1
    t.runner.press(BACK)
    assert t.runner.finished


def test_holes_are_asked_for_and_checked_as_no_switch():
    lesson = load_lesson("holes")
    board = BoardState.parse(lesson.steps[0].board.replace("o", "L"))
    t = Table(lesson, board)
    p = t.prompt
    assert p.phase == SWITCHES and {l for l, w in p.switches if w == "none"} == {"R2S2", "R2S6", "R4S3", "R4S5"}
    assert any("R2S2:out" in line for line in p.lines)
    t.set_up()
    p = t.drop(2)
    assert p.matched is True and "1 coin fell in a hole" in p.lines


def test_status_events_change_nothing_and_a_stray_coin_makes_coins_unknown():
    t = Table(levers())
    t.set_up()
    t.drop(1)
    before = t.prompt
    t.runner.event(StatusEvent(1.0, "connected"))
    assert t.prompt == before and t.runner.coins == {"R2S1"}
    t.runner.event(EntryEvent(t.t + 1, 6))  # someone drops a coin while reading
    assert t.prompt.phase == EXPLAIN and t.runner.coins is None
    t.runner.press(SELECT)
    t.set_switches()
    assert t.prompt.phase == COINS and t.prompt.lines[0] == "Coins only on:"


def test_a_switch_taken_out_where_the_step_does_not_look_is_a_hole_in_the_belief():
    t = Table(levers())
    t.set_up()
    t.board.make_holes_in_place(["R5S8"])
    t.feed([SwitchEvent(t.t + 1, "R5S8", "none")], settle=False)
    assert t.prompt.phase == DROP
    p = t.drop(7)  # entry 8 runs down the right edge to R5S8, now a hole
    assert p.matched is True and any("fell in a hole" in line for line in p.lines)


def test_a_coin_dropped_before_the_set_up_is_done_is_said_and_the_set_up_stays():
    """Found by a newcomer on "Knock coins loose": the coins screen ("Coins
    only on: R1S4") was still up after the drop it is meant to precede, with
    nothing saying the coin came too early."""
    t = Table(load_lesson("knock-coins-loose"))
    p = t.prompt
    assert p.phase == COINS and "Coins only on:" in p.lines
    p = t.drop(3)  # as the step will ask, but before the coins are set
    assert p.phase == COINS and p.lines[0].startswith("Too soon: set up")
    assert "set up first, then drop." in " ".join(p.lines) and "Coins only on:" in p.lines
    assert all(len(line) <= 21 for line in p.lines)
    t.set_coins(t.runner.step.coins)
    t.runner.press(SELECT)
    p = t.prompt
    assert p.phase == DROP and p.lines == t.lesson.steps[0].text  # the note is gone with the set-up
