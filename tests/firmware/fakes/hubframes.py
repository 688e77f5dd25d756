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
    return _body(typ, seq, raw[3:n])


def _body(typ, seq, b):
    if typ == proto.REPLAY:
        num = struct.unpack_from("<I", b, 0)[0]
        name, _s, f = _body(b[4], seq, b[5:])
        f["num"] = num
        f["inner"] = name
        return "replay", seq, f
    if typ == proto.RESUMED:
        req = struct.unpack_from("<H", b, 0)[0]
        num, flags, replayed, oldest = struct.unpack_from("<IBHI", b, 10)
        undelivered = struct.unpack_from("<I", b, 29)[0]
        return "resumed", seq, {"req": req, "t": _t(b, 2), "num": num, "flags": flags, "replayed": replayed,
                                "oldest": oldest, "oldest_t": _t(b, 21), "undelivered": undelivered}
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
    # The USB serial port as MicroPython's rp2 port behaves (shared/tinyusb
    # mp_usbd_cdc.c): with no host (DTR low) the port reports room and writes
    # vanish; with a host, a write that does not fit waits the TX timeout
    # (500 ms) and then takes what fits. Tests push command lines into
    # `inbox`, set `dtr`, give the host's reading pace with `room` (bytes the
    # TX buffer will still take; None: always room) and read frames out.
    TX_TIMEOUT_US = 500000

    def __init__(self):
        self.inbox = bytearray()
        self.stream = bytearray()
        self.dtr = True
        self.room = None
        self.vanished = 0  # bytes written with no host
        self.partial = 0  # writes that took only part
        self.writable = True  # False: the TX buffer is full (as room = 0)

    def read(self):
        t0 = _us()
        data = None
        if self.inbox:
            data = bytes(self.inbox)
            self.inbox = bytearray()
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += 30  # picotime.USB_POLL
        h[2] += 1
        return data

    def host(self):
        return self.dtr

    def can_write(self):
        t0 = _us()
        r = (not self.dtr) or (self.writable and (self.room is None or self.room > 0))
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += 30  # picotime.USB_POLL
        h[2] += 1
        return r

    def write(self, data):
        t0 = _us()
        cost = 150  # picotime.USB_WRITE
        n = len(data)
        if not self.dtr:
            self.vanished += n
        else:
            room = 0 if not self.writable else self.room
            if room is not None and n > room:
                cost += self.TX_TIMEOUT_US * 10  # blocked for the TX timeout, then what fits
                n = room
                self.partial += 1
            if room is not None:
                self.room = room - n if self.writable else self.room
            self.stream += data[:n]
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += cost
        h[2] += 1
        return n

    def take(self):
        end = self.stream.rfind(b"\n") + 1
        lines = bytes(self.stream[:end]).split(b"\n")[:-1] if end else []
        self.stream = self.stream[end:]
        return [decode(l + b"\n") for l in lines]
