"""The journal's record format, and the reader that decides what to trust.

One record per line, its CRC-32 in front of its compact JSON::

    5a0b7d1e {"n":3,"k":"act","w":1767225600.125,"d":{"do":"drop","t":12.5,...}}

``n`` counts records from 1 without gaps, ``k`` is the kind, ``d`` the
payload and ``w`` the wall-clock time of writing (absent on board events, which
carry the hub's own time). A line is trusted only when it is complete (ends in
a newline), its checksum matches, it is JSON of the right shape and its number
follows the previous one. The first line that fails is where the damage
begins: everything before it is good, and the reader reports the rest as a
``Damage`` for the store to cut off (keeping a copy).

The lines stay readable with ``less`` or ``grep``: a person debugging a table
can read a match journal without tools.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any

from ..errors import CoindrelError

FORMAT = 1
KINDS = frozenset({"begin", "act", "ev", "verdict", "correction", "note", "end"})
_CRC_LEN = 8  # hex digits, then one space
_HEX = b"0123456789abcdef"


class RecordError(CoindrelError, ValueError):
    """A payload that cannot be written as a journal record."""


@dataclass(frozen=True, slots=True)
class Record:
    n: int  # 1, 2, 3, ... in file order
    kind: str
    data: Any
    w: float | None  # wall clock (seconds since the epoch) when written
    offset: int  # byte offset of the line in the file
    size: int  # bytes, newline included


@dataclass(frozen=True, slots=True)
class Damage:
    """The untrustworthy tail of a journal, from ``offset`` to the end."""

    offset: int
    size: int  # bytes from offset to the end of the file
    record: int  # the number the first bad record should have had
    reason: str  # plain words, e.g. "checksum mismatch"
    torn: bool  # no intact record follows: only an unconfirmed last write is lost
    later: int  # intact records after the bad one, which cannot be trusted without it

    def describe(self) -> str:
        what = f"{self.size} byte{'s' if self.size != 1 else ''} at byte {self.offset} (record {self.record} onward)"
        if self.torn:
            return f"the last write was cut short by a crash or power cut ({self.reason}): {what}"
        lost = f"; {self.later} later record{'s' if self.later != 1 else ''} could not be trusted after it" if self.later else ""
        return f"record {self.record} is damaged ({self.reason}): {what}{lost}"


@dataclass(frozen=True, slots=True)
class Scan:
    records: list[Record]
    good_size: int  # bytes of trusted records at the start of the file
    damage: Damage | None


def encode(n: int, kind: str, data: Any, w: float | None = None) -> bytes:
    """One record line, newline included. Raises RecordError for a payload
    JSON cannot hold exactly (NaN, sets, objects)."""
    if kind not in KINDS:
        raise RecordError(f"unknown journal record kind {kind!r}")
    obj: dict[str, Any] = {"n": n, "k": kind}
    if w is not None:
        obj["w"] = round(w, 3)
    obj["d"] = data
    try:
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise RecordError(f"a {kind} record cannot be saved as JSON: {e}") from None
    return b"%08x %s\n" % (zlib.crc32(body), body)


def _decode(line: bytes, expect_n: int) -> tuple[Record | None, str]:
    """Parse one complete line (without its newline); (record, "") or (None, why)."""
    if len(line) < _CRC_LEN + 2 or line[_CRC_LEN : _CRC_LEN + 1] != b" ":
        if not line.strip(b"\0"):
            return None, "zero bytes where a record should be"
        return None, "not a journal record line"
    if line[:_CRC_LEN].strip(_HEX):  # exactly as written: lowercase hex, so any changed byte shows
        return None, "not a journal record line"
    crc = int(line[:_CRC_LEN], 16)
    body = line[_CRC_LEN + 1 :]
    if zlib.crc32(body) != crc:
        return None, "checksum mismatch"
    try:
        obj = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None, "checksum matches but the record is not JSON"
    if not isinstance(obj, dict) or not isinstance(obj.get("n"), int) or obj.get("k") not in KINDS or "d" not in obj:
        return None, "not a record of this journal format"
    if obj["n"] != expect_n:
        return None, f"numbered {obj['n']} where {expect_n} was expected"
    w = obj.get("w")
    if w is not None and (not isinstance(w, (int, float)) or isinstance(w, bool)):
        return None, "bad wall-clock field"
    return Record(expect_n, obj["k"], obj["d"], w, 0, 0), ""


def scan(data: bytes) -> Scan:
    """Read records from the start of ``data`` until the first one that cannot
    be trusted. The first record must be a ``begin`` of a known format."""
    records: list[Record] = []
    pos, size = 0, len(data)
    damage = None
    while pos < size:
        end = data.find(b"\n", pos)
        if end < 0:
            rest = data[pos:]
            reason = "zero bytes where a record should be" if not rest.strip(b"\0") else "incomplete last record"
            damage = Damage(pos, size - pos, len(records) + 1, reason, True, 0)
            break
        rec, why = _decode(data[pos:end], len(records) + 1)
        if rec is not None and rec.n == 1:
            why = _check_begin(rec)
            rec = None if why else rec
        if rec is None:
            # Intact records after a bad one are what the damage costs. With
            # none, it is what a torn last write looks like (pages of an
            # unsynced write reach the disk in any order, or as zeros or
            # stale blocks): nothing that was confirmed is behind it.
            later = _intact_lines(data, end + 1)
            damage = Damage(pos, size - pos, len(records) + 1, why, later == 0, later)
            break
        records.append(Record(rec.n, rec.kind, rec.data, rec.w, pos, end + 1 - pos))
        pos = end + 1
    return Scan(records, pos if damage is None else damage.offset, damage)


def _intact_lines(data: bytes, pos: int) -> int:
    """Complete lines from ``pos`` on whose checksum matches."""
    n = 0
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            return n
        line = data[pos:end]
        if (len(line) > _CRC_LEN + 1 and line[_CRC_LEN : _CRC_LEN + 1] == b" " and not line[:_CRC_LEN].strip(_HEX)
                and int(line[:_CRC_LEN], 16) == zlib.crc32(line[_CRC_LEN + 1 :])):
            n += 1
        pos = end + 1


def _check_begin(rec: Record) -> str:
    if rec.kind != "begin" or not isinstance(rec.data, dict):
        return "the first record is not the start of a match journal"
    fmt = rec.data.get("format")
    if fmt != FORMAT:
        return f"journal format {fmt!r}, but this version of coindrel reads format {FORMAT}"
    return ""


def read_last_line(path, limit: int = 65536) -> Record | None:
    """The last complete, checksummed record of a file, read from its end only
    (no sequence check): the fast path for a finished match's summary."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        start = max(0, size - limit)
        f.seek(start)
        tail = f.read()
    if not tail.endswith(b"\n"):
        return None
    cut = tail.rfind(b"\n", 0, len(tail) - 1)
    if cut < 0 and start > 0:
        return None
    line = tail[cut + 1 : -1]
    if len(line) < _CRC_LEN + 2 or line[_CRC_LEN : _CRC_LEN + 1] != b" " or line[:_CRC_LEN].strip(_HEX):
        return None
    body = line[_CRC_LEN + 1 :]
    try:
        if int(line[:_CRC_LEN], 16) != zlib.crc32(body):
            return None
        obj = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict) or obj.get("k") not in KINDS or not isinstance(obj.get("n"), int):
        return None
    return Record(obj["n"], obj["k"], obj.get("d"), obj.get("w"), start + cut + 1, len(line) + 1)
