"""The virtual board: a simulated Coindrel board and sensor hub.

It behaves like a real board so closely that the controller cannot tell the
difference: coins fall coin by coin in time order through the engine's
switch rule, rockers pass through ``mid`` while they flip, beams are broken
for a few milliseconds, hall sensors read noisy analog values that the hub
classifies as its firmware does, and faults can be injected at a place and a
time. Everything random comes from one seed.

Layers, bottom up: ``rand`` and ``kernel`` (one seed, virtual time),
``timing`` and ``hall`` (physical magnitudes), ``physics`` (coins and
switches), ``classify`` and ``hubmodel`` (the firmware's view: where signals
become board events), ``faults`` and ``inject`` (faults and their effects),
``board`` (all of it on one clock), ``obs``/``truth`` (observation and
ground-truth logs), ``players`` and ``scenario`` (what drives a run),
``wire`` (the hub protocol, no I/O), ``serve``/``live`` (a pty or socket,
paced), ``source`` (an in-process board source). docs/virtual-board.md
describes it for users.
"""

from .board import BoardConfig, VirtualBoard
from .faults import FaultSpec, fault_from_dict, fault_from_text
from .hubmodel import Collect
from .obs import ObservationOutput, log_header
from .players import PlayerDriver, PlayerSpec
from .scenario import Scenario, build_board, load_scenario, read_drops, run_scenario, scenario_from_dict
from .timing import TimingModel
from .truth import TruthLog, read_truth

__all__ = [
    "BoardConfig", "Collect", "FaultSpec", "ObservationOutput", "PlayerDriver", "PlayerSpec", "Scenario",
    "TimingModel", "TruthLog", "VirtualBoard", "build_board", "fault_from_dict", "fault_from_text", "load_scenario",
    "log_header", "read_drops", "read_truth", "run_scenario", "scenario_from_dict",
]
