# MicroPython: the firmware codec against the golden frames, CRC, framing.
import json
import os

from coindrel_hub import proto
from mptest import eq, run

POS = {"L": 0, "R": 1, "mid": 2, "none": 3}
WHERE = {"beams": 0, "queue": 1}
TYPES = {"hello_req": proto.HELLO_REQ, "snapshot_req": proto.SNAPSHOT_REQ, "cal_get": proto.CAL_GET,
         "cal_set": proto.CAL_SET, "raw_stream": proto.RAW_STREAM, "outputs": proto.OUTPUTS, "reset": proto.RESET,
         "resume": proto.RESUME}


def examples():
    with open(os.getenv("COINDREL_ROOT") + "/firmware/protocol_examples.json") as f:
        return json.load(f)["examples"]


def split(t):
    return t >> 30, t & ((1 << 30) - 1)


def encode(m, seq):
    out = []
    w = proto.Writer(out.append)
    return encode_into(w, out, m, seq)


def encode_into(w, out, m, seq):
    w.seq = seq
    k = m["type"]
    if k == "hello":
        flags = (1 if m["calibrated"] else 0) | (2 if m["entry_leds"] else 0) | (4 if m["dropper"] else 0)
        boot = bytes([(m["boot_id"] >> s) & 0xFF for s in (0, 8, 16, 24)])
        hi, lo = split(m["t_us"])
        w.hello(m["req"], boot, hi, lo, bytes.fromhex(m["map_hash"]), m["beam_hz"], m["hall_hz"], m["heartbeat_ms"],
                flags, m["n_beams"], m["n_halls"], m["firmware"], m["board_id"])
    elif k == "heartbeat":
        w.heartbeat(*split(m["t_us"]), m["hall_hz"], m["loop_max_us"], m["queue_peak"], m["lost_total"], m["rx_bad"])
    elif k == "beam":
        w.beam(*split(m["t_us"]), m["beam"], 1 if m["broken"] else 0, m["duration_us"])
    elif k == "hall":
        w.hall(*split(m["t_us"]), m["switch"], POS[m["pos"]], m["raw"])
    elif k == "lost":
        w.lost(*split(m["t_us"]), m["count"], WHERE[m["where"]])
    elif k == "snapshot":
        h = m["halls"]
        w.snapshot(m["req"], *split(m["t_us"]), m["beams"], bytes(x[0] for x in h), bytes(POS[x[1]] for x in h),
                   [x[2] for x in h], len(h))
    elif k == "calibration":
        w.calibration(m["req"], 1 if m["saved"] else 0, m["hyst"], m["beam_filter"], m["hall_filter"],
                      [tuple(x) for x in m["halls"]])
    elif k == "raw":
        v = m["values"]
        w.raw(*split(m["t_us"]), bytes(x[0] for x in v), [x[1] for x in v], len(v))
    elif k == "ack":
        w.ack(m["req"], m["cmd"], m["status"], m["text"])
    elif k == "error":
        w.error(*split(m["t_us"]), m["code"], m["arg"], m["text"])
    elif k == "resumed":
        w.resumed(m["req"], *split(m["t_us"]), m["num"], m["flags"], m["replayed"], m["oldest"],
                  *split(m["oldest_t_us"]), m["undelivered"])
    elif k == "replay":
        w.replay_num = m["num"]
        return encode_into(w, out, m["event"], seq)
    else:
        raise AssertionError("no firmware encoder for " + k)
    eq(len(out), 1, "one frame")
    eq(w.seq, (seq + 1) & 0xFFFF, "seq advanced")
    return out[0]


def test_crc16_check_value():
    eq(proto.crc16(b"123456789", 9), 0x29B1, "CRC-16/CCITT-FALSE check value")


def test_hub_messages_match_golden_frames():
    n = 0
    for ex in examples():
        if ex["from"] != "hub":
            continue
        eq(encode(ex["message"], ex["seq"]), ex["frame"].encode(), ex["name"])
        n += 1
    assert n >= 15, n


def test_commands_decode_from_golden_frames():
    n = 0
    for ex in examples():
        if ex["from"] != "pi":
            continue
        m = ex["message"]
        out = []
        r = proto.Reader()
        r.feed(ex["frame"].encode(), out)
        eq(len(out), 1, ex["name"])
        typ, seq, body = out[0]
        eq(typ, TYPES[m["type"]], ex["name"])
        eq(seq, ex["seq"], ex["name"])
        if m["type"] == "cal_set":
            save, hyst, bf, hf, items = proto.decode_cal_set(body)
            eq((save, hyst, bf, hf), (1 if m["save"] else 0, m["hyst"], m["beam_filter"], m["hall_filter"]), ex["name"])
            eq([list(i) for i in items], m["halls"], ex["name"])
        elif m["type"] == "outputs":
            eq(proto.decode_outputs(body), (m["leds"], m["drop"], m["pulse_ms"]), ex["name"])
        elif m["type"] == "raw_stream":
            eq(proto.decode_u16(body), m["interval_ms"], ex["name"])
        elif m["type"] == "hello_req":
            eq(bytes(body), bytes([m["proto"]]), ex["name"])
        elif m["type"] == "resume":
            boot, mode, after = proto.decode_resume(body)
            want = bytes([(m["boot_id"] >> s) & 0xFF for s in (0, 8, 16, 24)])
            eq((boot, mode, after), (want, 0 if m["after"] is None else 1, m["after"] or 0), ex["name"])
        else:
            eq(len(body), 0, ex["name"])
        n += 1
    eq(n, 9, "command examples")


def test_reader_resyncs_after_garbage_and_partial_frames():
    frames = [ex["frame"].encode() for ex in examples() if ex["from"] == "pi"]
    data = b"\x00\xff garbage\r\n" + frames[0][:9] + frames[1] + b"hello there\n" + frames[2] + b":bm90IGEgZnJhbWU=\n" + frames[3]
    out = []
    r = proto.Reader()
    for i in range(0, len(data), 7):  # in awkward chunks
        r.feed(data[i:i + 7], out)
    eq([o[0] for o in out], [proto.SNAPSHOT_REQ, proto.CAL_GET, proto.CAL_SET], "frames recovered")
    eq(r.text, 2, "text lines")
    eq(r.bad, 1, "damaged frames")


def test_reader_skips_oversize_lines():
    good = [ex["frame"].encode() for ex in examples() if ex["from"] == "pi"][0]
    out = []
    r = proto.Reader()
    r.feed(b":" + b"A" * 3000 + b"\n" + good, out)
    eq(r.oversize, 1, "oversize")
    eq(len(out), 1, "the frame after it")


def test_reader_rejects_bad_crc():
    good = bytearray([ex["frame"].encode() for ex in examples() if ex["from"] == "pi"][3])
    good[5] = ord("A") if good[5] != ord("A") else ord("B")
    out = []
    r = proto.Reader()
    r.feed(bytes(good), out)
    eq(out, [], "no frame")
    eq(r.bad, 1, "counted")


def test_malformed_command_bodies_raise_value_error():
    for fn, body in ((proto.decode_cal_set, b"\x01\x02"), (proto.decode_cal_set, b"\x01\x28\x00\x05\x02\x01"),
                     (proto.decode_outputs, b"\x01"), (proto.decode_u16, b"\x01\x02\x03")):
        try:
            fn(body)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % body)


run(globals())
