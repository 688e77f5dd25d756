"""The CPython codec: golden frames (shared with the firmware and PROTOCOL.md),
round trips of every message, range checks, and what the decoder does with
everything that is not a good frame."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coindrel.hub import protocol as p
from coindrel.hub.framing import MAX_LINE, FrameDecoder, crc16, encode_frame

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = json.loads((ROOT / "firmware" / "protocol_examples.json").read_text())["examples"]


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_golden_frames_both_ways(ex):
    msg = p.message_from_dict(ex["message"])
    assert p.encode(msg, ex["seq"]).decode("ascii") == ex["frame"]
    frame = p.decode(ex["frame"].encode("ascii"), ex["from"])
    assert frame == p.Frame(ex["seq"], msg)
    assert msg.to_dict() == ex["message"]


def test_every_message_type_has_a_golden_example():
    names = {e["message"]["type"] for e in EXAMPLES}
    assert names == {m.NAME for m in p.HUB_MESSAGES + p.COMMANDS}


def test_protocol_md_quotes_every_golden_frame():
    doc = (ROOT / "firmware" / "PROTOCOL.md").read_text()
    for ex in EXAMPLES:
        assert ex["frame"].strip() in doc, f"PROTOCOL.md lacks the frame of {ex['name']!r}"
    assert f"Protocol version {p.PROTOCOL_VERSION}" in doc


def test_crc_check_value_and_frame_shape():
    assert crc16(b"123456789") == 0x29B1
    line = encode_frame(b"\x81\x00\x00")
    assert line.startswith(b":") and line.endswith(b"\n") and b"\n" not in line[:-1]
    assert re.fullmatch(rb":[A-Za-z0-9+/=]+\n", line)


def test_out_of_range_fields_are_clear_errors():
    with pytest.raises(p.ProtocolError, match="beam: a field is out of range"):
        p.encode(p.Beam(1, 300, True), 1)
    with pytest.raises(p.ProtocolError, match="hall position 'up'"):
        p.encode(p.Hall(1, 2, "up", 3), 1)
    with pytest.raises(p.ProtocolError, match="at most 255"):
        p.encode(p.Raw(1, tuple((i % 38, 1) for i in range(300))), 1)
    with pytest.raises(p.ProtocolError, match="not a message"):
        p.encode(p.Unknown(5, b""), 1)


def test_seq_wraps_at_16_bits():
    assert p.decode(p.encode(p.SnapshotReq(), 65537), "pi").seq == 1


def test_decoder_counts_each_kind_of_problem():
    good = p.encode(p.Beam(5, 1, True), 3)
    bad_crc = bytearray(good)
    bad_crc[6] = ord("A") if bad_crc[6] != ord("A") else ord("B")
    dec = p.Decoder("hub")
    data = (b"MicroPython v1.24 on 2024; Raspberry Pi Pico\r\n" + bytes(bad_crc) + b":!!!!\n" + b":QUJD\n"
            + b":" + b"A" * (MAX_LINE + 10) + b"\n" + b"half a fr" + good + encode_frame(b"\x9f\x04\x00xyz")
            + p.encode(p.Hall(9, 1, "L", 7), 5)[:-1] + b"\r\n")
    items = []
    for i in range(0, len(data), 13):
        items += dec.feed(data[i:i + 13])
    frames = [i for i in items if isinstance(i, p.Frame)]
    kinds = [i.kind for i in items if isinstance(i, p.Problem)]
    assert [type(f.msg).__name__ for f in frames] == ["Beam", "Unknown", "Hall"]
    assert kinds == ["text", "crc", "text", "short", "oversize", "garbage"]
    st = dec.stats
    assert (st["frames"], st["crc"], st["short"], st["oversize"], st["garbage"], st["text"], st["unknown"]) == (3, 1, 1, 1, 1, 2, 1)


def test_malformed_bodies_become_malformed_messages():
    dec = p.Decoder("hub")
    items = dec.feed(encode_frame(bytes([p.Beam.TYPE, 1, 0]) + b"\x00" * 5))  # too short for a beam
    assert isinstance(items[0].msg, p.Malformed) and "beam" in items[0].msg.reason
    items = dec.feed(encode_frame(bytes([p.Hall.TYPE, 2, 0]) + b"\x00" * 9 + b"\x07\x00\x00"))  # position 7
    assert isinstance(items[0].msg, p.Malformed)
    assert dec.malformed == 2


def test_commands_are_unknown_to_a_hub_decoder_and_vice_versa():
    assert isinstance(p.decode(p.encode(p.Reset(), 1), "hub").msg, p.Unknown)
    assert isinstance(p.decode(p.encode(p.Heartbeat(1, 2, 3, 4, 5, 6), 1), "pi").msg, p.Unknown)


def test_hello_in_another_protocol_version_is_recognised():
    h = p.Hello(0, 7, 1, 2, bytes(8), 1, 2, 3, True, False, False, 24, 38, "x", "y")
    msg = p.decode(p.encode(h, 0)).msg
    assert isinstance(msg, p.ForeignHello) and msg.proto == 7


def test_oversize_line_skipped_to_its_end_even_across_chunks():
    dec = FrameDecoder()
    good = p.encode(p.Beam(5, 1, True), 3)
    out = dec.feed(b":" + b"A" * 1000)
    out += dec.feed(b"A" * 1000)
    out += dec.feed(b"AAAA\n" + good)
    assert [type(i).__name__ for i in out] == ["Problem", "bytes"]
