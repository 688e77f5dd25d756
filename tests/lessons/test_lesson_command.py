"""``coindrel lesson``: the list, and a walk through a lesson in the terminal."""

import io

from coindrel.cli import build_parser, main
from coindrel.commands import lesson as lesson_command
from coindrel.lessons import load_lesson


def walk(name, keys, *options):
    out = io.StringIO()
    args = build_parser().parse_args(["lesson", name, *options])
    code = lesson_command.run(args, out=out, inp=io.StringIO("".join(k + "\n" for k in keys)))
    return code, out.getvalue()


def test_lesson_lists_the_lessons(capsys):
    assert main(["lesson"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7
    assert lines[0].startswith("lesson 1  drop-a-coin") and "Drop a coin (3 steps)" in lines[0]
    assert lines[-1].startswith("extra     holes")


def test_walk_a_whole_lesson_typing_entries():
    lesson = load_lesson("knock-coins-loose")
    keys = ["", "4", "", "", "4", "", ""]  # coins, drop, next, (set-up), drop, next, done
    code, out = walk("knock-coins-loose", keys, "--ascii")
    assert code == 0 and "Lesson finished." in out
    for step in lesson.steps:
        assert f"step {step.number} of 2] {step.title}" in out
        assert all(line in out for line in step.text + step.after)
    assert "Knocked loose: R2S3" in out and "R1S4" in out
    assert "(hands: coins on R1S4)" in out
    assert "reached" in out  # the board is drawn with the drop marked


def test_walk_wrong_entry_set_up_moves_back_and_bad_keys():
    keys = ["", "5", "", "", "", "2", "m R1S2", "m R9S9", "x", "r", "b", "b", "q"]
    code, out = walk("levers-flip-switches", keys, "--no-board")
    assert code == 0 and "Left the lesson." in out
    assert "This step asks for" in out and "entry 2. Type r" in out
    assert "(hands: set R1S2 L)" in out and "(hands: coins on R2S1)" in out
    assert "Caught on R1S2." in out  # step 2 went as planned after the set-up
    assert "R9S9 is not a switch" in out and "keys: Enter" in out
    assert "entries" not in out  # --no-board


def test_unknown_lesson_is_a_clean_error(capsys):
    assert main(["lesson", "juggling"]) == 2
    err = capsys.readouterr().err
    assert "no lesson called 'juggling'" in err and "Traceback" not in err


def test_a_lesson_by_the_number_the_list_shows(capsys):
    """Found by a newcomer: the list says "lesson 1 drop-a-coin", `coindrel lesson 1` said no lesson called '1'."""
    code, out = walk("1", ["q"], "--ascii")
    assert code == 0 and "[Drop a coin - step 1 of 3]" in out
    assert load_lesson("5").name == "one-last-drop" and load_lesson("lesson 2").name == "levers-flip-switches"
    assert main(["lesson", "9"]) == 2
    assert "there is no lesson 9; the lessons are numbered 1, 2, 3, 4, 5" in capsys.readouterr().err


def test_a_folder_or_a_binary_file_is_named_for_what_it_is(tmp_path, capsys):
    (tmp_path / "adir").mkdir()
    (tmp_path / "prog").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    (tmp_path / "latin").write_bytes(b"title = \"\xe9\"\n")
    assert main(["lesson", str(tmp_path / "adir")]) == 2
    assert f"{tmp_path / 'adir'} is a folder, not a lesson file" in capsys.readouterr().err
    assert main(["lesson", str(tmp_path / "prog")]) == 2
    assert f"{tmp_path / 'prog'}: a binary file, not a TOML lesson file" in capsys.readouterr().err
    assert main(["lesson", str(tmp_path / "latin")]) == 2
    err = capsys.readouterr().err
    assert "not a text file" in err and "not a TOML lesson file" in err and "no lesson called" not in err
