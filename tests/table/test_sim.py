"""``coindrel sim``: a whole match against the virtual board through the real
link, and a person's keys."""

import asyncio
import subprocess
import sys

from coindrel.table.sim import Keyboard, SimOptions, run_sim


def test_sim_plays_a_whole_match_with_a_fault(tmp_path):
    opts = SimOptions(think=0.05, pause=0.2, clock="turbo", display="none", state_dir=str(tmp_path), speed=10.0,
                      faults=("switch_stuck@R3S4,t=10",), reveal_seconds=0.2)
    table = asyncio.run(run_sim(opts, say=lambda text: None))
    history = list((tmp_path / "history").iterdir())
    assert len(history) == 1
    text = history[0].read_text()
    assert '"verdict":"mismatch"' in text and "R3S4" in text
    assert table.flow.match is None and "Waiting for a new match" in table.last_status


def test_sim_command_refuses_bad_options():
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--players", "greedy"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "two values" in r.stderr
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--display", "gifanim"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--out" in r.stderr


def test_keys_drop_coins_and_press_buttons():
    class Table:
        actions = []

        def handle_action(self, name):
            self.actions.append(name)

    class Board:
        drops = []

        def drop(self, entry):
            self.drops.append(entry)

    stop = asyncio.Event()
    kb = Keyboard(Table(), Board(), stop)
    kb.feed("3\x1b[B\x1b[")
    kb.feed("A\r\x7fhx8q")
    assert Board.drops == [2, 7]
    assert Table.actions == ["next", "prev", "select", "back", "hold-select"]
    assert stop.is_set()
