"""Crash safety of the whole table: a simulated match on the virtual board is
cut off at random moments (the process state dropped without any clean-up,
as kill -9 does), and every restart resumes from the journal with the same
scores, round, turns and board belief; the match then plays on to the end.

The journal's own guarantees against torn writes and power cuts are tested
in test_crash.py with real processes and SIGKILL."""

from __future__ import annotations

import random

from coindrel.engine import standard_geometry
from coindrel.sources.base import Capabilities
from coindrel.table.daemon import Table
from coindrel.table.setupmenu import Choices
from coindrel.table.sim import SimOptions, SimPlayers
from coindrel.table.store import MatchStore
from coindrel.virtual import BoardConfig, Collect, Scenario, build_board

G = standard_geometry()
STEP = 0.05


class BoardOnly:
    """The board as the table sees it without a link: every sensor there."""

    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=G.labels)


def snapshot(table: Table):
    m = table.flow.match
    if m is None:
        return None
    return (m.totals, m.round_scores, m.round, m.to_move, m.board.text(), [r.to_json() for r in m.results], len(m.log))


def test_restarts_at_random_moments_resume_exactly(tmp_path):
    state = tmp_path / "state"
    rnd = random.Random(11)
    out = Collect()
    board, _ = build_board(Scenario(BoardConfig(seed=8)), outputs=[out])
    now = [0.0]
    seen = [0]

    def new_table():
        store = MatchStore(state).open()
        table = Table(G, Choices(clock="60", players=("Ann", "Bo")), source=BoardOnly(), store=store,
                      clock=lambda: now[0], reveal_seconds=1.0)
        table.positions = {G.labels[s]: ("none" if c == 4 else "LR"[c & 1]) for s, c in enumerate(board.world.codes)}
        return table, store

    table, store = new_table()
    table.resume(store.recover())
    players = SimPlayers(table, board, SimOptions(think=0.2, seed=8), clock=lambda: now[0])
    restarts = 0
    next_crash = rnd.uniform(1, 5)
    while now[0] < 600:
        now[0] += STEP
        board.run_until(now[0])
        for ev in out.events[seen[0]:]:
            table.handle_event(ev)
        seen[0] = len(out.events)
        table.step()
        players.step()
        m = table.flow.match
        if m is not None and m.over:
            break
        if now[0] >= next_crash and m is not None:
            before = snapshot(table)
            store.close()  # the lock goes with the process; nothing is flushed or closed
            table, store = new_table()
            table.resume(store.recover())
            assert snapshot(table) == before, f"restart {restarts + 1} at t={now[0]:.2f}"
            assert table.reconciler.belief.text() == before[4]
            players.table = table
            restarts += 1
            next_crash = now[0] + rnd.uniform(0.2, 5.0)
    assert restarts >= 25
    final = table.flow.match
    assert final is not None and final.over
    assert [c & 1 for c in final.board.codes] == [c & 1 for c in board.world.codes]  # belief = the real board


def test_the_boards_learned_timing_outlives_a_restart(tmp_path):
    from coindrel.engine import Match, MatchSetup

    def table():
        store = MatchStore(tmp_path).open()
        return Table(G, Choices(), source=BoardOnly(), store=store), store

    first, store = table()
    rec = first._reconciler_for(Match(MatchSetup(seed=1)))
    for _ in range(10):
        rec.timing.gaps.append(0.2)
    rec.timing.learned = 10
    first.save_timing()
    store.close()
    second, store = table()
    again = second._reconciler_for(Match(MatchSetup(seed=1)))
    assert again.timing.ready and abs(again.timing.quiet - 0.36) < 1e-9
    store.close()
    (tmp_path / "board-timing.json").write_text("{not json")
    third, _ = table()
    assert not third._reconciler_for(Match(MatchSetup(seed=1))).timing.ready  # damaged: learned again


def test_the_learned_timing_is_saved_as_drops_are_scored_not_only_at_a_clean_stop(tmp_path, monkeypatch):
    """After a kill the board's timing was learned again from scratch (it was
    written only at a clean stop or a match's end): hands under 120 ms were
    taken for coin flips again until four drops had relearned it."""
    from coindrel.table import daemon

    from .flowkit import report_for
    from .test_daemon_wiring import HubLike, started

    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    saved = []
    monkeypatch.setattr(table, "save_timing", lambda: saved.append(table.reports))
    m = table.flow.match
    for n in range(1, daemon.TIMING_EVERY * 2 + 1):
        table.flow.on_entry(n % 8, now[0])
        report = report_for(m, n % 8, len(m.results) + 1)
        monkeypatch.setattr(table, "_finished_reports", lambda r=report: [r])
        table.step()
        monkeypatch.setattr(table, "_finished_reports", lambda: [])
        now[0] += 1
        if table.flow.mode == "reveal":
            table.handle_action("select")
    assert saved == [daemon.TIMING_EVERY, 2 * daemon.TIMING_EVERY]
