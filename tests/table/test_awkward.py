"""People at awkward moments: each finding of the first newcomer's try, on
the real table, journal and virtual board (``coindrel sim --fast``'s rig)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from coindrel.engine import Variants
from coindrel.table.daemon import Table, TableDied
from coindrel.table.fastsim import FastRig
from coindrel.table.people import do_by_hand
from coindrel.table.restore import Hand
from coindrel.table.script import Do, ScriptError, ScriptStep, parse_script
from coindrel.table.setupmenu import Choices
from coindrel.table.sim import Keyboard, SimOptions
from coindrel.engine import standard_geometry

G = standard_geometry()
FAST = {"datasync": lambda fd: None}


def rig_for(tmp_path, **kw):
    opts = SimOptions(**{"think": 0.2, "pause": 0.3, "reveal_seconds": 0.5, "display": "none",
                         "state_dir": str(tmp_path), "clock": "turbo", **kw})
    return FastRig(opts, step=0.05, store_options=FAST)


def run_until(rig, cond, limit=600.0):
    end = rig.t + limit
    while rig.t < end:
        if cond():
            return True
        rig.tick()
    return cond()


def test_a_coin_while_the_round_result_shows_scores_and_the_table_plays_on(tmp_path):
    rig = rig_for(tmp_path, seed=4)
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.mode == "round-result")
    m = flow.match
    drops = len(m.results)
    to_move = m.to_move
    rig.board.drop(3)  # a person drops while "Round 1 over" is on screen
    people, rig.players.step = rig.players.step, lambda: None  # nobody presses for now
    assert run_until(rig, lambda: len(m.results) == drops + 1, 20)
    assert m.results[-1].player == to_move and m.results[-1].entry == 3
    assert flow.mode == "mismatch" and "out of turn" in flow.diagnosis.facts[0]
    rig.table.handle_action("back")  # "Board is right": no MatchError, the turns go on
    assert flow.mode == "turn" and m.phase == "turn"
    rig.players.step = people
    assert run_until(rig, lambda: rig.players.finished.is_set(), 900)
    assert rig.errors == [] and rig.out.matches[-1].over


def test_a_coin_while_paused_counts_and_resumes_the_match(tmp_path):
    rig = rig_for(tmp_path, seed=5)
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.mode == "turn" and flow.match.phase == "turn" and len(flow.match.results) >= 2)
    rig.players.step = lambda: None
    assert run_until(rig, lambda: rig.board.world.in_flight() == 0 and rig.board.pending == 0 and not rig.table.reconciler.busy and flow.mode == "turn", 30)
    rig.table.handle_action("back")
    assert flow.mode == "paused"
    n = len(flow.match.results)
    rig.board.drop(0)
    assert run_until(rig, lambda: len(flow.match.results) == n + 1, 20)
    assert flow.mode == "mismatch" and "paused" in flow.diagnosis.facts[0]
    rig.table.handle_action("back")
    assert flow.mode == "turn" and not flow.pauses


def test_a_task_that_dies_ends_the_run_with_its_error(tmp_path):
    class Boom(Exception):
        pass

    table = Table(G, Choices(), clock=lambda: 0.0)

    def step():
        raise Boom("the step broke")

    table.step = step
    with pytest.raises(TableDied, match="the step broke"):
        asyncio.run(asyncio.wait_for(table.run(), 60))


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


def test_undo_lists_every_step_and_the_keyboard_puts_the_board_back(tmp_path):
    rig = rig_for(tmp_path, seed=7, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 6)
    rig.players.step = lambda: None
    run_until(rig, lambda: flow.match.phase == "turn" and not rig.table.reconciler.busy, 20)
    rig.table.handle_action("back")
    flow.selected = 1  # Undo last drop
    rig.table.handle_action("select")
    assert flow.mode == "restore"
    view = flow.view(rig.t)
    steps = flow.asking
    assert steps and all(step.text in view.text for step in steps)
    Keyboard(rig.table, rig.board, asyncio.Event()).key("s")
    run_until(rig, lambda: False, 2.0)
    assert not any(s.hand is Hand.FLIP for s in flow.asking)
    rig.table.handle_action("select")
    if flow.mode == "mismatch":  # the set-up's hands made a drop out of turn: the board is right
        rig.table.handle_action("back")
    assert flow.mode in ("turn", "reveal")


def test_holes_chosen_in_the_menu_are_taken_out_by_the_players(tmp_path):
    rig = rig_for(tmp_path, seed=8)
    rig.table.flow.menu.choices.variants = Variants(holes=True)  # chosen in the menu; the board has every switch
    assert not rig.board.world.board().holes()
    assert run_until(rig, lambda: rig.table.flow.match is not None, 60)
    assert rig.table.flow.match.board.holes() == list(G.holes)
    assert sorted(rig.board.world.board().holes()) == sorted(G.holes)


def test_hands_do_what_the_table_asks():
    class Board:
        def __init__(self):
            self.did = []

        def set_by_hand(self, label, side):
            self.did.append(("flip", label, side))
            return {}

        def take_out_switch(self, label):
            self.did.append(("out", label))
            return True

    from coindrel.table.restore import HandStep

    b = Board()
    assert do_by_hand(b, [HandStep(Hand.FLIP, "R1S1", "R"), HandStep(Hand.TAKE_OUT, "R2S2")]) == 2
    assert b.did == [("flip", "R1S1", "R"), ("out", "R2S2")]


def test_a_script_line_that_is_wrong_is_named():
    with pytest.raises(ScriptError, match="line 2"):
        parse_script('{"t": 1, "press": "select"}\n{"t": 2, "drop": 9}\n', G)
    with pytest.raises(ScriptError, match="exactly one action"):
        parse_script('{"t": 1, "press": "select", "drop": 3}', G)
    with pytest.raises(ScriptError, match="not JSON"):
        parse_script("{t: 1}", G)
    steps = parse_script('# comment\n{"t": 5, "hand": "R3S2", "to": "L"}\n{"t": 1, "restart": true}\n', G)
    assert [s.do for s in steps] == [Do.RESTART, Do.HAND] and steps[1].side == "L"


SCRIPT = [
    {"t": 3, "press": "right"}, {"t": 3.5, "press": "hold"}, {"t": 4, "press": "back"},
    {"t": 9, "drop": 2}, {"t": 9.1, "drop": 2}, {"t": 12, "hand": "R3S2", "to": "R"}, {"t": 14, "place": "R1S3"},
    {"t": 15, "press": "back"}, {"t": 15.2, "drop": 5}, {"t": 18, "unplug": 4}, {"t": 19, "drop": 7},
    {"t": 25, "restart": True}, {"t": 25.05, "drop": 1}, {"t": 30, "take": "R1S3"}, {"t": 31, "press": "select"},
    {"t": 33, "press": "left"}, {"t": 40, "restart": True}, {"t": 44, "unplug": 10}, {"t": 50, "press": "hold"},
    {"t": 60, "drop": 4}, {"t": 60.02, "restart": True}, {"t": 75, "press": "back"}, {"t": 75.5, "press": "select"},
]


def test_sim_fast_with_a_busy_script_plays_to_the_end(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in SCRIPT) + "\n")
    result = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--players", "greedy,random", "--script",
                        str(script), "--result", str(result), "--state-dir", str(tmp_path / "state")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(result.read_text())
    assert res["over"] and res["errors"] == [] and res["restarts"] == 3 and res["unplugs"] == 2
    assert res["winner"] in ("Ann", "Bo", "draw") and res["drops"] > 20
    assert "Result:" in r.stdout and "Faults named" in r.stdout


def test_sim_fast_names_a_bad_script_line(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": 1, "drop": 3}\n{"t": 2, "press": "jump"}\n')
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--script", str(script)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "line 2" in r.stderr and "jump" in r.stderr and "Traceback" not in r.stderr


def test_sim_fast_with_a_stuck_switch_prints_the_mismatch_and_a_summary(tmp_path):
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--fault", "switch_stuck@R3S2,t=20",
                        "--seed", "2"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "Mismatch at drop" in r.stdout and "R3S2" in r.stdout
    assert "Result:" in r.stdout and "switch_stuck at R3S2" in r.stdout


def test_a_script_that_is_not_a_text_file_is_refused_without_reading_it_all(tmp_path):
    import os

    from coindrel.table.script import MAX_SCRIPT_BYTES, load_script

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer for ever
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as f:
        f.truncate(MAX_SCRIPT_BYTES + 1)  # sparse: no time to write it
    binary = tmp_path / "b.jsonl"
    binary.write_bytes(b'{"t": 1, "drop": 3}\n\x00\x01\x02')
    for path, said in (("/dev/zero", "character device"), (fifo, "named pipe"), (huge, "split it"),
                       (binary, "binary"), (tmp_path, "directory")):
        with pytest.raises(ScriptError, match=said):
            load_script(path, G)


def test_sim_with_dev_zero_as_its_script_says_so(tmp_path):
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--script", "/dev/zero"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "character device, not a file" in r.stderr and "Traceback" not in r.stderr


# The monkey's press sequence (seed 135, turbo clock, presses only, all at one moment): the pause menu's
# End match while the match's coin is still falling, then Start match twice (the pads to clear) at once.
MONKEY_PRESSES = ("next hold-select back back back select select back back back prev prev "
                  "select select select").split()


def test_end_match_while_a_coin_falls_then_a_new_match_at_once_journals_both(tmp_path):
    """Found by the monkey: the new match met the last one's journal still open
    ("a match is already in progress"). The last is filed as abandoned with
    every drop it scored, the next is journalled from its first line, and
    careful people then finish it."""
    from coindrel.table.history import list_matches

    rig = rig_for(tmp_path, seed=135, variants=Variants(holes=False, shuffled=False))
    flow = rig.table.flow
    while rig.t < 40.07394734842496:  # the monkey's warm-up
        rig.tick()
    first = flow.match
    assert first is not None and first.phase == "falling" and rig.table.journalled is first
    for line, press in enumerate(MONKEY_PRESSES[:12], 1):
        rig.apply(ScriptStep(rig.t, Do.PRESS, press, "", line))
    assert flow.mode == "paused" and flow.match is first
    rig.apply(ScriptStep(rig.t, Do.PRESS, MONKEY_PRESSES[12], "", 13))  # End match
    assert flow.match is None and rig.table.journal is None
    [filed] = list_matches(tmp_path, include_current=False)
    assert filed.result == "abandoned" and filed.totals == first.totals and filed.turns == len(first.results)
    for line, press in enumerate(MONKEY_PRESSES[13:], 14):
        rig.apply(ScriptStep(rig.t, Do.PRESS, press, "", line))
    second = flow.match
    assert second is not None and second is not first and rig.table.journalled is second
    assert rig.errors == [], rig.errors
    assert [m.result for m in list_matches(tmp_path)] == ["in progress", "abandoned"]
    rig.players.matches_done, rig.opts.matches = 0, 1
    assert run_until(rig, lambda: rig.players.finished.is_set(), 1500)
    assert rig.errors == [] and second.over
    assert [m.result for m in list_matches(tmp_path)] == ["finished", "abandoned"]


def test_a_match_the_flow_lets_go_of_unended_is_filed_before_the_next_begins(tmp_path, caplog):
    """Whatever way a match leaves the flow without its END_MATCH, the daemon
    files its journal before the next match's: the store never refuses the
    new match and neither match is lost."""
    from coindrel.table.history import list_matches
    from coindrel.table.modes import Mode
    from coindrel.table.store import MatchStore

    table = Table(G, Choices(clock="off"), store=MatchStore(tmp_path, **FAST).open())
    for press in ("select", "select", "select"):  # start (pads set), the reveal
        table.handle_action(press)
    first = table.flow.match
    assert table.flow.mode is Mode.TURN and table.journalled is first
    table.flow.match = None  # gone without an END_MATCH effect
    table.flow._go(Mode.MENU, table.now())
    for press in ("select", "select"):
        table.handle_action(press)
    second = table.flow.match
    assert second is not None and second is not first and table.journalled is second
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text
    assert "never ended" in caplog.text
    assert [m.result for m in list_matches(tmp_path)] == ["in progress", "abandoned"]


def test_undo_of_a_mismatched_last_drop_keeps_journalling_and_files_the_real_end_once(tmp_path):
    """Found by reading: the last drop's mismatch filed the match as finished
    before the screen asked about it, so after "Undo last drop" the match
    played on with no journal open (the replayed drop lost on a power cut,
    the history showing a finished match that then went on). The end is
    filed once, when the mismatch is answered and the match is really over."""
    import copy

    from coindrel.engine import drop
    from coindrel.reconcile.report import DropReport
    from coindrel.table.history import list_matches, load_match
    from coindrel.table.modes import Mode
    from coindrel.table.store import MatchStore

    store = MatchStore(tmp_path, **FAST).open()
    filed = []
    finish = store.finish
    store.finish = lambda journal, match: filed.append(len(match.results)) or finish(journal, match)
    # a fixed shuffle: with a random one the walk to the last drop below could go round for ever
    table = Table(G, Choices(clock="off"), store=store, new_seed=lambda: 7)
    flow = table.flow

    def coin(entry, verdict="ok"):
        """A coin in ``entry`` and the reconciler's report of its drop (the exits saw nothing when mismatched)."""
        m = flow.match
        flow.on_entry(entry, table.now())
        o = drop(m.board, [entry])
        seen = () if verdict != "ok" else o.exits
        finding = type("F", (), {"say": "An exit did not see a coin the cascade sent there."})()
        flow.on_report(DropReport(drop=len(m.results) + 1, entry=entry, entry_seen=True, t=table.now(),
                                  expected_exits=o.exits, observed_exits=seen, verdict=verdict,
                                  diagnosis=[finding] if verdict != "ok" else [], state=o.board.rows(),
                                  scored_exits=o.exits), table.now())
        table._after_flow()

    def ends_the_match(entry):
        trial = copy.deepcopy(flow.match)
        trial.coin_seen()
        return trial.play(entry).over

    for press in ("select", "select", "select"):  # start (pads set), the reveal
        table.handle_action(press)
    m = flow.match
    n = 0
    steps = 0
    while not (m.phase == "turn" and ends_the_match(n % 8)):
        steps += 1
        assert steps < 400, f"no way to the last drop: mode {flow.mode}, phase {m.phase}"
        if flow.mode in (Mode.REVEAL, Mode.ROUND_RESULT):
            table.handle_action("select")
        else:
            coin(n % 8)
            n += 1
    last, replay = n % 8, next(e for e in range(8) if e != n % 8 and ends_the_match(e))
    coin(last, "mismatch")
    assert m.over and flow.mode is Mode.MISMATCH
    assert filed == [] and table.journalled is m, "filed before the players answered the mismatch"
    table.handle_action("select")  # to the choices
    while flow.view(table.now()).options[flow.view(table.now()).selected] != "Undo last drop":
        table.handle_action("next")
    table.handle_action("select")
    assert flow.mode is Mode.RESTORE and not m.over
    table.handle_action("select")  # the board is put back (no hall sensors to check it)
    assert flow.mode is Mode.TURN and table.journal is not None and table.journalled is m
    turns = len(m.results)
    [current] = list_matches(tmp_path)
    assert current.result == "in progress" and current.turns == turns
    coin(replay)
    assert m.over and flow.mode is Mode.ROUND_RESULT
    assert filed == [turns + 1] and table.journal is None
    [summary] = list_matches(tmp_path)
    assert summary.result == "finished" and summary.turns == turns + 1 and summary.totals == m.totals
    detail = load_match(tmp_path, "last")
    assert [t.entry for t in detail.match.results] == [r.entry for r in m.results]
    assert detail.match.results[-1].entry == replay


def test_a_second_coin_while_the_first_falls_is_flagged_and_the_next_player_keeps_their_turn(tmp_path):
    # the newcomer pressed 3 then 5 while the first coin fell: the second scored as Bo's turn, unflagged
    rig = rig_for(tmp_path, seed=7, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.mode == "turn" and flow.match.to_move == 1 and flow.match.phase == "turn"
                     and len(flow.match.results) >= 2)
    m = flow.match
    rig.players.step = lambda: None  # nobody else drops or presses for now
    assert run_until(rig, lambda: rig.board.world.in_flight() == 0 and rig.board.pending == 0
                     and not rig.table.reconciler.busy and flow.mode == "turn", 30)
    if m.to_move != 1:  # the careful player's coin was already on its way: Bo drops it by hand
        rig.board.drop(0)
        assert run_until(rig, lambda: m.to_move == 1 and flow.mode == "turn" and rig.board.world.in_flight() == 0
                         and not rig.table.reconciler.busy, 30)
    drops, totals = len(m.results), m.totals
    rig.board.drop(2)
    assert run_until(rig, lambda: m.phase == "falling", 5)
    rig.board.drop(4)  # while the first coin still falls
    assert run_until(rig, lambda: flow.note is not None and flow.note.title == "Extra coin", 20)
    assert len(m.results) == drops + 1 and m.results[-1].player == 1 and m.results[-1].entry == 2
    assert m.to_move == 2 and m.totals[1] == totals[1], "the extra coin is not the next player's drop"
    assert "Out of turn" in flow.note.text and "to drop" in flow.note.text
    assert run_until(rig, lambda: rig.board.world.board().text() == m.board.text(), 10), "the belief follows the board"
    rig.players.step = type(rig.players).step.__get__(rig.players)
    assert run_until(rig, lambda: len(m.results) == drops + 2, 60)
    assert m.results[-1].player == 2
    assert run_until(rig, lambda: rig.players.finished.is_set(), 900)
    assert rig.errors == [] and rig.out.matches[-1].over
