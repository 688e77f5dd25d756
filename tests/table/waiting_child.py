"""The first life of a table for tests/table/test_waiting_restart.py: a real
``Table`` on a state directory, in a match, with the club's requests waiting
and a second coin in the turn's falling coin. It prints READY once all of
that has been handled, then waits to be killed with SIGKILL (no clean-up:
nothing is closed or flushed).

    python waiting_child.py STATE_DIR
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: find the package from the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "controller"))

from coindrel.engine import standard_geometry  # noqa: E402
from coindrel.events import EntryEvent  # noqa: E402
from coindrel.sources.base import Capabilities  # noqa: E402
from coindrel.table.daemon import Table  # noqa: E402
from coindrel.table.setupmenu import Choices  # noqa: E402
from coindrel.table.store import MatchStore  # noqa: E402

G = standard_geometry()
REQUESTS = [
    {"id": "club-7", "players": ["Cy", "Di"], "clock": 30, "variants": {"halved": True}},
    {"id": "club-8", "players": ["Ed", "Flo"], "clock": None, "variants": {}},
    {"id": "club-9", "players": ["Gus", "Hal"], "clock": 60, "variants": {"holes": True}},
]


class Beams:
    """Entry and exit beams, no hall sensors: the events come from the script."""

    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)))


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def table_on(state_dir, clock) -> Table:
    table = Table(G, Choices(clock="off"), source=Beams(), store=MatchStore(state_dir).open(), clock=clock,
                  reveal_seconds=0.1)
    table.resume(table.store.recover())
    return table


def main(state_dir: str) -> None:
    clock = Clock()
    table = table_on(state_dir, clock)
    for _ in range(3):  # start, pads set, past the reveal
        table.handle_action("select")
        clock.t += 0.2
        table.step()
    assert table.flow.match is not None and table.flow.match.phase == "turn"
    for req in REQUESTS:
        assert table.handle_club_request(req)
    clock.t = 1.0
    table.handle_event(EntryEvent(1.0, 3))
    table.step()
    clock.t = 1.2
    table.handle_event(EntryEvent(1.2, 5))  # while the turn's coin still falls: a second coin, out of turn
    table.step()
    print("READY", flush=True)
    time.sleep(120)  # the test kills it long before


if __name__ == "__main__":
    main(sys.argv[1])
