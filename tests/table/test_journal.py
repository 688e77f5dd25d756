"""The journal writer: what it syncs and when, and what a failure leaves."""

from __future__ import annotations

import errno
import os

import pytest

import coindrel.table.journal as journal_module
from coindrel.table.journal import DiskFull, Journal, JournalError, move_durably, write_durably
from coindrel.table.records import scan


class Syncs:
    """A datasync that records the file size each time it really syncs."""

    def __init__(self):
        self.sizes: list[int] = []

    def __call__(self, fd: int) -> None:
        os.fdatasync(fd)
        self.sizes.append(os.fstat(fd).st_size)


@pytest.fixture
def dir_syncs(monkeypatch):
    synced: list[str] = []
    real = journal_module.fsync_dir

    def spy(path):
        synced.append(str(path))
        real(path)

    monkeypatch.setattr(journal_module, "fsync_dir", spy)
    return synced


def new(tmp_path, syncs=None, **kw) -> Journal:
    return Journal.create(tmp_path / "j.journal", {"number": 1}, [("act", {"do": "setup"})],
                          datasync=syncs or Syncs(), wall=lambda: 100.0, **kw)


def test_create_writes_the_header_durably_then_names_the_file(tmp_path, dir_syncs):
    j = new(tmp_path)
    data = (tmp_path / "j.journal").read_bytes()
    recs = scan(data).records
    assert [(r.kind, r.data) for r in recs] == [("begin", {"format": 1, "number": 1}), ("act", {"do": "setup"})]
    assert recs[0].w == 100.0
    assert dir_syncs == [str(tmp_path)]  # the new name itself is durable
    assert not list(tmp_path.glob("*.tmp")) and j.size == len(data) and j.next_n == 3
    j.close()
    with pytest.raises(JournalError, match="already exists"):
        new(tmp_path)


def test_durable_appends_are_synced_before_they_return(tmp_path):
    syncs = Syncs()
    j = new(tmp_path, syncs)
    j.append("act", {"do": "coin"})
    assert syncs.sizes == [j.size] and not j.unsynced
    j.append_many([("act", {"do": "drop"}), ("act", {"do": "reveal"})])
    assert syncs.sizes == [syncs.sizes[0], j.size]  # one sync for the batch
    j.close()


def test_events_are_written_at_once_and_synced_with_the_next_durable_record(tmp_path):
    syncs = Syncs()
    j = new(tmp_path, syncs)
    for t in range(3):
        j.append("ev", {"t": t, "kind": "entry", "entry": 1}, durable=False)
    assert os.path.getsize(j.path) == j.size  # in the file (a kill -9 keeps it)...
    assert syncs.sizes == [] and j.unsynced  # ...but not yet promised
    j.append("verdict", {"drop": 1})
    assert syncs.sizes == [j.size]
    j.append("ev", {"t": 9, "kind": "exit", "exit": 2}, durable=False)
    j.sync()
    j.sync()  # nothing pending: no second sync
    assert syncs.sizes[-1] == j.size and len(syncs.sizes) == 2
    j.append("ev", {"t": 10, "kind": "exit", "exit": 2}, durable=False)
    j.close()
    assert syncs.sizes[-1] == os.path.getsize(tmp_path / "j.journal")
    recs = scan((tmp_path / "j.journal").read_bytes()).records
    assert [r.kind for r in recs] == ["begin", "act", "ev", "ev", "ev", "verdict", "ev", "ev"]
    assert all(r.w is None for r in recs if r.kind == "ev")


def test_a_failed_write_is_rolled_back_and_named(tmp_path, monkeypatch):
    j = new(tmp_path)
    before = (tmp_path / "j.journal").read_bytes()
    real = os.write

    def half_then_full(fd, data):
        real(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal_module.os, "write", half_then_full)
    with pytest.raises(DiskFull, match="disk is full: cannot save the match to .*No space left on device.*free space"):
        j.append("act", {"do": "drop", "entry": 3})
    monkeypatch.undo()
    assert (tmp_path / "j.journal").read_bytes() == before  # no half record left behind
    j.append("act", {"do": "drop", "entry": 3})  # and the journal carries on once there is room
    j.close()
    assert scan((tmp_path / "j.journal").read_bytes()).records[-1].data == {"do": "drop", "entry": 3}


def test_after_a_failed_sync_nothing_more_is_written(tmp_path):
    def failing(fd):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    j = new(tmp_path, failing)
    with pytest.raises(JournalError, match="Input/output error.*restart coindrel"):
        j.append("act", {"do": "coin"})
    size = os.path.getsize(tmp_path / "j.journal")
    with pytest.raises(JournalError, match="restart coindrel"):
        j.append("act", {"do": "drop"})
    assert os.path.getsize(tmp_path / "j.journal") == size
    j.close()  # closing a broken journal does not try to sync it again


def test_a_payload_that_is_not_json_changes_nothing(tmp_path):
    j = new(tmp_path)
    size = j.size
    with pytest.raises(JournalError, match="cannot be saved as JSON"):
        j.append_many([("act", {"do": "x"}), ("note", {"bad": float("inf")})])
    assert j.size == size == os.path.getsize(j.path) and j.next_n == 3
    j.close()


def test_reopen_checks_the_size_recovery_kept(tmp_path):
    j = new(tmp_path)
    j.close()
    with pytest.raises(JournalError, match="is another coindrel writing"):
        Journal.reopen(j.path, 3, j.size - 1)
    k = Journal.reopen(j.path, 3, j.size)
    k.append("note", {"x": 1})
    k.close()
    assert scan(j.path.read_bytes()).records[-1].n == 3
    with pytest.raises(JournalError, match="is closed"):
        k.append("note", {"x": 2})


def test_unwritable_places_are_named_with_the_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(JournalError, match="cannot create the match journal .*StateDirectory"):
        Journal.create(blocker / "j.journal", {}, [])


def test_durable_file_helpers_sync_the_directories(tmp_path, dir_syncs):
    write_durably(tmp_path / "a", b"data")
    assert (tmp_path / "a").read_bytes() == b"data" and dir_syncs == [str(tmp_path)]
    (tmp_path / "sub").mkdir()
    move_durably(tmp_path / "a", tmp_path / "sub" / "b")
    assert (tmp_path / "sub" / "b").read_bytes() == b"data"
    assert dir_syncs[1:] == [str(tmp_path / "sub"), str(tmp_path)]


def test_a_journal_that_is_a_folder_is_named_with_what_to_do(tmp_path):
    from coindrel.table.journal import read_journal

    (tmp_path / "match.journal").mkdir()
    with pytest.raises(JournalError) as e:
        read_journal(tmp_path / "match.journal")
    assert "match.journal" in str(e.value) and "not a file" in str(e.value) and "move it out of the way" in str(e.value)
