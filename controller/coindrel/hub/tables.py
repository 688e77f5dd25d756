"""Hub messages that carry a table: snapshot, calibration, raw readings (and
the calibration body that the cal_set command shares). Import them from
``coindrel.hub.protocol``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from .messages import Message, ProtocolError, _pos_code, _pos_name


def _pack_list(items, st: struct.Struct, conv=lambda x: x) -> bytes:
    items = list(items)
    if len(items) > 255:
        raise ProtocolError(f"at most 255 items in a list, not {len(items)}")
    return bytes([len(items)]) + b"".join(st.pack(*conv(x)) for x in items)


def _take_list(body: bytes, at: int, st: struct.Struct) -> list[tuple]:
    if at >= len(body):
        raise ValueError("list count missing")
    n = body[at]
    at += 1
    if len(body) - at != n * st.size:
        raise ValueError(f"list of {n} items needs {n * st.size} bytes, frame has {len(body) - at}")
    return [st.unpack_from(body, at + i * st.size) for i in range(n)]


_HALLSTATE = struct.Struct("<BBH")
_HALLCAL = struct.Struct("<BHHHH")


@dataclass(frozen=True, slots=True)
class HallState:
    switch: int
    pos: str
    raw: int


@dataclass(frozen=True, slots=True)
class HallCal:
    """Calibration of one switch: the raw reading with the rocker L, R, and
    with no switch (``none``), and the half-width of each band."""

    switch: int
    l: int  # noqa: E741 - the side's name
    r: int
    none: int
    band: int


@dataclass(frozen=True, slots=True)
class Snapshot(Message):
    """Everything the hub sees, consistent with the events sent before it."""

    req: int
    t_us: int
    beams: int  # bit per beam id: 1 = broken now
    halls: tuple  # of HallState, wired switches only
    TYPE: ClassVar[int] = 0x85
    NAME: ClassVar[str] = "snapshot"

    def pack(self) -> bytes:
        return struct.pack("<HQI", self.req, self.t_us, self.beams) + _pack_list(
            self.halls, _HALLSTATE, lambda h: (h.switch, _pos_code(h.pos), h.raw))

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) < 15:
            raise ValueError("snapshot body shorter than its header")
        req, t, beams = struct.unpack_from("<HQI", body)
        halls = tuple(HallState(s, _pos_name(p), raw) for s, p, raw in _take_list(body, 14, _HALLSTATE))
        return cls(req, t, beams, halls)

    def to_dict(self) -> dict:
        return {"type": self.NAME, "req": self.req, "t_us": self.t_us, "beams": self.beams,
                "halls": [[h.switch, h.pos, h.raw] for h in self.halls]}


class _CalBody:
    """Shared body of Calibration (hub -> Pi) and CalSet (Pi -> hub)."""

    HEAD: ClassVar[struct.Struct]

    def pack(self) -> bytes:
        return self.HEAD.pack(*self._head()) + _pack_list(
            self.halls, _HALLCAL, lambda c: (c.switch, c.l, c.r, c.none, c.band))

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) < cls.HEAD.size + 1:
            raise ValueError(f"{cls.NAME} body shorter than its header")
        head = cls.HEAD.unpack_from(body)
        halls = tuple(HallCal(*x) for x in _take_list(body, cls.HEAD.size, _HALLCAL))
        return cls(*cls._from_head(head), halls=halls)

    def to_dict(self) -> dict:
        d = Message.to_dict(self)
        d["halls"] = [[c.switch, c.l, c.r, c.none, c.band] for c in self.halls]
        return d


@dataclass(frozen=True, slots=True)
class Calibration(_CalBody, Message):
    req: int
    saved: bool  # True when this is what the hub's flash holds
    hyst: int  # hysteresis, raw counts added to a band to leave it
    beam_filter: int  # a beam change counts after this many equal samples
    hall_filter: int  # a hall change counts after this many equal scans
    halls: tuple = ()  # of HallCal
    TYPE: ClassVar[int] = 0x86
    NAME: ClassVar[str] = "calibration"
    HEAD: ClassVar[struct.Struct] = struct.Struct("<HBHBB")

    def _head(self):
        return (self.req, 1 if self.saved else 0, self.hyst, self.beam_filter, self.hall_filter)

    @staticmethod
    def _from_head(h):
        return (h[0], bool(h[1]), h[2], h[3], h[4])


_RAWITEM = struct.Struct("<BH")


@dataclass(frozen=True, slots=True)
class Raw(Message):
    """Raw hall readings, streamed while calibrating."""

    t_us: int
    values: tuple  # of (switch, raw)
    TYPE: ClassVar[int] = 0x87
    NAME: ClassVar[str] = "raw"

    def pack(self) -> bytes:
        return struct.pack("<Q", self.t_us) + _pack_list(self.values, _RAWITEM)

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) < 9:
            raise ValueError("raw body shorter than its header")
        return cls(struct.unpack_from("<Q", body)[0], tuple(_take_list(body, 8, _RAWITEM)))
