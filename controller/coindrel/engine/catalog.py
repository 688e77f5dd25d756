"""The fault catalog: one row per fault (sensing.md section 4's table, plus
the few names the reconciler reports that are not faults of a part).

Everything else about a fault's vocabulary is derived from this table: the
fault classes take their ``name`` from it, the reconciler its priors, its
persistent and sensor sets and the sentence a player reads, the virtual
board its injection parameters and its fault places. Adding a fault is one
row here plus its behaviour: a ``Fault`` class (engine or reconciler), the
as-if hook named by ``asif`` (the engine's drop tables for ``PHYSICS``, the
reconciler's sensor derivation for ``SENSOR``, its search moves for
``BELIEF`` and ``COUNT``), and the virtual board's injection when ``inject``
is not None. ``tests/reconcile/test_catalog.py`` fails while any of these is
missing.

This module is pure data and imports only the standard library, so the
engine can take its names from it.
"""

from __future__ import annotations

from types import MappingProxyType


class _Kind(str):
    """A named constant (compared by identity or text); plain classes, not
    ``enum``, keep ``import coindrel.engine`` cheap."""

    __slots__ = ()

    @property
    def value(self) -> str:
        return str(self)


class Place:
    """What kind of place a fault is at (how its ``where`` is written)."""

    SWITCH = _Kind("switch")  # R3S2
    OUTLET = _Kind("outlet")  # R3S2 left outlet
    EXIT = _Kind("exit")  # exit 10
    ENTRY = _Kind("entry")  # entry 4
    LINK = _Kind("link")  # the hub link
    BOARD = _Kind("board")  # the board as a whole


class AsIf:
    """How the engine/reconciler predicts a drop *as if* the fault were there."""

    PHYSICS = _Kind("physics")  # the engine's transition tables run with the fault (engine.predict faults=)
    SENSOR = _Kind("sensor")  # a healthy cascade, reported differently by the sensors (reconcile.sensors.derive)
    BELIEF = _Kind("belief")  # the board the drop starts from was not the believed one (a search move)
    COUNT = _Kind("count")  # the counts of a beam are not the coins (derive / the unchatter move)
    REPORT = _Kind("report")  # not a cause of a drop: something the reconciler reports


class Row:
    """One fault: name; place; sensor (a sensor misreports) or physics/state;
    persistent (stays until fixed) or once; prior (how likely it newly appears
    at one place on one drop; only ratios matter); say (the sentence a player
    reads: {where}, {Where} capitalised, {switch}, {side}); asif (how a drop is
    predicted as if it were there); inject (the virtual board's parameters,
    None: not injectable); intermittent (may act on some coins only, so a
    diagnosis may carry a ``rate``)."""

    __slots__ = ("name", "place", "sensor", "persistent", "prior", "say", "asif", "inject", "intermittent")

    def __init__(self, name: str, place: str, sensor: bool, persistent: bool, prior: float, say: str, asif: str,
                 inject: MappingProxyType | None = None, intermittent: bool = False):
        for k, v in zip(self.__slots__, (name, place, sensor, persistent, prior, say, asif, inject, intermittent)):
            object.__setattr__(self, k, v)

    def __setattr__(self, key, value):
        raise AttributeError("a catalog row is frozen")

    def __repr__(self) -> str:
        return f"Row({self.name!r}, {self.place}, ...)"


def _p(**kw) -> MappingProxyType:
    return MappingProxyType(kw)


SWITCH_STUCK = "switch_stuck"
SWITCH_UNSEATED = "switch_unseated"
HALL_FAULT = "hall_fault"
PAD_NOT_HOLDING = "pad_not_holding"
EXIT_SENSOR_DEAD = "exit_sensor_dead"
ENTRY_SENSOR_DEAD = "entry_sensor_dead"
EXIT_SENSOR_CHATTER = "exit_sensor_chatter"
ENTRY_SENSOR_CHATTER = "entry_sensor_chatter"
MOVED_BY_HAND = "moved_by_hand"
COIN_ADDED = "coin_added"
COIN_REMOVED = "coin_removed"
JAM = "jam"
STRAY_COIN = "stray_coin"
JAM_CLEARED = "jam_cleared"
EVENTS_LOST = "events_lost"
UNEXPLAINED = "unexplained"

ROWS: tuple[Row, ...] = (
    Row(SWITCH_STUCK, Place.SWITCH, False, True, 1e-3,
        "{where} did not flip when a coin passed its lever: the rocker is stuck.", AsIf.PHYSICS, _p(), True),
    Row(PAD_NOT_HOLDING, Place.SWITCH, False, True, 5e-4,
        "A coin should have come to rest on {where}'s empty pad but bounced across: the pad does not hold coins.",
        AsIf.PHYSICS, _p(), True),
    Row(JAM, Place.OUTLET, False, True, 3e-4,
        "A coin left through the {side} of {switch} and never arrived below: something is jamming that chute.",
        AsIf.PHYSICS, _p()),
    Row(HALL_FAULT, Place.SWITCH, True, True, 1e-3,
        "{where}'s hall sensor disagrees with what the cascade proves (wrong side, stuck or drifted reading): "
        "check the sensor and recalibrate.",
        AsIf.SENSOR, _p(mode="drift", value=None, shift=0.4, offset=None, duration=0.05)),
    Row(SWITCH_UNSEATED, Place.SWITCH, True, True, 1.5e-3,
        "{where}'s hall reads between the sides at rest: the rocker is not seated properly.", AsIf.SENSOR, _p(offset=0.4)),
    Row(EXIT_SENSOR_DEAD, Place.EXIT, True, True, 1e-3,
        "{Where} did not see a coin the cascade sent there: its beam is dead or misaligned.", AsIf.SENSOR, _p(chance=1.0), True),
    Row(ENTRY_SENSOR_DEAD, Place.ENTRY, True, True, 1e-3,
        "The coin went in at {where} but its beam did not see it: the beam is dead or misaligned.",
        AsIf.SENSOR, _p(chance=1.0), True),
    Row(EXIT_SENSOR_CHATTER, Place.EXIT, True, True, 5e-4,
        "{Where} counted one coin more than once: its beam chatters.", AsIf.COUNT, _p(count=1, chance=1.0), True),
    Row(ENTRY_SENSOR_CHATTER, Place.ENTRY, True, True, 5e-4,
        "{Where} counted one coin more than once: its beam chatters.", AsIf.COUNT, _p(count=1, chance=1.0), True),
    Row(MOVED_BY_HAND, Place.SWITCH, False, False, 0.1,
        "Someone moved {where} by hand while no coin was falling.", AsIf.BELIEF, _p(to="toggle")),
    Row(COIN_ADDED, Place.SWITCH, False, False, 3e-4,
        "A coin was resting on {where} that the controller did not know of (put there by hand, or a drop it missed).",
        AsIf.BELIEF, _p()),
    Row(COIN_REMOVED, Place.SWITCH, False, False, 3e-4,
        "The coin the controller believed on {where} was not there (taken off by hand).", AsIf.BELIEF, _p()),
    Row(STRAY_COIN, Place.EXIT, False, False, 0.02,
        "{Where} saw a coin while no drop was falling: a coin put in by hand, or a false beam break.", AsIf.REPORT),
    Row(JAM_CLEARED, Place.OUTLET, False, False, 0.2,
        "Coins stopped at the {side} of {switch} came free and fell on.", AsIf.REPORT),
    Row(EVENTS_LOST, Place.LINK, False, False, 1.0,
        "The hub link lost events during this drop, so it cannot be checked; the board's positions are read again once the hub answers.",
        AsIf.REPORT),
    Row(UNEXPLAINED, Place.BOARD, False, False, 1.0,
        "No single fault or pair of faults explains what the board did; check the board by hand and run coindrel selftest.",
        AsIf.REPORT),
)

CATALOG: MappingProxyType = MappingProxyType({r.name: r for r in ROWS})


def row(name: str) -> Row:
    try:
        return CATALOG[name]
    except KeyError:
        raise KeyError(f"unknown fault name {name!r} (known: {', '.join(CATALOG)})") from None


def names(*, place: Place | None = None, asif: AsIf | None = None, persistent: bool | None = None,
          sensor: bool | None = None, injectable: bool | None = None) -> tuple[str, ...]:
    """Fault names with the given properties, in catalog order."""
    return tuple(
        r.name
        for r in ROWS
        if (place is None or r.place is place)
        and (asif is None or r.asif is asif)
        and (persistent is None or r.persistent == persistent)
        and (sensor is None or r.sensor == sensor)
        and (injectable is None or (r.inject is not None) == injectable)
    )


def sentence(name: str, where: str) -> str:
    """The catalog's sentence for a fault at ``where``."""
    switch, _, side = where.partition(" ")
    return row(name).say.format(where=where, Where=where[:1].upper() + where[1:], switch=switch, side=side or "outlet")


__all__ = ["Place", "AsIf", "Row", "ROWS", "CATALOG", "row", "names", "sentence"] + [
    "SWITCH_STUCK", "SWITCH_UNSEATED", "HALL_FAULT", "PAD_NOT_HOLDING", "EXIT_SENSOR_DEAD", "ENTRY_SENSOR_DEAD",
    "EXIT_SENSOR_CHATTER", "ENTRY_SENSOR_CHATTER", "MOVED_BY_HAND", "COIN_ADDED", "COIN_REMOVED", "JAM",
    "STRAY_COIN", "JAM_CLEARED", "EVENTS_LOST", "UNEXPLAINED",
]
