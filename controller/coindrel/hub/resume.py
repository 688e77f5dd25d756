"""Replay from the hub (firmware/PROTOCOL.md section 5, *Resume*): the
``resume`` command, the hub's ``resumed`` answer and the ``replay`` frames
that carry its kept events again, each with its original frame number.

Frame numbers count every frame of one hub boot from 0; a frame's 16-bit
``seq`` is its number's low half, so after a ``resumed`` (which says its own
number) the Pi knows the number of every frame that follows.
Import them from ``coindrel.hub.protocol``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import ClassVar

from .messages import Beam, Error, Hall, Lost, Message, _fixed

NOTHING = 0xFFFFFFFF  # `oldest` when the hub keeps no event


@dataclass(frozen=True, slots=True)
class Resume(Message):
    """Pi -> hub: send again every kept event numbered after ``after`` of boot
    ``boot_id`` (``after`` None: nothing, only say where the stream is)."""

    boot_id: int
    after: int | None = None
    TYPE: ClassVar[int] = 0x08
    NAME: ClassVar[str] = "resume"

    def pack(self) -> bytes:
        return struct.pack("<IBI", self.boot_id, 0 if self.after is None else 1, self.after or 0)

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) != 9 or body[4] > 1:
            raise ValueError("resume body is boot u32, mode 0|1, after u32")
        boot, mode, after = struct.unpack("<IBI", body)
        return cls(boot, after if mode else None)


@_fixed("HQIBHIQI")
@dataclass(frozen=True, slots=True)
class Resumed(Message):
    """The hub's answer to ``resume``; ``replayed`` REPLAY frames follow it."""

    req: int
    t_us: int
    num: int  # this frame's own frame number
    flags: int  # bit 0: another boot's position (this boot's kept events follow); bit 1: events after it are gone
    replayed: int
    oldest: int  # frame number of the oldest event kept (NOTHING: none)
    oldest_t_us: int  # and its time
    undelivered: int  # events this boot released while no host read the port
    TYPE: ClassVar[int] = 0x8A
    NAME: ClassVar[str] = "resumed"

    @property
    def other_boot(self) -> bool:
        return bool(self.flags & 1)

    @property
    def gone(self) -> bool:
        """Events after the position asked for are no longer kept: they are lost."""
        return bool(self.flags & 3)


_EVENTS = {m.TYPE: m for m in (Beam, Hall, Lost, Error)}


@dataclass(frozen=True, slots=True)
class Replay(Message):
    """An event sent again after a ``resume``: its original frame number and message."""

    num: int
    event: Message
    TYPE: ClassVar[int] = 0x8B
    NAME: ClassVar[str] = "replay"

    def pack(self) -> bytes:
        if type(self.event) not in _EVENTS.values():
            raise ValueError(f"a replay carries a beam, hall, lost or error event, not {self.event.NAME}")
        return struct.pack("<IB", self.num, self.event.TYPE) + self.event.pack()

    @classmethod
    def unpack(cls, body: bytes):
        if len(body) < 5:
            raise ValueError("replay body shorter than its header")
        num, kind = struct.unpack_from("<IB", body)
        inner = _EVENTS.get(kind)
        if inner is None:
            raise ValueError(f"a replay of message type 0x{kind:02x}, which is not an event")
        return cls(num, inner.unpack(bytes(body[5:])))

    def to_dict(self) -> dict:
        return {"type": self.NAME, "num": self.num, "event": self.event.to_dict()}


@dataclass(frozen=True, slots=True)
class HubPosition:
    """Where a board event stands in the hub's stream: its boot and frame
    number. The daemon journals it with the event and gives the last durable
    one back as ``HubSource(resume_after=...)`` after a restart."""

    boot_id: int
    num: int
    # what the link added to this boot's clock to make board time (non-zero after a
    # hub reset the link saw): a restarted daemon puts that boot's frames on the
    # same axis as the journal's events
    offset_us: int = field(default=0, compare=False)

    def to_dict(self) -> dict:
        return {"boot_id": self.boot_id, "num": self.num, "offset_us": self.offset_us}

    @classmethod
    def from_dict(cls, d: dict) -> "HubPosition":
        return cls(int(d["boot_id"]), int(d["num"]), int(d.get("offset_us", 0)))


@dataclass(frozen=True, slots=True)
class HubLoss:
    """Board events the hub could not give back: every event after ``after``
    (the position asked for) and before board time ``until_t`` (the oldest the
    hub still had; None: unknown, e.g. the hub restarted) is lost. A drop whose
    cascade overlaps ``since_t``..``until_t`` is uncertain."""

    after: HubPosition | None
    since_t: float | None  # board time of the last event the Pi had, when it knows it
    until_t: float | None
    reason: str
