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

from types import MappingProxyType

from ..engine import (
    EntrySensorDead,
    ExitSensorDead,
    Fault,
    HallFault,
    Jam,
    PadNotHolding,
    SwitchStuck,
)
from ..engine import catalog
from ..engine.core import entry_label, exit_label
from ..engine.faults import BY_NAME


@dataclass(frozen=True)
class SwitchUnseated(Fault):
    """The hall reads ``mid`` at rest: the rocker is not seated."""

    switch: str
    name: ClassVar[str] = catalog.SWITCH_UNSEATED

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class MovedByHand(Fault):
    switch: str
    unput: bool = False  # a rocker the players held past "Not yet" without putting it back (``NOT_PUT_BACK``)
    name: ClassVar[str] = catalog.MOVED_BY_HAND

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class CoinAdded(Fault):
    switch: str
    unseen: bool = False  # the pad was unknown: coins fell there while the hub's events were lost
    tipped_to: str = ""  # put on this rocker's lever-side pad, tipped on to that one unseen (tipped.py)
    via: str = ""  # by a coin of this drop ("7") or of these in flight together ("7-8")
    asked: bool = False  # (with ``unseen``) a put-back after an undo asked people to change this pad
    name: ClassVar[str] = catalog.COIN_ADDED

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class CoinRemoved(Fault):
    switch: str
    unseen: bool = False
    asked: bool = False
    name: ClassVar[str] = catalog.COIN_REMOVED

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class ExitSensorChatter(Fault):
    exit: int
    name: ClassVar[str] = catalog.EXIT_SENSOR_CHATTER

    @property
    def where(self) -> str:
        return exit_label(self.exit)


@dataclass(frozen=True)
class EntrySensorChatter(Fault):
    entry: int
    name: ClassVar[str] = catalog.ENTRY_SENSOR_CHATTER

    @property
    def where(self) -> str:
        return entry_label(self.entry)


@dataclass(frozen=True)
class StrayCoin(Fault):
    """An exit beam broken while no coin of any drop could be there."""

    exit: int
    name: ClassVar[str] = catalog.STRAY_COIN

    @property
    def where(self) -> str:
        return exit_label(self.exit)


@dataclass(frozen=True)
class JamCleared(Fault):
    """Coins stopped at a jammed outlet came free."""

    switch: str
    side: int
    name: ClassVar[str] = catalog.JAM_CLEARED

    @property
    def where(self) -> str:
        return f"{self.switch} {'left' if self.side == 0 else 'right'} outlet"


@dataclass(frozen=True)
class EventsLost(Fault):
    """The source said it could not deliver some events (hub link trouble)."""

    count: int = 0
    name: ClassVar[str] = catalog.EVENTS_LOST

    @property
    def where(self) -> str:
        return "hub link"


@dataclass(frozen=True)
class Unexplained(Fault):
    """Nothing in the fault table (one or two faults) reproduces the drop."""

    unseen: bool = False  # while pads nobody saw after lost events may hold anything
    asked: bool = False  # (with ``unseen``) pads people changed by hand to put the board back
    name: ClassVar[str] = catalog.UNEXPLAINED

    @property
    def where(self) -> str:
        return "board"


# Derived from the catalog: the faults that stay until fixed (the others
# happen once: a hand, a lost frame), the ones that are a sensor misreporting,
# and how likely each is to newly appear at one place on one drop.
PERSISTENT = frozenset(catalog.names(persistent=True))
SENSOR = frozenset(catalog.names(sensor=True))
PRIOR = MappingProxyType({r.name: r.prior for r in catalog.ROWS})
# A hall that was already wrong before this drop (so the believed pad side was
# wrong too) is rarer than one failing now.
HALL_WAS_WRONG = 0.3
# A known fault that is gone (fixed) this drop; a sensor fault that did not
# show this time but may be intermittent.
FIXED = 0.03
INTERMITTENT = 0.25
# A chute whose stopped coins came free: it may catch the next coins again
# (whatever wedged the first coin is still there) or be clear for good.
CATCHES_AGAIN = 0.5
# Stopped coins coming free with no coin landing on the stack: a chute
# lets go of its own now and then (a stack settling, a knock).
LETS_GO_ALONE = 0.1


def log_prior(fault: Fault) -> float:
    return math.log(PRIOR[fault.name])


def is_persistent(fault: Fault) -> bool:
    return fault.name in PERSISTENT


def is_sensor(fault: Fault) -> bool:
    return fault.name in SENSOR


def switch_of(fault: Fault) -> str | None:
    return getattr(fault, "switch", None)


def key(fault: Fault) -> tuple[str, str]:
    """What a person compares: the fault's name and place."""
    return fault.name, fault.where


def fault_from_key(name: str, where: str, geometry) -> Fault:
    """Rebuild a fault from its name and place (benchmarks, ground truth, tests)."""
    from ..engine.core import parse_exit_label

    cls = BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"unknown fault name {name!r}")
    where = where.strip()
    place = catalog.row(name).place
    if place is catalog.Place.OUTLET:
        label, _, side = where.partition(" ")
        return cls(geometry.labels[geometry.index(label)], 0 if side.lower().startswith("left") else 1)
    if place is catalog.Place.SWITCH:
        return cls(geometry.labels[geometry.index(where)])
    if place is catalog.Place.EXIT:
        x = parse_exit_label(where)
        if x is None:
            raise ValueError(f"{name} needs an exit place like 'exit 10', not {where!r}")
        return cls(x)
    if place is catalog.Place.ENTRY:
        parts = where.split()
        if len(parts) != 2 or parts[0].lower() != "entry" or not parts[1].isdigit():
            raise ValueError(f"{name} needs an entry place like 'entry 4', not {where!r}")
        return cls(int(parts[1]) - 1)
    return cls()


def twins(fault: Fault, geometry, at_rest: bool = True) -> list[Fault]:
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
    if not at_rest:
        return []
    if isinstance(fault, SwitchUnseated):
        return [HallFault(fault.switch)]
    if isinstance(fault, HallFault):
        return [SwitchUnseated(fault.switch)]
    return []


# A pad nothing could see while board events were lost (the hub away, its
# ring short): what a later drop finds there is the outage's doing, not a
# hand's and not a fault.
UNSEEN_PAD = MappingProxyType({
    catalog.COIN_ADDED: "A coin was resting on {where}, put there by a coin that fell while the hub's events were "
                        "lost (not a hand, not a fault).",
    catalog.COIN_REMOVED: "The coin the controller believed on {where} had gone: it went while the hub's events were "
                          "lost (not a hand, not a fault).",
    catalog.UNEXPLAINED: "What the board did does not follow from the coins believed on the pads, which nobody could "
                         "see while the hub's events were lost: check the pads (not a fault).",
})
# A pad a put-back after an undo asked people to change by hand: no sensor
# sees a coin on a pad, so the table took their word; a later drop that finds
# it otherwise tells of a step not done (or undone), not of a fault.
ASKED_PAD = MappingProxyType({
    catalog.COIN_ADDED: "A coin was resting on {where}: putting the board back after the undo, the coin there was "
                        "not taken off, or was put back (not a fault).",
    catalog.COIN_REMOVED: "No coin was on {where}: putting the board back after the undo, the coin asked for there "
                          "was not put on, or fell off (not a fault).",
    catalog.UNEXPLAINED: "What the board did does not follow from the coins believed on the pads that were set by hand "
                         "when the board was put back after the undo: check the pads (not a fault).",
})
# A rocker the put-back listed, left as it was when the players held past
# "Not yet" (its hall, held lying, could not tell): found there later, it is
# the board not put back, once, not a fault.
NOT_PUT_BACK = ("{where} was on the other side: the board was not put back there after the undo (not a fault). "
                "Check it by eye; its hall sensor is still held wrong.")
# How likely an unknown pad is to hold what the controller did not expect:
# the coins that fell unseen rest on, or knock off, pads like any others.
UNSEEN_PAD_PRIOR = 0.2


def say(fault: Fault, together: tuple[Fault, ...] = ()) -> str:
    """One sentence a person understands; ``together`` names the faults that
    only with this one explain the drop."""
    if getattr(fault, "unput", False):
        text = NOT_PUT_BACK.format(where=fault.where)
    elif getattr(fault, "unseen", False):
        text = (ASKED_PAD if getattr(fault, "asked", False) else UNSEEN_PAD)[fault.name].format(where=fault.where)
    elif getattr(fault, "tipped_to", ""):
        text = (f"Or that coin was put by hand on {fault.where}'s pad, on the side away from its inlet, and a coin "
                f"of drop{'s' if '-' in fault.via else ''} {fault.via} tipped it on to {fault.tipped_to} unseen.")
    else:
        text = catalog.sentence(fault.name, fault.where) if fault.name in catalog.CATALOG else f"{fault.name.replace('_', ' ')} at {fault.where}."
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
