"""Observation logs (sensing.md section 3): a header line, then board events in
time order, as JSON Lines. Readers skip kinds they do not know (notes), and a
bad line is reported with its number instead of stopping the read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
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
    last_t = -1.0
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
        if ev.t < last_t:
            problems.append(f"line {n}: time {ev.t} is before the previous event's {last_t}; kept in time order")
        last_t = max(last_t, ev.t)
        events.append(ev)
    if header is None:
        raise EngineError("the log is empty; it needs a header line")
    events.sort(key=lambda e: e.t)  # stable: equal times keep their order
    return ObservationLog(header, events, notes, problems)


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
