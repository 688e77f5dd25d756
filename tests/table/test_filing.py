"""A match is filed in the history as it ends, even while its last drop's
mismatch screen is up (it was filed only once that was answered: the status
said over while the history said in progress). Undoing or correcting that
drop brings its journal back from the history; it is filed again when it
ends again, and a restart in between resumes it as the match in progress."""

from __future__ import annotations

import copy

from coindrel.engine import standard_geometry
from coindrel.sources.base import Capabilities
from coindrel.table.daemon import Table
from coindrel.table.history import list_matches
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore

from .flowkit import choose, report_for

G = standard_geometry()
NO_SYNC = {"datasync": lambda fd: None}


class BoardOnly:
    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=G.labels)


def table_at_the_last_drop(state):
    now = [100.0]
    t = Table(G, Choices(clock="off", players=("Ann", "Bo")), source=BoardOnly(),
              store=MatchStore(state, **NO_SYNC).open(), clock=lambda: now[0])
    t.positions.update({label: "L" for label in G.labels})
    t.handle_action("select")  # Start match
    m = t.flow.match
    assert m is not None and t.journal is not None

    def ends(entry):
        trial = copy.deepcopy(m)
        trial.coin_seen()
        return trial.play(entry).over

    n = 0
    for _ in range(400):
        if m.phase == "turn" and ends(n % 8):
            break
        if t.flow.mode in ("reveal", "round-result"):
            t.handle_action("select")
            continue
        t.flow.on_entry(n % 8, now[0])
        n += 1
        t.flow.on_report(report_for(m, (n - 1) % 8, n), now[0] + 0.5)
        t._after_flow()
        now[0] += 1
    else:
        raise AssertionError(f"no way to the last drop: mode {t.flow.mode}, phase {m.phase}")
    entry = n % 8
    finding = type("F", (), {"say": "Exit 16 did not see a coin."})()
    t.flow.on_entry(entry, now[0])
    t.flow.on_report(report_for(m, entry, len(m.results) + 1, verdict="mismatch", seen=(), diagnosis=[finding]),
                     now[0])
    t._after_flow()
    return t, m, entry, now


def results(state):
    return [(s.result, s.turns) for s in list_matches(state)]


def test_filed_as_it_ends_and_undo_reopens_it_into_the_same_journal(tmp_path):
    t, m, entry, now = table_at_the_last_drop(tmp_path)
    assert m.over and t.flow.mode == "mismatch"
    turns = len(m.results)
    assert results(tmp_path) == [("finished", turns)] and not t.store.current.exists()  # filed at once
    choose(t.flow, "Undo last drop", now[0] + 1)
    t._after_flow()
    assert not m.over and t.journal is not None and t.store.current.exists()
    assert results(tmp_path) == [("in progress", turns - 1)] and not list(t.store.history_dir.iterdir())
    # the drop played again, healthy this time: filed again, once, with it
    t.handle_action("select")  # the board is put back as asked
    t.flow.on_entry(entry, now[0] + 2)
    t.flow.on_report(report_for(m, entry, len(m.results) + 1), now[0] + 2.5)
    t._after_flow()
    assert m.over
    assert results(tmp_path) == [("finished", turns)] and not t.store.current.exists()


def test_a_restart_after_the_reopening_resumes_the_match_in_progress(tmp_path):
    t, m, entry, now = table_at_the_last_drop(tmp_path)
    choose(t.flow, "Undo last drop", now[0] + 1)
    t._after_flow()
    t.store.close()  # killed here
    store = MatchStore(tmp_path, **NO_SYNC).open()
    rec = store.recover()
    try:
        assert rec.match is not None and not rec.match.over and rec.journal is not None, rec.messages
        assert not any("had ended" in x for x in rec.messages)
        assert len(rec.match.results) == len(m.results)
    finally:
        if rec.journal is not None:
            rec.journal.close()
        store.close()


def test_board_is_right_on_the_last_drop_files_it_once(tmp_path):
    t, m, entry, now = table_at_the_last_drop(tmp_path)
    choose(t.flow, "Board is right", now[0] + 1)
    t._after_flow()
    t.step()
    assert [r for r, _ in results(tmp_path)] == ["finished"] and len(list(t.store.history_dir.iterdir())) == 1
