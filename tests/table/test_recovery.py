"""Recovery: whatever a crash or power cut leaves, the restart resumes the
match as it was after the last trusted record, cuts the rest cleanly with a
message, and keeps a byte-exact copy of what it cut."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest

from coindrel.engine import Match
from coindrel.events import event_to_json
from coindrel.table.history import list_matches, match_summary
from coindrel.table.records import encode, scan
from coindrel.table.store import MatchStore

from .support import build, state


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("built"))


@pytest.fixture
def no_fsync(monkeypatch, tmp_path):
    """The every-offset tests check the cutting logic thousands of times;
    durability itself is checked by the journal tests and the crash test.
    They run in memory (tmpfs) where there is one: metadata changes on a disk
    file system would make them slow, not different."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        d = Path(tempfile.mkdtemp(dir=shm, prefix="coindrel-test-"))
        yield d
        shutil.rmtree(d, ignore_errors=True)
    else:
        yield tmp_path


def recover_bytes(state_dir, data: bytes):
    """Recover a journal holding ``data`` (in a state directory cleared of
    earlier journals and cut copies)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    for p in state_dir.glob("damaged/*"):
        p.unlink()
    (state_dir / "match.journal").write_bytes(data)
    with MatchStore(state_dir, datasync=lambda fd: None) as store:
        rec = store.recover()
        if rec.journal:
            rec.journal.close()
    return rec


def kept(state_dir) -> list[bytes]:
    return [p.read_bytes() for p in sorted((state_dir / "damaged").iterdir())]


def test_truncated_at_every_byte_offset(built, no_fsync):
    ends = built.boundaries()
    for offset in range(len(built.data) + 1):
        d = no_fsync / "state"
        rec = recover_bytes(d, built.data[:offset])
        complete = sum(1 for e in ends if e <= offset)
        partial = built.data[ends[complete - 1] if complete else 0 : offset]
        if complete < 2:  # not even the setup: nothing to resume, the file is set aside whole
            assert rec.match is None
            if offset:
                assert kept(d) == [built.data[:offset]]
                assert "starting afresh" in rec.messages[0]
            continue
        assert rec.match is not None, offset
        assert state(rec.match) == built.after_record[complete], offset
        on_disk = (d / "match.journal").read_bytes()
        assert on_disk.startswith(built.data[: ends[complete - 1]])
        if partial:
            assert kept(d) == [partial]
            assert len(rec.messages) == 1 and "cut short" in rec.messages[0] and "kept a copy" in rec.messages[0]
        else:
            assert not rec.messages and not kept(d)


def test_zero_filled_tail_is_cut(built, tmp_path):
    rec = recover_bytes(tmp_path, built.data + b"\0" * 4096)
    assert state(rec.match) == built.after_record[built.records]
    assert kept(tmp_path) == [b"\0" * 4096]
    assert "zero bytes" in rec.messages[0] and "cut short" in rec.messages[0]


def test_an_action_that_does_not_replay_is_cut_with_what_follows(built, tmp_path):
    ends = built.boundaries()
    records = scan(built.data).records
    i = next(k for k, r in enumerate(records) if r.kind == "act" and r.data["do"] == "drop")
    bad = dict(records[i].data, entry=42)  # written intact, but no such entry
    line = encode(records[i].n, "act", bad, records[i].w)
    data = built.data[: ends[i - 1]] + line + built.data[ends[i]:]
    rec = recover_bytes(tmp_path, data)
    assert state(rec.match) == built.after_record[i]
    assert kept(tmp_path) == [data[ends[i - 1]:]]
    assert "does not replay" in rec.messages[0] and "42" in rec.messages[0]
    # The journal now replays by itself, cleanly.
    again = recover_bytes(tmp_path, (tmp_path / "match.journal").read_bytes())
    assert not again.messages and state(again.match) == built.after_record[i]


def test_a_round_ending_drop_without_its_reveal_gets_it_back(built, tmp_path):
    """A drop that ends a round is written with the next round's reveal in one
    batch; if only the drop reached the disk, recovery re-derives and saves it."""
    records = scan(built.data).records
    i = next(k for k, r in enumerate(records) if r.kind == "act" and r.data["do"] == "reveal" and k > 2)
    ends = built.boundaries()
    rec = recover_bytes(tmp_path, built.data[: ends[i - 1]])  # up to and including the drop
    assert not rec.messages
    assert state(rec.match) == built.after_record[i + 1]
    on_disk = scan((tmp_path / "match.journal").read_bytes()).records
    assert [(r.kind, r.data) for r in on_disk] == [(r.kind, r.data) for r in records[: i + 1]]


def test_recovery_is_idempotent_and_resumes_appending(built, tmp_path):
    rec = recover_bytes(tmp_path, built.data[:-5])
    assert rec.messages
    with MatchStore(tmp_path) as store:
        again = store.recover()
        assert not again.messages
        match, journal = again.match, again.journal
        match.reveal_done(1000.0) if match.phase == "reveal" else None
        match.coin_seen(1000.0)
        journal.sync_match(match)
        journal.close()
    with MatchStore(tmp_path) as store:
        third = store.recover()
        assert third.match.log == match.log and not third.messages
        third.journal.close()


def test_a_crash_while_cutting_is_finished_by_the_next_start(built, tmp_path, monkeypatch):
    """The copy of the cut bytes is written before the journal is truncated:
    a crash in between leaves a copy and an uncut journal, cut again next time."""
    import coindrel.table.journal as journal_module

    truncate = os.ftruncate

    def crash(fd, length):
        if length:  # the journal's cut (the lock file is emptied with length 0)
            raise KeyboardInterrupt("power cut")
        truncate(fd, length)

    (tmp_path / "match.journal").write_bytes(built.data + b"garbage")
    monkeypatch.setattr(journal_module.os, "ftruncate", crash)
    with pytest.raises(KeyboardInterrupt):
        with MatchStore(tmp_path) as store:
            store.recover()
    monkeypatch.undo()
    assert kept(tmp_path) == [b"garbage"]
    assert (tmp_path / "match.journal").read_bytes() == built.data + b"garbage"
    with MatchStore(tmp_path) as store:
        rec = store.recover()
        rec.journal.close()
    assert state(rec.match) == built.after_record[built.records]
    assert kept(tmp_path) == [b"garbage", b"garbage"]
    assert (tmp_path / "match.journal").read_bytes() == built.data


def test_a_finished_match_not_yet_moved_goes_to_history(built, tmp_path):
    match = recover_bytes(tmp_path, built.data).match

    summary = match_summary(match, result="abandoned", number=1, match_id="0001-x", started=1.0, ended=2.0)
    end = encode(built.records + 1, "end", summary, 2.0)
    (tmp_path / "match.journal").write_bytes(built.data + end)
    with MatchStore(tmp_path) as store:
        rec = store.recover()
    assert rec.match is None and "moved it to the history" in rec.messages[0]
    assert not (tmp_path / "match.journal").exists()
    (s,) = list_matches(tmp_path)
    assert s.result == "abandoned" and s.totals == match.totals


def test_leftover_temporary_files_are_removed(tmp_path):
    with MatchStore(tmp_path) as store:
        (tmp_path / "match.journal.tmp").write_bytes(b"half a new journal")
        rec = store.recover()
    assert rec.match is None and not (tmp_path / "match.journal.tmp").exists()


def test_an_empty_or_foreign_file_is_set_aside(tmp_path):
    for i, data in enumerate([b"", b"hello\n", encode(1, "act", {"do": "setup"})]):
        d = tmp_path / str(i)
        rec = recover_bytes(d, data)
        assert rec.match is None and not (d / "match.journal").exists()
        assert kept(d) == [data] and "starting afresh" in rec.messages[0]


def test_recovery_hands_back_events_verdicts_corrections_notes(built, tmp_path):
    rec = recover_bytes(tmp_path, built.data)
    kinds = [r.kind for r in rec.records]
    assert kinds.count("ev") == len(rec.events) > 0
    assert len(rec.verdicts) == 5 and rec.corrections == [{"switch": "R3S6", "why": "hall sensor reads it moved"}]
    assert rec.notes == [{"say": "hub link lost"}]
    assert rec.meta == {"source": "virtual"}
    assert [event_to_json(e) for e in rec.events] == [r.data for r in rec.records if r.kind == "ev"]
    assert {e.kind for e in rec.events} == {"entry", "switch", "exit", "status"}
    assert rec.last_t == max(a["t"] for a in rec.match.log if a.get("t") is not None)
    assert rec.time_offset(5.0) == rec.last_t - 5.0
    assert Match.replay(rec.match.log).log == rec.match.log


def test_random_bytes_are_not_called_empty_and_are_kept(tmp_path):
    """A journal of random bytes (another program's file, a disk that returned
    garbage) is named for what it is, never "empty", and every byte is kept."""
    rnd = random.Random(16)
    for i, data in enumerate([bytes(rnd.getrandbits(8) for _ in range(3000)),
                              b"\n".join(bytes(rnd.getrandbits(8) for _ in range(60)) for _ in range(30)),
                              bytes(rnd.getrandbits(8) for _ in range(70)).replace(b"\n", b"")]):
        d = tmp_path / str(i)
        rec = recover_bytes(d, data)
        said = rec.messages[0]
        assert rec.match is None and kept(d) == [data]
        assert "not a coindrel journal" in said and "empty" not in said and f"{len(data)} bytes" in said, said
        assert "backup" in said, said
    rec = recover_bytes(tmp_path / "empty", b"")
    assert "it is empty" in rec.messages[0]
