"""The hub wire protocol, both directions (firmware/PROTOCOL.md is the contract).

Every message is a frozen dataclass. ``encode(msg, seq)`` gives the frame
line; ``Decoder(source)`` turns a byte stream into ``Frame(seq, msg)`` items
and ``Problem`` items, counting everything that was not a good frame. Hub
messages (hub -> Pi) have type codes 0x80..0xBF, commands (Pi -> hub)
0x01..0x3F. Times are microseconds on the hub's clock since it booted
(``t_us``, u64). Beam ids: 0..7 are entries 1..8, 8..23 exits 1..16. Switch
ids index the board's switch labels in reading order (R1S1 = 0).

A virtual board speaking as a hub uses ``encode`` for ``Hello``, ``Beam``,
``Hall`` ... and ``Decoder("pi")`` for the commands the controller sends.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .commands import CalGet, CalSet, HelloReq, Malformed, Outputs, RawStream, Reset, SnapshotReq, Unknown
from .framing import HEADER, MAX_PAYLOAD, FrameDecoder, FramingError, Problem, encode_frame
from .messages import (
    ACK_STATUS, BAD_REQUEST, BEAM_COUNT, ENTRY_BEAMS, ERROR_CODES, EXIT_BEAMS, FAILED, LOST_WHERE, NO_DROP,
    NOT_WIRED, OK, POSITIONS, PROTOCOL_VERSION, UNKNOWN_COMMAND, Ack, Beam, Error, ForeignHello, Hall, Heartbeat,
    Hello, Lost, Message, ProtocolError, beam_name,
)
from .resume import NOTHING, HubLoss, HubPosition, Replay, Resume, Resumed
from .tables import Calibration, HallCal, HallState, Raw, Snapshot

__all__ = [  # the vocabulary, re-exported: `from coindrel.hub import protocol as p; p.Beam(...)`
    "ACK_STATUS", "BAD_REQUEST", "BEAM_COUNT", "ENTRY_BEAMS", "ERROR_CODES", "EXIT_BEAMS", "FAILED", "LOST_WHERE",
    "NO_DROP", "NOT_WIRED", "OK", "POSITIONS", "PROTOCOL_VERSION", "UNKNOWN_COMMAND", "Ack", "Beam", "CalGet",
    "Calibration", "CalSet", "Error", "ForeignHello", "Hall", "HallCal", "HallState", "Heartbeat", "Hello", "HelloReq",
    "Lost", "Malformed", "Message", "Outputs", "ProtocolError", "Raw", "RawStream", "Reset", "Snapshot", "SnapshotReq",
    "Unknown", "beam_name", "Frame", "Problem", "Decoder", "encode", "decode", "decode_payload", "message_from_dict",
    "HUB_MESSAGES", "COMMANDS", "MAX_PAYLOAD", "Resume", "Resumed", "Replay", "NOTHING", "HubPosition", "HubLoss",
]

HUB_MESSAGES = (Hello, Heartbeat, Beam, Hall, Lost, Snapshot, Calibration, Raw, Ack, Error, Resumed, Replay)
COMMANDS = (HelloReq, SnapshotReq, CalGet, CalSet, RawStream, Outputs, Reset, Resume)
_BY_TYPE = {"hub": {m.TYPE: m for m in HUB_MESSAGES}, "pi": {m.TYPE: m for m in COMMANDS}}
_BY_NAME = {m.NAME: m for m in HUB_MESSAGES + COMMANDS}


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    msg: Message


def encode(msg: Message, seq: int) -> bytes:
    """The frame line (bytes ending in ``\\n``) carrying ``msg`` with sequence number ``seq``."""
    if type(msg) not in _BY_NAME.values():
        raise ProtocolError(f"{type(msg).__name__} is not a message that can be sent")
    try:
        payload = HEADER.pack(msg.TYPE, seq & 0xFFFF) + msg.pack()
    except struct.error as e:
        raise ProtocolError(f"{msg.NAME}: a field is out of range ({e}): {msg!r}") from None
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"{msg.NAME} is {len(payload)} bytes, frames carry at most {MAX_PAYLOAD}")
    try:
        return encode_frame(payload)
    except FramingError as e:
        raise ProtocolError(str(e)) from None


def decode_payload(payload: bytes, source: str = "hub") -> Frame:
    """A checked payload -> Frame; unknown or ill-fitting bodies become Unknown/Malformed."""
    kind, seq = HEADER.unpack_from(payload)
    body = bytes(payload[HEADER.size:])
    cls = _BY_TYPE[source].get(kind)
    if cls is None:
        return Frame(seq, Unknown(kind, body))
    try:
        return Frame(seq, cls.unpack(body))
    except (ValueError, struct.error, UnicodeDecodeError) as e:
        return Frame(seq, Malformed(kind, body, f"{cls.NAME}: {e}"))


def decode(line: bytes, source: str = "hub") -> Frame:
    """Decode exactly one frame line; raises ProtocolError naming the problem."""
    dec = FrameDecoder()
    items = dec.feed(line if line.endswith(b"\n") else line + b"\n")
    goods = [i for i in items if not isinstance(i, Problem)]
    if len(items) != 1 or len(goods) != 1:
        raise ProtocolError("; ".join(i.detail for i in items if isinstance(i, Problem)) or "no frame in that line")
    return decode_payload(goods[0], source)


def message_from_dict(d: dict) -> Message:
    """The inverse of ``Message.to_dict`` (for test data and tools)."""
    d = dict(d)
    cls = _BY_NAME.get(d.pop("type", None))
    if cls is None:
        raise ProtocolError(f"unknown message type in {d!r}")
    if "map_hash" in d:
        d["map_hash"] = bytes.fromhex(d["map_hash"])
    if cls is Snapshot:
        d["halls"] = tuple(HallState(*h) for h in d.get("halls", ()))
    elif cls in (Calibration, CalSet):
        d["halls"] = tuple(HallCal(*h) for h in d.get("halls", ()))
    elif cls is Raw:
        d["values"] = tuple(tuple(v) for v in d.get("values", ()))
    elif cls is Replay:
        d["event"] = message_from_dict(d["event"])
    return cls(**d)


class Decoder:
    """Bytes in, ``Frame`` and ``Problem`` items out; ``source`` is who sends
    what is decoded: ``"hub"`` on the Pi, ``"pi"`` on a hub (or a virtual one)."""

    def __init__(self, source: str = "hub", max_line: int | None = None):
        if source not in _BY_TYPE:
            raise ValueError("source is 'hub' or 'pi'")
        self.source = source
        self.frames = FrameDecoder() if max_line is None else FrameDecoder(max_line=max_line)
        self.unknown = 0
        self.malformed = 0

    @property
    def stats(self) -> dict:
        d = self.frames.stats.as_dict()
        d.update(unknown=self.unknown, malformed=self.malformed)
        return d

    def reset(self) -> None:
        self.frames.reset()

    def feed(self, data: bytes) -> list:
        out = []
        for item in self.frames.feed(data):
            if isinstance(item, Problem):
                out.append(item)
                continue
            frame = decode_payload(item, self.source)
            if isinstance(frame.msg, Unknown):
                self.unknown += 1
            elif isinstance(frame.msg, Malformed):
                self.malformed += 1
            out.append(frame)
        return out
