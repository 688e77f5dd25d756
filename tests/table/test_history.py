"""The history: listing, one match's turns, and exporting its board events.
It only ever reads."""

from __future__ import annotations

import hashlib

import pytest

from coindrel.engine import Match
from coindrel.events import event_to_json
from coindrel.obslog import read_log
from coindrel.table.history import find_match, list_matches, load_match, read_summary
from coindrel.table.journal import JournalError
from coindrel.table.store import MatchStore

from .support import SETUP, build, play_drop
from .test_store import play_out


def finished(state_dir, n: int = 1) -> list[Match]:
    out = []
    with MatchStore(state_dir) as store:
        for k in range(n):
            match = Match(SETUP)
            journal = store.begin(match)
            play_out(match, journal, seed=k)
            store.finish(journal, match)
            out.append(match)
    return out


def fingerprint(d) -> dict:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.rglob("*")) if p.is_file()}


def test_the_list_is_newest_first_with_the_match_in_progress_on_top(tmp_path):
    matches = finished(tmp_path, 2)
    build(tmp_path)  # a third match, left in progress
    rows = list_matches(tmp_path)
    assert [(s.number, s.result) for s in rows] == [(3, "in progress"), (2, "finished"), (1, "finished")]
    assert rows[1].totals == matches[1].totals and rows[2].winner == matches[0].winner
    assert rows[0].turns == 5 and rows[0].round == 2
    assert [s.number for s in list_matches(tmp_path, include_current=False)] == [2, 1]


def test_reading_the_history_changes_nothing(tmp_path):
    finished(tmp_path)
    b = build(tmp_path)
    b.path.write_bytes(b.data + b'0000 {"half a reco')  # as the daemon is mid-write
    before = fingerprint(tmp_path)
    list_matches(tmp_path)
    load_match(tmp_path, "current").turns()
    load_match(tmp_path, "1").observation_log()
    assert fingerprint(tmp_path) == before


def test_a_summary_without_its_end_record_comes_from_the_replay(tmp_path):
    (match,) = finished(tmp_path)
    (row,) = list_matches(tmp_path)
    data = row.path.read_bytes()
    row.path.write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 1])  # lose the end record
    again = read_summary(row.path)
    assert (again.totals, again.winner, again.turns, again.rounds, again.result) == (
        row.totals, row.winner, row.turns, row.rounds, "finished")


def test_an_unreadable_file_is_listed_not_fatal(tmp_path):
    finished(tmp_path)
    (tmp_path / "history" / "0002-junk.journal").write_bytes(b"this is not a journal\n")
    rows = list_matches(tmp_path)
    assert rows[0].result == "unreadable" and rows[0].problem and rows[1].result == "finished"


def test_matches_are_found_by_number_last_current_or_name(tmp_path):
    finished(tmp_path, 2)
    files = sorted((tmp_path / "history").iterdir())
    assert find_match(tmp_path, "2") == files[1] == find_match(tmp_path, "#2") == find_match(tmp_path, "last")
    assert find_match(tmp_path, files[0].name[:8]) == files[0]  # the start of a file name
    with pytest.raises(JournalError, match="no match is in progress"):
        find_match(tmp_path, "current")
    with pytest.raises(JournalError, match="there is no match #9"):
        find_match(tmp_path, "9")
    copy = files[0].with_name(files[0].stem + "-1.journal")  # e.g. restored by hand next to the original
    copy.write_bytes(files[0].read_bytes())
    with pytest.raises(JournalError, match="matches 2 matches"):
        find_match(tmp_path, files[0].name[:8])
    copy.unlink()
    with pytest.raises(JournalError, match="no kept match is called 'zzz'"):
        find_match(tmp_path, "zzz")
    build(tmp_path)
    assert find_match(tmp_path, "3").name == "match.journal" == find_match(tmp_path, "current").name


def test_turns_leave_out_undone_drops_and_keep_their_times(tmp_path):
    clock = iter(float(x) for x in range(1000, 2000))
    with MatchStore(tmp_path, wall=lambda: next(clock)) as store:
        match = Match(SETUP)
        journal = store.begin(match)
        match.reveal_done(1.0)
        for t, entry in enumerate((0, 7, 3), start=2):
            play_drop(match, journal, entry, float(t * 10))
        match.undo(100.0)  # the third drop is taken back...
        journal.sync_match(match)
        play_drop(match, journal, 4, 110.0)  # ...and made again elsewhere
        journal.close()
    detail = load_match(tmp_path, "current")
    turns = detail.turns()
    assert [t["entry"] for t in turns] == [0, 7, 4]
    assert [t["name"] for t in turns] == ["Zoë", "Bo", "Zoë"]
    times = [t["time"] for t in turns]
    assert times == sorted(times) and len(set(times)) == 3
    assert turns[2]["time"] > turns[1]["time"] + 3  # the redone drop's own time, not the undone one's
    assert detail.summary.result == "in progress"


def test_the_board_events_export_as_an_observation_log(tmp_path):
    b = build(tmp_path)
    detail = load_match(tmp_path, "current")
    log = read_log(detail.observation_log())
    assert log.problems == []
    assert "/".join(log.header.state) == SETUP.start and log.header.extra["match"] == detail.summary.id
    assert len(log.events) == sum(1 for line in b.data.splitlines() if b'"k":"ev"' in line)
    assert {e.kind for e in log.events} == {"entry", "switch", "exit", "status"}
    assert [event_to_json(e) for e in log.events] == detail.contents.event_dicts


@pytest.mark.parametrize("seed", [1, 2])
def test_the_exported_events_reconcile_as_the_live_table_did(tmp_path, seed):
    """Found by a newcomer: a match with an unplug between drops, scored fine
    live, exported with --events and reconciled offline, flagged a drop's
    events as lost. Every drop's verdict offline is the one the table gave."""
    import asyncio
    import json

    from coindrel.reconcile.offline import reconcile_log
    from coindrel.table.fastsim import FastRig
    from coindrel.table.sim import SimOptions

    opts = SimOptions(display="none", seed=seed, faults=("unplug,t=20,duration=3",))
    rig = FastRig(opts, [], state_dir=str(tmp_path), store_options={"datasync": lambda fd: None})
    asyncio.run(rig.run())
    detail = load_match(tmp_path, "1")
    live = {r.data["drop"]: r.data["verdict"] for r in detail.contents.records
            if r.kind == "verdict" and r.data.get("drop")}
    lines = detail.observation_log()
    assert sum(1 for line in lines if '"disconnected"' in line) == 1
    _rec, reports = reconcile_log(read_log(lines))
    offline = {r.drop: r.verdict for r in reports if r.drop is not None}
    assert len(live) >= 40 and offline == live
