"""Observation logs (sensing.md section 3): a header line, then board events in
time order, as JSON Lines. Readers skip kinds they do not know (notes), and a
bad line is reported with its number instead of stopping the read.
"""

from __future__ import annotations

import json
import os
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Iterable

from .engine import BoardState, EngineError, Variants, geometry_by_name
from .events import EventError, SourceEvent, event_from_json, event_to_json
from .nesting import json_kind, loads_json

EVENT_KINDS = {"entry", "exit", "switch", "status"}


@dataclass(frozen=True)
class LogHeader:
    board: str = "standard"
    variants: Variants = Variants()
    state: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        d = {"kind": "header", "board": self.board, "variants": self.variants.to_dict(), "state": list(self.state)}
        d.update(self.extra)
        return d

    def board_state(self) -> BoardState:
        return BoardState.parse(list(self.state), geometry_by_name(self.board))


@dataclass
class ObservationLog:
    header: LogHeader
    events: list[SourceEvent]
    notes: list[dict]
    problems: list[str]  # "line 12: ..." for every line that was skipped


def header_from_json(d: dict) -> LogHeader:
    if d.get("kind") != "header":
        raise EngineError("the first line of an observation log must be its header ({\"kind\": \"header\", ...})")
    if d.get("log") == "ground-truth":
        raise EngineError("this is the virtual board's ground truth (--truth), what really happened; reconcile reads "
                          "what the sensors saw: the log written with --log (or coindrel history ID --events)")
    known = {"kind", "board", "variants", "state"}
    state = d.get("state")
    board = d.get("board", "standard")
    header = LogHeader(
        board=board,
        variants=Variants.from_dict(d.get("variants")),
        state=tuple(state) if isinstance(state, list) else (),
        extra={k: v for k, v in d.items() if k not in known},
    )
    try:
        header.board_state()
    except EngineError as e:
        raise EngineError(f"header state: {e}") from None
    return header


def read_log(source: str | Path | Iterable[str]) -> ObservationLog:
    """Read a log from a path or an iterable of lines. Raises only when the
    header is missing or wrong; later bad lines become ``problems``."""
    if isinstance(source, (str, Path)):
        with open(source, encoding="utf-8") as f:
            lines = f.read().splitlines()
    else:
        lines = list(source)
    header = None
    events: list[SourceEvent] = []
    notes: list[dict] = []
    problems: list[str] = []
    switches = None
    numbers: list[int] = []  # each event's line
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            d = loads_json(line)
        except json.JSONDecodeError as e:
            if header is None:
                raise EngineError(f"line {n}: not JSON ({e.msg}); an observation log is JSON Lines starting with a header") from None
            problems.append(f"line {n}: not JSON ({e.msg}); skipped")
            continue
        if header is None:
            header = header_from_json(d)
            switches = frozenset(geometry_by_name(header.board).labels)
            continue
        if not isinstance(d, dict):
            problems.append(f"line {n}: {json_kind(d)}, not an object like "
                            '{"t": 1.5, "kind": "entry", "entry": 3}; skipped')
            continue
        kind = d.get("kind")
        if kind not in EVENT_KINDS:
            if kind == "note":
                notes.append(d)
            else:  # sensing.md section 3: readers skip kinds they do not know; a person should hear of it
                problems.append(f"line {n}: {_unknown(kind)}; skipped")
            continue
        try:
            ev = event_from_json(d, switches)
        except EventError as e:
            problems.append(f"line {n}: {e}; skipped")
            continue
        events.append(ev)
        numbers.append(n)
    if header is None:
        raise EngineError("the log is empty; it needs a header line")
    problems += _out_of_step(events, numbers)
    return ObservationLog(header, events, notes, problems)


MAX_NAMED = 10  # out-of-step lines named one by one; more are counted


def _out_of_step(events: list[SourceEvent], numbers: list[int]) -> list[str]:
    """Find the lines whose time is out of step with the lines around them,
    and read each at its place in the file (events changed in place).

    The log is written in time order, so a line whose time jumped (a
    corrupted or hand-edited t) is the odd one out: judging every later line
    against it ("before the previous event's ...") named forty good lines and
    sorted the bad one into another drop. The lines kept as they are are the
    longest run of times that never goes back; the others take the time of
    the line before them."""
    times = [ev.t for ev in events]
    if all(a <= b for a, b in zip(times, times[1:])):
        return []
    in_step = _longest_in_order(times)
    after_of: list[float | None] = [None] * len(times)  # the next in-step line's time
    nxt = None
    for i in range(len(times) - 1, -1, -1):
        after_of[i] = nxt
        if i in in_step:
            nxt = times[i]
    problems: list[str] = []
    before = 0.0  # the last in-step line's time
    for i in range(len(events)):
        if i in in_step:
            before = times[i]
            continue
        after = after_of[i]
        if len(problems) < MAX_NAMED:
            around = f"{before:g} s before it" + (f" and {after:g} s after it" if after is not None else "")
            problems.append(f"line {numbers[i]}: time {times[i]:g} is out of step with the lines around it ({around}); "
                            f"read at its place in the file, at {before:g} s; correct its t if the line is wrong")
        events[i] = replace(events[i], t=before)
    hidden = len(events) - len(in_step) - MAX_NAMED
    if hidden > 0:
        problems.append(f"{hidden} more lines out of step, each read at its place in the file; if the log was put "
                        "together from pieces, sort its events by t (or reconcile each piece on its own)")
    return problems


def _longest_in_order(times: list[float]) -> set[int]:
    """Indexes of a longest subsequence of ``times`` that never decreases."""
    tails: list[float] = []  # the smallest last time of a run of each length
    ends: list[int] = []  # that run's last index
    back = [-1] * len(times)
    for i, t in enumerate(times):
        k = bisect_right(tails, t)
        back[i] = ends[k - 1] if k else -1
        if k == len(tails):
            tails.append(t)
            ends.append(i)
        else:
            tails[k], ends[k] = t, i
    keep, i = set(), ends[-1] if ends else -1
    while i >= 0:
        keep.add(i)
        i = back[i]
    return keep


def _unknown(kind) -> str:
    known = ", ".join(sorted(EVENT_KINDS)) + " and note"
    if kind is None:
        return f'no "kind" (an observation log\'s lines are {known})'
    if kind == "header":
        return "a second header (two logs joined into one?)"
    shown = repr(kind) if len(repr(kind)) <= 40 else repr(kind)[:37] + "..."
    return f"unknown kind {shown} (an observation log's lines are {known})"


class LogWriter:
    """Appends a log line by line; ``durable`` fsyncs each line so a power cut
    loses nothing already written."""

    def __init__(self, path: str | Path | IO[str], header: LogHeader, durable: bool = False):
        self._own = isinstance(path, (str, Path))
        self._f = open(path, "a", encoding="utf-8") if self._own else path
        self.durable = durable
        if not self._own or self._f.tell() == 0:
            self._write(header.to_json())

    def _write(self, d: dict) -> None:
        self._f.write(json.dumps(d, separators=(", ", ": ")) + "\n")
        self._f.flush()
        if self.durable and self._own:
            os.fsync(self._f.fileno())

    def event(self, ev: SourceEvent) -> None:
        self._write(event_to_json(ev))

    def note(self, **fields) -> None:
        self._write({"kind": "note", **fields})

    def close(self) -> None:
        if self._own:
            self._f.close()

    def __enter__(self) -> "LogWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
