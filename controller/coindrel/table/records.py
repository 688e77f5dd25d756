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
import re
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import CoindrelError
from ..nesting import loads_json

FORMAT = 1
KINDS = frozenset({"begin", "act", "ev", "verdict", "correction", "note", "end"})
_CRC_LEN = 8  # hex digits, then one space
_HEX = b"0123456789abcdef"
MAX_LINE = 1 << 20  # bytes; the longest record the table writes is a few KiB


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
    repaired: str = ""  # how a damaged line was read back exactly ("" for an intact one)


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
class Hole:
    """Damaged (or missing) records with intact records after them: the
    damage costs these records only, never the ones that follow.

    ``repaired`` holds the records as they were written when the damage is
    one flipped bit per line (CRC-32 locates it), which loses nothing."""

    offset: int  # where the damaged bytes start (where the missing records belong)
    size: int  # damaged bytes (0: records missing without a trace, e.g. a deleted line)
    first: int  # the first record number missing
    last: int  # the last record number missing
    reason: str
    repaired: tuple[Record, ...] = ()
    kinds: tuple[str, ...] = ()  # record kinds still legible in the damaged bytes
    # intact records found later in the file than their number says (swapped lines): ``first``..``last``
    # are the records out of order, nothing is missing
    moved: tuple[Record, ...] = ()

    @property
    def numbers(self) -> range:
        return range(self.first, self.last + 1)

    @property
    def lost(self) -> bool:
        return not self.repaired and not self.stray and not self.moved

    @property
    def stray(self) -> bool:
        """Lines that are no record, between two records numbered one after the
        other: something wrote them into the file, and no record is missing."""
        return self.last < self.first

    def where(self) -> str:
        size = f"{self.size} byte{'s' if self.size != 1 else ''} at byte {self.offset}"
        if self.stray:
            return f"a line between records {self.last} and {self.first} ({size})"
        if self.moved:
            rec = f"records {self.first} and {self.last}" if self.last == self.first + 1 else \
                f"records {self.first}-{self.last}"
            return f"{rec} (at byte {self.offset})"
        rec = f"record {self.first}" if self.first == self.last else f"records {self.first}-{self.last}"
        size = f"{self.size} byte{'s' if self.size != 1 else ''} at byte {self.offset}" if self.size else f"at byte {self.offset}"
        return f"{rec} ({size})"


@dataclass(frozen=True, slots=True)
class Scan:
    records: list[Record]  # every trusted record in file order (repaired ones included)
    good_size: int  # bytes to keep: the file up to its torn tail
    damage: Damage | None  # the torn tail (or a header that is not this journal's)
    holes: list[Hole] = field(default_factory=list)


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


def _decode(line: bytes, expect_n: int | None) -> tuple[Record | None, str]:
    """Parse one complete line (without its newline); (record, "") or (None, why).
    ``expect_n`` None: any number (the scanner checks the order)."""
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
        obj = loads_json(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None, "checksum matches but the record is not JSON"
    if not isinstance(obj, dict) or not isinstance(obj.get("n"), int) or obj.get("k") not in KINDS or "d" not in obj:
        return None, "not a record of this journal format"
    if expect_n is not None and obj["n"] != expect_n:
        return None, f"numbered {obj['n']} where {expect_n} was expected"
    w = obj.get("w")
    if w is not None and (not isinstance(w, (int, float)) or isinstance(w, bool)):
        return None, "bad wall-clock field"
    return Record(obj["n"], obj["k"], obj["d"], w, 0, 0), ""


def scan(data: bytes) -> Scan:
    """Read every record of ``data`` that can be trusted.

    A damaged line costs itself only: the intact records after it count, and
    the records it should have held become a ``Hole`` (repaired exactly when
    one flipped bit explains it). Damage with no intact record after it is
    what a torn last write looks like (pages of an unsynced write reach the
    disk in any order, or as zeros or stale blocks): nothing confirmed is
    behind it, and it is the ``damage`` to cut off. The first record must be a
    ``begin`` of a known format; a header that is not one is a hole too (the
    store rebuilds it), unless nothing intact follows."""
    records: list[Record] = []
    holes: list[Hole] = []
    bad: list[tuple[int, int, str]] = []  # damaged lines since the last trusted record: (start, end, why)
    pos, size, last_n = 0, len(data), 0
    foreign = ""
    missing: set[int] = set()  # numbers skipped with no damaged line in their place (a line may be out of order)
    moved: list[tuple[Record, int]] = []  # (a record found after a higher-numbered one, the record it came after)
    while pos < size:
        end = data.find(b"\n", pos, pos + MAX_LINE + 1)
        if end < 0:
            nxt = data.find(b"\n", pos + MAX_LINE + 1)
            if nxt < 0:
                break  # an incomplete last line: the torn tail
            bad.append((pos, nxt + 1, f"a line of {nxt - pos} bytes, longer than any record ({MAX_LINE})"))
            pos = nxt + 1
            continue
        rec, why = _decode(data[pos:end], None)
        if rec is not None and rec.n in missing and not (rec.n == 1 and _check_begin(rec)):
            # Swapped lines: the record skipped a line or more ago, intact. It is kept, read in its numbered
            # place (taken for a stray line, it was dropped, and its number said missing too)
            if bad:
                holes.append(_hole(data, bad, pos, last_n + 1, last_n, stray=True))
                bad = []
            missing.discard(rec.n)
            moved.append((replace(rec, offset=pos, size=end + 1 - pos), last_n))
            pos = end + 1
            continue
        if rec is not None and rec.n <= last_n:
            rec, why = None, f"numbered {rec.n} where {last_n + 1} was expected"
        if rec is not None and rec.n == 1:
            why = _check_begin(rec)
            if why and pos == 0 and rec.kind == "begin":
                foreign = why  # intact, but another format: nothing after it is ours to read
                break
            rec = None if why else rec
        if rec is None:
            bad.append((pos, end + 1, why))
            pos = end + 1
            continue
        if bad or rec.n != last_n + 1:
            hole = _hole(data, bad, pos, last_n + 1, rec.n - 1, stray=rec.n == last_n + 1)
            holes.append(hole)
            if not bad:
                missing.update(hole.numbers)
            records.extend(hole.repaired)
        records.append(replace(rec, offset=pos, size=end + 1 - pos))
        last_n, pos, bad = rec.n, end + 1, []
    tail = bad[0][0] if bad else pos
    damage = None
    if tail < size:
        reason = bad[0][2] if bad else ("zero bytes where a record should be" if not data[pos:].strip(b"\0")
                                        else "incomplete last record")
        fixed = _repair(data[tail:pos], last_n + 1, None) if bad and pos == size else None
        if fixed is None and pos < size and _ONE_BIT.get(data[-1] ^ 0x0A):
            # the file's last newline flipped: a complete record, not a torn one
            fixed = _repair(data[tail:-1] + b"\n", last_n + 1, None)
            if fixed:
                fixed[-1] = replace(fixed[-1], repaired=fixed[-1].repaired or "one flipped bit in its newline")
            if fixed and not bad:
                bad = [(pos, size, "the last line's newline is damaged")]
        if fixed:  # complete lines, each one flipped bit away from a record: damaged, not torn
            holes.append(_hole(data, bad, size, last_n + 1, fixed[-1].n, fixed))
            records.extend(fixed)
            tail = size
        else:
            damage = Damage(tail, size - tail, last_n + 1, reason, True, 0)
    if moved:
        records, holes = _in_order(records, holes, moved)
    if foreign or not records:
        # not this journal's (another format), or nothing in it can be trusted: the whole file is the damage
        reason = foreign or (bad[0][2] if bad else damage.reason if damage else "not a journal")
        return Scan([], 0, Damage(0, size, 1, reason, not foreign, 0) if data else None, [])
    return Scan(records, tail, damage, holes)


def _hole(data: bytes, bad: list, pos: int, first: int, last: int, fixed=None, stray: bool = False) -> Hole:
    start = bad[0][0] if bad else pos
    region = data[start:pos]
    if fixed is None and bad and last >= first:
        fixed = _repair(region, first, last) or None
    kinds = tuple(k.decode() for k in _KIND.findall(region) if k.decode() in KINDS)
    reason = bad[0][2] if bad else "no record there: lines are missing"
    return Hole(start, len(region), first, last if stray or not bad else max(first, last), reason,
                tuple(replace(r, offset=r.offset + start) for r in fixed or ()), kinds)


_KIND = re.compile(rb'"k":"(\w{1,12})"')


def _in_order(records: list[Record], holes: list[Hole], moved: list[tuple[Record, int]]):
    """The records with those found out of order in their numbered places, and
    each hole of missing lines that they fill turned into one saying so (the
    numbers still missing, if any, stay holes)."""
    out = []
    for h in holes:
        found = [(r, after) for r, after in moved if h.size == 0 and h.lost and h.first <= r.n <= h.last]
        if not found:
            out.append(h)
            continue
        got = {r.n for r, _ in found}
        left = [n for n in h.numbers if n not in got]
        for run in _runs(left):
            out.append(replace(h, first=run[0], last=run[-1]))
        first, after = min(r.n for r, _ in found), max(a for _, a in found)
        lines = ", ".join(f"record {r.n}'s line comes after record {a}'s" for r, a in found[:3])
        out.append(Hole(h.offset, 0, first, after, f"{lines}{' ...' if len(found) > 3 else ''}",
                        moved=tuple(r for r, _ in found)))
    return sorted(records + [r for r, _ in moved], key=lambda r: r.n), out


def _runs(numbers: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return runs


def _repair(region: bytes, first: int, last: int | None) -> list[Record] | None:
    """The records ``first``..``last`` (``last`` None: as many as the lines
    hold) read back from damaged lines, when each line is one flipped bit away
    from a record with the right number, or one flipped newline joined or split
    two lines. None when the damage is more than that."""
    lines = region.split(b"\n")[:-1]
    want = None if last is None else last - first + 1
    candidates = [(lines, "")]
    if want is None or want == len(lines) + 1:  # a newline flipped into another byte joins two records
        for i, line in enumerate(lines):
            for j, c in enumerate(line):
                if _ONE_BIT.get(c ^ 0x0A):
                    candidates.append((lines[:i] + [line[:j], line[j + 1:]] + lines[i + 1:],
                                       "one flipped bit joined it to the next line"))
    if want is None or want == len(lines) - 1:  # a byte flipped into a newline splits one
        for i in range(len(lines) - 1):
            for c in _NEAR_NEWLINE:
                candidates.append((lines[:i] + [lines[i] + bytes([c]) + lines[i + 1]] + lines[i + 2:],
                                   "one flipped bit split it in two lines"))
    for cand, how in candidates:
        if want is not None and len(cand) != want:
            continue
        out, offset = [], 0
        for k, line in enumerate(cand):
            rec = _read_back(line, first + k)
            if rec is None:
                break
            out.append(replace(rec, offset=offset, size=len(line) + 1, repaired=rec.repaired or how))
            offset += len(line) + 1
        else:
            if out:
                return out
    return None


_ONE_BIT = {1 << b: True for b in range(8)}
_NEAR_NEWLINE = tuple(0x0A ^ (1 << b) for b in range(8))
_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ (0xEDB88320 if _c & 1 else 0)
    _TABLE.append(_c)


def _flipped_bit(body: bytes, crc: int) -> int | None:
    """The bit (index from the start, 8 per byte) whose flip makes ``body``'s
    CRC-32 ``crc``, or None. CRC-32 is linear: a flipped bit changes the CRC by
    a value that depends only on its distance from the end, so one pass finds
    it (CRC-32 keeps single-bit errors apart in records of any length here)."""
    syndrome = zlib.crc32(body) ^ crc
    if not syndrome:
        return None
    regs = [_TABLE[1 << b] for b in range(8)]
    n = len(body)
    for m in range(n):
        for b in range(8):
            if regs[b] == syndrome:
                return (n - 1 - m) * 8 + b
        regs = [(r >> 8) ^ _TABLE[r & 0xFF] for r in regs]
    return None


def _read_back(line: bytes, n: int) -> Record | None:
    """Record ``n`` from ``line``, intact or one flipped bit away from it."""
    rec, _ = _decode(line, n)
    if rec is not None:
        return rec if n != 1 or not _check_begin(rec) else None
    if len(line) < _CRC_LEN + 2:
        return None
    head, sep, body = line[:_CRC_LEN], line[_CRC_LEN], line[_CRC_LEN + 1:]
    want = b"%08x" % zlib.crc32(body)
    fixed = None
    if sep == 0x20 and _bits_apart(head, want) == 1:
        fixed, where = want + b" " + body, "its checksum"
    elif _ONE_BIT.get(sep ^ 0x20) and head == want:
        fixed, where = want + b" " + body, "the space after its checksum"
    elif sep == 0x20 and not head.strip(_HEX):
        bit = _flipped_bit(body, int(head, 16))
        if bit is not None:
            b = bytearray(body)
            b[bit // 8] ^= 1 << (bit % 8)
            fixed, where = head + b" " + bytes(b), f"byte {_CRC_LEN + 1 + bit // 8} of the line"
    if fixed is None:
        return None
    rec, _ = _decode(fixed, n)
    if rec is None or (n == 1 and _check_begin(rec)):
        return None
    return replace(rec, repaired=f"one flipped bit in {where}")


def _bits_apart(a: bytes, b: bytes) -> int:
    return sum(bin(x ^ y).count("1") for x, y in zip(a, b)) + 8 * abs(len(a) - len(b))


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
    import os
    import stat

    if not stat.S_ISREG(os.stat(path).st_mode):
        return None  # a device or a pipe in the history: read_journal says what it is
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
        obj = loads_json(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict) or obj.get("k") not in KINDS or not isinstance(obj.get("n"), int):
        return None
    return Record(obj["n"], obj["k"], obj.get("d"), obj.get("w"), start + cut + 1, len(line) + 1)
