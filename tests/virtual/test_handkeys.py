"""A person's hands at a served board's keyboard (``:R2S3 L`` and Enter)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading

import pytest

from coindrel.engine import EngineError
from coindrel.virtual import BoardConfig, Scenario, build_board
from coindrel.virtual.handkeys import hand_action

ALL_LEFT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def board():
    return build_board(Scenario(config=BoardConfig(seed=1, start=ALL_LEFT)))[0]


def test_each_hand_line_does_what_it_says_on_the_board():
    b = board()
    said, act = hand_action("r2s3 r", b)
    assert said == "R2S3 pushed to R by hand"
    act()
    b.run_until(b.now + 1.0)
    assert b.world.text().split("/")[1][2] == "R"
    said, act = hand_action("on R1S4", b)
    assert act() is not False and said == "a coin put on R1S4's pad"
    assert hand_action("off R1S4", b)[1]() is not False
    assert hand_action("off R1S4", b)[1]() is False  # nothing left to take: the server says so
    assert hand_action("exit 5", b)[0] == "a coin pushed through exit 5's beam by hand"


@pytest.mark.parametrize("line, words", [
    ("", "nothing typed"), ("R9S9 L", "'R9S9' is no switch"), ("R2S3 up", "'up' is no side: L or R"),
    ("exit 17", "exits are 1..16"), ("entry x", "entries are 1..8"), ("dance", "'dance' is not understood"),
])
def test_a_mistyped_line_is_said_and_touches_nothing(line, words):
    b = board()
    before = b.world.text()
    with pytest.raises(EngineError, match=words):
        hand_action(line, b)
    assert b.world.text() == before


def test_a_served_board_takes_hand_lines_from_its_keyboard(tmp_path):
    truth = tmp_path / "truth.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "coindrel", "virtual-board", "--serve", "socket://127.0.0.1:0",
                             "--keyboard", "--start", ALL_LEFT, "--truth", str(truth)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] and lines.put(None), daemon=True).start()

    def until(text, ceiling=20.0):  # a real-time ceiling only a hang reaches
        seen = []
        while True:
            try:
                line = lines.get(timeout=ceiling)
            except queue.Empty:
                raise AssertionError(f"waited {ceiling} s for {text!r}; the board said {seen}") from None
            assert line is not None, seen
            seen.append(line)
            if text in line:
                return line

    try:
        until("socket://")
        proc.stdin.write(":R2S3 R\n:R2S3 sideways\n:on R1S1\x7f2\n")  # a typo rubbed out: R1S2
        proc.stdin.flush()
        assert "R2S3 pushed to R by hand" in until("R2S3 pushed")
        assert "'sideways' is no side" in until("sideways")
        assert "a coin put on R1S2's pad" in until("put on")
        proc.stdin.write("q")
        proc.stdin.flush()
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    hands = [r for r in map(json.loads, truth.read_text().splitlines()) if r.get("kind") == "hands"]
    assert [r.get("moved") or r.get("coin_on") for r in hands] == ["R2S3", "R1S2"]
