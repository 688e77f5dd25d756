"""Every packaged lesson, walked step by step on a board the engine plays:
each set-up is reachable, each drop goes as the lesson says, and each
explanation names the right flips, loose coins, catches and exits."""

import pytest

from coindrel.lessons import SELECT, load_lessons
from coindrel.lessons.runner import DONE, DROP, EXPLAIN, LEFT

from .support import Table

LESSONS = load_lessons()


@pytest.mark.parametrize("lesson", LESSONS, ids=[l.name for l in LESSONS])
def test_walk_every_step_of_every_lesson(lesson):
    table = Table(lesson)
    for step in lesson.steps:
        p = table.set_up()
        assert p.phase == DROP and p.step == step.number and p.entry == step.entry, p.lines
        # The set-up screens made the board right where the step reads it.
        for label, want in step.required:
            assert table.board.pad(label) == (None if want == "none" else "LR".index(want))
        assert tuple(l for l in table.board.geometry.labels if table.board.has_coin(l)) == step.coins
        if step.show_hint or step.show_reply:
            assert table.board.text() == step.board
        assert p.lines[: len(step.text)] == step.text
        if step.show_hint:
            assert p.hint is not None and p.hint.entry == step.entry and p.lines[-1] == p.hint.short
        tr = step.trace()
        p = table.drop(step.entry)
        assert p.phase == EXPLAIN and p.matched is True, p.lines
        assert all(len(line) <= 21 for line in p.lines), p.lines
        text = " ".join(p.lines)
        for label in tr.flipped + tr.knocked_loose + tr.rested:
            assert label in text
        for x in set(tr.exits):
            assert f"Exit {x + 1}" in text
        if tr.swallowed:
            assert "fell in a hole" in text
        assert all(line in p.lines for line in step.after)
        assert p.board == table.board and list(p.outcome.exits) == list(tr.exits)
        if step.scoring.scores is not None:
            assert f"Player {step.scoring.player}:" in text
        table.runner.press(SELECT)
    assert table.prompt.phase == DONE
    table.runner.press(SELECT)
    assert table.runner.finished and table.prompt.phase == LEFT


def test_lesson_texts_suit_a_newcomer_and_the_oled():
    for lesson in LESSONS:
        assert len(lesson.title) <= 21 and lesson.summary
        for step in lesson.steps:
            assert 1 <= len(step.text) <= 5 and len(step.after) <= 4
            assert all(len(line) <= 21 for line in step.text + step.after)
            assert len(step.explanation()) + len(step.after) <= 14  # a few OLED pages at most


def test_the_issue_s_lessons_teach_what_they_say():
    by = {l.name: l for l in LESSONS}
    flips = [s.trace().flipped for s in by["levers-flip-switches"].steps]
    assert all(flips[i] for i in (0, 2))
    assert all(s.trace().knocked_loose for s in by["knock-coins-loose"].steps)
    scores = by["every-coin-scores"].steps[1]
    assert scores.trace().knocked_loose and len(scores.trace().exits) >= 2
    last = by["one-last-drop"].steps
    assert not last[0].scoring.last_drop and last[1].scoring.last_drop and last[1].scoring.player == 2
    think = by["think-ahead"].steps
    assert think[1].show_hint and think[0].entry != think[1].entry
    holes = by["holes"]
    assert holes.holes and all(s.trace().swallowed for s in holes.steps)
    assert {w for _, w in holes.steps[0].required} >= {"none"}
