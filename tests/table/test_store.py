"""The state directory: starting, finishing and abandoning matches, the lock,
the history's numbering and pruning."""

from __future__ import annotations

import os

import pytest

from coindrel.ai import RandomPlayer
from coindrel.engine import Match, MatchSetup
from coindrel.events import EntryEvent, EventError
from coindrel.table.history import history_files, list_matches
from coindrel.table.journal import JournalError
from coindrel.table.records import scan
from coindrel.table.store import MatchStore, StoreError

from .support import SETUP


def play_out(match: Match, journal, seed: int = 1) -> None:
    player, t = RandomPlayer(seed), 1.0
    while not match.over:
        if match.phase == "reveal":
            match.reveal_done(t)
        match.play(player.choose(match), t + 0.5)
        journal.sync_match(match)
        t += 1


def test_a_match_from_start_to_history(tmp_path):
    clock = iter(range(1_700_000_000, 1_800_000_000))
    with MatchStore(tmp_path, wall=lambda: float(next(clock))) as store:
        assert store.recover().match is None
        match = Match(SETUP)
        journal = store.begin(match, meta={"source": "none"})
        assert journal.number == 1 and journal.match_id.startswith("0001-2023")
        play_out(match, journal)
        summary = store.finish(journal, match)
    assert not (tmp_path / "match.journal").exists()
    (path,) = history_files(tmp_path)
    assert summary.path == path and path.name == f"{journal.match_id}.journal"
    assert summary.result == "finished" and summary.totals == match.totals and summary.winner == match.winner
    assert summary.players == ("Zoë", "Bo") and summary.turns == len(match.results)
    assert [sum(r[0] for r in summary.rounds), sum(r[1] for r in summary.rounds)] == list(match.totals)
    assert summary.started == 1_700_000_000 and summary.ended > summary.started
    recs = scan(path.read_bytes()).records
    assert recs[-1].kind == "end" and [r.data for r in recs if r.kind == "act"] == match.log
    assert list_matches(tmp_path)[0].to_json() == summary.to_json()


def test_matches_are_numbered_on(tmp_path):
    with MatchStore(tmp_path) as store:
        for n in (1, 2, 3):
            match = Match(SETUP)
            journal = store.begin(match)
            assert journal.number == n
            store.abandon(journal, match, "players left")
    assert [s.number for s in list_matches(tmp_path)] == [3, 2, 1]
    assert {s.result for s in list_matches(tmp_path)} == {"abandoned"}
    assert list_matches(tmp_path)[0].why == "players left"


def test_keep_matches_prunes_the_oldest(tmp_path):
    with MatchStore(tmp_path, keep_matches=2) as store:
        for _ in range(4):
            match = Match(SETUP)
            store.abandon(store.begin(match), match)
    assert [s.number for s in list_matches(tmp_path)] == [4, 3]
    with MatchStore(tmp_path) as store:  # numbers go on after pruning
        journal = store.begin(Match(SETUP))
        assert journal.number == 5
        journal.close()


def test_one_match_at_a_time_and_only_finished_ones_finish(tmp_path):
    with MatchStore(tmp_path) as store:
        match = Match(SETUP)
        journal = store.begin(match)
        with pytest.raises(StoreError, match="already in progress.*finish or abandon"):
            store.begin(Match(SETUP))
        with pytest.raises(StoreError, match="not over yet; abandon it"):
            store.finish(journal, match)
        journal.close()


def test_one_daemon_per_state_directory(tmp_path):
    first = MatchStore(tmp_path).open()
    with pytest.raises(StoreError, match=f"another coindrel \\(pid {os.getpid()}\\) is using .*systemctl stop"):
        MatchStore(tmp_path).open()
    first.close()
    MatchStore(tmp_path).open().close()


def test_the_store_must_be_opened_first(tmp_path):
    with pytest.raises(StoreError, match="open the match store first"):
        MatchStore(tmp_path).recover()


def test_an_unusable_state_directory_is_named(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(StoreError, match=r"cannot use the state directory .*file/x.*\[storage\] state_dir"):
        MatchStore(tmp_path / "file" / "x").open()


def test_the_journal_follows_the_match_log(tmp_path):
    with MatchStore(tmp_path) as store:
        match = Match(SETUP)
        journal = store.begin(match)
        assert journal.sync_match(match) == 0
        match.reveal_done(1.0)
        match.coin_seen(2.0)
        assert journal.sync_match(match) == 2
        match.play(3, 3.0)
        match.undo(4.0)
        assert journal.sync_match(match) == 2
        other = Match(SETUP)
        with pytest.raises(JournalError, match="no longer belong together"):
            journal.sync_match(other)
        journal.close()
        acts = [r.data for r in scan((tmp_path / "match.journal").read_bytes()).records if r.kind == "act"]
        assert acts == match.log


def test_events_are_checked_and_stored_in_their_json_form(tmp_path):
    with MatchStore(tmp_path) as store:
        journal = store.begin(Match(SETUP))
        journal.event(EntryEvent(1.25, 2))
        journal.event({"t": 2, "kind": "exit", "exit": 16})
        with pytest.raises(EventError, match="exit 17"):
            journal.event({"t": 3, "kind": "exit", "exit": 17})
        journal.close()
    evs = [r.data for r in scan((tmp_path / "match.journal").read_bytes()).records if r.kind == "ev"]
    assert evs == [{"t": 1.25, "kind": "entry", "entry": 3}, {"t": 2.0, "kind": "exit", "exit": 16}]


def test_resumed_match_time_carries_on_from_the_last_action(tmp_path):
    with MatchStore(tmp_path) as store:
        match = Match(MatchSetup(clock=30.0, seed=2))
        journal = store.begin(match)
        match.reveal_done(500.0)
        journal.sync_match(match)
        journal.close()
    with MatchStore(tmp_path) as store:
        rec = store.recover()
        now = 3.0  # the monotonic clock after a reboot
        offset = rec.time_offset(now)
        assert rec.last_t == 500.0 and now + offset == 500.0
        assert rec.match.remaining(now + offset) == 30.0  # the reboot did not eat the turn clock
        rec.match.coin_seen(now + 1 + offset)  # and time does not run backwards for it
        rec.journal.sync_match(rec.match)
        rec.journal.close()


@pytest.mark.skipif(not os.path.isdir("/proc/1"), reason="needs Linux's /proc")
@pytest.mark.parametrize("where", ["/proc/1", "/proc/1/no-such-folder"])
def test_a_state_dir_on_proc_names_the_real_problem(where, capsys):
    """``--state-dir /proc/1`` said "No such file or directory": the folder
    exists, but /proc is the kernel's own file system and keeps nothing."""
    from coindrel.cli import main

    with pytest.raises(StoreError) as e:
        MatchStore(where).open()
    said = str(e.value)
    assert "No such file" not in said and "a file system the kernel makes up" in said and "/proc" in said
    assert "state_dir" in said
    assert main(["sim", "--fast", "--state-dir", where]) == 2
    err = capsys.readouterr().err
    assert "a file system the kernel makes up" in err and "Traceback" not in err


@pytest.mark.parametrize("damage, why", [
    (b'{"gaps": [0.1, ', "Expecting value"),  # a write cut short
    (bytes(range(200, 256)) * 4, "not text"),
    (b'{"gaps": "soon"}', "gaps and spans must be lists of seconds"),
    (b"[1, 2]", "an array, not a JSON object"),
    (b'{"gaps": [1e300], "spans": [0.5]}', "a duration over 30 s"),  # reads, but a drop would wait for ever
])
def test_a_damaged_timing_file_is_kept_aside_and_said(tmp_path, damage, why):
    """Found by a newcomer: a board-timing.json that did not read was passed
    over without a word and written over at the next save."""
    (tmp_path / "board-timing.json").write_bytes(damage)
    with MatchStore(tmp_path) as store:
        rec = store.recover()
    [said] = rec.messages
    assert "board-timing.json is damaged" in said and why in said and "learned again" in said, said
    assert not (tmp_path / "board-timing.json").exists()
    [kept] = (tmp_path / "damaged").glob("board-timing-*.damaged")
    assert kept.read_bytes() == damage and str(kept) in said


def test_a_good_timing_file_stays_where_it_is(tmp_path):
    good = b'{"gaps": [0.1, 0.2], "spans": [0.5], "learned": 2}'
    (tmp_path / "board-timing.json").write_bytes(good)
    with MatchStore(tmp_path) as store:
        assert store.recover().messages == []
    assert (tmp_path / "board-timing.json").read_bytes() == good


def _read_only(monkeypatch, mount):
    """A state directory on a read-only file system (mounted at ``mount``):
    every folder or file made there fails as the kernel says, EROFS."""
    import errno

    from coindrel import limits

    def refuse(path, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(os, "mkdir", refuse)
    monkeypatch.setattr(limits, "file_system_of", lambda path: ("ext4", str(mount)))


def test_a_state_directory_on_a_read_only_disk_says_which_disk_and_what_to_do(tmp_path, monkeypatch):
    """Found by a newcomer: "the file system of /srv/ro/state is read-only;
    give a folder ... that the user coindrel runs as may write": no user's
    rights help there, and `coindrel run` has no --state-dir to give."""
    from coindrel.config import ConfigError
    from coindrel.table.sections import check_state_dir

    _read_only(monkeypatch, tmp_path)
    state = tmp_path / "state"
    with pytest.raises(StoreError) as e:
        MatchStore(state, choose="set [storage] state_dir in /etc/coindrel/coindrel.toml to").open()
    said = str(e.value)
    assert f"{state} is on the read-only file system mounted at {tmp_path}" in said
    assert "set [storage] state_dir in /etc/coindrel/coindrel.toml to a folder on a disk mounted read-write" in said
    assert f"sudo mount -o remount,rw {tmp_path}" in said and "may write" not in said
    with pytest.raises(StoreError) as e:
        MatchStore(state, choose="give --state-dir").open()
    assert "give --state-dir a folder on a disk mounted read-write" in str(e.value)
    with pytest.raises(ConfigError) as e:
        check_state_dir(state, "coindrel.toml: [storage] state_dir")
    assert "read-only file system mounted at" in str(e.value) and "sudo install" not in str(e.value)
