"""Lesson files: the packaged ones load, and bad ones are refused with a
message naming the file, the step and the key."""

import copy

import pytest

from coindrel.lessons import LessonError, lesson_names, load_lesson, load_lessons, parse_lesson

GOOD = {
    "format": 1,
    "title": "Test lesson",
    "order": 1,
    "step": [
        {"title": "One", "board": "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", "text": ["Drop in entry 3."],
         "entry": 3, "expect": {"flips": [], "exits": [], "rests": ["R1S3"]}},
        {"title": "Two", "text": ["Drop in entry 3", "again."], "entry": 3,
         "expect": {"flips": ["R1S3"], "exits": [], "loose": ["R1S3"], "rests": ["R2S2", "R2S3"]}},
    ],
}


def lesson(**changes):
    data = copy.deepcopy(GOOD)
    for key, value in changes.items():
        target = data
        *path, last = key.split(".")
        for p in path:
            target = target[int(p)] if p.isdigit() else target[p]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
    return data


def test_the_packaged_lessons_in_menu_order():
    lessons = load_lessons()
    assert [l.title for l in lessons] == ["Drop a coin", "Levers flip switches", "Knock coins loose",
                                          "Every coin scores", "One last drop", "Think ahead", "Holes"]
    assert [l.extra for l in lessons] == [False] * 5 + [True] * 2
    assert lesson_names()[0] == "drop-a-coin"
    assert load_lesson("holes").holes and not load_lesson("drop-a-coin").holes
    assert all(2 <= len(l) <= 5 for l in lessons)


def test_a_good_lesson_chains_boards_and_computes_the_set_up():
    l = parse_lesson(lesson(), "test", "test.toml")
    one, two = l.steps
    assert two.board == one.board_after == "LLlLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
    assert one.required == (("R1S3", "L"),) and one.coins == ()
    assert dict(two.required) == {"R1S3": "L", "R2S2": "L", "R2S3": "L"} and two.coins == ("R1S3",)
    assert two.explanation() == ["Flipped: R1S3.", "Knocked loose: R1S3.", "Caught on R2S2 R2S3."]


def test_a_lesson_file_by_path(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("""
format = 1
title = "Mine"
order = 3
[[step]]
title = "Only step"
board = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
text = ["Drop in entry 3."]
entry = 3
[step.expect]
flips = []
exits = []
""")
    assert load_lesson(str(path)).name == "mine"
    path.write_text("format = 1\ntitle = [")
    with pytest.raises(LessonError, match=r"mine.toml: not valid TOML"):
        load_lesson(str(path))


@pytest.mark.parametrize("changes,message", [
    ({"format": 2}, "key 'format': must be 1"),
    ({"colour": "red"}, "key 'colour': is not a lesson key"),
    ({"title": "A title much too long for the OLED"}, "key 'title'"),
    ({"step": []}, "key 'step': a lesson needs at least one"),
    ({"step.0.entry": 9}, "step 1, key 'entry': 9 must be a whole number from 1 to 8"),
    ({"step.0.text": ["A line that is far too long"]}, "step 1, key 'text': line 'A line that is far too long' has 27"),
    ({"step.0.text": ["Drop in entry 4."]}, "step 1, key 'text': must tell the player to drop in entry 3"),
    ({"step.0.text": ["entry 3"] * 6}, "step 1, key 'text': has 6 lines"),
    ({"step.0.board": KeyError}, "step 1, key 'board': the first step must give its board"),
    ({"step.0.board": "LLLL"}, "step 1, key 'board': board text 'LLLL' has 1 row"),
    ({"step.0.board": "LoLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"}, "step 1, key 'board': has holes"),
    ({"holes": True}, "step 1, key 'board': a Holes lesson's board has holes exactly at R2S2, R2S6, R4S3, R4S5"),
    ({"step.0.expect": KeyError}, "step 1, key 'expect': every step says what the engine will do"),
    ({"step.0.expect.exits": KeyError}, "step 1, key 'expect.exits': is required"),
    ({"step.0.expect.color": 1}, "step 1, key 'expect.color': is not an expectation"),
    ({"step.1.expect.flips": ["R1S4"]}, "step 2, key 'expect.flips': the lesson says ['R1S4'], but the engine says ['R1S3']"),
    ({"step.1.expect.exits": [5]}, "step 2, key 'expect.exits': the lesson says [5], but the engine says []"),
    ({"step.1.expect.rests": ["R2S9"]}, "step 2, key 'expect.rests': R2S9 is not a switch"),
    ({"step.1.expect.points": 2}, "step 2, key 'expect.points': the lesson says 2, but the engine says 0"),
    ({"step.1.expect.reply": 9}, "step 2, key 'expect.reply': the lesson says 9"),
    ({"step.1.set": ["R9S1"]}, "step 2, key 'set'"),
    ({"step.1.wobble": 1}, "step 2, key 'wobble': is not a step key"),
    ({"step.0.scores": [10, 0]}, "step 1, key 'scores': player 1 already has the target"),
    ({"step.0.scores": [3, 10]}, "step 1, key 'last_drop': player 2 has reached 10"),
    ({"step.0.last_drop": True}, "step 1, key 'last_drop': a last drop comes after"),
    ({"step.0.show_hint": True}, "step 1, key 'entry': the hint names entry"),
    ({"step.0.round": 5}, "step 1, key 'round'"),
    ({"step.0.player": 3}, "step 1, key 'player'"),
])
def test_bad_lessons_are_refused_naming_file_step_and_key(changes, message):
    with pytest.raises(LessonError) as err:
        parse_lesson(lesson(**changes), "test", "lessons/data/test.toml")
    assert str(err.value).startswith("lessons/data/test.toml")
    assert message in str(err.value)


def test_unknown_lesson_names_list_the_lessons():
    with pytest.raises(LessonError, match="no lesson called 'juggling'; the lessons are: drop-a-coin"):
        load_lesson("juggling")
