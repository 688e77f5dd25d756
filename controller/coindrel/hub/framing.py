"""Frame lines on the hub link (firmware/PROTOCOL.md section 2).

A frame is one text line: ``:`` + base64(payload + CRC-16(payload), little
endian) + ``\\n``. Text lines keep the MicroPython REPL usable on the same USB
port (Ctrl-C never appears inside a frame), base64 is C code on both ends
(binascii), and the decoder finds its feet again at the next line end
whatever came before: noise, half a frame from a hub that reset, a REPL
banner. Payload: message type (u8), sequence number (u16 LE), body.

The check is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): ``binascii.crc_hqx``
here; the firmware uses a table (the rp2 port has no ``binascii.crc32``, and
16-bit values stay small integers, so computing it never allocates).

``FrameDecoder`` is incremental: feed it any chunks of bytes and it returns
complete payloads and the problems it met, counting every one.
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass, field

from ..errors import CoindrelError

START = 0x3A  # ':'
END = 0x0A  # '\n'
MAX_PAYLOAD = 1024
CRC_SIZE = 2
# ':' + base64 of (payload + CRC) + '\r\n'
MAX_LINE = 1 + 4 * ((MAX_PAYLOAD + CRC_SIZE + 2) // 3) + 2
HEADER = struct.Struct("<BH")
_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="


class FramingError(CoindrelError, ValueError):
    """A payload that cannot be framed (too long, empty)."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE; crc16(b"123456789") == 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


def encode_frame(payload: bytes) -> bytes:
    """One frame line for ``payload`` (type, seq and body already packed)."""
    if not 3 <= len(payload) <= MAX_PAYLOAD:
        raise FramingError(f"a frame payload is 3..{MAX_PAYLOAD} bytes, not {len(payload)}")
    body = payload + struct.pack("<H", crc16(payload))
    return b":" + binascii.b2a_base64(body, newline=False) + b"\n"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something on the wire that was not a good frame.

    ``kind`` is one of ``text`` (a line that is not a frame: REPL output, a
    traceback, a person typing), ``encoding`` (not base64), ``short``,
    ``crc``, ``oversize`` (a line longer than any frame; skipped to its end),
    ``garbage`` (bytes before a frame start on the same line).
    """

    kind: str
    detail: str
    data: bytes = b""


@dataclass(slots=True)
class FrameStats:
    frames: int = 0
    text: int = 0
    encoding: int = 0
    short: int = 0
    crc: int = 0
    oversize: int = 0
    garbage: int = 0
    bytes_in: int = 0

    def bad(self) -> int:
        """Frames lost to damage (text lines are not counted: they are not frames)."""
        return self.encoding + self.short + self.crc + self.oversize

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}


def _preview(data: bytes, limit: int = 60) -> str:
    text = data[:limit].decode("ascii", "replace")
    text = "".join(ch if ch.isprintable() else "\ufffd" for ch in text)
    return text + ("..." if len(data) > limit else "")


@dataclass(slots=True)
class FrameDecoder:
    """Incremental frame-line decoder; never raises on bad input."""

    max_line: int = MAX_LINE
    stats: FrameStats = field(default_factory=FrameStats)
    _buf: bytearray = field(default_factory=bytearray)
    _skipping: bool = False

    def reset(self) -> None:
        """Forget a partial line (after a reconnect: it belongs to the old connection)."""
        self._buf.clear()
        self._skipping = False

    def feed(self, data: bytes) -> list:
        """Return the payloads (bytes) and Problems completed by ``data``, in order."""
        out: list = []
        self.stats.bytes_in += len(data)
        buf = self._buf
        start = 0
        n = len(data)
        while start < n:
            nl = data.find(b"\n", start)
            if nl < 0:
                chunk = data[start:]
                if self._skipping:
                    break
                buf += chunk
                if len(buf) > self.max_line:
                    self.stats.oversize += 1
                    out.append(Problem("oversize", f"a line longer than {self.max_line} bytes, skipped to its end", bytes(buf[:64])))
                    buf.clear()
                    self._skipping = True
                break
            if self._skipping:
                self._skipping = False
                start = nl + 1
                continue
            buf += data[start:nl]
            start = nl + 1
            if len(buf) > self.max_line:
                self.stats.oversize += 1
                out.append(Problem("oversize", f"a line longer than {self.max_line} bytes, skipped", bytes(buf[:64])))
            else:
                self._line(bytes(buf), out)
            buf.clear()
        return out

    def _line(self, line: bytes, out: list) -> None:
        line = line.rstrip(b"\r")
        if not line:
            return
        at = line.rfind(b":")
        if at < 0 or at + 1 == len(line) or line[at + 1 :].translate(None, _B64):
            # No frame start, or what follows the last ':' is not base64: a
            # text line ("Traceback (most recent call last):", a REPL banner).
            self.stats.text += 1
            out.append(Problem("text", f"text line: {_preview(line)!r}", line))
            return
        if at > 0:
            # Half a frame (the hub reset mid-line) or noise before a frame start:
            # the last ':' begins the newest frame, since ':' is not base64.
            self.stats.garbage += 1
            out.append(Problem("garbage", f"{at} bytes before a frame start: {_preview(line[:at])!r}", line[:at]))
            line = line[at:]
        try:
            raw = binascii.a2b_base64(line[1:], strict_mode=True)
        except (binascii.Error, ValueError) as e:
            self.stats.encoding += 1
            out.append(Problem("encoding", f"frame is not valid base64 ({e})", line[:64]))
            return
        if len(raw) < HEADER.size + CRC_SIZE:
            self.stats.short += 1
            out.append(Problem("short", f"frame of {len(raw)} bytes is too short (at least {HEADER.size + CRC_SIZE})", raw))
            return
        payload, (crc,) = raw[:-CRC_SIZE], struct.unpack("<H", raw[-CRC_SIZE:])
        if crc16(payload) != crc:
            self.stats.crc += 1
            out.append(Problem("crc", f"CRC mismatch on a {len(payload)}-byte frame (type 0x{payload[0]:02x})", raw))
            return
        self.stats.frames += 1
        out.append(payload)
