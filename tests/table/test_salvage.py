"""A damaged record costs that record only: every other record counts, the
damaged bytes are kept byte-exact in damaged/, and the message names the
record, the match and what it held (table/salvage.py, records.scan)."""

from __future__ import annotations

import random

import pytest

from coindrel.engine import Match, MatchSetup
from coindrel.table.history import load_match
from coindrel.table.records import encode, scan
from coindrel.table.store import MatchStore

from .support import build, state
from .test_recovery import kept, no_fsync, recover_bytes  # noqa: F401  (fixture)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("built"))


def restart(state_dir):
    with MatchStore(state_dir, datasync=lambda fd: None) as store:
        rec = store.recover()
        if rec.journal:
            rec.journal.close()
    return rec


def scored(match):
    """A match as scored: everything but the times of its actions."""
    return (match.totals, match.round_scores, match.round, match.board.text(), match.to_move, match.phase,
            [r.to_json() for r in match.results])


def test_a_flipped_bit_at_every_byte_offset_is_repaired_and_kept(built, no_fsync):
    """One flipped bit anywhere, the header included: CRC-32 locates it, the
    match resumes whole, the damaged line is kept byte-exact and named, once."""
    ends = built.boundaries()
    full = built.after_record[built.records]
    rng = random.Random(1)
    for offset in range(len(built.data)):
        data = bytearray(built.data)
        data[offset] ^= 1 << rng.randrange(8)
        d = no_fsync / "state"
        rec = recover_bytes(d, bytes(data))
        hit = next(i for i, e in enumerate(ends) if offset < e)
        start = ends[hit - 1] if hit else 0
        joined = built.data[offset] == 0x0A and hit + 1 < len(ends)  # a damaged newline joins two lines
        stop = ends[hit + 1] if joined else ends[hit]
        assert rec.match is not None, offset
        assert state(rec.match) == full, offset
        assert kept(d) == [bytes(data[start:stop])], offset
        assert f"record {hit + 1}" in rec.messages[0] and "repaired exactly" in rec.messages[0], rec.messages
        assert "match #1 (0001-" in rec.messages[0]
        again = restart(d)
        assert not again.messages and state(again.match) == full, offset


def test_a_garbage_record_anywhere_costs_that_record_only(built, tmp_path):
    """Each record in turn replaced by unreadable bytes: every other record
    still counts; a lost drop or setup is rebuilt from its verdict or the
    header; the message says which record of which match and what it held."""
    lines = built.data.splitlines(keepends=True)
    full = Match.replay([r.data for r in scan(built.data).records if r.kind == "act"])
    records = scan(built.data).records
    for i, line in enumerate(lines[:-1]):  # damage to the last line is a torn write: nothing confirmed after it
        garbage = b"#" * (len(line) - 1) + b"\n"
        d = tmp_path / str(i)
        rec = recover_bytes(d, b"".join(lines[:i]) + garbage + b"".join(lines[i + 1:]))
        kind, data = records[i].kind, records[i].data
        assert rec.match is not None, (i, kind, data)
        assert scored(rec.match) == scored(full), (i, kind, data)
        assert kept(d) == [garbage]
        msg = rec.messages[0]
        assert f"record {i + 1} " in msg and "is damaged" in msg and "of match #" in msg, msg
        later = len(lines) - i - 1
        assert f"the {later} record{'s' if later != 1 else ''} after it still count" in msg, msg
        if kind == "act" and data["do"] == "drop":
            assert "rebuilt from its verdict" in msg
        elif kind == "act" and data["do"] == "setup":
            assert "rebuilt from the journal's header" in msg
        elif kind == "begin":
            assert "header" in msg
        else:
            assert "lost" in msg
        again = restart(d)
        assert not again.messages and scored(again.match) == scored(full)
        if rec.journal is not None:
            detail = load_match(d, "current")  # what `coindrel history` reads: the same match
            assert scored(detail.match) == scored(full)


def test_a_truncated_tail_after_a_damaged_record_keeps_both(built, tmp_path):
    lines = built.data.splitlines(keepends=True)
    k = len(lines) // 2
    data = b"".join(lines[:k]) + b"#" * 20 + b"\n" + b"".join(lines[k + 1:])
    rec = recover_bytes(tmp_path, data[:-7])
    assert rec.match is not None and len(rec.messages) == 2
    assert any("cut short" in m for m in rec.messages) and any(f"record {k + 1} " in m for m in rec.messages)
    assert sorted(kept(tmp_path)) == sorted([b"#" * 20 + b"\n", lines[-1][:-7]])


def test_a_lost_clock_timeout_is_drawn_again(tmp_path):
    """A timeout draws from the match generator: losing it would change every
    later draw; the replay draws it again at the hole."""
    m = Match(MatchSetup(players=("A", "B"), seed=3, clock=30.0))
    m.reveal_done(0.0)
    t = 0.0
    for _ in range(3):
        t += 40
        entry = m.expire(t)
        m.coin_seen(t + 1)
        m.play(entry, t + 2)
    lines = [encode(1, "begin", {"format": 1, "number": 1, "id": "0001-x", "meta": {}}, 1.0)]
    lines += [encode(n, "act", a, 1.0) for n, a in enumerate(m.log, start=2)]
    timeout = next(i for i, a in enumerate(m.log) if a["do"] == "timeout") + 1
    lines[timeout] = b"#" * 40 + b"\n"
    rec = recover_bytes(tmp_path, b"".join(lines))
    assert rec.match is not None and scored(rec.match) == scored(m)
    assert "timeout" in rec.messages[0] and "drawn again" in rec.messages[0]


def test_a_garbage_header_is_rebuilt_and_keeps_its_number(built, tmp_path):
    lines = built.data.splitlines(keepends=True)
    rec = recover_bytes(tmp_path, b"%" * 30 + b"\n" + b"".join(lines[1:]))
    assert rec.match is not None and rec.journal is not None and "header" in rec.messages[0]
    again = restart(tmp_path)
    assert (again.journal.number, again.journal.match_id) == (rec.journal.number, rec.journal.match_id)
    assert again.journal.number >= 1


def test_header_and_setup_both_lost_sets_the_file_aside(built, tmp_path):
    lines = built.data.splitlines(keepends=True)
    rec = recover_bytes(tmp_path, b"%\n%\n" + b"".join(lines[2:]))
    assert rec.match is None and "starting afresh" in rec.messages[0]
    assert kept(tmp_path) == [b"%\n%\n" + b"".join(lines[2:])]


def test_coindrel_history_shows_what_a_damaged_record_cost(built, tmp_path, capsys):
    from coindrel.cli import main

    lines = built.data.splitlines(keepends=True)
    i = next(k for k, r in enumerate(scan(built.data).records) if r.kind == "ev")
    data = b"".join(lines[:i]) + b"#" * 20 + b"\n" + b"".join(lines[i + 1:])
    (tmp_path / "history").mkdir()
    (tmp_path / "history" / "0001-x.journal").write_bytes(data)
    assert main(["history", "1", "--state-dir", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert f"Damaged: record {i + 1} " in text and "lost" in text
    assert main(["history", "1", "--json", "--state-dir", str(tmp_path)]) == 0
    import json

    d = json.loads(capsys.readouterr().out)
    assert d["damaged"][0]["records"] == [i + 1, i + 1] and not d["damaged"][0]["repaired"]


def test_a_line_written_between_two_records_loses_nothing(built, tmp_path, capsys):
    """Found by a newcomer: a garbage line put between records 288 and 289 was
    reported as "record 289 ... is damaged: 1 record lost", though record 289
    was intact on the next line."""
    from coindrel.cli import main

    full = state(recover_bytes(tmp_path / "ref", built.data).match)
    lines = built.data.splitlines(keepends=True)
    i = len(lines) // 2
    data = b"".join(lines[:i]) + b"not a record at all\n" + b"".join(lines[i:])
    rec = recover_bytes(tmp_path / "d", data)
    said = " ".join(rec.messages)
    assert rec.match is not None and state(rec.match) == full, said
    assert f"a line between records {i} and {i + 1}" in said and "is no record" in said and "nothing lost" in said
    assert "lost:" not in said and "1 record lost" not in said, said
    (tmp_path / "history").mkdir()
    (tmp_path / "history" / "0001-x.journal").write_bytes(data)
    assert main(["history", "1", "--state-dir", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert f"Damaged: a line between records {i} and {i + 1}" in text and "nothing lost" in text, text
    assert main(["history", "1", "--json", "--state-dir", str(tmp_path)]) == 0
    import json

    [d] = json.loads(capsys.readouterr().out)["damaged"]
    assert d["records"] == [] and d["between"] == [i, i + 1]


def test_a_hole_that_took_whole_drops_says_how_many(built, tmp_path):
    """Found by a newcomer: 1000 zeroed bytes said "8 records lost: a
    reconciliation verdict", but two whole drops (action and verdict) were
    gone and the match went from 16 to 14 turns."""
    records = scan(built.data).records
    drops = [r for r in records if r.kind == "act" and r.data.get("do") == "drop"]
    verdicts = [r for r in records if r.kind == "verdict"]
    assert len(drops) >= 4
    # from just after drop 2's verdict to the end of drop 3's: its coin, its action, its verdict
    start = verdicts[1].offset + verdicts[1].size
    end = verdicts[2].offset + verdicts[2].size
    data = built.data[:start] + b"\0" * (end - start - 1) + b"\n" + built.data[end:]
    rec = recover_bytes(tmp_path / "d", data)
    said = " ".join(rec.messages)
    assert rec.match is not None and "are damaged" in said, said
    # the later actions cannot replay without drop 3 (whose turn, what score): they are cut, and said in drops
    have = len(rec.match.results)
    assert have == 2 and f"without the {len(drops) - 3} drops among them" in said, said
    assert not restart(tmp_path / "d").messages, "said once"


def test_two_swapped_lines_are_both_kept_in_their_order_and_said_once(built, tmp_path, capsys):
    """Found by a newcomer: swapping two lines of a match journal logged both
    "record N is missing ... 1 record lost" and "a line numbered N ... no
    record is missing, nothing lost" (and record N was dropped). One message:
    out of order, both kept, nothing lost; the match is as written."""
    from coindrel.cli import main

    full = state(recover_bytes(tmp_path / "ref", built.data).match)
    lines = built.data.splitlines(keepends=True)
    for i in (3, len(lines) // 2, len(lines) - 2):  # records i+1 and i+2 swapped (the last two: no torn tail)
        data = b"".join(lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2:])
        rec = recover_bytes(tmp_path / f"d{i}", data)
        said = " ".join(rec.messages)
        assert rec.match is not None and state(rec.match) == full, said
        assert len(rec.messages) == 1, rec.messages
        assert f"records {i + 1} and {i + 2} (at byte" in said and "are out of order" in said, said
        assert f"record {i + 1}'s line comes after record {i + 2}'s" in said and "both kept" in said, said
        assert "nothing lost" in said and "lost:" not in said and "record lost" not in said, said
        assert "missing" not in said and "no record" not in said and "cut" not in said, said
        assert not restart(tmp_path / f"d{i}").messages, "said once"
    (tmp_path / "history").mkdir()
    (tmp_path / "history" / "0001-x.journal").write_bytes(data)
    assert main(["history", "1", "--state-dir", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert f"Out of order: records {i + 1} and {i + 2}" in text and "nothing lost" in text, text
