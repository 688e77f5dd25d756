"""People at awkward moments: each finding of the first newcomer's try, on
the real table, journal and virtual board (``coindrel sim --fast``'s rig).

Journals across matches: a match ended, let go of or undone at its last drop is filed once,
and the next match is journalled from its first line.
"""

from __future__ import annotations

from coindrel.engine import Variants
from coindrel.table.daemon import Table
from coindrel.table.script import Do, ScriptStep
from coindrel.table.setupmenu import Choices

from .awkward import FAST, G, rig_for, run_until


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
    rig.apply(ScriptStep(rig.t, Do.PRESS, MONKEY_PRESSES[12], "", 13))  # End match: "End the match?"
    assert flow.match is first and flow.view(rig.t).title == "End the match?"
    for press in ("next", "select"):  # its "End match" (the mark starts on "Keep playing")
        rig.apply(ScriptStep(rig.t, Do.PRESS, press, "", 13))
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
    filed as the match ends (the history and the status agree at once), and
    "Undo last drop" brings the journal back from the history: the replayed
    drop goes into the same journal, and the real end is filed again."""
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
    ended = len(m.results)
    assert filed == [ended] and table.journal is None, "filed as it ended"
    assert [x.result for x in list_matches(tmp_path)] == ["finished"]
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
    assert filed == [ended, turns + 1] and table.journal is None
    [summary] = list_matches(tmp_path)
    assert summary.result == "finished" and summary.turns == turns + 1 and summary.totals == m.totals
    detail = load_match(tmp_path, "last")
    assert [t.entry for t in detail.match.results] == [r.entry for r in m.results]
    assert detail.match.results[-1].entry == replay
