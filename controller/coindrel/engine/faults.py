"""Faults the engine can predict *as if* they were present (sensing.md section 4).

Physical faults change the cascade itself; sensor faults only change what the
board's sensors report. ``predict(state, entries, faults=...)`` takes any mix.
Faults that are not about a single drop's physics (a rocker moved by hand, a
coin added or removed, a chattering beam) are changes to the belief or to the
observation, and belong to the reconciler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import catalog
from .core import EngineError, entry_label, exit_label


BY_NAME: dict = {}  # fault name -> its class (engine and reconciler faults register here)


@dataclass(frozen=True)
class Fault:
    name: ClassVar[str] = "fault"
    physical: ClassVar[bool] = False

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.name in catalog.CATALOG:
            BY_NAME[cls.name] = cls

    @property
    def where(self) -> str:  # pragma: no cover - every subclass says
        raise EngineError("a fault must say where it is")


@dataclass(frozen=True)
class SwitchStuck(Fault):
    """The rocker does not flip: coins passing the lever fall out on the lever
    side, nothing flips and a resting coin stays put."""

    switch: str
    name: ClassVar[str] = catalog.SWITCH_STUCK
    physical: ClassVar[bool] = True

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class PadNotHolding(Fault):
    """A coin that should rest on the empty pad bounces across instead."""

    switch: str
    name: ClassVar[str] = catalog.PAD_NOT_HOLDING
    physical: ClassVar[bool] = True

    @property
    def where(self) -> str:
        return self.switch


@dataclass(frozen=True)
class Jam(Fault):
    """Coins leaving a switch through one outlet stop in the board and never arrive."""

    switch: str
    side: int
    name: ClassVar[str] = catalog.JAM
    physical: ClassVar[bool] = True

    @property
    def where(self) -> str:
        return f"{self.switch} {'left' if self.side == 0 else 'right'} outlet"


@dataclass(frozen=True)
class ExitSensorDead(Fault):
    exit: int
    name: ClassVar[str] = catalog.EXIT_SENSOR_DEAD

    @property
    def where(self) -> str:
        return exit_label(self.exit)


@dataclass(frozen=True)
class EntrySensorDead(Fault):
    entry: int
    name: ClassVar[str] = catalog.ENTRY_SENSOR_DEAD

    @property
    def where(self) -> str:
        return entry_label(self.entry)


@dataclass(frozen=True)
class HallFault(Fault):
    """The hall sensor tells nothing trustworthy: flips and position unseen."""

    switch: str
    name: ClassVar[str] = catalog.HALL_FAULT

    @property
    def where(self) -> str:
        return self.switch


def describe(fault: Fault) -> str:
    return f"{fault.name} at {fault.where}"


__all__ = [
    "Fault",
    "SwitchStuck",
    "PadNotHolding",
    "Jam",
    "ExitSensorDead",
    "EntrySensorDead",
    "HallFault",
    "describe",
    "BY_NAME",
]
