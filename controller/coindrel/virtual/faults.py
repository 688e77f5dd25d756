"""Faults to inject, at a place and a time, persistent or one-off.

Names are sensing.md's fault names, plus four link faults. A fault is given
in a scenario file (a ``[[faults]]`` table) or on the command line
(``--fault NAME@WHERE,t=5,until=9,once,key=value``). Places are written the
way a person reads them: ``R3S2``, ``exit 10``, ``entry 4``,
``R3S2 left outlet``.

========================  =========  =====================================================
fault                     place      parameters (defaults)
========================  =========  =====================================================
switch_stuck              switch
switch_unseated           switch     offset: how far from its seat the rocker rests (0.4)
hall_fault                switch     mode: inverted | stuck | drift (drift);
                                     value: the stuck reading (the reading when it starts);
                                     shift: drift as a fraction of L..R (0.4) or offset: counts;
                                     duration: a one-off glitch's length in s (0.05)
pad_not_holding           switch
exit_sensor_dead          exit       chance: of missing each coin (1.0)
entry_sensor_dead         entry      chance (1.0)
exit_sensor_chatter       exit       count: extra counts per coin (1); chance (1.0)
entry_sensor_chatter      entry      count (1); chance (1.0)
moved_by_hand             switch     to: L | R | toggle (toggle); always one-off
coin_added                switch     always one-off
coin_removed              switch     always one-off
jam                       outlet     (``until`` releases the stopped coins)
unplug                    link       duration: seconds unplugged (2.0); one-off
hub_reset                 link       boot: seconds the hub takes to restart (0.8); one-off
garbage                   link       bytes: how many (16); one-off, or every ``every`` s
dropped_frames            link       count: frames lost (1) one-off; chance (0.05) persistent
========================  =========  =====================================================

``persistent`` faults act from ``t`` until ``until`` (or the end); one-off
faults act once, on the first coin (or frame) they can affect after ``t``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..engine import catalog
from ..engine import EngineError, Geometry
from ..engine.core import entry_label, exit_label

# Board faults, their places, one-off actions and default parameters come
# from the fault catalog; the link faults are the virtual board's own.
SWITCH = catalog.names(place=catalog.Place.SWITCH, injectable=True)
EXIT = catalog.names(place=catalog.Place.EXIT, injectable=True)
ENTRY = catalog.names(place=catalog.Place.ENTRY, injectable=True)
OUTLET = catalog.names(place=catalog.Place.OUTLET, injectable=True)
LINK = ("unplug", "hub_reset", "garbage", "dropped_frames")
ALL = SWITCH + EXIT + ENTRY + OUTLET + LINK
ACTIONS = catalog.names(persistent=False, injectable=True) + ("unplug", "hub_reset")  # happen once, at t
PERSISTENT_BY_DEFAULT = catalog.names(persistent=True, injectable=True)

PARAMS = {
    **{r.name: dict(r.inject) for r in catalog.ROWS if r.inject},
    "unplug": {"duration": 2.0},
    "hub_reset": {"boot": 0.8},
    "garbage": {"bytes": 16, "every": None},
    "dropped_frames": {"count": 1, "chance": 0.05},
}
_KEYS = {"fault", "where", "t", "until", "persistent", "once"}


@dataclass(frozen=True)
class FaultSpec:
    name: str
    t: float = 0.0
    until: float | None = None
    persistent: bool = True
    switch: int | None = None  # switch number
    side: int | None = None  # outlet side for a jam (0 left, 1 right)
    exit: int | None = None  # 0-based
    entry: int | None = None  # 0-based
    where: str = "link"  # the place as a person reads it
    params: dict = field(default_factory=dict)
    id: int = 0  # position in the run's fault list, 1-based

    def param(self, key: str):
        return self.params[key]

    def active(self, t: float) -> bool:
        return self.t <= t and (self.until is None or t < self.until)

    def to_json(self) -> dict:
        d = {"fault": self.name, "where": self.where, "t": self.t, "persistent": self.persistent}
        if self.until is not None:
            d["until"] = self.until
        d.update({k: v for k, v in self.params.items() if v is not None})
        return d


_OUTLET_RE = re.compile(r"^(R\d+S\d+)\s*(?:[: ]\s*)(left|right|l|r)(?:\s+outlet)?$", re.IGNORECASE)
_NUM_RE = re.compile(r"^(exit|entry)\s*[: ]?\s*(\d+)$", re.IGNORECASE)


def parse_place(name: str, where, geometry: Geometry) -> dict:
    """The fields of a fault's place, from how a person writes it."""
    if name in LINK:
        if where not in (None, "", "link"):
            raise EngineError(f"{name} is a link fault; it has no place on the board (drop '{where}')")
        return {"where": "link"}
    if not isinstance(where, str) or not where.strip():
        raise EngineError(f"{name} needs a place: {_place_hint(name)}")
    text = where.strip()
    if name in SWITCH:
        s = geometry.index(text)
        return {"switch": s, "where": geometry.labels[s]}
    if name in OUTLET:
        m = _OUTLET_RE.match(text)
        if not m:
            raise EngineError(f"jam place {where!r}: write a switch and an outlet, e.g. 'R3S2 left outlet' or 'R3S2:right'")
        s = geometry.index(m.group(1))
        side = 0 if m.group(2).lower().startswith("l") else 1
        return {"switch": s, "side": side, "where": f"{geometry.labels[s]} {'left' if side == 0 else 'right'} outlet"}
    m = _NUM_RE.match(text)
    kind = "exit" if name in EXIT else "entry"
    count = geometry.exit_count if kind == "exit" else geometry.entry_count
    if not m or m.group(1).lower() != kind:
        raise EngineError(f"{name} place {where!r}: {_place_hint(name)}")
    n = int(m.group(2))
    if not 1 <= n <= count:
        raise EngineError(f"{name} place {where!r}: there are {kind}s 1..{count}")
    if kind == "exit":
        return {"exit": n - 1, "where": exit_label(n - 1)}
    return {"entry": n - 1, "where": entry_label(n - 1)}


def _place_hint(name: str) -> str:
    if name in SWITCH:
        return "a switch label such as R3S2"
    if name in OUTLET:
        return "a switch outlet such as 'R3S2 left outlet'"
    if name in EXIT:
        return "an exit such as 'exit 10'"
    return "an entry such as 'entry 4'"


def _number(v, where: str, lo: float | None = None, hi: float | None = None) -> float:
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            raise EngineError(f"{where}: {v!r} is not a number") from None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise EngineError(f"{where}: {v!r} is not a number")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        if hi is None:
            rng = f"write a number {lo:g} or more"
        elif lo is None:
            rng = f"write a number {hi:g} or less"
        else:
            rng = f"write a number from {lo:g} to {hi:g}"
        raise EngineError(f"{where}: {v:g} is out of range; {rng}")
    return v


def _check_params(name: str, given: dict, source: str) -> dict:
    allowed = PARAMS.get(name, {})
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise EngineError(f"{source}: {name} has no parameter(s) {', '.join(unknown)}; its parameters: {known}")
    params = dict(allowed)
    for k, v in given.items():
        where = f"{source}: {name} {k}"
        if k == "mode":
            if v not in ("inverted", "stuck", "drift"):
                raise EngineError(f"{where}: {v!r} is not inverted, stuck or drift")
        elif k == "to":
            v = str(v)
            if v not in ("L", "R", "toggle"):
                raise EngineError(f"{where}: {v!r} is not L, R or toggle")
        elif k in ("count", "bytes"):
            v = int(_number(v, where, 1, 10_000))
        elif k in ("chance", "offset") and name != catalog.HALL_FAULT:
            v = _number(v, where, 0.0, 1.0)
        elif k == "shift":
            v = _number(v, where, -2.0, 2.0)
        elif k in ("value", "offset"):
            v = int(_number(v, where, -4095, 4095))
        else:
            v = _number(v, where, 0.0)
        params[k] = v
    return params


def fault_from_dict(d: dict, geometry: Geometry, source: str = "fault", ident: int = 0) -> FaultSpec:
    """A fault from a scenario table; every mistake is named."""
    if not isinstance(d, dict):
        raise EngineError(f"{source}: a fault is a table with fault, where, t (and until, persistent, parameters)")
    name = d.get("fault")
    if name not in ALL:
        raise EngineError(f"{source}: unknown fault {name!r}; faults are {', '.join(ALL)}")
    try:
        place = parse_place(name, d.get("where"), geometry)
    except EngineError as e:
        raise EngineError(f"{source}: {e}") from None
    t = _number(d.get("t", 0.0), f"{source}: {name} t", 0.0)
    until = d.get("until")
    if until is not None:
        until = _number(until, f"{source}: {name} until", 0.0)
        if until <= t:
            raise EngineError(f"{source}: {name} until {until} is not after its start t {t}")
    persistent = d.get("persistent", name in PERSISTENT_BY_DEFAULT)
    if d.get("once"):
        persistent = False
    if not isinstance(persistent, bool):
        raise EngineError(f"{source}: {name} persistent must be true or false")
    if name in ACTIONS and persistent:
        raise EngineError(f"{source}: {name} happens once, at t; it cannot be persistent (drop 'persistent')")
    if name == "garbage" and persistent and not d.get("every"):
        raise EngineError(f"{source}: persistent garbage needs 'every' (seconds between bursts)")
    params = _check_params(name, {k: v for k, v in d.items() if k not in _KEYS}, source)
    return FaultSpec(name=name, t=float(t), until=until, persistent=persistent, params=params, id=ident, **place)


def fault_from_text(text: str, geometry: Geometry, ident: int = 0) -> FaultSpec:
    """``NAME[@WHERE][,t=T][,until=U][,once|,persistent][,key=value...]``."""
    source = f"--fault {text!r}"
    parts = [p.strip() for p in text.split(",")]
    head = parts[0]
    name, _, where = head.partition("@")
    d: dict = {"fault": name.strip(), "where": where.strip() or None}
    for p in parts[1:]:
        if not p:
            continue
        if p in ("once", "persistent"):
            d["once" if p == "once" else "persistent"] = True
            continue
        k, eq, v = p.partition("=")
        if not eq:
            raise EngineError(f"{source}: {p!r} is not key=value (or once/persistent)")
        d[k.strip()] = v.strip()
    return fault_from_dict(d, geometry, source, ident)


def numbered(faults: list[FaultSpec]) -> list[FaultSpec]:
    """The faults in start order with ids 1..n (the ground truth names them by id)."""
    ordered = sorted(faults, key=lambda f: f.t)
    return [FaultSpec(**{**f.__dict__, "id": i}) for i, f in enumerate(ordered, start=1)]


def engine_fault(f: FaultSpec, geometry: Geometry):
    """The engine's as-if fault for ``f`` where the engine models it (so a test
    can check the virtual physics against ``predict``), else None."""
    from ..engine import EntrySensorDead, ExitSensorDead, HallFault, Jam, PadNotHolding, SwitchStuck

    label = geometry.labels[f.switch] if f.switch is not None else None
    if f.name == catalog.SWITCH_STUCK:
        return SwitchStuck(label)
    if f.name == catalog.PAD_NOT_HOLDING:
        return PadNotHolding(label)
    if f.name == catalog.JAM:
        return Jam(label, f.side)
    if f.name == catalog.EXIT_SENSOR_DEAD and f.params["chance"] >= 1.0:
        return ExitSensorDead(f.exit)
    if f.name == catalog.ENTRY_SENSOR_DEAD and f.params["chance"] >= 1.0:
        return EntrySensorDead(f.entry)
    if f.name == catalog.HALL_FAULT:
        return HallFault(label)
    return None
