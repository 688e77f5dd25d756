"""`coindrel sim`'s arguments that are refused before the board starts (found
by a newcomer: a --control socket in a missing folder was silently left out,
and --names took names the configuration refuses)."""

from __future__ import annotations

import pytest

from coindrel.cli import main


@pytest.mark.parametrize("argv, needles", [
    (["--control", "/nonexistent/x.sock"], ["--control /nonexistent/x.sock", "does not exist"]),
    (["--control", "/tmp/" + "y" * 120], ["--control", "must be under 108 bytes"]),
    (["--names", "Bartholomew-Longname-The-Third,Bo"], ["--names", "longer than 20"]),
    (["--names", "A\x1b[31m,Bo"], ["--names", "control character U+001B"]),
    (["--names", "Ann,ann"], ["--names", "two different names"]),
    (["--names", "Ann,  "], ["--names", "player 2's name is empty"]),
    (["--players", "greedy,wizard"], ["--players greedy,wizard: unknown computer player 'wizard'", "keyboard"]),
])
def test_refused_before_the_board_starts(capsys, argv, needles):
    assert main(["sim", "--fast", *argv]) == 2
    out, err = capsys.readouterr()
    assert all(n in err for n in needles), err
    assert "drops" not in out  # nothing was played
