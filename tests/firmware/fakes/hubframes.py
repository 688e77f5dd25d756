# Test helper: decode the hub's frame lines back into (name, seq, fields) for
# assertions in MicroPython tests (the controller's codec does this on CPython).
import struct
from binascii import a2b_base64

import picotime
from coindrel_hub import proto

_us = picotime._us
_diff = picotime._diff
_hw = picotime.hw

POS = ("L", "R", "mid", "none")


def _t(b, off):
    a, c, d, e = struct.unpack_from("<HHHH", b, off)
    return a | (c << 16) | (d << 32) | (e << 48)


def decode(line):
    assert line[:1] == b":" and line[-1:] == b"\n", line
    raw = a2b_base64(line[1:-1])
    n = len(raw) - 2
    assert proto.crc16(raw, n) == raw[n] | (raw[n + 1] << 8), "crc"
    typ, seq = raw[0], raw[1] | (raw[2] << 8)
    b = raw[3:n]
    if typ == proto.HELLO:
        req, ver = struct.unpack_from("<HB", b, 0)
        hb = struct.unpack_from("<HHHBBB", b, 23)
        return "hello", seq, {"req": req, "proto": ver, "boot": bytes(b[3:7]), "t": _t(b, 7), "hash": bytes(b[15:23]),
                              "beam_hz": hb[0], "hall_hz": hb[1], "hb_ms": hb[2], "flags": hb[3], "n_beams": hb[4], "n_halls": hb[5]}
    if typ == proto.HEARTBEAT:
        v = struct.unpack_from("<HIHIH", b, 8)
        return "heartbeat", seq, {"t": _t(b, 0), "hall_hz": v[0], "loop_max_us": v[1], "queue_peak": v[2], "lost_total": v[3], "rx_bad": v[4]}
    if typ == proto.BEAM:
        beam, broken, dur = struct.unpack_from("<BBI", b, 8)
        return "beam", seq, {"t": _t(b, 0), "beam": beam, "broken": broken, "dur": dur}
    if typ == proto.HALL:
        sw, pos, raw_ = struct.unpack_from("<BBH", b, 8)
        return "hall", seq, {"t": _t(b, 0), "switch": sw, "pos": POS[pos], "raw": raw_}
    if typ == proto.LOST:
        count, where = struct.unpack_from("<IB", b, 8)
        return "lost", seq, {"t": _t(b, 0), "count": count, "where": where}
    if typ == proto.SNAPSHOT:
        req = struct.unpack_from("<H", b, 0)[0]
        beams, n = struct.unpack_from("<IB", b, 10)
        halls = [struct.unpack_from("<BBH", b, 15 + 4 * i) for i in range(n)]
        return "snapshot", seq, {"req": req, "t": _t(b, 2), "beams": beams, "halls": [(s, POS[p], r) for s, p, r in halls]}
    if typ == proto.CALIBRATION:
        req, saved, hyst, bf, hf, n = struct.unpack_from("<HBHBBB", b, 0)
        items = [struct.unpack_from("<BHHHH", b, 8 + 9 * i) for i in range(n)]
        return "calibration", seq, {"req": req, "saved": saved, "hyst": hyst, "beam_filter": bf, "hall_filter": hf, "halls": items}
    if typ == proto.RAW:
        n = b[8]
        return "raw", seq, {"t": _t(b, 0), "values": [struct.unpack_from("<BH", b, 9 + 3 * i) for i in range(n)]}
    if typ == proto.ACK:
        req, cmd, status = struct.unpack_from("<HBB", b, 0)
        return "ack", seq, {"req": req, "cmd": cmd, "status": status, "text": bytes(b[5:5 + b[4]]).decode()}
    if typ == proto.ERROR:
        code, arg = struct.unpack_from("<BH", b, 8)
        return "error", seq, {"t": _t(b, 0), "code": code, "arg": arg, "text": bytes(b[12:12 + b[11]]).decode()}
    return "unknown", seq, {"type": typ}


def command(typ, seq, body=b""):
    # A Pi -> hub frame line.
    from binascii import b2a_base64

    payload = bytearray([typ, seq & 0xFF, seq >> 8]) + body
    c = proto.crc16(payload, len(payload))
    payload += bytes([c & 0xFF, c >> 8])
    return b":" + b2a_base64(payload)


class FakeIO:
    # The USB serial port: tests push command lines in and read frames out.
    def __init__(self):
        self.inbox = bytearray()
        self.lines = []
        self.writable = True

    def read(self):
        t0 = _us()
        data = None
        if self.inbox:
            data = bytes(self.inbox)
            self.inbox = bytearray()
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += 30  # picotime.USB_POLL_US
        h[2] += 1
        return data

    def can_write(self):
        t0 = _us()
        r = self.writable
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += 30  # picotime.USB_POLL_US
        h[2] += 1
        return r

    def write(self, data):
        t0 = _us()
        self.lines.append(bytes(data))
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += 150  # picotime.USB_WRITE_US
        h[2] += 1

    def take(self):
        out = [decode(l) for l in self.lines]
        self.lines = []
        return out
