"""The Coindrel rules engine (rules.md): pure, no I/O, no clock, no hardware.

Vocabulary first: sides and labels (``core``), board geometry (``geometry``),
board state and its text form (``state``), the switch rule and its tables
(``tables``), drops and their outcome (``drop``, ``outcome``), faults to predict
as if present (``faults``), and the match (``match``, ``setup``, ``rounds``,
``clock``).

Importing the engine loads only what a drop needs; the match's modules load
the first time one of their names is used (a command's start is felt on a Pi).
"""


from .core import (
    COIN,
    ENTRY_COUNT,
    EXIT_COUNT,
    HOLE,
    PAD_R,
    BoardTextError,
    EngineError,
    GeometryError,
    L,
    MatchError,
    R,
    entry_label,
    exit_label,
    parse_switch_label,
    side_name,
    switch_label,
)
from .drop import Observation, Outcome, Prediction, Topology, cascade, drop, drop_in_place, observe, predict, switch_rule, topology
from .faults import EntrySensorDead, ExitSensorDead, Fault, HallFault, Jam, PadNotHolding, SwitchStuck
from .boardfile import load_geometry
from .geometry import Geometry, SwitchSpec, geometry_by_name, standard_geometry
from .state import BoardState
from .rng import MatchRandom

_LAZY = {
    "TurnClock": "clock",
    **dict.fromkeys(("PHASE_FALLING", "PHASE_OVER", "PHASE_REVEAL", "PHASE_TURN", "Match", "exit_names"), "match"),
    **dict.fromkeys(("MatchSetup", "TurnResult"), "setup"),
    **dict.fromkeys(("CLOCK_SETTINGS", "ROUNDS", "TARGETS", "VALUES", "Variants", "target"), "rounds"),
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'coindrel.engine' has no attribute {name!r}")
    value = getattr(__import__(f"{__name__}.{module}", fromlist=[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "BoardState",
    "BoardTextError",
    "CLOCK_SETTINGS",
    "COIN",
    "ENTRY_COUNT",
    "EXIT_COUNT",
    "EngineError",
    "EntrySensorDead",
    "ExitSensorDead",
    "Fault",
    "Geometry",
    "GeometryError",
    "HOLE",
    "HallFault",
    "Jam",
    "L",
    "Match",
    "MatchError",
    "MatchRandom",
    "MatchSetup",
    "Observation",
    "Outcome",
    "PAD_R",
    "PHASE_FALLING",
    "PHASE_OVER",
    "PHASE_REVEAL",
    "PHASE_TURN",
    "PadNotHolding",
    "Prediction",
    "R",
    "ROUNDS",
    "SwitchSpec",
    "SwitchStuck",
    "TARGETS",
    "Topology",
    "TurnClock",
    "TurnResult",
    "VALUES",
    "Variants",
    "cascade",
    "drop",
    "drop_in_place",
    "entry_label",
    "exit_label",
    "exit_names",
    "geometry_by_name",
    "load_geometry",
    "observe",
    "parse_switch_label",
    "predict",
    "side_name",
    "standard_geometry",
    "switch_label",
    "switch_rule",
    "target",
    "topology",
]
