"""The tabletop daemon: the ports wired to the flow, in one asyncio loop.

    board source ──► events ──► journal, reconciler ──► reports ──► flow ──► view ──► display
    buttons ──► actions ──────────────────────────────────────────► flow ──► effects ──► outputs

``Table`` holds the parts and does one thing per call (``handle_event``,
``handle_action``, ``step``), so tests drive it with a fake clock; ``run``
is the loop that calls them. Time: the match runs on ``clock()`` (monotonic
plus the offset that carries a recovered match's time on); the reconciler
runs on the board's own clock, extrapolated between events.

Its concerns live beside it, one module each, joined into ``Table``:
``source_link`` (the board source, snapshots, resuming a match),
``diagnosing`` (the reconciler and its timing), ``carry_out`` (the flow's
effects) and ``loop`` (``run`` and its timers).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Callable

from ..engine import Geometry, Match
from ..events import StatusEvent, SwitchEvent
from ..reconcile.observed import Sensors
from .carry_out import EffectsMixin
from .diagnosing import TIMING_FILE, DiagnosisMixin
from .flow import TableFlow
from .history import list_matches
from .journal import DiskFull, JournalError
from .known_faults import KnownFaultsMixin
from .loop import IDLE, STEP, LoopMixin, TableDied
from .questions import QuestionsMixin
from .roomwait import RoomWaitMixin
from .setupmenu import Choices
from .source_link import SourceMixin
from .status import status_text
from .waiting import WaitingJournal

log = logging.getLogger("coindrel.table")
FALLING_PATIENCE = 8.0  # seconds with no drop report, no open group and the hub there: the coin's events were lost
TIMING_EVERY = 8  # drop reports between saves of the board's learned timing (a kill loses at most these)


class Table(SourceMixin, DiagnosisMixin, KnownFaultsMixin, EffectsMixin, LoopMixin, QuestionsMixin, RoomWaitMixin):
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
        self.filed = None  # (summary, match) of the match last filed as finished
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
        # the pads are asked about once what the hub saw meanwhile is reconciled (modes_pads)
        self.flow.board_quiet = lambda: not self.awaiting_board and not self.diagnosing
        self.flow.lying_halls = self.lying_halls  # "Board is right" never takes a hall known to lie (known_faults.py)
        if display is not None and getattr(display, "size", None):
            self.flow.panel_size = tuple(display.size)  # notices page by what fits on this panel
        self.reconciler = None  # diagnosing.py builds it for the match
        self.journal = None
        self.journalled: Match | None = None  # the match the open journal records
        self.board_offset: float | None = None  # board time - clock()
        self.last_board_t = float("-inf")
        # board_offset was learnt from the journal (the board clock the last process heard): the
        # live source's clock may have started again (a new hub session), so its first event sets it
        self.offset_from_journal = False
        self.last_status = ""
        self.reports = 0
        self.drop_numbers: dict[int, int] = {}  # the reconciler's count of a drop -> the match's (journalled)
        self.numbers_for, self.match_first_drop = None, 0  # the match numbered, and its first drop's reconciler count
        self.failed: str | None = None  # why the table must restart (a journal that cannot save)
        self._poke = asyncio.Event()  # set by every event and press: the loop steps at once
        self._shown = None  # the view on the panel now
        self.awaiting_board = False  # a resumed open drop waits for the board's snapshot (resync.py)
        self.board_reading = asyncio.Lock()  # one snapshot compared with the belief at a time (_read_positions)
        self._losses_seen: set[int] = set()  # the source's losses already asked about
        self.unseen_t, self.taken_unseen = None, []  # the source's snapshot differences since the board was compared
        self.board_compared = False  # resync.py: the first comparison follows this process's own start
        self.hub_last = None  # the hub position of the newest board event taken in (journal's, after a restart)
        self.hub_repeats = 0  # board events given again and dropped (source_link._had)
        # what waits outside any match (the club's requests), journalled beside the match (waiting.py)
        state_dir = getattr(store, "dir", None)
        self.waiting = WaitingJournal(state_dir, datasync=getattr(store, "_datasync", None)) if state_dir else None
        self.waiting_saved: tuple = ((), ())
        self.coins_saved: list = []  # the coins in, as last journalled (source_link.save_coins)

    @property
    def healthy(self) -> bool:
        """False withholds the watchdog's ping: systemd restarts the daemon,
        which resumes from its journal (a journal that cannot write is the one
        failure the table cannot carry on through). A full disk is waited out
        in the running daemon (roomwait.py): a restart would find it as full."""
        return self.failed is None or self.room_wait is not None

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
                self.board_offset, self.offset_from_journal = t - self._clock(), False
        return self._clock() + (self.board_offset or 0.0)

    def _heard(self) -> float | None:
        """Board time up to which every board event has reached the flow:
        what the source has vouched for, once nothing it read waits in its
        queue (None: a source that vouches for nothing, or a link that is down)."""
        src = self.source
        if not self.flow.link_up or not getattr(src, "vouches", False):
            return None
        queued = getattr(src, "queued", None)  # (a source with no queue of its own has nothing waiting)
        return float("-inf") if queued is not None and queued() else src.board_time()

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

    def handle_event(self, ev, from_board: bool = True) -> None:
        """One event. ``from_board`` False: one the table made up on the
        journal's time axis (resync.py), which says nothing of the board's clock."""
        if self.room_wait is not None:
            return  # the disk is full: it stays in the hub's replay ring, taken up once the table is rebuilt
        self._poke.set()
        hub = self._hub_position(ev)
        if hub is not None and self._had(hub):
            return  # given again (a replay from before what the table has): journalled and reconciled once
        now = self.now()
        if isinstance(ev, StatusEvent):
            if ev.state in ("connected", "disconnected"):
                self.flow.on_link(ev.state == "connected", ev.detail, now)
            elif ev.state == "lost":
                self._check_losses()
            elif ev.state == "resync" and self.flow.match is not None and not self.flow.match.over:
                self.flow.pads_unknown = True  # the hub restarted: what fell meanwhile nobody saw
        elif from_board:
            offset = ev.t - self._clock()
            if self.board_offset is None or self.offset_from_journal:
                self.board_offset, self.offset_from_journal = offset, False
                self.last_board_t = ev.t
            else:  # events the hub gives back after a restart are older than its clock: never backwards
                self.board_offset = max(self.board_offset, offset)
        if from_board:
            self._note_unseen(ev)
        if isinstance(ev, SwitchEvent):
            self.positions[ev.switch] = ev.pos
        if self.journal is not None:
            self._save(self.journal.event, ev, False, hub)
        self._diagnose(ev)
        if not isinstance(ev, StatusEvent):
            self.flow.on_event(ev, now)
        self._after_flow()

    def handle_action(self, name: str) -> None:
        if self.room_wait is not None:  # nothing is played unsaved: the panel says "Disk full" until the table goes on
            if self.display is not None:
                self.display.wake(self.now())  # (a dimmed or sleeping panel shows it again to whoever pressed)
            return
        self._poke.set()
        self.flow.on_action(name, self.now())
        self._after_flow()

    def handle_club_request(self, request: dict) -> bool:
        """A club asks for a match (``club.link`` checked the message): on
        screen when the table is free, started only by a person there. A
        request this table cannot play is logged and dropped."""
        from .clubrequest import RequestError, match_request

        if self.room_wait is not None:
            log.warning("club: the disk is full; match request %s is dropped (the club may ask again)", request.get("id"))
            return False
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
        if self.room_wait is not None:  # the disk is full: no verdict is taken in, no clock runs
            if self.display is not None:
                self.display.tick(now)
            self._status()
            return
        for report in self._finished_reports():
            self.reports += 1
            report, kept = self._numbered(report)
            if self.journal is not None:
                self._save(self.journal.verdict, kept)
            self.flow.on_report(report, now)
            self._after_flow()
            if self.reports % TIMING_EVERY == 0:
                self.save_timing()  # what it learned outlives a kill too, not only a clean stop
            self.save_known_faults()  # and what it knows of the board's faults, after every drop
        self._check_falling(now)
        self.flow.tick(now, self.board_now(), self._heard())
        self._after_flow()
        if self.display is not None:
            self.display.tick(now)
        if self.outputs is not None:
            self.outputs.tick(now)
        self._status()

    def _numbered(self, report):
        """``report`` with the match's drop numbers, and what the journal keeps
        of it: the reconciler counts its own drops (from 1 again after a
        restart, and past coins that scored nothing), while a player, the
        journal and a revision mean the match's. A second coin in one turn
        scores nothing: the journal keeps it as no drop of the match."""
        import dataclasses

        revises = getattr(report, "revises", None)
        if revises is not None:
            if revises in self.drop_numbers:
                report = dataclasses.replace(report, revises=self.drop_numbers[revises])
            return report, report
        m = self.flow.match
        if report.drop is None or m is None or m.over:
            return report, report
        if self.flow.is_extra_coin(report):
            return report, dataclasses.replace(report, drop=None)
        number = len(m.results) + 1
        if self.numbers_for is not m:  # this match's first numbered drop: the reconciler's before it are earlier matches'
            self.numbers_for, self.match_first_drop = m, report.drop
        self.drop_numbers[report.drop] = number
        report = report if number == report.drop else dataclasses.replace(report, drop=number)
        return report, report

    def _check_falling(self, now: float) -> None:
        """A coin that went in must come back as a drop; if the board's
        events for it were lost, the flow scores it and asks (never a table
        waiting for ever)."""
        f, m = self.flow, self.flow.match
        if m is None or m.phase != "falling" or not f.link_up or self.diagnosing:
            return
        if now - max(f.falling_since, f.link_since) >= FALLING_PATIENCE:
            f.coin_unaccounted(now)
            self._after_flow()

    # -- effects -----------------------------------------------------------------------------------

    def _after_flow(self) -> None:
        self._apply_effects()
        self._note_questions()  # held: written with the drop, or with what the answer changes
        if self.journal is not None and self.journalled is not None:
            self._save(self.journal.sync_match, self.journalled)
            # after the drop's action: a kill between the two leaves a coin the next verdict taken in has
            # reported, which restore_coins leaves out; never a coin forgotten before its report is on disk
            self.save_coins()
        self.save_waiting()

    def _save(self, write, *args) -> None:
        """Journal something; when the journal cannot save, the table stops
        (systemd restarts it and it recovers the match from what is on disk)."""
        if self.failed is not None:
            return
        try:
            write(*args)
        except JournalError as e:
            self._cannot_save(e)

    def _cannot_save(self, e: JournalError, store_errors: bool = False) -> None:
        """The table stops (``failed``); on a full disk it waits for room
        (roomwait.py), told to the players with what is saved. ``store_errors``: a ``StoreError`` (the store
        used as it must not be) is raised again, as before."""
        from .store import StoreError

        if store_errors and isinstance(e, StoreError):
            raise e
        if not isinstance(e, DiskFull):
            self.failed = str(e)
            log.error("%s", e)
            return
        self._wait_for_room(e)

    def _new_match(self, match: Match) -> None:
        self._believe(match.board, match, pads_checked=True)  # the players set the board up
        if self.journal is not None:
            # The last match's journal is still open (no END_MATCH reached the daemon): file it
            # before the next begins, so neither is lost and the store never refuses the new one.
            how = "finished" if self.journalled is not None and self.journalled.over else "abandoned"
            log.warning("match %s was never ended; filed as %s before the next one began", self.journal.match_id, how)
            self._end_match(how, why="a new match began before it was ended")
        if self.store is not None and self.failed is None:
            try:
                self.journal = self.store.begin(match, meta={"halls": self.halls_known})
            except JournalError as e:
                self._cannot_save(e, store_errors=True)
                return
            self.journalled = match

    def _end_match(self, how: str, match: Match | None = None, why: str = "ended from the menu") -> None:
        # The journal is closed with the match it records: the flow may have let go of it ("End match")
        # or moved on to another by the time the daemon carries the effect out.
        match = self.journalled if self.journalled is not None else match
        if self.journal is not None and match is not None and self.failed is None:
            self._note_questions()  # its last drop's question goes in before the end
            self._save(self.journal.sync_match, match)
            self.save_timing()
            try:
                if self.failed is not None:
                    pass  # left as it is on disk: the restart resumes (or files) it from there
                elif how == "finished":
                    summary = self.store.finish(self.journal, match)
                    self.filed = (summary, match)  # its last drop may still be undone or corrected
                else:
                    self.store.abandon(self.journal, match, why)
            except JournalError as e:
                self._cannot_save(e, store_errors=True)
        self.journal = self.journalled = None

    def _reopen_match(self, match: Match) -> None:
        """The players undo or correct the last drop of a match just filed:
        its journal comes back from the history to take what follows."""
        filed, self.filed = self.filed, None
        if self.store is None or self.failed is not None or filed is None or filed[1] is not match:
            return
        if self.journal is not None:
            return  # another match's journal is open: the change stays in the flow only
        from .store import StoreError

        try:
            self.journal = self.store.reopen(filed[0])
        except (JournalError, StoreError, OSError) as e:
            log.error("could not reopen match %s to take the undone drop: %s", filed[0].id, e)
            return
        self.journalled = match

    def _status(self) -> None:
        if self.room_wait is not None:
            text = self.room_status()
        else:
            text = status_text(self.flow.match)
            if not self.flow.link_up:
                text += " [waiting for the hub]"
        if text != self.last_status:
            self.last_status = text
            if self.notifier is not None:
                self.notifier.status(text)


__all__ = ["FALLING_PATIENCE", "IDLE", "STEP", "TIMING_FILE", "Table", "TableDied"]
