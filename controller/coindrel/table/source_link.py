"""The table and its board source: the events it sends, the switch positions
a snapshot shows (compared with the believed board after every connect,
``resync.py``), and picking a match up again after a restart (the journal's
open drop).
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial

from ..engine import BoardState, EngineError
from ..engine.core import HOLE
from ..events import EntryEvent, StatusEvent, SwitchEvent
from .journal import JournalError
from .open_drop import coins_note, in_match_until, open_events, orphan_verdicts, restore_coins, saved_report, unseen_pads

log = logging.getLogger("coindrel.table")


def last_hub_position(records):
    """The hub position of the last board event on disk that has one (None:
    none): the daemon's journal keeps it as ``"hub": [boot, frame number]``."""
    from ..hub.resume import HubPosition

    for r in reversed(records):
        pos = r.data.get("hub") if r.kind == "ev" and isinstance(r.data, dict) else None
        if (isinstance(pos, list) and len(pos) in (2, 3) and all(type(x) is int for x in pos)
                and pos[0] >= 0 and pos[1] >= 0):
            return HubPosition(*pos)  # [boot, frame] or [boot, frame, offset_us]
    return None


def last_board_time(records) -> float | None:
    """Board time of the newest board event in the journal (None: none)."""
    ts = [r.data["t"] for r in records
          if r.kind == "ev" and isinstance(r.data, dict) and isinstance(r.data.get("t"), (int, float))]
    return max(ts) if ts else None


class SourceMixin:
    """Part of ``daemon.Table``."""

    # -- resuming after a restart ------------------------------------------------------------

    def resume(self, recovery) -> None:
        """Carry on with a match recovered from the journal after a restart."""
        for message in recovery.messages:
            log.warning("%s", message)
        self._restore_waiting()
        if recovery.match is None:
            self._ask_filed_again()  # the match last filed may still wait for an answer
            return
        self.offset = recovery.time_offset(self._clock())
        self._last_now = recovery.last_t or self._last_now
        self.journal, self.journalled = recovery.journal, recovery.match
        match = recovery.match
        if match.over:
            self.store.finish(self.journal, match)
            self.journal = self.journalled = None
            self._ask_filed_again()
            return
        self.flow.begin(match, self.now(), resumed=True)
        self._apply_effects()
        if restore_coins(self.flow, recovery.records, in_match_until(recovery.records)):
            log.info("coins that went in before the restart wait for their drops again: %s",
                     ", ".join(f"entry {c[1] + 1}" + (" (a second coin in its turn)" if c[2] else "")
                               for c in self.flow.coins_in))
        self.coins_saved = coins_note(self.flow)
        self._replay_open_drop(recovery.records)
        if not self._ask_again(recovery.records, match):  # a question the players had not answered
            self._restore_again(recovery.records, match)  # or the board being put back after an undo
        pos = last_hub_position(recovery.records)
        self.hub_last = pos  # what the journal holds (and the reconciler was fed) is never taken in again
        if pos is not None and hasattr(self.source, "resume_from"):
            # the hub sends again what it sent while the table was down (its replay ring)
            self.source.resume_from(pos, last_board_time(recovery.records))
            log.info("resuming the hub's events after boot %08x frame %d", pos.boot_id, pos.num)

    def _restore_waiting(self) -> None:
        """The club's match requests that waited when the table stopped."""
        if self.waiting is None:
            return
        requests, seen, messages = self.waiting.load()
        for message in messages:
            log.warning("%s", message)
        if requests or seen:
            self.flow.club_requests, self.flow.club_seen = requests, seen
            self.waiting_saved = (tuple(r.id for r in requests), seen)
        if requests:
            log.info("club: %d match request(s) still wait for a person at the table (%s)", len(requests),
                     ", ".join(r.id for r in requests))
            self.flow.offer_club_request(self.now())
            self._apply_effects()

    def save_waiting(self) -> None:
        """Journal what waits outside any match once it changed (the club's requests)."""
        f = self.flow
        now = (tuple(r.id for r in f.club_requests), tuple(f.club_seen))
        if self.waiting is None or now == self.waiting_saved:
            return
        try:
            self.waiting.save(f.club_requests, f.club_seen)
        except JournalError as e:
            log.error("%s; the waiting club requests are kept in memory only", e)
            return
        self.waiting_saved = now

    def save_coins(self) -> None:
        """Journal the coins in and not yet reported once they changed, with
        what the table decided of each (a second coin in its turn or not)."""
        if self.journal is None or self.flow.match is None or self.flow.match is not self.journalled:
            return
        coins = coins_note(self.flow)
        if coins != self.coins_saved:
            self._save(self.journal.note, {"coins_in": coins}, False)
            self.coins_saved = coins

    def _check_losses(self) -> None:
        """Board events the hub could no longer give back (``source.losses``):
        the drop they touch is marked by the reconciler (the ``lost`` status
        event goes to it); the players are asked as well, since a coin whose
        every event was lost leaves no drop behind to mark."""
        losses = list(getattr(self.source, "losses", ()) or ())
        new = [x for x in losses if id(x) not in self._losses_seen]
        self._losses_seen = {id(x) for x in losses}
        m = self.flow.match
        if not new or m is None or m.over:
            return
        from ..display import MessageView

        self.flow.pads_unknown = True  # a coin may have come to rest unseen
        loss = new[-1]
        span = f" before board time {loss.until_t:.1f} s" if loss.until_t is not None else ""
        view = MessageView("Events lost", f"Board events{span} are lost ({loss.reason}). If a coin fell "
                                          "then, check the board; the pause menu corrects or undoes the "
                                          "last drop.", alert=True)
        self.flow.ask(view)
        self.flow.loss_asked = view  # the pads check, when it comes, asks this too (modes_pads)
        log.warning("board events%s could not be given back by the hub (%s); the players are asked to check",
                    span, loss.reason)

    def _note_unseen(self, ev) -> None:
        """Switches the source's own snapshot found changed (a hub back after
        a restart, or another board: "lost", then their events at its time),
        taken in before the table compares the board itself (``resync``):
        that comparison then names them, instead of saying it agrees."""
        from .resync import Difference

        if isinstance(ev, StatusEvent) and ev.state == "lost":
            self.unseen_t = ev.t
        elif isinstance(ev, SwitchEvent) and ev.t == self.unseen_t and len(self.taken_unseen) < 256:
            # (bounded: a source never asked for a snapshot keeps no growing list)
            self.taken_unseen.append(Difference(ev.switch, self.positions.get(ev.switch, "unknown"), ev.pos))

    def _hub_position(self, ev):
        """Where ``ev`` stands in the hub's stream (journalled with it), or None."""
        where = getattr(self.source, "hub_position", None)
        return where(ev) if where is not None and not isinstance(ev, StatusEvent) else None

    def _had(self, pos) -> bool:
        """Whether the board event at hub position ``pos`` is one the table
        already has: the journal's events are fed to the reconciler again
        after a restart, and a hub that replays from before the position
        asked for (or twice) must not add them a second time. Positions of
        another hub boot are new."""
        last = self.hub_last
        if last is not None and pos.boot_id == last.boot_id and pos.num <= last.num:
            self.hub_repeats += 1
            if self.hub_repeats == 1 or self.hub_repeats % 1000 == 0:
                log.info("the hub gave again board events the table already has (frame %d, at or before %d): "
                         "dropped (%d so far)", pos.num, last.num, self.hub_repeats)
            return True
        self.hub_last = pos
        return False

    def _replay_open_drop(self, records) -> None:
        """Take up what the journal holds beyond the last drop scored: a
        verdict saved without its score (a kill between the two) is carried
        out as it was decided (``open_drop.saved_report``), and the board
        events no verdict took in belong to a drop still open when the table
        stopped: the new reconciler hears them again, so that drop is
        reconciled (and scored) when the rest of it comes. Each event is
        reconciled once (the hub's replay resumes after the last one on disk,
        ``_had`` drops any it gives again)."""
        last = in_match_until(records)
        orphans = [i for i in orphan_verdicts(records, last)]
        carried = self._carry_out_saved(records, orphans) if orphans else []
        if orphans and len(carried) < len(orphans):
            # what could not be carried out is reconciled again: its saved verdict is superseded,
            # so the journal keeps one verdict per drop (history and the club read it so)
            left = [records[i].n for i in orphans if i not in carried]
            log.warning("%s: the verdict of record %d was saved but the table stopped before it scored the drop; "
                        "the drop is reconciled again from its events (that verdict is superseded)",
                        self.journal.path, left[0])
            self._save(self.journal.note, {"superseded": left, "why": "reconciled again after a restart"})
        if carried:
            last = max(last, max(carried))
        self.resume_known_faults()  # the board's faults, as known when the table stopped
        self._unseen_again(records, last)
        pending = open_events(records, last)
        self.flow.falling_since = self.now()
        entries = [ev.entry for ev in pending if isinstance(ev, EntryEvent)]
        if entries:
            self.flow.falling_entry = entries[0]
        if not pending or self.reconciler is None:
            return
        for ev in pending:
            # status events too, as the last process fed them: a drop the hub's
            # outage cut, or pads nobody saw, is known as such to the new
            # reconciler (without them, the coin a hand took while the hub was
            # away came out as a hall sensor fault after a restart)
            self._diagnose(ev)
        if hasattr(self.source, "resume_from") and last_hub_position(records) is not None:
            # The table was down since the last event on disk: to the new reconciler that is a link
            # outage (the hub kept what it sent meanwhile and gives it back after "connected"). Without
            # it, the "connected" of a restart that took long (a full disk's stop and restart, a slow
            # boot) closed the open drop before its own replayed events came: a coin split in two, the
            # next coin taken for a second one in its turn, every later turn scored for the other player.
            gap = StatusEvent(max(ev.t for ev in pending), "disconnected", "the table was not running (restarted)")
            self._save(self.journal.event, gap, False)  # a second restart feeds it again, with the open events
            self._diagnose(gap)
        self.board_offset = pending[-1].t - self._clock()
        self.last_board_t = max(self.last_board_t, pending[-1].t)
        self.offset_from_journal = True  # until the live source says what its clock reads
        # its coins may have fallen on while the table was down: it is closed
        # only once the snapshot has been compared with it (resync.py)
        self.awaiting_board = self.halls_known and hasattr(self.source, "snapshot")

    def _unseen_again(self, records, last: int) -> None:
        """The pads nobody saw since events were lost before the restart
        (``open_drop.unseen_pads``): the new reconciler knows them as the
        last one did (what a later drop finds there is the outage's doing)."""
        if self.reconciler is None:
            return
        labels = self.reconciler.labels
        pads = unseen_pads(records, last, labels)
        if not pads:
            return
        index = {label: i for i, label in enumerate(labels)}
        unsure = frozenset(index[p] for p in pads)
        if self._diag is not None:
            self._diag.call(partial(_set_unsure, unsure=unsure))
        else:
            _set_unsure(self.reconciler, unsure)

    def _carry_out_saved(self, records, orphans: list[int]) -> list[int]:
        """Score the saved verdicts (record indexes ``orphans``, in order) the
        match has not taken in, as the table decided them before it stopped;
        returns the indexes carried out (a prefix: one that does not fit the
        match, and all after it, are reconciled again)."""
        done = []
        for i in orphans:
            m = self.flow.match
            report = saved_report(records[i].data, self.geometry, None if m is None else len(m.results) + 1)
            if report is None or m is None or m.over:
                break
            log.warning("%s: the verdict of record %d was saved but the table stopped before it scored it; "
                        "carried out now as it was decided", self.journal.path, records[i].n)
            self.flow.on_report(report, self.now())
            self._after_flow()  # its score (or board change) on disk
            done.append(i)
        if done and self.flow.match is not None:
            # a new reconciler, its belief and hall readings the board after them (it has heard no event yet)
            self.reconciler = None
            self._believe(self.flow.match.board)
        return done

    # -- the board's switches ----------------------------------------------------------------

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

    async def _pump_events(self) -> None:
        async for ev in self.source.events():
            self.handle_event(ev)
            if isinstance(ev, StatusEvent) and ev.state in ("connected", "resync") and self.halls_known:
                # nothing is judged before the board was compared (a group the outage cut
                # takes the snapshot's differences: the rest of its coin, resync.py)
                was, self.awaiting_board = self.awaiting_board, True
                asyncio.get_running_loop().create_task(self._read_positions(was))

    async def _read_positions(self, awaiting: bool = False) -> None:
        """Every switch's position, from a snapshot: events only say what changed.
        ``awaiting``: whether the table waited for the board before (it does again
        when no snapshot comes). One comparison at a time: a "connected" and a
        "resync" close together (a restarted table meeting a hub that rebooted)
        both asked, and the second belief was read before the first one's
        differences were fed, so every difference went in twice."""
        async with self.board_reading:
            try:
                snap = await self.source.snapshot()
            except Exception as e:  # the hub went away again; the next connect asks again
                log.warning("no snapshot from the board: %s", e)
                self.awaiting_board = awaiting
                return
            from .resync import look, resync

            seen = None
            if self.reconciler is not None and self.flow.match is not None:
                seen = await self._on_worker(partial(look, snap_t=snap.t))  # it pickles: it may cross to a child
            resync(self, snap, seen)  # the board against the belief: differences reconciled or flagged
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


def _set_unsure(rec, unsure: frozenset) -> None:
    """(On the reconciler's side: it pickles.) Pads nobody saw, holes aside."""
    from ..engine.core import HOLE as hole

    rec.unsure = {i for i in unsure if rec.worlds[0].codes[i] != hole}


__all__ = ["SourceMixin", "last_hub_position"]
