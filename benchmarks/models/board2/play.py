"""Sessions on the second board model: people dropping coins (sometimes two
into one entry at once, sometimes the next before the last cascade ended,
sometimes a steady stream), faults injected between drops; out come a
sensing.md section 3 observation log and this model's ground truth.

Truth lines (JSON Lines)::

    {"kind": "header", "model": "board2", "seed": 7}
    {"kind": "coin", "drop": 12, "t": 30.1, "entry": 4, "acted": [1]}
    {"kind": "fault", "id": 1, "fault": "switch_stuck", "where": "R3S2", "t": 29.0,
     "rate": 0.5, "persistent": true, "first_drop": 12}

``drop`` numbers every coin put in, in order of entry (1-based); ``acted``
the faults that changed what that coin's cascade did or how it was sensed;
a fault's ``first_drop`` is the first coin it changed, or ``first_effect``
the time it first showed while no coin of any drop was involved.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from .board import Board
from .faults import Fault, Faults, inject, watch_drift


@dataclass
class Session:
    seed: int
    drops: int = 60
    overlap: float = 0.15  # share of drops made before the last cascade ended
    doubles: float = 0.04  # share of turns with two coins in one entry together
    stream: float | None = None  # coins per second, never quiet (overrides the rest)
    faults: list = field(default_factory=list)  # (name, where, at_drop, rate, params)
    pads: list | None = None

    def run(self) -> tuple[list[dict], list[dict]]:
        rng = random.Random(self.seed * 7919 + 1)
        board = Board(self.seed, self.pads)
        fs = Faults(board, self.seed)
        board.faults = fs
        header = {"kind": "header", "board": "standard", "variants": {"holes": False},
                  "state": board.g.text(board.pads, board.coins)}
        pending = sorted(self.faults, key=lambda f: f[2])
        coins = []
        t = 1.0
        k = 0
        next_id = 1
        while k < self.drops:
            if self.stream:
                t = t + (1.0 / self.stream) * rng.uniform(0.85, 1.15)
            elif rng.random() < self.overlap and k:
                t = coins[-1]["t"] + rng.uniform(0.25, 0.9)
            else:
                board.run_until(float("inf"))
                t = max(t, board.last_activity, board.now) + rng.uniform(0.7, 3.0)
            while pending and pending[0][2] <= k + 1 and not self.stream:
                name, where, _, rate, params = pending.pop(0)
                board.run_until(float("inf"))
                t_inj = max(board.now, board.last_activity) + 0.4
                f = Fault(next_id, name, where, t_inj, rate, dict(params or {}))
                next_id += 1
                board.now = t_inj
                inject(board, fs, f, t_inj, k)
                board.run_until(float("inf"))
                t = max(t, board.now, board.last_activity) + rng.uniform(0.8, 2.5)
            board.run_until(t)
            if not self.stream and board.quiet():
                watch_drift(board, fs, t - 0.2)
            entry = rng.randrange(8)
            n = 2 if (not self.stream and rng.random() < self.doubles and k + 1 < self.drops) else 1
            for i in range(n):
                k += 1
                tc = t + (rng.uniform(0.01, 0.08) if i else 0.0)
                board.run_until(tc)
                board.drop_coin(tc, entry, k)
                coins.append({"kind": "coin", "drop": k, "t": round(tc, 5), "entry": entry + 1})
        board.run_until(float("inf"))
        for c in coins:
            c["acted"] = sorted(fs.acted.get(c["drop"], ()))
        events = sorted(board.events, key=lambda e: e["t"])
        truth = [{"kind": "header", "model": "board2", "seed": self.seed}] + coins + [f.truth() for f in fs.list]
        return [header] + events, truth


def write(lines: list[dict], path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for d in lines:
            fh.write(json.dumps(d) + "\n")
