"""The virtual board as a board source, in the controller's own process.

    [board]
    source = "virtual"
    [board.virtual]
    scenario = "tests/scenarios/soak-faults.toml"   # optional: drops, players, faults, seed
    seed = 7                                         # overrides the scenario's
    players = "greedy,random"                        # simulated players (optional)
    matches = 1
    speed = 1.0                                      # virtual seconds per second; 0: as fast as it goes (not with players)
    truth = "/tmp/truth.jsonl"                       # optional ground-truth log

No serial link in between: events go straight from the virtual hub to the
controller, as the hub link would deliver them (a restart of the virtual hub
gives ``resync`` and the switches that changed; an unplugged one, or one
silent for longer than the link waits (a reset over 1.5 s), ``disconnected``
and ``connected`` around that; board time is vouched for only while the hub
has power). The
dropper and the entry LEDs are always there. The same board can be served on a
pty instead (``coindrel virtual-board --serve``) to exercise the real link.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Iterable

from ..config import Section
from ..engine import EngineError
from ..events import StatusEvent
from ..sources.base import BoardSource, Capabilities, Clock, Snapshot, SourceError
from .board import BoardConfig
from .obs import down_events, restart_events
from .players import PlayerSpec
from .scenario import Scenario, build_board, load_scenario
from .truth import TruthLog


# The hub link gives up on a hub that has said nothing for this long (hub/session.py:
# three heartbeats of 0.5 s, at least 1 s) and reports it disconnected.
LINK_SILENCE = 1.5


class _Out:
    """Hub output -> the source's event queue."""

    def __init__(self, source: "VirtualSource", snapshot):
        self.source = source
        self.last = {ev.switch: ev.pos for ev in snapshot}
        self.silent = False  # a reset outlasted LINK_SILENCE: reported disconnected, as the link does
        self.downs = 0
        self.off_t: float | None = None  # when the hub last lost power (None: never)

    def event(self, ev) -> None:
        if ev.kind == "switch":
            self.last[ev.switch] = ev.pos
        self.source._emit(ev)  # statuses from restart_events pass through here too

    def clear(self, t, kind, index, duration) -> None:
        pass

    def error(self, t, code, arg, text) -> None:
        self.source._emit(StatusEvent(t, "error", f"hub: {text}"))

    def down(self, t, why) -> None:
        for ev in down_events(t, why):
            self.source._emit(ev)
        self.downs += 1
        self.off_t = t
        if why != "unplug":
            # A reset keeps the port open, but the real link hears nothing and, after its
            # silence limit, says the hub is gone: players then wait for it. Without this a
            # reset longer than that showed nothing, and a player whose coin the table did
            # not react to dropped again (found as a known gap: resets over 1 s).
            self.source.board.sched.at(t + LINK_SILENCE, self._silence, self.downs)

    def _silence(self, n: int) -> None:
        if n != self.downs or self.source.board.hub.on or self.silent:
            return
        self.silent = True
        # at the board time the hub last vouched for, as the link stamps it (hub/link.py)
        self.source._emit(StatusEvent(self.off_t, "disconnected",
                                      f"no data from the hub for {LINK_SILENCE:.1f} s (unplugged, reset or stuck)"))

    def boot(self, t, why, snapshot) -> None:
        if self.silent and why != "unplug":
            self.source._emit(StatusEvent(t, "connected", "the hub answers again (virtual hub restarted)"))
        self.silent = False
        for ev in restart_events(t, why, snapshot, self.last):
            self.event(ev)


class VirtualSource(BoardSource):
    name = "virtual"
    summary = "the virtual board in this process (no serial link)"

    @classmethod
    def parse(cls, section: Section) -> "VirtualSettings":
        return parse(section)

    @classmethod
    def from_settings(cls, settings: "VirtualSettings | None", *, clock: Clock | None = None, **_) -> "VirtualSource":
        s = settings or parse(Section("board.virtual", {}))
        return cls(s.scenario, s.speed, s.truth, clock=clock)

    def __init__(self, scenario: Scenario, speed: float = 1.0, truth: str | None = None, *, clock: Clock | None = None):
        super().__init__(clock)
        if speed < 0 or math.isnan(speed):
            raise SourceError(f"virtual source: speed {speed} must be >= 0 (0: as fast as it goes; not with players)")
        self.scenario = scenario
        self.speed = speed
        self.truth = TruthLog(truth) if truth else TruthLog()
        self.board, self.driver = build_board(scenario, truth=self.truth)
        g = self.board.geometry
        self.capabilities = Capabilities(entries=tuple(range(g.entry_count)), exits=tuple(range(g.exit_count)),
                                         halls=g.labels, entry_leds=True, dropper=True)
        self._out = _Out(self, self.board.hub.snapshot())
        self.board.sinks.add(self._out)
        self.leds: tuple[int, ...] = ()
        self._task = None

    async def start(self) -> None:
        import asyncio

        await super().start()
        if self._task is None:
            self._emit(StatusEvent(0.0, "connected", f"virtual board, seed {self.board.config.seed}"))
            self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        board, clock = self.board, self.clock
        real0, virt0 = clock.monotonic(), board.now
        while not self.closed:
            if self.speed == 0:
                board.run_until(board.now + 0.05)  # flat out, in slices so the loop stays responsive
                await clock.sleep(0)
                continue
            board.run_until(virt0 + (clock.monotonic() - real0) * self.speed)
            wait = (board.next_time() - board.now) / self.speed
            await clock.sleep(min(max(wait, 0.001), 0.25))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self.board.end()
        self.truth.close()
        await super().close()

    # As the hub link does (sources/hub.py): board time only as far as the hub has
    # vouched for it. A hub without power sends nothing, so a drop cannot be
    # judged past the moment it went quiet until the link says it is gone.
    vouches = True

    def board_time(self) -> float:
        out = self._out
        now = self.board.now if self.board.hub.on or out.off_t is None else min(self.board.now, out.off_t)
        return max(super().board_time(), now)

    async def snapshot(self, timeout: float | None = None) -> Snapshot:
        hub = self.board.hub
        broken = hub.beams_broken()
        return Snapshot(
            t=self.board.now,
            positions={ev.switch: ev.pos for ev in hub.snapshot()},
            raw={ev.switch: ev.raw for ev in hub.snapshot()},
            entries_blocked=frozenset(i for k, i in broken if k == "entry"),
            exits_blocked=frozenset(i for k, i in broken if k == "exit"),
        )

    async def set_outputs(self, leds: Iterable[int] | None = None, drop: int | None = None, pulse_ms: int = 150) -> None:
        n = self.board.geometry.entry_count
        if leds is not None:
            bad = [e for e in leds if not 0 <= e < n]
            if bad:
                raise SourceError(f"virtual board: there is no entry {bad[0] + 1} to light")
            self.leds = tuple(sorted(leds))
        if drop is not None:
            if not 0 <= drop < n:
                raise SourceError(f"virtual board: cannot drop into entry {drop + 1}; entries are 1..{n}")
            self.board.drop(drop, self.board.now + pulse_ms / 1000.0)


@dataclasses.dataclass(frozen=True)
class VirtualSettings:
    scenario: Scenario
    speed: float = 1.0
    truth: str | None = None


def parse(section: Section) -> VirtualSettings:
    path = section.str("scenario", None)
    try:
        scn = load_scenario(path) if path else Scenario(BoardConfig())
    except EngineError as e:
        section.fail("scenario", f"{e}; give the path of a scenario file (TOML or JSON)")
    changes = {}
    seed = section.int("seed", None)
    if seed is not None:
        changes["seed"] = seed
    start = section.str("start", None)
    if start is not None:
        changes["start"] = None if start == "random" else start
    if changes:
        scn = dataclasses.replace(scn, config=dataclasses.replace(scn.config, **changes))
        try:
            scn.config.start_state()
        except EngineError as e:
            section.fail("start" if "start" in changes else "seed", f"{e}; write board text or \"random\"")
    players = section.str("players", None)
    matches = section.int("matches", 1, lo=1)
    if players:
        names = [n.strip() for n in players.split(",")]
        if len(names) != 2:
            section.fail("players", "name two players, e.g. \"greedy,random\"")
        spec = PlayerSpec(one=names[0], two=names[1], matches=matches)
        spec.check(section.where("players"))
        scn = dataclasses.replace(scn, players=spec)
    speed = section.float("speed", 1.0, lo=0.0)
    if speed == 0 and scn.players is not None:
        # flat out, the players' whole match is over in a moment: before anyone can start one on the table
        section.fail("speed", "0 runs the board flat out: with players, their whole match is played in a "
                              "moment, before a match can start on the table: use 1 (real time) or more")
    truth = section.output_path("truth", None)
    section.check_unknown()
    return VirtualSettings(scn, speed, truth)


def from_config(section: Section, *, clock: Clock | None = None, **options) -> VirtualSource:
    return VirtualSource.from_settings(parse(section), clock=clock)
