# Hub wire protocol, firmware side (firmware/PROTOCOL.md): frame lines,
# encoders for hub -> Pi messages, decoding of Pi -> hub commands.
# Pure: the Writer is given a write function; nothing runs at import.
import struct
from array import array
from binascii import a2b_base64, b2a_base64

import micropython
from micropython import const

PROTOCOL_VERSION = const(1)
MAX_PAYLOAD = const(1024)
MAX_LINE = const(1371)  # 1 + 4 * ((MAX_PAYLOAD + 2 + 2) // 3) + 2

# hub -> Pi
HELLO = const(0x80)
HEARTBEAT = const(0x81)
BEAM = const(0x82)
HALL = const(0x83)
LOST = const(0x84)
SNAPSHOT = const(0x85)
CALIBRATION = const(0x86)
RAW = const(0x87)
ACK = const(0x88)
ERROR = const(0x89)
RESUMED = const(0x8A)
REPLAY = const(0x8B)
# Pi -> hub
HELLO_REQ = const(0x01)
SNAPSHOT_REQ = const(0x02)
CAL_GET = const(0x03)
CAL_SET = const(0x04)
RAW_STREAM = const(0x05)
OUTPUTS = const(0x06)
RESET = const(0x07)
RESUME = const(0x08)

# ACK status
OK = const(0)
BAD_REQUEST = const(1)
NOT_WIRED = const(2)
FAILED = const(3)
UNKNOWN_COMMAND = const(4)

# ERROR codes
E_BAD_FRAME = const(1)
E_UNKNOWN_COMMAND = const(2)
E_HALL_RANGE = const(3)
E_BEAM_BLOCKED = const(4)
E_CAL_INVALID = const(5)
E_CAL_SAVE = const(6)
E_INTERNAL = const(7)
E_TEXT_INPUT = const(8)

U32_MAX = const(0x3FFFFFFF)  # counters are clamped to a small int

_table = None


def _crc_table():
    global _table
    if _table is None:
        t = array("H", bytes(512))
        for i in range(256):
            c = i << 8
            for _ in range(8):
                c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
            t[i] = c & 0xFFFF
        _table = t
    return _table


@micropython.viper
def _crc(data, n: int, table) -> int:
    d = ptr8(data)
    t = ptr16(table)
    c = 0xFFFF
    for i in range(n):
        c = ((c << 8) & 0xFF00) ^ t[((c >> 8) ^ d[i]) & 0xFF]
    return c


def crc16(data, n):
    # CRC-16/CCITT-FALSE of data[:n] (viper: every frame in and out pays it).
    return _crc(data, n, _table or _crc_table())


def pack_t(buf, off, hi, lo):
    # t_us = hi * 2**30 + lo (lo < 2**30, the rp2 ticks period) as u64 LE, in
    # 16-bit pieces so no intermediate value leaves the small-int range.
    struct.pack_into("<HHHH", buf, off, lo & 0xFFFF, (lo >> 16) | ((hi & 3) << 14), (hi >> 2) & 0xFFFF, (hi >> 18) & 0xFFFF)


def _str8(buf, off, text):
    b = text.encode() if isinstance(text, str) else text
    n = min(len(b), 255)
    buf[off] = n
    buf[off + 1:off + 1 + n] = b[:n]
    return off + 1 + n


class Writer:
    # Encodes hub messages into one preallocated buffer and writes frame lines.
    def __init__(self, write):
        self._write = write
        self.buf = bytearray(MAX_PAYLOAD + 2)
        self.mv = memoryview(self.buf)
        self.seq = 0
        self.frames = 0
        self.replay_num = -1  # >= 0: the next event encoded goes out as a REPLAY of that frame
        _crc_table()  # built now, not in the main loop's first pass

    def _send(self, typ, n):
        buf = self.buf
        if self.replay_num >= 0:
            # An event sent again: its original frame number, then its own
            # type and body, inside a REPLAY frame with a fresh seq.
            buf[8:n + 5] = buf[3:n]
            struct.pack_into("<IB", buf, 3, self.replay_num, typ)
            self.replay_num = -1
            typ = REPLAY
            n += 5
        buf[0] = typ
        buf[1] = self.seq & 0xFF
        buf[2] = self.seq >> 8
        c = crc16(buf, n)
        buf[n] = c & 0xFF
        buf[n + 1] = c >> 8
        # b2a_base64 ends its output with b"\n": exactly the frame's end.
        self._write(b":" + b2a_base64(self.mv[:n + 2]))
        self.seq = (self.seq + 1) & 0xFFFF
        self.frames += 1

    def hello(self, req, boot_id, hi, lo, map_hash, beam_hz, hall_hz, hb_ms, flags, n_beams, n_halls, fw, board):
        b = self.buf
        struct.pack_into("<HB", b, 3, req, PROTOCOL_VERSION)
        b[6:10] = boot_id
        pack_t(b, 10, hi, lo)
        b[18:26] = map_hash
        struct.pack_into("<HHHBBB", b, 26, beam_hz, hall_hz, hb_ms, flags, n_beams, n_halls)
        n = _str8(b, 35, fw)
        n = _str8(b, n, board)
        self._send(HELLO, n)

    def heartbeat(self, hi, lo, hall_hz, loop_max_us, queue_peak, lost_total, rx_bad):
        b = self.buf
        pack_t(b, 3, hi, lo)
        struct.pack_into("<HIHIH", b, 11, hall_hz, min(loop_max_us, U32_MAX), queue_peak, min(lost_total, U32_MAX), min(rx_bad, 0xFFFF))
        self._send(HEARTBEAT, 25)

    def beam(self, hi, lo, beam, broken, duration_us):
        b = self.buf
        pack_t(b, 3, hi, lo)
        struct.pack_into("<BBI", b, 11, beam, broken, min(duration_us, U32_MAX))
        self._send(BEAM, 17)

    def hall(self, hi, lo, switch, pos, raw):
        b = self.buf
        pack_t(b, 3, hi, lo)
        struct.pack_into("<BBH", b, 11, switch, pos, raw)
        self._send(HALL, 15)

    def lost(self, hi, lo, count, where):
        b = self.buf
        pack_t(b, 3, hi, lo)
        struct.pack_into("<IB", b, 11, min(count, U32_MAX), where)
        self._send(LOST, 16)

    def snapshot(self, req, hi, lo, beams, switches, pos, raw, n):
        b = self.buf
        struct.pack_into("<H", b, 3, req)
        pack_t(b, 5, hi, lo)
        struct.pack_into("<IB", b, 13, beams, n)
        off = 18
        for i in range(n):
            struct.pack_into("<BBH", b, off, switches[i], pos[i], raw[i])
            off += 4
        self._send(SNAPSHOT, off)

    def calibration(self, req, saved, hyst, beam_filter, hall_filter, items):
        b = self.buf
        struct.pack_into("<HBHBBB", b, 3, req, saved, hyst, beam_filter, hall_filter, len(items))
        off = 11
        for sw, l, r, none, band in items:
            struct.pack_into("<BHHHH", b, off, sw, l, r, none, band)
            off += 9
        self._send(CALIBRATION, off)

    def raw(self, hi, lo, switches, raw, n):
        b = self.buf
        pack_t(b, 3, hi, lo)
        b[11] = n
        off = 12
        for i in range(n):
            struct.pack_into("<BH", b, off, switches[i], raw[i])
            off += 3
        self._send(RAW, off)

    def ack(self, req, cmd, status, text=""):
        b = self.buf
        struct.pack_into("<HBB", b, 3, req, cmd, status)
        self._send(ACK, _str8(b, 7, text))

    def resumed(self, req, hi, lo, num, flags, replayed, oldest, ohi, olo, undelivered):
        b = self.buf
        struct.pack_into("<H", b, 3, req)
        pack_t(b, 5, hi, lo)
        struct.pack_into("<IBHI", b, 13, num, flags, replayed, oldest)
        pack_t(b, 24, ohi, olo)
        struct.pack_into("<I", b, 32, min(undelivered, U32_MAX))
        self._send(RESUMED, 36)

    def error(self, hi, lo, code, arg, text=""):
        b = self.buf
        pack_t(b, 3, hi, lo)
        struct.pack_into("<BH", b, 11, code, arg)
        self._send(ERROR, _str8(b, 14, text))


class Reader:
    # Frame lines from the Pi -> (type, seq, body) tuples. Counts what is not a
    # frame: damaged frames (bad), text lines (text), over-long lines (oversize).
    def __init__(self):
        self.line = bytearray()
        self.skip = False
        self.bad = 0
        self.text = 0
        self.oversize = 0

    def feed(self, data, out):
        for ch in data:
            if ch == 10:
                if self.skip:
                    self.skip = False
                else:
                    self._line(out)
                self.line = bytearray()
            elif not self.skip:
                if len(self.line) >= MAX_LINE:
                    self.oversize += 1
                    self.skip = True
                    self.line = bytearray()
                else:
                    self.line.append(ch)

    def _line(self, out):
        line = self.line
        while line and line[-1] == 13:
            line = line[:-1]
        if not line:
            return
        at = -1
        for i in range(len(line) - 1, -1, -1):
            if line[i] == 58:  # ':'
                at = i
                break
        if at < 0:
            self.text += 1
            return
        try:
            raw = a2b_base64(line[at + 1:])
        except ValueError:
            self.bad += 1
            return
        n = len(raw) - 2
        if n < 3 or crc16(raw, n) != raw[n] | (raw[n + 1] << 8):
            self.bad += 1
            return
        out.append((raw[0], raw[1] | (raw[2] << 8), raw[3:n]))


def decode_cal_set(body):
    # -> (save, hyst, beam_filter, hall_filter, [(switch, l, r, none, band), ...]); ValueError if malformed
    if len(body) < 6:
        raise ValueError("cal_set too short")
    save, hyst, bf, hf, n = struct.unpack_from("<BHBBB", body, 0)
    if len(body) != 6 + 9 * n:
        raise ValueError("cal_set length")
    items = []
    for i in range(n):
        items.append(struct.unpack_from("<BHHHH", body, 6 + 9 * i))
    return save, hyst, bf, hf, items


def decode_outputs(body):
    # -> (leds, drop, pulse_ms)
    if len(body) != 4:
        raise ValueError("outputs length")
    return struct.unpack("<BBH", body)


def decode_resume(body):
    # -> (boot_id bytes, mode, after); mode 0: nothing to replay, 1: events numbered after `after`
    if len(body) != 9:
        raise ValueError("resume length")
    mode, after = struct.unpack_from("<BI", body, 4)
    if mode > 1:
        raise ValueError("resume mode %d is not 0 or 1" % mode)
    return bytes(body[:4]), mode, after


def decode_u16(body):
    if len(body) != 2:
        raise ValueError("length")
    return body[0] | (body[1] << 8)
