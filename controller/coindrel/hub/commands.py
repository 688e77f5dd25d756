"""Pi -> hub commands, and the two stand-ins for frames that did not decode
(firmware/PROTOCOL.md section 4). Import them from ``coindrel.hub.protocol``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from .messages import NO_DROP, PROTOCOL_VERSION, Message, _fixed
from .tables import _CalBody


@_fixed("B")
@dataclass(frozen=True, slots=True)
class HelloReq(Message):
    proto: int = PROTOCOL_VERSION
    TYPE: ClassVar[int] = 0x01
    NAME: ClassVar[str] = "hello_req"


@_fixed("")
@dataclass(frozen=True, slots=True)
class SnapshotReq(Message):
    TYPE: ClassVar[int] = 0x02
    NAME: ClassVar[str] = "snapshot_req"


@_fixed("")
@dataclass(frozen=True, slots=True)
class CalGet(Message):
    TYPE: ClassVar[int] = 0x03
    NAME: ClassVar[str] = "cal_get"


@dataclass(frozen=True, slots=True)
class CalSet(_CalBody, Message):
    save: bool
    hyst: int
    beam_filter: int
    hall_filter: int
    halls: tuple = ()  # of HallCal
    TYPE: ClassVar[int] = 0x04
    NAME: ClassVar[str] = "cal_set"
    HEAD: ClassVar[struct.Struct] = struct.Struct("<BHBB")

    def _head(self):
        return (1 if self.save else 0, self.hyst, self.beam_filter, self.hall_filter)

    @staticmethod
    def _from_head(h):
        return (bool(h[0]), h[1], h[2], h[3])


@_fixed("H")
@dataclass(frozen=True, slots=True)
class RawStream(Message):
    interval_ms: int  # 0 stops the stream
    TYPE: ClassVar[int] = 0x05
    NAME: ClassVar[str] = "raw_stream"


@_fixed("BBH")
@dataclass(frozen=True, slots=True)
class Outputs(Message):
    leds: int  # bit e lights entry e's LED
    drop: int = NO_DROP  # entry 0..7 to drop a coin into, or NO_DROP
    pulse_ms: int = 0  # how long the dropper's release is driven
    TYPE: ClassVar[int] = 0x06
    NAME: ClassVar[str] = "outputs"


@_fixed("")
@dataclass(frozen=True, slots=True)
class Reset(Message):
    TYPE: ClassVar[int] = 0x07
    NAME: ClassVar[str] = "reset"


@dataclass(frozen=True, slots=True)
class Unknown(Message):
    """A frame with a good CRC but a type this side does not know."""

    type_code: int
    body: bytes
    NAME: ClassVar[str] = "unknown"


@dataclass(frozen=True, slots=True)
class Malformed(Message):
    """A frame with a good CRC whose body does not fit its type."""

    type_code: int
    body: bytes
    reason: str
    NAME: ClassVar[str] = "malformed"


