import json
import sqlite3

from coindrel.club.outbox import Outbox


def test_numbers_go_on_across_a_restart_and_only_acknowledged_messages_leave(tmp_path):
    box = Outbox(tmp_path / "o.sqlite")
    a = box.put("drop", {"match": "m", "turn": 1})
    b = box.put("result", {"match": "m"})
    assert (a["seq"], b["seq"]) == (1, 2) and a["source"] == b["source"]
    box.done(1)
    source = box.source
    box.close()
    box = Outbox(tmp_path / "o.sqlite")  # the daemon restarted
    assert box.source == source
    assert [(s, k) for s, k, _ in box.pending()] == [(2, "result")]
    assert json.loads(box.pending()[0][2])["seq"] == 2
    assert box.put("drop", {"match": "n", "turn": 1})["seq"] == 3  # never reused, even after done()
    box.done(2), box.done(3)
    assert box.put("drop", {})["seq"] == 4


def test_a_damaged_outbox_is_kept_aside_and_a_new_source_starts(tmp_path, caplog):
    path = tmp_path / "o.sqlite"
    box = Outbox(path)
    old = box.source
    box.close()
    path.write_bytes(b"this is not sqlite" * 100)
    box = Outbox(path)
    assert box.source != old and len(box) == 0
    assert any(p.name.startswith("o.sqlite.damaged-") for p in tmp_path.iterdir())
    assert "damaged" in caplog.text


def test_a_message_the_club_would_refuse_is_an_outbox_error_not_a_silent_loss(tmp_path):
    import pytest

    from coindrel.club.outbox import OutboxError

    box = Outbox(tmp_path / "o.sqlite")
    with pytest.raises(OutboxError, match="limit"):
        box.put("drop", {"x": "y" * 20000})
    assert len(box) == 0 and box.put("drop", {})["seq"] == 1


def test_committed_before_put_returns(tmp_path):
    box = Outbox(tmp_path / "o.sqlite")
    box.put("drop", {"turn": 1})
    other = sqlite3.connect(tmp_path / "o.sqlite")  # another process would see it now
    assert other.execute("SELECT count(*) FROM outbox").fetchone()[0] == 1


def test_a_new_state_directory_is_made_and_one_that_cannot_be_is_not_called_damaged(tmp_path, caplog):
    """Found by a newcomer: `sim --club ... --state-dir new/dir` said the outbox was damaged."""
    import pytest

    from coindrel.club.outbox import OutboxError

    box = Outbox(tmp_path / "new" / "dir" / "o.sqlite")
    assert box.put("drop", {})["seq"] == 1
    box.close()
    (tmp_path / "a-file").write_text("")
    with pytest.raises(OutboxError, match="cannot make the state directory .*a-file.*choose a directory"):
        Outbox(tmp_path / "a-file" / "state" / "o.sqlite")
    assert "damaged" not in caplog.text
