"""``coindrel show`` and ``coindrel play`` (the terminal match)."""

import io
import subprocess
import sys

from PIL import Image

from coindrel.cli import build_parser
from coindrel.commands import play

EXAMPLE = "lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL"


def coindrel(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "coindrel", *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_show_draws_every_row_coins_holes_and_values(tmp_path):
    png = tmp_path / "board.png"
    r = coindrel("show", EXAMPLE, "--round", "4", "--png", str(png))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    rows = [l for l in lines if l[:2] in ("R1", "R2", "R3", "R4", "R5")]
    assert len(rows) == 5
    assert rows[0].count("[●]") == 1 and rows[1].count("[●]") == 1
    assert rows[1].count("( )") == 2 and rows[3].count("( )") == 2
    assert any(l.startswith("round 4") and l.split()[2:] == ["12", "8", "5", "3", "2", "1", "1", "1", "1", "1", "1", "2", "3", "5", "8", "12"] for l in lines)
    assert EXAMPLE in r.stdout
    img = Image.open(png)
    assert img.size[0] > 600 and img.size[1] > 400


def test_show_a_drop_marks_exits_and_scores():
    r = coindrel("show", "LLrrLLLL/roLLror/llLrllrr/lLolorL/lLRRrLLl", "--drop", "8")
    assert r.returncode == 0, r.stderr
    assert "LLrrLLLR/roLLror/llLrllrL/lLolorR/lLRRrLLr" in r.stdout  # vector d0's board after
    assert "exits reached: 15, 16; 4 points" in r.stdout


def test_show_refuses_bad_input_clearly():
    r = coindrel("show", "LLLL")
    assert r.returncode == 2 and "has 1 row" in r.stderr and "Traceback" not in r.stderr
    r = coindrel("show", EXAMPLE, "--drop", "9")
    assert r.returncode == 2 and "1..8" in r.stderr


def test_show_names_the_text_the_user_gave():
    # the parser tidies the rows; the message quoted 'etc/passwd' for /etc/passwd
    r = coindrel("show", "/etc/passwd")
    assert r.returncode == 2 and "'/etc/passwd' is a file name, not a board" in r.stderr and "Traceback" not in r.stderr
    r = coindrel("show", "/LLLL/")
    assert r.returncode == 2 and "board text '/LLLL/' has 1 row" in r.stderr


def play_args(*argv):
    return build_parser().parse_args(["play", *argv])


def test_bots_play_a_whole_match_to_a_result():
    out = io.StringIO()
    code = play.run(play_args("--bots", "--seed", "5", "--pace", "0", "--holes"), play.Terminal(out, io.StringIO()))
    text = out.getvalue()
    assert code == 0
    assert "Round 4 of 4" in text and "Final:" in text
    assert "Last drop of the round" in text


def test_people_key_entries_undo_and_quit():
    out = io.StringIO()
    keys = io.StringIO("3\nnine\n9\nu\n5\nq\n")
    code = play.run(play_args("--seed", "1", "--players", "Ann,Bo", "--pace", "0"), play.Terminal(out, keys))
    text = out.getvalue()
    assert code == 1
    assert "Ann: entry 3" in text
    assert "'nine' is not an entry" in text and "'9' is not an entry" in text
    assert "Took back Ann's drop in entry 3" in text
    assert "Ann: entry 5" in text and "Match abandoned" in text


def test_the_clock_drops_for_a_player_who_waits_too_long():
    class SlowTerminal(play.Terminal):
        def ask(self, prompt, timeout):
            self.out.write(prompt)
            now[0] += 31.0  # the player thinks for 31 s: the clock runs out
            return None

    now = [0.0]
    out = io.StringIO()
    term = SlowTerminal(out, io.StringIO())
    args = play_args("--seed", "2", "--clock", "30", "--p2", "random", "--pace", "0")
    code = play.run(args, term, clock=lambda: now[0])
    assert code == 0
    assert "Time! The clock chose entry" in out.getvalue()
