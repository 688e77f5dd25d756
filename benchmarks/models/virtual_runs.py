"""Runs of the project's virtual board (coindrel.virtual) for tests and
benchmarks: an observation log as JSON lines and its ground truth."""

from __future__ import annotations

from coindrel.engine import Variants
from coindrel.events import event_to_json


def run_virtual(seed: int, faults=(), overlap: float = 0.15, holes: bool = False, players=("greedy", "random")):
    """One match on the virtual board: (observation log lines as dicts, truth lines).
    ``faults`` are the virtual board's fault specs (``NAME@WHERE,t=..``)."""
    from coindrel.virtual import BoardConfig, Collect, PlayerSpec, Scenario, TruthLog, fault_from_text, run_scenario
    from coindrel.virtual.obs import log_header

    config = BoardConfig(seed=seed, variants=Variants(holes=holes))
    specs = [fault_from_text(f, config.geometry) for f in faults]
    scn = Scenario(config, players=PlayerSpec(one=players[0], two=players[1], matches=1, overlap=overlap), faults=specs)
    collect, truth = Collect(), TruthLog()
    board = run_scenario(scn, outputs=[collect], truth=truth)
    header = log_header(board)
    return [header.to_json()] + [event_to_json(e) for e in collect.events], truth.lines
