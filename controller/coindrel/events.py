"""Board events (sensing.md section 2): the one stream every source produces
and every consumer reads, whatever the hardware.

In code, entries and exits are 0-based like the engine; in JSON (logs that
people read) they are 1-based, and switches are labels (``R2S5``). ``t`` is
seconds on the board's own monotonic clock.

Sources may also put status events on the same stream (link up or down,
events lost on the hub): they are facts about the sensing, not the board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

from .errors import CoindrelError, quoted
from .engine.core import ENTRY_COUNT, EXIT_COUNT, parse_switch_label

POSITIONS = ("L", "R", "mid", "none")


class EventError(CoindrelError, ValueError):
    """A board event that cannot be true of a Coindrel board."""


@dataclass(frozen=True, slots=True)
class EntryEvent:
    t: float
    entry: int  # 0-based
    kind = "entry"


@dataclass(frozen=True, slots=True)
class ExitEvent:
    t: float
    exit: int  # 0-based
    kind = "exit"


@dataclass(frozen=True, slots=True)
class SwitchEvent:
    t: float
    switch: str  # label, e.g. "R2S5"
    pos: str  # L, R, mid or none
    raw: int | None = None
    kind = "switch"


@dataclass(frozen=True, slots=True)
class StatusEvent:
    """The source's own news: ``connected``, ``disconnected``, ``lost`` (count
    events the hub could not deliver), ``resync``, ``error``."""

    t: float
    state: str
    detail: str = ""
    count: int = 0
    kind = "status"


BoardEvent = Union[EntryEvent, ExitEvent, SwitchEvent]
SourceEvent = Union[EntryEvent, ExitEvent, SwitchEvent, StatusEvent]


def event_to_json(ev: SourceEvent) -> dict:
    t = round(ev.t, 6)
    if isinstance(ev, EntryEvent):
        return {"t": t, "kind": "entry", "entry": ev.entry + 1}
    if isinstance(ev, ExitEvent):
        return {"t": t, "kind": "exit", "exit": ev.exit + 1}
    if isinstance(ev, SwitchEvent):
        d = {"t": t, "kind": "switch", "switch": ev.switch, "pos": ev.pos}
        if ev.raw is not None:
            d["raw"] = ev.raw
        return d
    if isinstance(ev, StatusEvent):
        d = {"t": t, "kind": "status", "state": ev.state}
        if ev.detail:
            d["detail"] = ev.detail
        if ev.count:
            d["count"] = ev.count
        return d
    raise EventError(f"not a board event: {ev!r}")


def _number(d: dict, key: str, lo: int, hi: int) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise EventError(f"{d.get('kind')} event: {key} {v!r} is not one of {lo}..{hi}")
    return v


MAX_T = 1e9  # s of board time an event may carry


def event_from_json(d: dict, switches: frozenset[str] | None = None) -> SourceEvent:
    """Parse a JSON event; anything impossible raises EventError naming it."""
    if not isinstance(d, dict):
        raise EventError("an event is a JSON object with t and kind")
    t = d.get("t")
    if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t) or t < 0:
        raise EventError(f"event time t {quoted(t, 60)} must be a number of seconds >= 0")
    if t > MAX_T:  # one such line put every later event "before the previous one" (270 warnings)
        raise EventError(f"event time t {t:g} is more than {MAX_T:g} s (about 30 years) of board time; "
                         "times are seconds since the log's start")
    kind = d.get("kind")
    if kind == "entry":
        return EntryEvent(float(t), _number(d, "entry", 1, ENTRY_COUNT) - 1)
    if kind == "exit":
        return ExitEvent(float(t), _number(d, "exit", 1, EXIT_COUNT) - 1)
    if kind == "switch":
        label = d.get("switch")
        parse_switch_label(label if isinstance(label, str) else repr(label))
        label = label.strip().upper()
        if switches is not None and label not in switches:
            raise EventError(f"switch event names {label}, which is not on this board")
        pos = d.get("pos")
        if pos not in POSITIONS:
            raise EventError(f"switch event for {label}: pos {pos!r} is not one of {', '.join(POSITIONS)}")
        raw = d.get("raw")
        if raw is not None and (not isinstance(raw, int) or isinstance(raw, bool)):
            raise EventError(f"switch event for {label}: raw {raw!r} is not a whole number")
        return SwitchEvent(float(t), label, pos, raw)
    if kind == "status":
        state = d.get("state")
        if not isinstance(state, str) or not state:
            raise EventError("status event needs a state")
        count = d.get("count", 0) or 0
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_T:
            raise EventError(f"status event: count {quoted(count, 60)} is not a whole number of events >= 0")
        return StatusEvent(float(t), state, str(d.get("detail", "")), count)
    raise EventError(f"unknown event kind {kind!r}; board events are entry, exit, switch")
