"""Scenario files: one description of a virtual-board run that a unit test, a
``coindrel virtual-board --scenario`` run and a benchmark can all use.

TOML or JSON, the same keys (all optional)::

    description = "R3S2 sticks after the fifth drop"
    seed = 7
    board = "standard"                  # standard, mirrored or a board file
    start = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"   # default: seeded random pads
    variants = {holes = false}
    duration = 30.0                     # run at least this long (seconds)
    drops_file = "drops.jsonl"          # more drops, relative to this file

    [timing]                            # TimingModel overrides, [lo, hi] seconds
    row_fall = [0.07, 0.11]
    [hall]                              # sensors: left, right, none, spread, noise (counts)
    [hub]                               # scan_hz, beam_hz, beam_filter, hyst, hall_filter, band (fraction)

    [[drops]]                           # entry 1..8 as a person counts, at t seconds
    t = 0.5
    entry = 4

    [players]                           # simulated players (see players.py)
    one = "greedy"
    two = "random"
    matches = 1

    [[faults]]                          # see faults.py for names, places and parameters
    fault = "switch_stuck"
    where = "R3S2"
    t = 5.0

    [expect]                            # free-form, for the tests that use the file

A drops file is JSON Lines of ``{"t": 0.5, "entry": 4}``; lines of other
kinds are skipped, so an observation log's entry events replay as a script.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Section
from ..engine import EngineError, Variants
from .board import BoardConfig
from .classify import HallRules
from .faults import FaultSpec, fault_from_dict
from .hall import HallSpec
from .players import PlayerSpec
from .timing import TimingModel
from ..limits import MIB, SMALL, read_text_limited
from ..nesting import loads_json, loads_toml

_TOP = {"description", "seed", "board", "start", "variants", "duration", "drops_file", "timing", "hall", "hub",
        "drops", "players", "faults", "expect"}


@dataclass
class Scenario:
    config: BoardConfig
    drops: list[tuple[float, int]] = field(default_factory=list)  # (t, 0-based entry)
    players: PlayerSpec | None = None
    faults: list[FaultSpec] = field(default_factory=list)
    duration: float = 0.0
    description: str = ""
    expect: dict = field(default_factory=dict)
    source: str = "scenario"


def read_data(path: str | Path) -> dict:
    p = Path(path)
    try:
        text = read_text_limited(p, SMALL)
    except OSError as e:
        raise EngineError(f"{p}: cannot read the scenario ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise EngineError(f"{p}: not a text file (byte {e.start} is not UTF-8); a scenario is TOML or JSON text") from None
    try:
        if p.suffix.lower() == ".json":
            data = loads_json(text)
        else:
            data = loads_toml(text)
    except json.JSONDecodeError as e:
        raise EngineError(f"{p}: not valid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except tomllib.TOMLDecodeError as e:
        raise EngineError(f"{p}: not valid TOML: {e}") from None
    if not isinstance(data, dict):
        raise EngineError(f"{p}: a scenario is one table (TOML) or object (JSON)")
    return data


def load_scenario(path: str | Path) -> Scenario:
    data = read_data(path)
    return scenario_from_dict(data, str(path), base=Path(path).parent)


def config_from_dict(data: dict, source: str) -> BoardConfig:
    top = Section("scenario", data, source)
    seed = top.int("seed", 0)
    board = top.str("board", "standard")
    start = top.str("start", None)
    if start == "random":
        start = None
    variants = Variants.from_dict(top.get("variants"))
    timing = TimingModel.from_dict(top.get("timing"), f"{source}: [timing]")
    hall_s = top.sub("hall")
    defaults = HallSpec()
    hall = HallSpec(
        left=hall_s.float("left", defaults.left, 0, 4095), right=hall_s.float("right", defaults.right, 0, 4095),
        none=hall_s.float("none", defaults.none, 0, 4095), spread=hall_s.float("spread", defaults.spread, 0, 1000),
        noise=hall_s.float("noise", defaults.noise, 0, 500),
    )
    hall_s.check_unknown()
    hub = top.sub("hub")
    base = BoardConfig()
    rules = HallRules(hyst=hub.int("hyst", base.rules.hyst, 0, 2000), filter=hub.int("hall_filter", base.rules.filter, 1, 50))
    config = BoardConfig(
        board=board, start=start, variants=variants, seed=seed, timing=timing, hall=hall, rules=rules,
        band=hub.float("band", base.band, 0.01, 0.45), scan_hz=hub.int("scan_hz", base.scan_hz, 50, 5000),
        beam_hz=hub.int("beam_hz", base.beam_hz, 1000, 100000), beam_filter=hub.int("beam_filter", base.beam_filter, 1, 100),
    )
    hub.check_unknown()
    config.start_state()  # a bad board text or board file fails here, named
    config.check()
    return config


def scenario_from_dict(data: dict, source: str = "scenario", base: Path | None = None) -> Scenario:
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise EngineError(f"{source}: unknown key(s) {', '.join(unknown)}; a scenario may have {', '.join(sorted(_TOP))}")
    config = config_from_dict(data, source)
    g = config.geometry
    top = Section("scenario", data, source)
    drops = [parse_drop(d, f"{source}: drops item {i + 1}", g.entry_count) for i, d in enumerate(top.list("drops", []))]
    drops_file = top.str("drops_file", None)
    if drops_file:
        path = (base or Path(".")) / drops_file
        drops += read_drops(path, g.entry_count)
    players = None
    if "players" in data:
        players = players_from_dict(data["players"], f"{source}: [players]")
    faults = [fault_from_dict(f, g, f"{source}: faults item {i + 1}") for i, f in enumerate(top.list("faults", []))]
    duration = top.float("duration", 0.0, 0.0)
    expect = top.get("expect", {}) or {}
    return Scenario(config, sorted(drops, key=lambda d: d[0]), players, faults, duration,
                    top.str("description", "") or "", expect, source)


def parse_drop(d, where: str, entries: int) -> tuple[float, int]:
    if not isinstance(d, dict):
        raise EngineError(f"{where}: a drop is {{\"t\": seconds, \"entry\": 1..{entries}}}")
    t, e = d.get("t"), d.get("entry")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
        raise EngineError(f"{where}: t {t!r} must be seconds >= 0")
    if isinstance(e, bool) or not isinstance(e, int) or not 1 <= e <= entries:
        raise EngineError(f"{where}: entry {e!r} must be 1..{entries} (as a person counts them)")
    return (float(t), e - 1)


def read_drops(path: str | Path, entries: int = 8) -> list[tuple[float, int]]:
    """A drop script: JSON Lines with t and entry (1-based); other kinds skipped."""
    p = Path(path)
    try:
        lines = read_text_limited(p, 64 * MIB).splitlines()  # a long drop script is a few MiB
    except OSError as e:
        raise EngineError(f"{p}: cannot read the drop script ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise EngineError(f"{p}: not a text file (byte {e.start} is not UTF-8); a drop script is JSON Lines") from None
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            d = loads_json(line)
        except json.JSONDecodeError as e:
            raise EngineError(f"{p} line {n}: not JSON ({e.msg}); a drop script has lines like {{\"t\": 0.5, \"entry\": 4}}") from None
        if not isinstance(d, dict) or d.get("kind", "entry") != "entry":
            continue
        out.append(parse_drop(d, f"{p} line {n}", entries))
    return out


def players_from_dict(d, source: str) -> PlayerSpec:
    if not isinstance(d, dict):
        raise EngineError(f"{source}: must be a table of one, two, matches, drops, think, overlap, quick, start, pause")
    s = Section("players", d, source)
    base = PlayerSpec()

    def span(key):
        v = s.list(key, list(getattr(base, key)), length=2)
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            s.fail(key, "must be [lo, hi] in seconds")
        return (float(v[0]), float(v[1]))

    spec = PlayerSpec(
        one=s.str("one", base.one), two=s.str("two", base.two), matches=s.int("matches", base.matches, 1),
        drops=s.int("drops", None, 1), think=span("think"), overlap=s.float("overlap", base.overlap, 0.0, 1.0),
        quick=span("quick"), start=s.float("start", base.start, 0.0), pause=s.float("pause", base.pause, 0.0),
    )
    s.check_unknown()
    spec.check(source)
    return spec


def build_board(scn: Scenario, outputs=(), truth=None, link=None, record=None, extra_faults=()):
    """A ``VirtualBoard`` set up as the scenario says, its drops scheduled and
    its players (if any) ready; returns ``(board, driver or None)``."""
    from .board import VirtualBoard
    from .players import PlayerDriver

    board = VirtualBoard(scn.config, list(scn.faults) + list(extra_faults), outputs, truth, link, record)
    for t, entry in scn.drops:
        board.drop(entry, t)
    board.horizon = max(board.horizon, scn.duration)
    driver = PlayerDriver(board, scn.players) if scn.players else None
    return board, driver


def run_scenario(scn: Scenario, outputs=(), truth=None, record=None, tail: float = 0.5):
    """Run a scenario to the end in virtual time; returns the board."""
    board, _ = build_board(scn, outputs, truth, record=record)
    board.finish(tail)
    board.end()
    return board
