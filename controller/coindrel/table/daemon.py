"""The tabletop daemon: the ports wired to the flow, in one asyncio loop.

    board source ──► events ──► journal, reconciler ──► reports ──► flow ──► view ──► display
    buttons ──► actions ──────────────────────────────────────────► flow ──► effects ──► outputs

``Table`` holds the parts and does one thing per call (``handle_event``,
``handle_action``, ``step``), so tests drive it with a fake clock; ``run``
is the loop that calls them. Time: the match runs on ``clock()`` (monotonic
plus the offset that carries a recovered match's time on); the reconciler
runs on the board's own clock, extrapolated between events.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import Callable

from ..engine import BoardState, EngineError, Geometry, Match
from ..engine.core import HOLE
from ..events import EntryEvent, StatusEvent, SwitchEvent
from ..limits import SMALL, read_limited
from ..reconcile import Reconciler
from ..reconcile.observed import Sensors
from . import effects as fx
from .flow import TableFlow
from .history import list_matches
from .journal import JournalError, write_durably
from .setupmenu import Choices
from .status import status_text

log = logging.getLogger("coindrel.table")
TIMING_FILE = "board-timing.json"
STEP = 0.03  # seconds between steps of the loop while something moves (coins, the reveal, a melody)
FALLING_PATIENCE = 8.0  # seconds with no drop report, no open group and the hub there: the coin's events were lost
IDLE = 1.0  # the longest the loop sleeps when nothing on the screen or a clock can change


class TableDied(EngineError):
    """A part of the running table failed; the process must end (and be restarted)."""


class Table:
    def __init__(
        self,
        geometry: Geometry,
        choices: Choices,
        *,
        source=None,
        display=None,
        outputs=None,
        store=None,
        notifier=None,
        clock: Callable[[], float] = time.monotonic,
        new_seed: Callable[[], int] = lambda: secrets.randbelow(2**53),
        reveal_seconds: float = 6.0,
        keyed: bool = False,
    ):
        self.geometry = geometry
        if source is None:  # no board source given: drops are keyed in, as with source = "none"
            from ..sources.keyed import KeyedSource

            source = KeyedSource()
        self.source, self.display, self.outputs, self.store, self.notifier = source, display, outputs, store, notifier
        self._clock = clock
        self.offset = 0.0  # match time = clock() + offset
        self._last_now = float("-inf")
        caps = getattr(source, "capabilities", None)
        self.halls_known = bool(caps and caps.halls)
        self.hub_dropper = bool(caps and getattr(caps, "dropper", False))
        self.hub_leds = bool(caps and getattr(caps, "entry_leds", False))
        local_dropper = outputs is not None and getattr(outputs, "dropper", None) is not None and outputs.dropper.available
        self.positions: dict[str, str] = {}
        # what the reconciler may expect to hear about (a GPIO build has no hall sensors)
        self.sensors = Sensors(entries=bool(caps and caps.entries), exits=bool(caps and caps.exits),
                               halls=self.halls_known) if caps is not None else Sensors()
        self.flow = TableFlow(
            geometry, choices, new_seed=new_seed, read_board=self.read_board, history=self._history,
            read_positions=lambda: dict(self.positions),
            has_dropper=self.hub_dropper or local_dropper, has_halls=self.halls_known,
            has_beams=bool(caps and (caps.entries or caps.exits)), keyed=keyed or bool(caps and getattr(caps, "keyed", False)),
            reveal_seconds=reveal_seconds,
        )
        if display is not None and getattr(display, "size", None):
            self.flow.panel_size = tuple(display.size)  # notices page by what fits on this panel
        self.reconciler: Reconciler | None = None
        self.journal = None
        self.board_offset: float | None = None  # board time - clock()
        self.last_board_t = float("-inf")
        self.last_status = ""
        self.reports = 0
        self.failed: str | None = None  # why the table must restart (a journal that cannot save)
        self._poke = asyncio.Event()  # set by every event and press: the loop steps at once
        self._shown = None  # the view on the panel now
        self.awaiting_board = False  # a resumed open drop waits for the board's snapshot (resync.py)

    @property
    def healthy(self) -> bool:
        """False withholds the watchdog's ping: systemd restarts the daemon,
        which resumes from its journal (a journal that cannot write is the one
        failure the table cannot carry on through)."""
        return self.failed is None

    # -- time -------------------------------------------------------------------------------

    def now(self) -> float:
        """Match time: never backwards, also across a restart (rounding included)."""
        self._last_now = max(self._last_now, self._clock() + self.offset)
        return self._last_now

    def board_now(self) -> float:
        """The board's clock, extrapolated from the last thing it sent (an
        event, or a heartbeat the source reports as its board time)."""
        if hasattr(self.source, "board_time"):
            t = self.source.board_time()
            if t > self.last_board_t:
                self.last_board_t = t
                self.board_offset = t - self._clock()
        return self._clock() + (self.board_offset or 0.0)

    # -- start and resume ----------------------------------------------------------------------

    def resume(self, recovery) -> None:
        """Carry on with a match recovered from the journal after a restart."""
        for message in recovery.messages:
            log.warning("%s", message)
        if recovery.match is None:
            return
        self.offset = recovery.time_offset(self._clock())
        self._last_now = recovery.last_t or self._last_now
        self.journal = recovery.journal
        match = recovery.match
        if match.over:
            self.store.finish(self.journal, match)
            self.journal = None
            return
        self.flow.begin(match, self.now(), resumed=True)
        self._apply_effects()
        self._replay_open_drop(recovery.records)

    def _replay_open_drop(self, records) -> None:
        """Board events after the last reconciled drop belong to a drop still
        open when the table stopped: the new reconciler hears them again, so
        that drop is reconciled (and scored) when the rest of it comes."""
        from ..events import event_from_json

        last = max((i for i, r in enumerate(records) if r.kind == "verdict"), default=-1)
        pending = [event_from_json(r.data) for r in records[last + 1:] if r.kind == "ev"]
        self.flow.falling_since = self.now()
        entries = [ev.entry for ev in pending if isinstance(ev, EntryEvent)]
        if entries:
            self.flow.falling_entry = entries[0]
        if not pending or self.reconciler is None:
            return
        for ev in pending:
            if not isinstance(ev, StatusEvent):
                self.reconciler.feed(ev)
        self.board_offset = pending[-1].t - self._clock()
        self.last_board_t = max(self.last_board_t, pending[-1].t)
        # its coins may have fallen on while the table was down: it is closed
        # only once the snapshot has been compared with it (resync.py)
        self.awaiting_board = self.halls_known and hasattr(self.source, "snapshot")

    def read_board(self) -> BoardState | None:
        """The switch positions the hall sensors show (pads empty), or None
        when the board has no hall sensors."""
        if not self.halls_known:
            return None
        missing = [label for label in self.geometry.labels if label not in self.positions]
        if missing:
            raise EngineError(f"No reading yet from {len(missing)} switch(es) ({missing[0]}...): is the hub connected?")
        unseated = [label for label, pos in self.positions.items() if pos == "mid"]
        if unseated:
            raise EngineError("Seat " + ", ".join(unseated[:4]) + ": the rocker is between sides.")
        codes = []
        for label in self.geometry.labels:
            pos = self.positions.get(label)
            codes.append(HOLE if pos == "none" else (1 if pos == "R" else 0))
        return BoardState(self.geometry, codes)

    def _history(self):
        if self.store is None:
            return []
        from ..display import HistoryItem

        items = []
        for m in list_matches(self.store.dir, include_current=False)[:20]:
            if len(m.players) != 2 or m.result not in ("finished", "abandoned"):
                continue
            when = time.strftime("%d %b %H:%M", time.localtime(m.ended or m.started or 0))
            winner = m.winner if m.winner in (1, 2) else None
            items.append(HistoryItem(when, tuple(m.players), tuple(m.totals), winner))
        return items

    # -- inputs ------------------------------------------------------------------------------------

    def handle_event(self, ev) -> None:
        self._poke.set()
        now = self.now()
        if isinstance(ev, StatusEvent):
            if ev.state in ("connected", "disconnected"):
                self.flow.on_link(ev.state == "connected", ev.detail, now)
        else:
            self.board_offset = ev.t - self._clock()
        if isinstance(ev, SwitchEvent):
            self.positions[ev.switch] = ev.pos
        if self.journal is not None:
            self._save(self.journal.event, ev)
        if self.reconciler is not None and self.flow.match is not None:
            self.reconciler.feed(ev)  # outside a match, board events go to no drop and score nothing
        if not isinstance(ev, StatusEvent):
            self.flow.on_event(ev, now)
        self._after_flow()

    def handle_action(self, name: str) -> None:
        self._poke.set()
        self.flow.on_action(name, self.now())
        self._after_flow()

    def handle_club_request(self, request: dict) -> bool:
        """A club asks for a match (``club.link`` checked the message): on
        screen when the table is free, started only by a person there. A
        request this table cannot play is logged and dropped."""
        from .clubrequest import RequestError, match_request

        try:
            self.flow.on_club_request(match_request(request), self.now())
        except RequestError as e:
            log.warning("club: %s; the request is dropped", e)
            return False
        log.info("club: match request %s waits for a person at the table", request.get("id"))
        self._poke.set()
        self._after_flow()
        return True

    def step(self) -> None:
        """Reconcile what has settled, run the clock, refresh the outside world."""
        now = self.now()
        if self.reconciler is not None and not self.awaiting_board:
            for report in self.reconciler.poll(self.board_now()):
                self.reports += 1
                if self.journal is not None:
                    self._save(self.journal.verdict, report)
                self.flow.on_report(report, now)
                self._after_flow()
        self._check_falling(now)
        self.flow.tick(now, self.board_now())
        self._after_flow()
        if self.display is not None:
            self.display.tick(now)
        if self.outputs is not None:
            self.outputs.tick(now)
        self._status()

    def _check_falling(self, now: float) -> None:
        """A coin that went in must come back as a drop; if the board's
        events for it were lost, the flow scores it and asks (never a table
        waiting for ever)."""
        f, m = self.flow, self.flow.match
        if m is None or m.phase != "falling" or not f.link_up or (self.reconciler is not None and self.reconciler.busy):
            return
        if now - max(f.falling_since, f.link_since) >= FALLING_PATIENCE:
            f.coin_unaccounted(now)
            self._after_flow()

    # -- effects -----------------------------------------------------------------------------------

    def _after_flow(self) -> None:
        self._apply_effects()
        if self.journal is not None and self.flow.match is not None:
            self._save(self.journal.sync_match, self.flow.match)

    def _save(self, write, *args) -> None:
        """Journal something; when the journal cannot save, the table stops
        (systemd restarts it and it recovers the match from what is on disk)."""
        if self.failed is not None:
            return
        try:
            write(*args)
        except JournalError as e:
            self.failed = str(e)
            log.error("%s", e)

    def _apply_effects(self) -> None:
        effects, self.flow.effects = self.flow.effects, []
        now = self.now()
        for e in effects:
            try:
                self._apply(e, now)
            except Exception:  # an output failing must never stop the match
                log.exception("could not carry out %s", e)

    def _apply(self, e: fx.Effect, now: float) -> None:
        o = self.outputs
        if e.kind == fx.SOUND and o is not None:
            o.buzzer.play(e.name, now)
        elif e.kind == fx.LED:
            if o is not None:
                if e.name == "off":
                    o.leds.set(e.entry, False)
                else:
                    o.leds.blink(e.entry, now)
            self._hub_outputs(leds=[] if e.name == "off" else [e.entry])
        elif e.kind == fx.LEDS_OFF:
            if o is not None:
                o.leds.clear()
            self._hub_outputs(leds=[])
        elif e.kind == fx.DROP:
            if o is not None and o.dropper.available:
                o.dropper.drop(e.entry, now)
            else:
                self._hub_outputs(drop=e.entry)
        elif e.kind == fx.WAKE and self.display is not None:
            self.display.wake(now)
        elif e.kind == fx.NEW_MATCH:
            self._new_match(e.data)
        elif e.kind == fx.BELIEF:
            self._reconciler_for(self.flow.match).reset(e.data)
        elif e.kind == fx.EXPECT and self.reconciler is not None:
            self.reconciler.expecting = bool(e.data)
        elif e.kind == fx.END_MATCH:
            self._end_match(e.name, e.data)

    def _hub_outputs(self, **kw) -> None:
        if not (self.hub_leds or self.hub_dropper):
            return
        if "drop" in kw and not self.hub_dropper:
            return
        if "leds" in kw and not self.hub_leds:
            return
        asyncio.get_event_loop().create_task(self._send_outputs(kw))

    async def _send_outputs(self, kw) -> None:
        try:
            await self.source.set_outputs(**kw)
        except Exception as e:  # a hub without the output, or one that is gone
            log.warning("hub outputs %s failed: %s", kw, e)

    def _reconciler_for(self, match: Match | None) -> Reconciler:
        if self.reconciler is None or (match is not None and self.reconciler.variants != match.setup.variants):
            variants = match.setup.variants if match is not None else None
            board = match.board if match is not None else BoardState.empty(self.geometry)
            self.reconciler = Reconciler(self.geometry, board, variants, sensors=self.sensors)
            self._restore_timing()
        return self.reconciler

    # The board's timing, as the reconciler learned it, outlives a restart.

    @property
    def _timing_path(self):
        return None if self.store is None else self.store.dir / TIMING_FILE

    def _restore_timing(self) -> None:
        path = self._timing_path
        if path is None or not path.exists():
            return
        try:
            self.reconciler.timing.restore(json.loads(read_limited(path, SMALL)))
        except (OSError, ValueError, EngineError) as e:
            log.warning("%s: %s; the board's timing is learned again", path, e)

    def save_timing(self) -> None:
        path = self._timing_path
        if path is None or self.reconciler is None or not self.reconciler.timing.learned:
            return
        try:
            write_durably(path, json.dumps(self.reconciler.timing.to_json()).encode())
        except OSError as e:
            log.warning("cannot save the board's timing to %s: %s", path, e.strerror)

    def _new_match(self, match: Match) -> None:
        self._reconciler_for(match).reset(match.board)
        if self.store is not None:
            self.journal = self.store.begin(match, meta={"halls": self.halls_known})

    def _end_match(self, how: str, match: Match | None = None) -> None:
        match = match or self.flow.match  # "End match" has let go of it already
        if self.journal is not None and match is not None and self.failed is None:
            self._save(self.journal.sync_match, match)
            self.save_timing()
            if how == "finished":
                self.store.finish(self.journal, match)
            else:
                self.store.abandon(self.journal, match, "ended from the menu")
        self.journal = None

    def _status(self) -> None:
        text = status_text(self.flow.match)
        if not self.flow.link_up:
            text += " [waiting for the hub]"
        if text != self.last_status:
            self.last_status = text
            if self.notifier is not None:
                self.notifier.status(text)

    # -- the loop ------------------------------------------------------------------------------------

    async def run(self, actions: asyncio.Queue | None = None, stop: asyncio.Event | None = None,
                  control=None) -> None:
        """``control``: a ``control.ControlServer`` to serve in this loop (coindrel ctl)."""
        stop = stop or asyncio.Event()
        tasks = [asyncio.create_task(self._pump_steps(stop))]
        if control is not None:
            await control.start()
        if self.source is not None:
            await self.source.start()
            tasks.append(asyncio.create_task(self._pump_events()))
        if actions is not None:
            tasks.append(asyncio.create_task(self._pump_actions(actions)))
        if self.outputs is not None:
            tasks.append(asyncio.create_task(self.outputs.serve()))
        if self.notifier is not None:
            self.notifier.ready(status_text(self.flow.match))
        stopping = asyncio.create_task(stop.wait())
        try:
            # A part of the table that dies must not leave a live-looking table
            # behind: its error ends the run (systemd restarts the daemon, and
            # the journal resumes the match).
            waiting = {stopping, *tasks}
            while not stopping.done():
                done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                for t in done:
                    if t is not stopping and not t.cancelled() and t.exception() is not None:
                        log.error("the table stops: %s failed", t.get_coro().__qualname__, exc_info=t.exception())
                        raise TableDied(f"{t.get_coro().__qualname__} failed: {t.exception()!r}") from t.exception()
        finally:
            stopping.cancel()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if control is not None:
                await control.close()
            self.save_timing()
            await self.source.close()
            if self.notifier is not None:
                self.notifier.stopping()

    async def _pump_events(self) -> None:
        async for ev in self.source.events():
            self.handle_event(ev)
            if isinstance(ev, StatusEvent) and ev.state in ("connected", "resync") and self.halls_known:
                asyncio.get_running_loop().create_task(self._read_positions())

    async def _read_positions(self) -> None:
        """Every switch's position, from a snapshot: events only say what changed."""
        try:
            snap = await self.source.snapshot()
        except Exception as e:  # the hub went away again; the next connect asks again
            log.warning("no snapshot from the board: %s", e)
            return
        from .resync import resync

        resync(self, snap)  # the board against the belief: differences reconciled or flagged
        self.learn_positions(snap.positions)

    def learn_positions(self, positions: dict[str, str]) -> None:
        """Every switch's position, as a snapshot shows it (after ``resync``
        compared it with the belief: a resumed open drop waits no longer)."""
        self.awaiting_board = False
        if self.flow.match is None:
            self.positions.update(positions)
        else:  # during a match the switch events are newer than any snapshot
            for label, pos in positions.items():
                self.positions.setdefault(label, pos)
        self.flow.on_positions(positions, self.now())
        self._after_flow()

    async def _pump_actions(self, actions: asyncio.Queue) -> None:
        while True:
            action = await actions.get()
            self.handle_action(getattr(action, "name", action))

    async def _pump_steps(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.step()
            if self.failed is not None:
                stop.set()  # nothing more can be saved: let systemd restart us
                break
            if self.display is not None:
                view = self.flow.view(self.now())
                if view != self._shown:  # an unchanged screen costs no frame (and no worker thread wakes)
                    if await self.display.show_async(view, self.now()):
                        self._shown = view
            self._poke.clear()
            try:  # an event or a press wakes the loop at once
                await asyncio.wait_for(self._poke.wait(), self.next_step_in(self.now()))
            except asyncio.TimeoutError:
                pass

    def next_step_in(self, now: float) -> float:
        """How long the loop may sleep before something on the screen, a
        clock or a falling coin needs it (board events and presses wake it)."""
        f, m = self.flow, self.flow.match
        if (self.reconciler is not None and self.reconciler.busy) or f.mode == "reveal" \
                or (f.runner is not None and f.runner.phase == "falling") or (m is not None and m.phase == "falling"):
            return STEP
        waits = [IDLE]
        if m is not None and not m.over and not f.pauses and m.phase == "turn":
            left = m.remaining(now)
            if left is not None:
                waits.append(left % 1.0 + 0.005 if left > 0 else STEP)  # the clock shows whole seconds
        for until in (f.message_until, f.note_until, f.since + f.result_seconds):
            if until > now:
                waits.append(until - now)
        if self.display is not None:
            due = self.display.next_deadline(now)
            if due is not None:
                waits.append(due - now)
        return max(STEP, min(waits))  # (the outputs' own task keeps a melody on time)
