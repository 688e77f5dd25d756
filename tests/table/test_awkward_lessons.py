"""People at awkward moments: each finding of the first newcomer's try, on
the real table, journal and virtual board (``coindrel sim --fast``'s rig).

Lessons at awkward moments: switches already right, a reconnect's snapshot, a careful learner
through every lesson, and coins a lesson left before a match.
"""

from __future__ import annotations

import pytest

from coindrel.table.restore import Hand

from .awkward import rig_for, run_until


def test_a_lesson_starts_when_its_switches_are_already_right(tmp_path):
    rig = rig_for(tmp_path, seed=2)
    flow = rig.table.flow
    lesson = flow.lessons[0]
    for label, side in lesson.steps[0].required:
        rig.board.set_by_hand(label, side)  # already where the step wants them
    rig.players.step = lambda: None
    run_until(rig, lambda: False, 2.0)
    flow.on_action("back", rig.t)  # nothing: a press in the menu (no question) is the menu's
    flow.mode, flow.selected = "lessons", 0
    rig.table.handle_action("select")
    assert flow.mode == "lesson"
    assert flow.runner.prompt.phase != "switches", flow.runner.prompt.lines


def test_a_snapshot_confirms_a_lesson_step_after_a_reconnect(tmp_path):
    rig = rig_for(tmp_path, seed=2)
    flow = rig.table.flow
    rig.players.step = lambda: None
    rig.table.positions.clear()  # the table has not heard from the hub yet
    flow.halls.clear()
    flow.mode, flow.selected = "lessons", 0
    rig.table.handle_action("select")
    assert flow.runner.prompt.phase == "switches"
    for label, side in flow.lessons[0].steps[0].required:
        rig.board.set_by_hand(label, side)
    run_until(rig, lambda: False, 2.0)
    rig._snapshot()  # the hub's snapshot on connect
    assert flow.runner.prompt.phase != "switches"


@pytest.mark.parametrize("index", range(7))
def test_a_careful_learner_finishes_every_lesson_on_the_board(tmp_path, index):
    rig = rig_for(tmp_path, seed=3 + index, learn=True, matches=0)
    flow = rig.table.flow
    if index >= len(flow.lessons):
        pytest.skip("fewer lessons")
    run_until(rig, lambda: False, 1.0)
    flow.mode, flow.selected = "lessons", index
    rig.table.handle_action("select")
    matched = []
    runner = flow.runner

    def done():
        p = runner.prompt
        if p.phase == "explain" and (not matched or matched[-1][0] != p.step):
            matched.append((p.step, p.matched))
        return flow.mode == "lessons"

    assert run_until(rig, done, 600), f"stuck at {runner.prompt.phase}: {runner.prompt.lines}"
    assert len(matched) == len(flow.lessons[index].steps)
    assert all(ok for _, ok in matched), matched


def test_coins_a_lesson_left_are_cleared_before_a_match(tmp_path):
    rig = rig_for(tmp_path, seed=6, learn=True, matches=0)
    flow = rig.table.flow
    run_until(rig, lambda: False, 1.0)
    flow.mode, flow.selected = "lessons", 0
    rig.table.handle_action("select")
    assert run_until(rig, lambda: flow.mode == "lessons", 600)
    assert flow.lesson_coins, "the first lesson leaves coins on pads"
    rig.table.handle_action("back")
    flow.menu.selected = 0
    rig.table.handle_action("select")  # Start match
    assert flow.message is not None and flow.match is None
    assert {s.switch for s in flow.asking} >= set(flow.lesson_coins)
    assert all(s.hand is Hand.COIN_OFF for s in flow.asking)


def test_a_lesson_on_the_panel_says_the_panel_s_way_to_replay(tmp_path):
    """Found by a newcomer: "entry 3: replay?" on the panel, where select is the next step."""
    flow = _first_lesson(tmp_path).table.flow
    assert flow.runner.replay_key == "Hold the knob"


def _first_lesson(tmp_path):
    """A table in its first lesson, the simulated players idle."""
    rig = rig_for(tmp_path, seed=2)
    rig.players.step = lambda: None
    rig.table.flow.mode, rig.table.flow.selected = "lessons", 0
    rig.table.handle_action("select")
    return rig


def test_ctl_status_during_a_lesson_says_what_the_panel_says(tmp_path):
    import json

    from coindrel.commands.ctl import human
    from coindrel.table.control import status_of

    rig = _first_lesson(tmp_path)
    flow = rig.table.flow
    st = json.loads(json.dumps(status_of(rig.table), default=str))
    assert st["lesson"]["lines"] == list(flow.runner.prompt.lines) and st["lesson"]["lesson"]
    text = human(st)
    assert f"Lesson {st['lesson']['lesson']}" in text and "ctl press hold: replay the step" in text


def test_the_lesson_screen_points_at_the_entry_only_once_the_set_up_is_done(tmp_path):
    """Found by a newcomer: the diagram pointed at entry 4 on the coins screen,
    read as "drop now", and the set-up came after the drop."""
    rig = _first_lesson(tmp_path)
    flow = rig.table.flow
    runner = flow.runner
    for label, side in runner.prompt.switches:
        rig.board.set_by_hand(label, side)
    assert run_until(rig, lambda: runner.prompt.phase == "coins", 5.0), runner.prompt.lines
    assert flow.view(rig.t).entry is None
    rig.table.handle_action("next")  # the knob scrolls the coins screen's words
    rig.table.handle_action("select")  # the coins are on
    assert runner.prompt.phase == "drop" and flow.view(rig.t).entry == runner.step.entry
    assert flow.scroll == 0, "the instruction is read from its first line"
