"""``coindrel sim``: a whole match against the virtual board through the real
link, and a person's keys."""

import asyncio
import subprocess
import sys

from coindrel.table.sim import Keyboard, SimOptions, run_sim


def test_sim_plays_a_whole_match_with_a_fault(tmp_path):
    opts = SimOptions(think=0.05, pause=0.2, clock="turbo", display="none", state_dir=str(tmp_path), speed=10.0,
                      faults=("switch_stuck@R3S4,t=10",), reveal_seconds=0.2)
    result = asyncio.run(run_sim(opts, say=lambda text: None))
    history = list((tmp_path / "history").iterdir())
    assert len(history) == 1
    text = history[0].read_text()
    assert '"verdict":"mismatch"' in text and "R3S4" in text
    assert result["over"] and result["errors"] == [] and result["mismatches"] >= 1


def test_sim_command_refuses_bad_options():
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--players", "greedy"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "two values" in r.stderr
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--display", "gifanim"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--out" in r.stderr
    for bad, word in ((["--matches", "0"], "--matches"), (["--think", "-1"], "--think"), (["--think", "nan"], "--think"),
                       (["--players", "greedy,bogus"], "unknown computer player 'bogus'")):
        r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", *bad], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 2 and word in r.stderr and "Traceback" not in r.stderr, (bad, r.stderr)


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


def test_sim_against_the_tables_own_computer_opponent(tmp_path):
    opts = SimOptions(think=0.05, pause=0.2, clock="turbo", display="none", state_dir=str(tmp_path), speed=10.0,
                      opponent="hard", dropper=False, reveal_seconds=0.2)
    asyncio.run(run_sim(opts, say=lambda text: None))
    from coindrel.table.history import list_matches

    (summary,) = list_matches(tmp_path)
    assert summary.players == ("Ann", "Coindrel hard") and summary.result == "finished"


def test_a_person_sets_up_a_lesson_with_the_virtual_hands(tmp_path):
    from coindrel.engine import standard_geometry
    from coindrel.table.daemon import Table
    from coindrel.table.setupmenu import Choices
    from coindrel.virtual import BoardConfig, Collect, Scenario, build_board

    out = Collect()
    board, _ = build_board(Scenario(BoardConfig(seed=2)), outputs=[out])
    from coindrel.sources.base import Capabilities

    class Sensors:
        capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=standard_geometry().labels)

    table = Table(standard_geometry(), Choices(), source=Sensors(), clock=lambda: board.now)
    flow = table.flow
    wanted = dict(flow.lessons[0].steps[0].required)
    for label, side in wanted.items():  # the board starts the other way round
        board.set_by_hand(label, "R" if side == "L" else "L")
    board.run_until(1.0)
    flow.mode = "lessons"
    table.handle_action("select")  # the first lesson
    assert flow.mode == "lesson"
    for s, c in enumerate(board.world.codes):
        flow.halls[standard_geometry().labels[s]] = "LR"[c & 1]
    flow.runner.positions.update(flow.halls)
    assert set(flow.runner.still_to_set()) == set(wanted.items())
    seen = len(out.events)
    kb = Keyboard(table, board, asyncio.Event())
    kb.feed("s")
    board.run_until(board.now + 2.0)
    for ev in out.events[seen:]:
        table.handle_event(ev)
    assert flow.runner.still_to_set() == ()


def test_matches_n_means_n_when_someone_else_presses_past_the_result(tmp_path):
    """A scripted hold on the result screen moved the table on before the
    simulated players pressed there, so they never counted that match:
    ``--matches 2 --seed 4`` with ``{"t": 69, "press": "hold"}`` played 3."""
    from coindrel.table.modes import Mode
    from coindrel.table.script import Do, ScriptStep

    from .awkward import rig_for, run_until

    rig = rig_for(tmp_path, matches=2, seed=4)
    try:
        assert run_until(rig, lambda: rig.table.flow.mode is Mode.RESULT, 1500)
        rig.apply(ScriptStep(rig.t, Do.PRESS, "hold-select", "", 1))  # a person presses past the result
        assert rig.table.flow.mode is Mode.MENU
        assert run_until(rig, lambda: rig.players.finished.is_set(), 1500)
        rig.tick()
        assert rig.table.flow.match is None or not rig.table.flow.match.results  # no third match began
        assert len(rig.out.matches) == 2 and all(m.over for m in rig.out.matches)
    finally:
        rig.close()


def test_sim_fast_with_display_capture_writes_the_frames(tmp_path, capsys):
    """``--fast --display capture --out DIR`` wrote no frame: --fast dropped
    the display for text lines. Now each screen the OLED shows is a PNG."""
    from PIL import Image

    from coindrel.cli import main

    out = tmp_path / "frames"
    out.mkdir()
    assert main(["sim", "--fast", "--display", "capture", "--out", str(out), "--until", "15",
                 "--state-dir", str(tmp_path / "state")]) == 0
    frames = sorted(out.glob("*.png"))
    assert len(frames) >= 5, frames
    images = [Image.open(f) for f in frames]
    assert all(im.size[0] >= 128 and im.size[1] >= 64 for im in images)
    assert len({im.tobytes() for im in images}) >= 5  # the screens change as the match goes on
    assert "drops" in capsys.readouterr().out  # the summary still closes the run


def test_sim_fast_with_display_gifanim_writes_the_gif(tmp_path):
    from coindrel.cli import main

    gif = tmp_path / "m.gif"
    assert main(["sim", "--fast", "--display", "gifanim", "--out", str(gif), "--until", "8",
                 "--state-dir", str(tmp_path / "state")]) == 0
    assert gif.stat().st_size > 0
