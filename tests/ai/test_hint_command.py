"""``coindrel hint``."""

import json

import pytest

from coindrel.cli import main

THINK = "LLLLLLLL/LLLLLRL/LLLlLLLr/LLLRLLL/LLLLLLLL"


def test_hint_prints_the_best_entry_and_every_alternative(capsys):
    assert main(["hint", THINK, "--round", "2", "--scores", "0,0", "--to-move", "1"]) == 0
    out = capsys.readouterr().out
    assert "Player 1 to drop, round 2 (target 40)" in out
    assert "Hint: Entry 5: 4, reply 6" in out
    rows = [l.split() for l in out.splitlines() if l[:5].strip().isdigit()]
    assert [r[0] for r in rows] == [str(i) for i in range(1, 9)]
    assert rows[0][1:4] == ["5", "4", "6"]
    assert sorted(int(r[1]) for r in rows) == list(range(1, 9))


def test_hint_json_depth_totals_and_last_drop(capsys):
    board = "RLLLLLLL/LLLLLLL/RLLLLLLL/LLLLLLL/RLLLLLLL"
    assert main(["hint", board, "--round", "4", "--scores", "70,85", "--totals", "150,151", "--depth", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["entry"] == 1 and data["depth"] == 3 and data["alternatives"][0]["ends_match"]
    assert main(["hint", board, "--round", "4", "--scores", "70,85", "--totals", "150,151", "--to-move", "1"]) == 0
    out = capsys.readouterr().out
    assert "last drop of the round" in out and "ends the match" in out and "win" in out


def test_hint_with_holes_halved_and_own_values(capsys):
    board = "LLRLLrLL/LoLLRoL/LLLLLLLL/LLoLoLL/LLLLLLLL"
    assert main(["hint", board, "--round", "4", "--halved", "--scores", "10,39", "--values", ",".join(["3"] * 16)]) == 0
    out = capsys.readouterr().out
    assert "target 40" in out and "4 holes" in out and "in a hole" in out


@pytest.mark.parametrize("argv,message", [
    (["LLLL"], "has 1 row"),
    ([THINK, "--scores", "3"], "two whole numbers"),
    ([THINK, "--scores=-1,2"], "never negative"),
    ([THINK, "--scores", "10,0"], "would have ended"),
    ([THINK, "--depth", "0"], "1 to 8"),
    ([THINK, "--values", "1,2"], "16 whole numbers"),
])
def test_hint_refuses_bad_input_clearly(capsys, argv, message):
    assert main(["hint", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
