"""Run a scenario the way a reconciler would meet it: through the observation
log (written with ``coindrel.obslog.LogWriter``, read back with ``read_log``)."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

from coindrel.obslog import LogWriter, read_log
from coindrel.virtual import ObservationOutput, TruthLog, build_board, load_scenario, log_header

SCENARIOS = Path(__file__).parents[1] / "scenarios"


@dataclass
class Run:
    board: object
    log_text: str
    truth_text: str
    log: object  # ObservationLog
    truth: list
    signals: list

    @property
    def events(self):
        return self.log.events


def run(scn, extra_faults=(), record: bool = False, tail: float = 0.5) -> Run:
    buf, tbuf = io.StringIO(), io.StringIO()
    signals: list = []
    truth = TruthLog(tbuf)
    board, _ = build_board(scn, truth=truth, record=signals.append if record else None, extra_faults=extra_faults)
    out = ObservationOutput(LogWriter(buf, log_header(board)), board.hub.snapshot())
    board.sinks.add(out)
    board.finish(tail)
    board.end()
    text = buf.getvalue()
    log = read_log(text.splitlines())
    return Run(board, text, tbuf.getvalue(), log, [json.loads(x) for x in tbuf.getvalue().splitlines()], signals)


def scenario(name: str):
    return load_scenario(SCENARIOS / name)


def event_json(ev) -> dict:
    from coindrel.events import event_to_json

    return event_to_json(ev)


def matches(partial: dict, full: dict) -> bool:
    for k, v in partial.items():
        if k in ("t_min", "t_max", "n"):
            continue
        if full.get(k) != v:
            return False
    t = full.get("t")
    if "t_min" in partial and (t is None or t < partial["t_min"]):
        return False
    if "t_max" in partial and (t is None or t > partial["t_max"]):
        return False
    return True


def outputs_map():
    """The reference channel map with entry LEDs and a coin dropper wired to
    free Pico pins (a builder's map for a table with a dropper)."""
    from coindrel.hub.channelmap import PACKAGE_MAP, ChannelMap

    doc = json.loads(PACKAGE_MAP.read_text())
    doc["hub"]["outputs"]["dropper_pins"] = [0, 1, 2, 3, 4, 5, 6, 7]
    doc["hub"]["outputs"]["entry_led_pins"] = [8, 9, 14, 15, 19, 20, 21, 22]
    return ChannelMap(doc, "test map with outputs")


def script(seed: int, drops: int, gap=(1.6, 2.6)):
    """Drops at random entries, ``gap`` seconds apart: ([(t, entry)], the last t + gap)."""
    from coindrel.virtual.rand import Stream

    s = Stream(seed, "serve-test")
    t, out = 0.5, []
    for _ in range(drops):
        out.append((t, s.below(8)))
        t += s.span(gap)
    return out, t
