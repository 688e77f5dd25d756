"""Hub protocol messages: one frozen dataclass per message, each packing and
unpacking its own body (firmware/PROTOCOL.md section 3). Import them from
``coindrel.hub.protocol``, which adds framing, ``encode`` and ``Decoder``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, fields
from typing import ClassVar

from ..errors import CoindrelError


PROTOCOL_VERSION = 1
POSITIONS = ("L", "R", "mid", "none")  # wire codes 0..3
BEAM_COUNT = 24
ENTRY_BEAMS = range(0, 8)
EXIT_BEAMS = range(8, 24)
NO_DROP = 0xFF

# ACK status codes
OK, BAD_REQUEST, NOT_WIRED, FAILED, UNKNOWN_COMMAND = 0, 1, 2, 3, 4
ACK_STATUS = {OK: "ok", BAD_REQUEST: "bad request", NOT_WIRED: "not wired to the hub", FAILED: "failed", UNKNOWN_COMMAND: "unknown command"}

# ERROR codes (hub -> Pi)
ERROR_CODES = {
    1: "bad_frame",  # the hub received a damaged frame from the Pi; arg = count so far
    2: "unknown_command",  # arg = the type code
    3: "hall_range",  # arg = switch; the reading sits at a supply rail: sensor unplugged or shorted
    4: "beam_blocked",  # arg = beam; broken for longer than a coin ever takes
    5: "calibration_invalid",  # calibration on the hub's flash missing or unreadable; defaults in use
    6: "calibration_save",  # writing calibration to flash failed
    7: "internal",  # an exception in the hub's main loop (text says which); the hub carried on
    8: "text_input",  # a text line arrived: someone typing at the port (Ctrl-C gives the REPL)
}
LOST_WHERE = ("beams", "queue")  # lost in the beam sample ring / the hub's event queue


class ProtocolError(CoindrelError, ValueError):
    """A message that cannot be encoded (a field out of range), or a frame that does not decode."""


def beam_name(beam: int) -> str:
    """People's name for a beam id: ``entry 1``..``entry 8``, ``exit 1``..``exit 16``."""
    if 0 <= beam < 8:
        return f"entry {beam + 1}"
    if 8 <= beam < BEAM_COUNT:
        return f"exit {beam - 7}"
    return f"beam {beam}"


def _str8(text: str) -> bytes:
    data = text.encode("utf-8")[:255]
    return bytes([len(data)]) + data


def _take_str8(body: bytes, at: int) -> tuple[str, int]:
    if at >= len(body) or at + 1 + body[at] > len(body):
        raise ValueError("text field runs past the end of the frame")
    n = body[at]
    return body[at + 1 : at + 1 + n].decode("utf-8", "replace"), at + 1 + n


def _pos_code(pos: str) -> int:
    try:
        return POSITIONS.index(pos)
    except ValueError:
        raise ProtocolError(f"hall position {pos!r} is not one of {', '.join(POSITIONS)}") from None


def _pos_name(code: int) -> str:
    if code >= len(POSITIONS):
        raise ValueError(f"hall position code {code} is not 0..3")
    return POSITIONS[code]


class Message:
    TYPE: ClassVar[int]
    NAME: ClassVar[str]

    # Each message type says how its body is laid out; ``_fixed`` writes both
    # for the types whose body is one struct. A type without a layout of its
    # own (ForeignHello is only ever read, never parsed or sent as such) says so.
    def pack(self) -> bytes:
        raise ProtocolError(f"{self.NAME} has no body layout to send")

    @classmethod
    def unpack(cls, body: bytes):
        raise ProtocolError(f"{cls.NAME} has no body layout to parse; it is built by the decoder")

    def to_dict(self) -> dict:
        d = {"type": self.NAME}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bytes):
                v = v.hex()
            elif isinstance(v, tuple):
                v = [list(x) if isinstance(x, tuple) else x for x in v]
            d[f.name] = v
        return d


def _fixed(fmt: str):
    """Class decorator: a message whose body is one struct of its fields in order."""

    def wrap(cls):
        st = struct.Struct("<" + fmt)

        def pack(self) -> bytes:
            return st.pack(*(getattr(self, f.name) for f in fields(self)))

        @classmethod
        def unpack(c, body: bytes):
            if len(body) != st.size:
                raise ValueError(f"body is {len(body)} bytes, {c.NAME} has {st.size}")
            return c(*st.unpack(body))

        cls.pack, cls.unpack, cls.STRUCT = pack, unpack, st
        return cls

    return wrap


# --- hub -> Pi --------------------------------------------------------------

_HELLO = struct.Struct("<HBIQ8sHHHBBB")


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """The hub introduces itself: at boot (req 0, seq 0) and when asked."""

    req: int
    proto: int
    boot_id: int
    t_us: int
    map_hash: bytes  # 8 bytes, channelmap.map_hash()
    beam_hz: int
    hall_hz: int
    heartbeat_ms: int
    calibrated: bool
    entry_leds: bool
    dropper: bool
    n_beams: int
    n_halls: int
    firmware: str
    board_id: str
    TYPE: ClassVar[int] = 0x80
    NAME: ClassVar[str] = "hello"

    def pack(self) -> bytes:
        flags = (1 if self.calibrated else 0) | (2 if self.entry_leds else 0) | (4 if self.dropper else 0)
        head = _HELLO.pack(self.req, self.proto, self.boot_id, self.t_us, bytes(self.map_hash), self.beam_hz,
                           self.hall_hz, self.heartbeat_ms, flags, self.n_beams, self.n_halls)
        return head + _str8(self.firmware) + _str8(self.board_id)

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) >= 3 and body[2] != PROTOCOL_VERSION:
            return ForeignHello(struct.unpack_from("<H", body)[0], body[2], bytes(body))
        if len(body) < _HELLO.size:
            raise ValueError(f"hello body is {len(body)} bytes, at least {_HELLO.size}")
        req, proto, boot, t, mh, bhz, hhz, hb, flags, nb, nh = _HELLO.unpack_from(body)
        fw, at = _take_str8(body, _HELLO.size)
        board, at = _take_str8(body, at)
        if at != len(body):
            raise ValueError(f"{len(body) - at} stray bytes after the hello")
        return cls(req, proto, boot, t, mh, bhz, hhz, hb, bool(flags & 1), bool(flags & 2), bool(flags & 4), nb, nh, fw, board)


@dataclass(frozen=True, slots=True)
class ForeignHello(Message):
    """A hello in another protocol version: only ``proto`` can be trusted."""

    req: int
    proto: int
    body: bytes
    TYPE: ClassVar[int] = 0x80
    NAME: ClassVar[str] = "foreign_hello"

    def pack(self) -> bytes:
        return bytes(self.body)


@_fixed("QHIHIH")
@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """Sent every ``heartbeat_ms`` when the hub has nothing else to say."""

    t_us: int
    hall_hz: int  # full hall scans per second, measured
    loop_max_us: int  # slowest main-loop pass since the last heartbeat
    queue_peak: int  # most events waiting in the hub's queue since the last heartbeat
    lost_total: int  # events lost since boot
    rx_bad: int  # damaged frames received from the Pi since boot
    TYPE: ClassVar[int] = 0x81
    NAME: ClassVar[str] = "heartbeat"


_BEAM = struct.Struct("<QBBI")


@dataclass(frozen=True, slots=True)
class Beam(Message):
    """A beam changed: ``broken`` at ``t_us`` (a coin arrived), or clear again
    after ``duration_us`` (how long the coin was in the beam)."""

    t_us: int
    beam: int
    broken: bool
    duration_us: int = 0
    TYPE: ClassVar[int] = 0x82
    NAME: ClassVar[str] = "beam"

    def pack(self) -> bytes:
        return _BEAM.pack(self.t_us, self.beam, 1 if self.broken else 0, self.duration_us)

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) != _BEAM.size:
            raise ValueError(f"body is {len(body)} bytes, beam has {_BEAM.size}")
        t, beam, broken, dur = _BEAM.unpack(body)
        if beam >= BEAM_COUNT or broken > 1:
            raise ValueError(f"beam {beam} state {broken} is not a beam event")
        return cls(t, beam, bool(broken), dur)


_HALL = struct.Struct("<QBBH")


@dataclass(frozen=True, slots=True)
class Hall(Message):
    """A switch's hall classification changed (pos L, R, mid, none)."""

    t_us: int
    switch: int
    pos: str
    raw: int
    TYPE: ClassVar[int] = 0x83
    NAME: ClassVar[str] = "hall"

    def pack(self) -> bytes:
        return _HALL.pack(self.t_us, self.switch, _pos_code(self.pos), self.raw)

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) != _HALL.size:
            raise ValueError(f"body is {len(body)} bytes, hall has {_HALL.size}")
        t, sw, pos, raw = _HALL.unpack(body)
        return cls(t, sw, _pos_name(pos), raw)


@dataclass(frozen=True, slots=True)
class Lost(Message):
    """The hub dropped ``count`` events (``where``: beams or queue) at about ``t_us``."""

    t_us: int
    count: int
    where: str
    TYPE: ClassVar[int] = 0x84
    NAME: ClassVar[str] = "lost"

    def pack(self) -> bytes:
        return struct.pack("<QIB", self.t_us, self.count, LOST_WHERE.index(self.where))

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) != 13 or body[12] >= len(LOST_WHERE):
            raise ValueError("lost body must be 13 bytes ending in 0 (beams) or 1 (queue)")
        t, count, where = struct.unpack("<QIB", body)
        return cls(t, count, LOST_WHERE[where])


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """The answer to a command that returns no data: ``status`` 0 is OK."""

    req: int
    cmd: int
    status: int
    text: str = ""
    TYPE: ClassVar[int] = 0x88
    NAME: ClassVar[str] = "ack"

    def pack(self) -> bytes:
        return struct.pack("<HBB", self.req, self.cmd, self.status) + _str8(self.text)

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) < 5:
            raise ValueError("ack body shorter than its header")
        req, cmd, status = struct.unpack_from("<HBB", body)
        text, at = _take_str8(body, 4)
        if at != len(body):
            raise ValueError("stray bytes after the ack text")
        return cls(req, cmd, status, text)


@dataclass(frozen=True, slots=True)
class Error(Message):
    """A problem the hub noticed (``code`` in ERROR_CODES), with words."""

    t_us: int
    code: int
    arg: int = 0
    text: str = ""
    TYPE: ClassVar[int] = 0x89
    NAME: ClassVar[str] = "error"

    def pack(self) -> bytes:
        return struct.pack("<QBH", self.t_us, self.code, self.arg) + _str8(self.text)

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) < 12:
            raise ValueError("error body shorter than its header")
        t, code, arg = struct.unpack_from("<QBH", body)
        text, at = _take_str8(body, 11)
        if at != len(body):
            raise ValueError("stray bytes after the error text")
        return cls(t, code, arg, text)

    @property
    def code_name(self) -> str:
        return ERROR_CODES.get(self.code, f"error {self.code}")
