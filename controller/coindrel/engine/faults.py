"""Faults the engine can predict *as if* they were present (sensing.md section 4).

Physical faults change the cascade itself; sensor faults only change what the
board's sensors report. ``predict(state, entries, faults=...)`` takes any mix.
Faults that are not about a single drop's physics (a rocker moved by hand, a
coin added or removed, a chattering beam) are changes to the belief or to the
observation, and belong to the reconciler.

Faults are small frozen values (equal and hashed by kind and place). They are
written out rather than made with ``dataclasses``, whose import alone would
cost a command's start more than the whole engine (issue 15).
"""

from __future__ import annotations

from . import catalog
from .core import EngineError, entry_label, exit_label


BY_NAME: dict = {}  # fault name -> its class (engine and reconciler faults register here)


class Fault:
    """A frozen value: ``_fields`` name its attributes, in constructor order."""

    __slots__ = ("_hash",)  # worked out once: a diagnosis hashes the same faults thousands of times
    _fields: tuple[str, ...] = ()
    name = "fault"
    physical = False

    def __init__(self, *args, **kwargs):
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} argument(s): {', '.join(fields)}")
        values = dict(zip(fields, args))
        for k, v in kwargs.items():
            if k not in fields or k in values:
                raise TypeError(f"{type(self).__name__}() got an unexpected or repeated argument {k!r}")
            values[k] = v
        missing = [f for f in fields if f not in values]
        if missing:
            raise TypeError(f"{type(self).__name__}() is missing {', '.join(missing)}")
        for f in fields:
            object.__setattr__(self, f, values[f])

    def __setattr__(self, key, value):
        raise AttributeError(f"{type(self).__name__} is frozen; make a new one")

    __delattr__ = __setattr__

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self._fields)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self):
        try:
            return self._hash
        except AttributeError:
            h = hash((self.__class__.__name__,) + self._key())
            object.__setattr__(self, "_hash", h)
            return h

    def __getstate__(self):
        # Never the hash: another process (a diagnosis child, a restarted
        # table) hashes strings differently.
        state = object.__getstate__(self)
        if isinstance(state, tuple) and state[1] and "_hash" in state[1]:
            slots = {k: v for k, v in state[1].items() if k != "_hash"}
            state = (state[0], slots or None)
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._fields)})"

    def __setstate__(self, state):  # pickle and copy: set the fields past the frozen __setattr__
        d, slots = state if isinstance(state, tuple) else (state, None)
        for k, v in {**(d or {}), **(slots or {})}.items():
            object.__setattr__(self, k, v)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.name in catalog.CATALOG:
            BY_NAME[cls.name] = cls

    @property
    def where(self) -> str:  # pragma: no cover - every subclass says
        raise EngineError("a fault must say where it is")


class SwitchStuck(Fault):
    """The rocker does not flip: coins passing the lever fall out on the lever
    side, nothing flips and a resting coin stays put."""

    __slots__ = ("switch",)
    _fields = ("switch",)
    name = catalog.SWITCH_STUCK
    physical = True

    @property
    def where(self) -> str:
        return self.switch


class PadNotHolding(Fault):
    """A coin that should rest on the empty pad bounces across instead."""

    __slots__ = ("switch",)
    _fields = ("switch",)
    name = catalog.PAD_NOT_HOLDING
    physical = True

    @property
    def where(self) -> str:
        return self.switch


class Jam(Fault):
    """Coins leaving a switch through one outlet stop in the board and never arrive."""

    __slots__ = ("switch", "side")
    _fields = ("switch", "side")
    name = catalog.JAM
    physical = True

    @property
    def where(self) -> str:
        return f"{self.switch} {'left' if self.side == 0 else 'right'} outlet"


class ExitSensorDead(Fault):
    __slots__ = ("exit",)
    _fields = ("exit",)
    name = catalog.EXIT_SENSOR_DEAD

    @property
    def where(self) -> str:
        return exit_label(self.exit)


class EntrySensorDead(Fault):
    __slots__ = ("entry",)
    _fields = ("entry",)
    name = catalog.ENTRY_SENSOR_DEAD

    @property
    def where(self) -> str:
        return entry_label(self.entry)


class HallFault(Fault):
    """The hall sensor tells nothing trustworthy: flips and position unseen."""

    __slots__ = ("switch",)
    _fields = ("switch",)
    name = catalog.HALL_FAULT

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
