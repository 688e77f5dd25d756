"""waiting.journal: the club's waiting requests, one record per change; the
last intact record counts, a damaged one costs that change only (the file
kept byte-exact in damaged/), and the file is written anew now and then."""

from __future__ import annotations

from coindrel.table.clubrequest import match_request
from coindrel.table.waiting import COMPACT, FILE, WaitingJournal

FAST = {"datasync": lambda fd: None}


def req(n: int):
    return match_request({"id": f"r{n}", "players": [f"A{n}", f"B{n}"], "clock": 60, "variants": {"holes": n % 2 == 1}})


def test_each_change_is_kept_and_the_last_intact_record_counts(tmp_path):
    w = WaitingJournal(tmp_path, **FAST)
    w.save([req(1)], ("r1",))
    w.save([req(1), req(2)], ("r1", "r2"))
    w.close()
    requests, seen, messages = WaitingJournal(tmp_path).load()
    assert [r.id for r in requests] == ["r1", "r2"] and seen == ("r1", "r2") and messages == []
    assert requests[0].variants.holes and requests[0].clock == "60"

    data = (tmp_path / FILE).read_bytes()
    last = data.rstrip(b"\n").rfind(b"\n") + 1
    damaged = data[:last + 20] + bytes([data[last + 20] ^ 0x55]) + data[last + 21:]  # the last change's record
    (tmp_path / FILE).write_bytes(damaged)
    requests, seen, messages = WaitingJournal(tmp_path).load()
    assert [r.id for r in requests] == ["r1"], "the change before the damaged one"
    assert messages and FILE in messages[0] and "damaged" in messages[0]
    (copy,) = (tmp_path / "damaged").iterdir()
    assert copy.read_bytes() == damaged, "kept byte-exact"


def test_the_file_is_written_anew_with_the_state_alone(tmp_path):
    w = WaitingJournal(tmp_path, **FAST)
    for n in range(COMPACT * 2):
        w.save([req(n % 7)], (f"r{n % 7}", f"x{n}"))
    w.close()
    lines = (tmp_path / FILE).read_bytes().count(b"\n")
    assert lines <= COMPACT + 1
    requests, seen, _ = WaitingJournal(tmp_path).load()
    n = COMPACT * 2 - 1
    assert [r.id for r in requests] == [f"r{n % 7}"] and seen[-1] == f"x{n}"


def test_a_saved_request_this_table_cannot_play_is_dropped_with_a_message(tmp_path):
    w = WaitingJournal(tmp_path, **FAST)
    w.save([req(1), req(2)], ())
    w.close()
    text = (tmp_path / FILE).read_text()
    # an old table's file naming a clock this one does not offer: rewritten as a valid record
    from coindrel.table.records import encode

    lines = text.splitlines(keepends=True)
    bad = {"club": [{"id": "r9", "players": ["A", "B"], "clock": 45, "variants": {}}], "seen": []}
    (tmp_path / FILE).write_bytes("".join(lines).encode() + encode(len(lines) + 1, "note", bad))
    requests, _, messages = WaitingJournal(tmp_path).load()
    assert requests == [] and any("r9" in m and "clock" in m for m in messages)
