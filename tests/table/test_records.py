"""The record format and the reader that decides what to trust."""

from __future__ import annotations

import json
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coindrel.table.records import FORMAT, RecordError, encode, read_last_line, scan

BEGIN = {"format": FORMAT, "number": 1}


def journal(*payloads) -> bytes:
    lines = [encode(1, "begin", BEGIN, 1.5)]
    for n, (kind, data) in enumerate(payloads, start=2):
        lines.append(encode(n, kind, data, None if kind == "ev" else 2.0))
    return b"".join(lines)


def test_a_record_is_its_crc_then_compact_json_and_reads_back():
    line = encode(3, "act", {"do": "drop", "entry": 2, "board": "Zoë"}, 12.34567)
    crc, body = line[:8], line[9:-1]
    assert line.endswith(b"\n") and line[8:9] == b" "
    assert int(crc, 16) == zlib.crc32(body) and crc == crc.lower()
    assert json.loads(body) == {"n": 3, "k": "act", "w": 12.346, "d": {"do": "drop", "entry": 2, "board": "Zoë"}}
    assert "Zoë".encode() in body  # people read these files: no \\u escapes


def test_scan_reads_every_record_with_its_place():
    data = journal(("act", {"do": "setup"}), ("ev", {"t": 1.0, "kind": "entry", "entry": 3}), ("note", [1, "x"]))
    s = scan(data)
    assert s.damage is None and s.good_size == len(data)
    assert [(r.n, r.kind) for r in s.records] == [(1, "begin"), (2, "act"), (3, "ev"), (4, "note")]
    assert s.records[2].w is None and s.records[1].w == 2.0
    assert b"".join(data[r.offset : r.offset + r.size] for r in s.records) == data


@pytest.mark.parametrize("bad", [float("nan"), {1, 2}, object()])
def test_payloads_json_cannot_hold_exactly_are_refused(bad):
    with pytest.raises(RecordError, match="cannot be saved as JSON"):
        encode(2, "note", {"x": bad})


def test_unknown_kinds_are_refused():
    with pytest.raises(RecordError, match="unknown journal record kind"):
        encode(2, "score", {})


def test_a_torn_last_line_is_a_torn_write():
    data = journal(("act", {"do": "setup"}), ("act", {"do": "revealed"}))
    s = scan(data[:-10])
    assert len(s.records) == 2 and s.damage.torn and s.damage.record == 3
    assert s.damage.reason == "incomplete last record"
    assert "cut short" in s.damage.describe()


def test_a_flipped_bit_in_the_middle_is_repaired_exactly():
    data = bytearray(journal(("act", {"do": "setup"}), ("act", {"do": "a"}), ("act", {"do": "b"})))
    second = data.index(b"\n") + 1
    data[second + 20] ^= 0x04
    s = scan(bytes(data))
    assert s.damage is None and [r.n for r in s.records] == [1, 2, 3, 4]
    assert s.records[1].data == {"do": "setup"} and "one flipped bit" in s.records[1].repaired
    (hole,) = s.holes
    assert (hole.first, hole.last, hole.offset, hole.reason) == (2, 2, second, "checksum mismatch")


def test_a_garbage_line_in_the_middle_costs_that_record_only():
    lines = journal(("act", {"do": "setup"}), ("ev", {"t": 1.0}), ("act", {"do": "b"})).splitlines(keepends=True)
    garbage = b"\x8f" + lines[2][1:10] + b"#" * (len(lines[2]) - 12) + b"~\n"
    s = scan(b"".join(lines[:2]) + garbage + lines[3])
    assert s.damage is None and [r.n for r in s.records] == [1, 2, 4]
    (hole,) = s.holes
    assert hole.lost and hole.numbers == range(3, 4) and hole.size == len(garbage)


def test_a_flipped_newline_joining_two_records_is_repaired():
    data = bytearray(journal(("act", {"do": "setup"}), ("act", {"do": "a"}), ("act", {"do": "b"})))
    second_end = data.index(b"\n", data.index(b"\n") + 1)
    data[second_end] ^= 0x01
    s = scan(bytes(data))
    assert [r.n for r in s.records] == [1, 2, 3, 4] and s.damage is None
    assert [r.n for r in s.holes[0].repaired] == [2, 3]


def test_a_byte_flipped_into_a_newline_is_repaired():
    data = bytearray(journal(("act", {"do": "setup"}), ("act", {"do": "a*b"}), ("act", {"do": "b"})))
    data[data.index(b"a*b") + 1] ^= 0x20  # "*" is 0x2a: one bit from a newline
    s = scan(bytes(data))
    assert [r.data for r in s.records[1:]] == [{"do": "setup"}, {"do": "a*b"}, {"do": "b"}]
    assert "split" in s.records[2].repaired


def test_missing_lines_are_a_hole_of_no_bytes():
    lines = journal(("act", {"do": "setup"}), ("act", {"do": "a"}), ("act", {"do": "b"})).splitlines(keepends=True)
    s = scan(b"".join(lines[:2] + lines[3:]))
    assert [r.n for r in s.records] == [1, 2, 4] and s.holes[0].size == 0 and s.holes[0].numbers == range(3, 4)


def test_a_lost_header_is_a_hole_when_records_follow():
    lines = journal(("act", {"do": "setup"}), ("act", {"do": "a"})).splitlines(keepends=True)
    s = scan(b"garbage\n" + b"".join(lines[1:]))
    assert [r.n for r in s.records] == [2, 3] and s.holes[0].first == 1
    assert scan(b"garbage\n").records == [] and scan(b"garbage\n").damage.offset == 0


def test_a_flipped_bit_in_the_last_newline_is_repaired():
    data = bytearray(journal(("act", {"do": "setup"}), ("act", {"do": "a"})))
    data[-1] ^= 0x40
    s = scan(bytes(data))
    assert s.damage is None and s.records[-1].data == {"do": "a"} and s.records[-1].repaired


def test_an_overlong_line_is_damage_not_a_memory_hog():
    from coindrel.table.records import MAX_LINE

    lines = journal(("act", {"do": "setup"}), ("act", {"do": "a"})).splitlines(keepends=True)
    s = scan(lines[0] + b"x" * (MAX_LINE + 5) + b"\n" + lines[2])
    assert [r.n for r in s.records] == [1, 3] and "longer than any record" in s.holes[0].reason


def test_records_out_of_sequence_are_not_trusted():
    data = journal(("act", {"do": "setup"}))
    dup = data + data.splitlines(keepends=True)[1]  # record 2 again where 3 belongs
    s = scan(dup)
    assert len(s.records) == 2 and s.damage.reason == "numbered 2 where 3 was expected"


def test_the_first_record_must_be_a_journal_header_of_this_format():
    assert scan(encode(1, "act", {"do": "setup"})).damage.reason.startswith("the first record is not")
    later = scan(encode(1, "begin", {"format": 99}))
    assert later.records == [] and "format 99" in later.damage.reason


def test_uppercase_hex_is_not_what_was_written():
    """Any changed byte must show, even one that leaves the number the same."""
    head = encode(1, "begin", BEGIN)
    line = next(x for x in (encode(2, "note", {"k": k}) for k in range(100)) if not x[:8].isdigit())
    assert scan(head + line).damage is None
    upper = line[:8].upper() + line[8:]
    s = scan(head + upper)  # uppercase is bit 5 of each letter flipped: one letter is repaired, more are damage
    letters = sum(1 for c in line[:8] if c in b"abcdef")
    if letters == 1:
        assert s.records[-1].repaired and s.damage is None
    else:
        assert s.damage.reason == "not a journal record line"


def test_zero_bytes_are_named():
    data = journal(("act", {"do": "setup"}))
    s = scan(data + b"\0" * 100)
    assert s.damage.torn and "zero bytes" in s.damage.reason
    s = scan(data + b"\0" * 100 + b"\n")
    assert s.damage.torn and "zero bytes" in s.damage.reason


def test_read_last_line_reads_only_a_good_final_record(tmp_path):
    p = tmp_path / "j"
    data = journal(("act", {"do": "setup"}), ("end", {"result": "finished"}))
    p.write_bytes(data)
    last = read_last_line(p)
    assert last.kind == "end" and last.data == {"result": "finished"} and last.offset + last.size == len(data)
    p.write_bytes(data[:-1])
    assert read_last_line(p) is None
    p.write_bytes(data[:-3] + b"X}\n")
    assert read_last_line(p) is None
    p.write_bytes(data.splitlines(keepends=True)[0])
    assert read_last_line(p).kind == "begin"
    p.write_bytes(data)
    assert read_last_line(p, limit=30) is None  # the last line is longer than what was read


def test_garbage_after_the_last_good_record_is_a_torn_write_however_it_looks():
    """Unsynced pages reach the disk in any order: junk lines after the last
    good record cost nothing confirmed; with an intact record after them they
    are a hole that costs only the records they hold."""
    data = journal(("act", {"do": "setup"}))
    junk = b"\x8f\x01garbage\nmore garbage\n\xff\xfe\n"
    s = scan(data + junk)
    assert len(s.records) == 2 and s.damage.torn and s.damage.later == 0 and s.damage.size == len(junk)
    intact = encode(4, "note", {"x": 1})
    s = scan(data + junk + intact)
    assert s.damage is None and [r.n for r in s.records] == [1, 2, 4] and s.holes[0].numbers == range(3, 4)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(st.lists(st.tuples(st.sampled_from(["act", "ev", "verdict", "correction", "note"]), json_values), max_size=8),
       st.data())
def test_any_payloads_round_trip_and_any_cut_keeps_a_prefix(payloads, data):
    blob = journal(*payloads)
    s = scan(blob)
    assert s.damage is None and [(r.kind, r.data) for r in s.records[1:]] == [tuple(p) for p in payloads]
    cut = data.draw(st.integers(0, len(blob)))
    t = scan(blob[:cut])
    assert [(r.kind, r.data) for r in t.records] == [(r.kind, r.data) for r in s.records[: len(t.records)]]
    assert t.good_size == sum(r.size for r in t.records) and (t.damage is None) == (t.good_size == cut)
