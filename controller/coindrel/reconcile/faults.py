"""The reconciler's fault vocabulary: the engine's faults plus the ones that
change the belief or the observation rather than a drop's physics
(sensing.md section 4's table).

Every fault is a frozen dataclass with ``name`` (sensing.md's fault name) and
``where`` (a place a person reads), so faults are their own keys in sets and
dicts. ``PRIOR`` says how likely each is to *newly* appear at one place on one
drop; the diagnosis ranks explanations with it, and ``say`` turns a fault into
the sentence the controller shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ..engine import (
    EntrySensorDead,
    ExitSensorDead,
    Fault,
    HallFault,
    Jam,
    PadNotHolding,
    SwitchStuck,
)
from ..engine.core import entry_label, exit_label


@dataclass(frozen=True)
class SwitchUnseated(Fault):
    """The hall reads ``mid`` at rest: the rocker is not seated."""

    switch: str
    name: ClassVar[str] = "switch_unseated"

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class MovedByHand(Fault):
    switch: str
    name: ClassVar[str] = "moved_by_hand"

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class CoinAdded(Fault):
    switch: str
    name: ClassVar[str] = "coin_added"

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class CoinRemoved(Fault):
    switch: str
    name: ClassVar[str] = "coin_removed"

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class ExitSensorChatter(Fault):
    exit: int
    name: ClassVar[str] = "exit_sensor_chatter"

    @property
    def where(self) -> str:
        return exit_label(self.exit)


@dataclass(frozen=True)
class EntrySensorChatter(Fault):
    entry: int
    name: ClassVar[str] = "entry_sensor_chatter"

    @property
    def where(self) -> str:
        return entry_label(self.entry)


@dataclass(frozen=True)
class StrayCoin(Fault):
    """An exit beam broken while no coin of any drop could be there."""

    exit: int
    name: ClassVar[str] = "stray_coin"

    @property
    def where(self) -> str:
        return exit_label(self.exit)


@dataclass(frozen=True)
class JamCleared(Fault):
    """Coins stopped at a jammed outlet came free."""

    switch: str
    side: int
    name: ClassVar[str] = "jam_cleared"

    @property
    def where(self) -> str:
        return f"{self.switch} {'left' if self.side == 0 else 'right'} outlet"


@dataclass(frozen=True)
class EventsLost(Fault):
    """The source said it could not deliver some events (hub link trouble)."""

    count: int = 0
    name: ClassVar[str] = "events_lost"

    @property
    def where(self) -> str:
        return "hub link"


@dataclass(frozen=True)
class Unexplained(Fault):
    """Nothing in the fault table (one or two faults) reproduces the drop."""

    name: ClassVar[str] = "unexplained"

    @property
    def where(self) -> str:
        return "board"


# Faults that stay until fixed; the others happen once (a hand, a lost frame).
PERSISTENT = (
    SwitchStuck,
    PadNotHolding,
    Jam,
    ExitSensorDead,
    EntrySensorDead,
    HallFault,
    SwitchUnseated,
    ExitSensorChatter,
    EntrySensorChatter,
)
SENSOR = (ExitSensorDead, EntrySensorDead, HallFault, SwitchUnseated, ExitSensorChatter, EntrySensorChatter)

# How likely a fault is to newly appear at one given place on one drop. Only
# the ratios matter: they rank explanations that fit the evidence equally.
PRIOR = {
    "switch_stuck": 1e-3,
    "pad_not_holding": 5e-4,
    "jam": 3e-4,
    "hall_fault": 1e-3,
    "switch_unseated": 1.5e-3,
    "exit_sensor_dead": 1e-3,
    "entry_sensor_dead": 1e-3,
    "exit_sensor_chatter": 5e-4,
    "entry_sensor_chatter": 5e-4,
    "coin_added": 3e-4,
    "coin_removed": 3e-4,
    "moved_by_hand": 0.1,
    "stray_coin": 0.02,
    "jam_cleared": 0.2,
}
# A hall that was already wrong before this drop (so the believed pad side was
# wrong too) is rarer than one failing now.
HALL_WAS_WRONG = 0.3
# A known fault that is gone (fixed) this drop; a sensor fault that did not
# show this time but may be intermittent.
FIXED = 0.03
INTERMITTENT = 0.25


def log_prior(fault: Fault) -> float:
    return math.log(PRIOR[fault.name])


def is_persistent(fault: Fault) -> bool:
    return isinstance(fault, PERSISTENT)


def is_sensor(fault: Fault) -> bool:
    return isinstance(fault, SENSOR)


def switch_of(fault: Fault) -> str | None:
    return getattr(fault, "switch", None)


def key(fault: Fault) -> tuple[str, str]:
    """What a person compares: the fault's name and place."""
    return fault.name, fault.where


def fault_from_key(name: str, where: str, geometry) -> Fault:
    """Rebuild a fault from its name and place (benchmarks, ground truth, tests)."""
    from ..engine.core import parse_exit_label

    where = where.strip()
    if name == "jam" or name == "jam_cleared":
        label, _, side = where.partition(" ")
        cls = Jam if name == "jam" else JamCleared
        return cls(geometry.labels[geometry.index(label)], 0 if side.lower().startswith("left") else 1)
    by_switch = {c.name: c for c in (SwitchStuck, PadNotHolding, HallFault, SwitchUnseated, MovedByHand, CoinAdded, CoinRemoved)}
    if name in by_switch:
        return by_switch[name](geometry.labels[geometry.index(where)])
    by_exit = {c.name: c for c in (ExitSensorDead, ExitSensorChatter, StrayCoin)}
    if name in by_exit:
        x = parse_exit_label(where)
        if x is None:
            raise ValueError(f"{name} needs an exit place like 'exit 10', not {where!r}")
        return by_exit[name](x)
    by_entry = {c.name: c for c in (EntrySensorDead, EntrySensorChatter)}
    if name in by_entry:
        parts = where.split()
        if len(parts) != 2 or parts[0].lower() != "entry" or not parts[1].isdigit():
            raise ValueError(f"{name} needs an entry place like 'entry 4', not {where!r}")
        return by_entry[name](int(parts[1]) - 1)
    raise ValueError(f"unknown fault name {name!r}")


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _outlet(where: str) -> tuple[str, str]:
    switch, _, side = where.partition(" ")
    return switch, side or "outlet"


_SAY = {
    "switch_stuck": lambda w: f"{w} did not flip when a coin passed its lever: the rocker is stuck.",
    "pad_not_holding": lambda w: f"A coin should have come to rest on {w}'s empty pad but bounced across: the pad does not hold coins.",
    "jam": lambda w: "A coin left through the {1} of {0} and never arrived below: something is jamming that chute.".format(*_outlet(w)),
    "hall_fault": lambda w: f"{w}'s hall sensor disagrees with what the cascade proves (wrong side, stuck or drifted reading): check the sensor and recalibrate.",
    "switch_unseated": lambda w: f"{w}'s hall reads between the sides at rest: the rocker is not seated properly.",
    "exit_sensor_dead": lambda w: f"{_cap(w)} did not see a coin the cascade sent there: its beam is dead or misaligned.",
    "entry_sensor_dead": lambda w: f"The coin went in at {w} but its beam did not see it: the beam is dead or misaligned.",
    "exit_sensor_chatter": lambda w: f"{_cap(w)} counted one coin more than once: its beam chatters.",
    "entry_sensor_chatter": lambda w: f"{_cap(w)} counted one coin more than once: its beam chatters.",
    "coin_added": lambda w: f"A coin was resting on {w} that the controller did not know of (put there by hand, or a drop it missed).",
    "coin_removed": lambda w: f"The coin the controller believed on {w} was not there (taken off by hand).",
    "moved_by_hand": lambda w: f"Someone moved {w} by hand while no coin was falling.",
    "stray_coin": lambda w: f"{_cap(w)} saw a coin while no drop was falling: a coin put in by hand, or a false beam break.",
    "jam_cleared": lambda w: "Coins stopped at the {1} of {0} came free and fell on.".format(*_outlet(w)),
    "events_lost": lambda w: "The hub link lost events during this drop, so it cannot be checked; the board's positions were re-read.",
    "unexplained": lambda w: "No single fault or pair of faults explains what the board did; check the board by hand and run coindrel selftest.",
}


def twins(fault: Fault, geometry) -> list[Fault]:
    """Faults no sensor can ever tell apart from ``fault``: a dead exit beam and
    a jam in the one chute that feeds that exit (the coin is missing either
    way); a rocker resting unseated and a hall drifted into ``mid``. Only a
    look at the board (or coindrel selftest) settles between them."""
    if isinstance(fault, ExitSensorDead):
        n = geometry.switch_count
        feeding = [(s, side) for s, outs in enumerate(geometry.outs) for side in (0, 1) if outs[side] == n + fault.exit]
        return [Jam(geometry.labels[s], side) for s, side in feeding] if len(feeding) == 1 else []
    if isinstance(fault, Jam):
        s = geometry.index(fault.switch)
        target = geometry.outs[s][fault.side]
        if target >= geometry.switch_count and sum(1 for o in geometry.outs for t in o if t == target) == 1:
            return [ExitSensorDead(target - geometry.switch_count)]
        return []
    if isinstance(fault, SwitchUnseated):
        return [HallFault(fault.switch)]
    if isinstance(fault, HallFault):
        return [SwitchUnseated(fault.switch)]
    return []


def say(fault: Fault, together: tuple[Fault, ...] = ()) -> str:
    """One sentence a person understands; ``together`` names the faults that
    only with this one explain the drop."""
    make = _SAY.get(fault.name)
    text = make(fault.where) if make else f"{fault.name.replace('_', ' ')} at {fault.where}."
    if together:
        others = " and ".join(f"{f.name.replace('_', ' ')} at {f.where}" for f in together)
        text = text[:-1] + f", together with {others}."
    return text


__all__ = [
    "SwitchUnseated",
    "MovedByHand",
    "CoinAdded",
    "CoinRemoved",
    "ExitSensorChatter",
    "EntrySensorChatter",
    "StrayCoin",
    "JamCleared",
    "EventsLost",
    "Unexplained",
    "PRIOR",
    "log_prior",
    "is_persistent",
    "is_sensor",
    "key",
    "say",
    "twins",
    "fault_from_key",
]
