"""The rig of the awkward-moment tests (``test_awkward_*``): ``coindrel sim
--fast``'s table, journal and virtual board on a turbo clock."""

from __future__ import annotations

from coindrel.engine import standard_geometry
from coindrel.table.fastsim import FastRig
from coindrel.table.sim import SimOptions

G = standard_geometry()
FAST = {"datasync": lambda fd: None}


def rig_for(tmp_path, **kw):
    opts = SimOptions(**{"think": 0.2, "pause": 0.3, "reveal_seconds": 0.5, "display": "none",
                         "state_dir": str(tmp_path), "clock": "turbo", **kw})
    return FastRig(opts, step=0.05, store_options=FAST)


def run_until(rig, cond, limit=600.0):
    end = rig.t + limit
    while rig.t < end:
        if cond():
            return True
        rig.tick()
    return cond()
