"""``coindrel sim --fast``: the table, the virtual board and the people in
one process, on the board's virtual time, as fast as the machine allows.

The table is the real ``Table`` (flow, reconciler, journal, store); the
board is the virtual board as an in-process source whose events the rig
hands over in time order; the people are ``SimPlayers`` plus a script. A
restart drops the table without any clean-up (as kill -9 does) and builds a
new one from the journal on disk; an unplug powers the hub off for a while.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from ..engine import EngineError, Variants, standard_geometry
from ..engine.core import HOLE
from ..events import StatusEvent
from ..sources.base import ManualClock
from ..virtual import BoardConfig, Scenario, fault_from_text
from ..virtual.source import VirtualSource
from .daemon import Table
from .people import SimPlayers
from .script import Do, ScriptStep
from .setupmenu import Choices
from .simresult import match_seeds, recovered, stop_on_signals
from .store import MatchStore

STEP = 0.02  # seconds of board time per step of the rig
log = logging.getLogger("coindrel.sim")


class _Errors(logging.Handler):
    """Every error the table logs: the sim's result lists them."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f": {record.exc_info[1]!r}"
        self.messages.append(f"{record.name}: {text}")


@dataclass
class Outcome:
    """What happened in a sim, for ``--result`` and the closing summary."""

    t: float = 0.0
    restarts: int = 0
    unplugs: int = 0
    script_steps: int = 0
    reports: int = 0
    mismatches: list = field(default_factory=list)  # (match key, drop, what the table said first), once a drop
    alerts: list = field(default_factory=list)  # (title, what it said first): notices outside any drop
    errors: list = field(default_factory=list)
    matches: list = field(default_factory=list)  # Match objects, in order
    resumed: tuple | None = None  # (match key, its drops then): the run began by resuming a journalled match


def match_key(m):
    """One match across restarts (a replay is a new object with the same setup)."""
    return m.setup.seed if m is not None else None


def note_resumed(table, out: Outcome) -> None:
    """At the run's first start: a match resumed from the journal has drops
    (and mismatches) from before this run, which the summary says apart."""
    m = table.flow.match
    if out.resumed is None and out.restarts == 0 and m is not None and m.results:
        out.resumed = (match_key(m), len(m.results))


def watch_reports(table, out: Outcome, on_mismatch=lambda: None) -> None:
    """Count the table's drop reports and mismatches into ``out`` as they reach its flow."""
    flow = table.flow
    seen = flow.on_report

    def on_report(report, now):
        out.reports += 1
        before, note_before, moved_before = flow.diagnosis, flow.note, flow.moved_unseen
        seen(report, now)
        d = flow.diagnosis
        # The mismatch screen stays up while people drop on (a keyboard player does): only a
        # diagnosis this report made is a mismatch, and a drop is counted once (a restart may
        # report a drop that was falling again).
        if (report.drop is not None and d is not None and d is not before
                and (report.verdict != "ok" or d.findings or d.facts)):
            key = (match_key(flow.match), d.drop if d.drop is not None else report.drop)
            if any(x[:2] == key for x in out.mismatches):
                return
            out.mismatches.append((*key, (d.findings or d.facts or (report.verdict,))[0]))
            tell = on_mismatch()
            if tell is not None:
                tell(report, d)
        elif report.drop is None and flow.moved_unseen != moved_before and flow.match is not None:
            from .modes_pads import moved_view  # rockers found moved: the players read it on the pads check

            n = moved_view(flow)
            out.alerts.append((n.title, n.findings[0]))
            tell = on_mismatch()
            if tell is not None:
                tell(report, n)
        elif report.drop is None and flow.note is not None and hasattr(flow.note, "findings"):
            n = flow.note
            if n is not note_before:  # the notice this report put up, counted once
                out.alerts.append((n.title, (n.findings or n.facts or ("",))[0]))
            tell = on_mismatch()  # a coin outside any drop, a revision: the notice the table shows
            if tell is not None:
                tell(report, flow.note)

    flow.on_report = on_report


def remember_match(table, out: Outcome) -> None:
    m = table.flow.match
    if m is not None and (not out.matches or out.matches[-1] is not m):
        if out.matches and out.matches[-1].setup.seed == m.setup.seed:
            out.matches[-1] = m  # the same match, recovered after a restart
        else:
            out.matches.append(m)


def believed_start(state_dir) -> str | None:
    """The board a match in progress in ``state_dir``'s journal believes (its
    text form), or None. A sim that resumes a match starts its virtual board
    from it, as a real board stands where the match left it: a fresh board
    (random rockers, empty pads) would contradict every coin the match put on
    a pad. Read only; the store recovers the journal (and says what it found)
    when the table starts."""
    from pathlib import Path

    from .history import CURRENT
    from .journal import JournalError, read_journal
    from .replay import read_contents

    if state_dir is None or not (Path(state_dir) / CURRENT).is_file():
        return None
    try:
        contents = read_contents(read_journal(Path(state_dir) / CURRENT))
    except (JournalError, EngineError):
        return None
    match = contents.match
    if match is None or match.over:
        return None
    board = match.board
    # Coins seen entering after the last verdict were falling when the table
    # stopped: on a real board they fell on while it was down, and the new hub
    # never saw them (the table's resync then finds their flips, sensing.md).
    records = contents.good()
    last = max((i for i, r in enumerate(records) if r.kind == "verdict"), default=-1)
    entries = [r.data.get("entry") for r in records[last + 1:]
               if r.kind == "ev" and isinstance(r.data, dict) and r.data.get("kind") == "entry"]
    entries = [e - 1 for e in entries if isinstance(e, int) and 1 <= e <= board.geometry.entry_count]
    if entries:
        from ..engine import drop

        board = drop(board, entries).board
    return board.text()


class FastRig:
    def __init__(self, opts, script: list[ScriptStep] = (), state_dir: str | None = None, step: float = STEP,
                 store_options: dict | None = None):
        import tempfile

        self.opts, self.step_s = opts, step
        self.store_options = store_options or {}  # e.g. tests: datasync=no-op (a restart is a kill, not a power cut)
        self.g = standard_geometry()
        self.state_dir = state_dir or opts.state_dir or tempfile.mkdtemp(prefix="coindrel-sim-")
        start = believed_start(self.state_dir)
        scn = Scenario(BoardConfig(seed=opts.seed, start=start, variants=Variants(holes=opts.variants.holes and start is None)))
        scn.faults = [fault_from_text(f, self.g, i + 1) for i, f in enumerate(opts.faults)]
        self.source = VirtualSource(scn, speed=0, clock=ManualClock(0.0))  # stepped here, never started
        self.board = self.source.board
        self.script = sorted(script, key=lambda s: (s.t, s.line))
        self.next_step = 0
        self.t = 0.0
        self.out = Outcome()
        self.store = None
        self.table: Table | None = None
        self.players = None
        self.on_mismatch = None  # called with each mismatch's report (text mode prints it)
        self.warn = None  # says what recovery repaired (default: standard error)
        self.stopped = False  # Ctrl-C or SIGTERM: end after this tick, as a finished sim ends
        self._errors = _Errors()
        logging.getLogger("coindrel").addHandler(self._errors)
        self._loop = None  # for tick() called outside a running loop (tests)
        self.display = self._open_display()
        self._shown = None
        self._build()

    def _open_display(self):
        """``--display capture|gifanim``: the frames the OLED would show, on
        board time (one frame per change, as the daemon draws them). The
        panel outlives a restart, as a real one does."""
        if getattr(self.opts, "display", None) not in ("capture", "gifanim") or not getattr(self.opts, "out", None):
            return None
        from ..display import open_display
        from .sim import display_section

        return open_display(display_section(self.opts), clock=lambda: self.t)

    def _show(self) -> None:
        if self.display is None:
            return
        view = self.table.flow.view(self.t)
        if view != self._shown and self.display.show(view, self.t):
            self._shown = view

    # -- the table process ---------------------------------------------------------------

    def _build(self) -> None:
        opts = self.opts
        self.store = MatchStore(self.state_dir, **{"choose": "give --state-dir", **self.store_options}).open()
        choices = Choices(clock=opts.clock, variants=opts.variants, players=opts.names, opponent=opts.opponent)
        if getattr(self, "match_seeds", None) is None:  # one sequence for the run, restarts included
            self.match_seeds = match_seeds(opts.seed)
        self.table = Table(self.g, choices, source=self.source, store=self.store, clock=lambda: self.t,
                           reveal_seconds=opts.reveal_seconds, new_seed=self.match_seeds, display=self.display)
        self.table.room_probe_every = None  # a full disk stops the sim with the one message (roomwait.py)
        self.table.room_restart = f"run the sim again with --state-dir {self.state_dir}"
        self.table.resume(recovered(self.store.recover(), self.warn))
        note_resumed(self.table, self.out)
        self.table.handle_event(StatusEvent(self.board.now, "connected", "virtual board"))
        self._snapshot()
        if self.players is None:
            self.players = SimPlayers(self.table, self.board, opts, clock=lambda: self.t)
        self.players.table = self.table
        self._hook_reports()

    def _snapshot(self) -> None:
        """What the daemon does with the hub's snapshot on every connect."""
        from ..sources.base import Snapshot
        from .resync import resync

        positions = {ev.switch: ev.pos for ev in self.board.hub.snapshot()}
        resync(self.table, Snapshot(self.board.now, positions))
        self.table.learn_positions(positions)

    def _hook_reports(self) -> None:
        watch_reports(self.table, self.out, lambda: self.on_mismatch)

    def restart(self) -> None:
        """The table process dies here and starts again from its journal."""
        self._remember_match()
        self.store.close()  # the lock goes with the process; nothing else is flushed or closed
        self.out.restarts += 1
        self._build()

    def _remember_match(self) -> None:
        remember_match(self.table, self.out)

    # -- the world -------------------------------------------------------------------------

    def apply(self, s: ScriptStep) -> None:
        self.out.script_steps += 1
        b = self.board
        if s.do is Do.PRESS:
            self.table.handle_action(s.value)
        elif s.do is Do.DROP:
            b.drop(s.value)
        elif s.do is Do.HAND:
            if b.world.codes[self.g.index(s.value)] != HOLE:  # a switch taken out cannot be pushed
                b.set_by_hand(s.value, s.side)
        elif s.do is Do.PLACE:
            b.place_coin(s.value)
        elif s.do is Do.TAKE:
            b.take_coin(s.value)
        elif s.do is Do.UNPLUG:
            if b.hub.cable:
                self.out.unplugs += 1
                b.hub.power_off("unplug")
                b.sched.at(b.now + s.value, b.hub.boot, "unplug")
        elif s.do is Do.RESTART:
            self.restart()

    def tick(self) -> None:
        """One step, from code that runs no event loop (tests): the table's
        output tasks (dropper, LEDs) run on the rig's own loop."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        self._loop.run_until_complete(self._atick())

    async def _atick(self) -> None:
        self._tick()
        await asyncio.sleep(0)  # let the table's output tasks (dropper, LEDs) run

    @property
    def errors(self) -> list[str]:
        """Errors so far: the sim's own and every error the table logged."""
        return self.out.errors + self._errors.messages

    def close(self) -> None:
        logging.getLogger("coindrel").removeHandler(self._errors)
        if self.display is not None:
            self.display.close()  # a GIF is written now
            self.display = None
        self.store.close()
        if self._loop is not None:
            self._loop.close()
            self._loop = None

    def _tick(self) -> None:
        """One step: the script, the board, the table, the people."""
        end = self.t + self.step_s
        while self.next_step < len(self.script) and self.script[self.next_step].t <= end:
            s = self.script[self.next_step]
            self.next_step += 1
            self._advance(max(self.t, s.t))
            self.apply(s)
        self._advance(end)
        self.table.step()
        self._show()
        self.players.step()
        self._remember_match()

    def _advance(self, t: float) -> None:
        self.board.run_until(t)
        self.t = max(self.t, t)
        for ev in self.source.pending():
            self.table.handle_event(ev)
            if isinstance(ev, StatusEvent) and ev.state in ("connected", "resync"):
                self._snapshot()

    async def run(self, until: float | None = None, wall_limit: float | None = None) -> Outcome:
        """Tick until the people are done, ``until`` (board time), the wall
        limit, a failed journal or a stop; every error ends up in the outcome.
        A rig with more to start, tick or close (``fwsim``) overrides
        ``_start``, ``_atick`` and ``_aclose``."""
        started = time.monotonic()
        try:
            await self._start()
            while not self.players.finished.is_set() and not self.stopped:
                if until is not None and self.t >= until:
                    break
                if self.table.failed is not None:
                    if not any(self.table.failed in m for m in self._errors.messages):  # (the table's log said it)
                        self.out.errors.append(f"the journal failed: {self.table.failed}")
                    break
                if wall_limit is not None and time.monotonic() - started > wall_limit:
                    self.out.errors.append(f"the sim did not finish within {wall_limit:g} s of wall time")
                    break
                await self._atick()
        except EngineError as e:
            self.out.errors.append(f"{type(e).__name__}: {e}")
        except Exception as e:  # noqa: BLE001 - any internal error ends the sim and is reported
            log.exception("the sim stopped")
            self.out.errors.append(f"internal error: {e!r}")
        finally:
            self.out.t = self.t
            self.out.errors.extend(self._errors.messages)
            await self._aclose()
        return self.out

    async def _start(self) -> None:
        pass

    async def _aclose(self) -> None:
        self.close()


async def run_fast(opts, script=(), until: float | None = None, say=None) -> dict:
    """``coindrel sim --fast``: the sim's result (``simresult.result_json``)."""
    import sys

    from .simresult import result_json

    say = say or (lambda text: print(text, flush=True))
    if getattr(opts, "hub", "model") == "firmware":
        from .fwsim import FirmwareRig

        rig = FirmwareRig(opts, list(script))
    else:
        rig = FastRig(opts, list(script))
    if opts.display == "text":
        rig.on_mismatch = lambda report, view: say(mismatch_text(report, view))
    started = time.monotonic()
    club = None
    if getattr(opts, "club", None) is not None:
        from ..club.feed import attach

        club = attach(lambda: rig.table, opts.club, rig.state_dir)
    restore = stop_on_signals(lambda: setattr(rig, "stopped", True))
    try:
        out = await rig.run(until=until)
    finally:
        restore()
        if club is not None:
            await club.finish()
    for e in out.errors:
        print(f"coindrel sim: {e}", file=sys.stderr)
    out.unplugs += fault_unplugs(rig.board)
    return result_json(rig.table, out, time.monotonic() - started)


def fault_unplugs(board) -> int:
    """Unplugs the --fault list made happen (the script's are counted as they happen)."""
    return sum(1 for f in board.fault_list if f.name == "unplug" and f.t <= board.now)


def mismatch_text(report, view) -> str:
    """One mismatch for text output, worded as the OLED words it: the drop,
    what the board did against what was expected, every explanation."""
    from ..display import notice_text

    drop = view.drop if getattr(view, "drop", None) is not None else report.drop  # the match's count
    return notice_text(view, head=f"Mismatch at drop {drop}:" if drop is not None else None)
