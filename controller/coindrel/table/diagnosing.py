"""The table's reconciler: built for the match's variants, fed every board
event of a match, polled for finished drops and revision records, reset
when the match sets the board, and the board's timing it learned kept
across restarts.

Every use of the reconciler by the daemon goes through here. Outside the
asyncio loop (``Table.step`` driven by a test, ``coindrel sim --fast`` on
virtual time) it runs inline, so a step is deterministic. Once ``run``
starts the loop, the reconciler lives in a child process
(``reconcile.process.ProcessDiagnosis``, issue 13; ``diagnosis_in =
"thread"``: a worker thread, ``reconcile.worker.Diagnosis``): the loop only
queues events and collects what the child has finished, so a long
diagnosis holds up that drop's score and nothing else (the OLED, the
buttons, the clock, the hub).

With the child, only plain data crosses: events, board times, boards, the
timing it learned; what needs the reconciler's state (the look ``resync``
takes, the persistent faults, the timing to save) is a call the child
answers, a module-level function or a class instance, never a closure over
the table. The table keeps the store, the journal and the timing file. The
child is started once, when the loop starts (a new match with other
variants hands it a new reconciler); while the loop runs, ``reconciler`` is
the one the child started from (its variants hold, its state does not), and
when the loop ends it is the child's again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from operator import methodcaller

from ..engine import BoardState, EngineError, Match
from ..events import StatusEvent
from ..limits import SMALL, read_limited
from ..reconcile import Reconciler, knowledge
from .journal import write_durably
from ..nesting import json_kind, loads_json

log = logging.getLogger("coindrel.table")
TIMING_FILE = "board-timing.json"
FAULTS_WAIT = 0.5  # s a ``ctl status`` waits for the worker's faults before it answers with the last ones


class DiagnosisMixin:
    """Part of ``daemon.Table``."""

    reconciler: Reconciler | None = None
    diagnosis_in = "process"  # where the running loop's reconciler lives: "process" or "thread"
    _diag = None  # the child's ProcessDiagnosis (or the worker's Diagnosis), once the loop runs
    _pool: ThreadPoolExecutor | None = None
    _adopted: Reconciler | None = None  # the reconciler the child was last given

    @property
    def diagnosing(self) -> bool:
        """A drop is open, or the worker has not finished what it was given."""
        if self._diag is not None:
            return self._diag.busy or not self._diag.idle
        return self.reconciler is not None and self.reconciler.busy

    @property
    def _in_process(self) -> bool:
        from ..reconcile.process import ProcessDiagnosis

        return isinstance(self._diag, ProcessDiagnosis)

    def _off_loop(self) -> None:
        """The loop starts: from now on the reconciler runs in its child
        process (or on its worker thread). One child (one thread) for every
        reconciler of this table, so whatever one was given before a new one
        replaced it still runs first. The child starts here, once, even
        before a match gives it a reconciler (it starts with an idle one)."""
        if self.diagnosis_in == "process":
            if self._diag is None:
                from ..reconcile.process import ProcessDiagnosis

                self._adopted = self.reconciler
                rec = self.reconciler or Reconciler(self.geometry, BoardState.empty(self.geometry), sensors=self.sensors)
                self._diag = ProcessDiagnosis(rec)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="coindrel-diagnosis")
        self._wrap()

    def _wrap(self) -> None:
        from ..reconcile.worker import Diagnosis

        if self._pool is not None and self.reconciler is not None \
                and (self._diag is None or self._diag.rec is not self.reconciler):
            self._diag = Diagnosis(self.reconciler, executor=self._pool)

    def close_diagnosis(self) -> None:
        """The loop ends: let the child (the worker) finish what it was
        given; the reconciler is the loop's again, as the child left it
        (e.g. to save its timing)."""
        if self._in_process:
            diag, self._diag = self._diag, None
            rec = diag.close()
            if self._adopted is not None and self._adopted is self.reconciler:
                self.reconciler = rec
            self._adopted = None
        elif self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool, self._diag = None, None

    def _diagnose(self, ev) -> None:
        if self.reconciler is None or self.flow.match is None:
            # outside a match, board events go to no drop and score nothing; the
            # last one's time tells a new match a coin may still be falling
            if not isinstance(ev, StatusEvent):
                self.unfed_t = ev.t
            return
        if self._diag is not None:
            self._diag.feed(ev)
        else:
            self.reconciler.feed(ev)

    def _finished_reports(self) -> list:
        """Drop reports, then revision records (``revises``: a later drop
        re-explained an earlier one), in the order they were made."""
        if self.reconciler is None or self.awaiting_board:
            return []  # a resumed open drop is closed only once the board was compared with it
        d = self._diag
        now = self._vouched_now()
        if d is None:
            return self.reconciler.poll(now) + self.reconciler.revisions()
        # one poll queued at a time: a long diagnosis must not pile polls up behind it
        reports = d.poll(now) if d.idle else d.ready()
        return reports + d.revisions()

    def _vouched_now(self) -> float:
        """Board time up to which a drop may be closed: the board's clock, but
        while the hub's link is up no later than what the hub has vouched
        for. A hub that has gone quiet may be gone, and the rest of the
        cascade with it: closing on the Pi's clock then blamed a hall sensor,
        a stuck rocker and a jam on a healthy board, whenever the link noticed
        the unplug after the drop's quiet time had run out. Once the link says
        it is down, the reconciler has been told, and the clock goes on."""
        now = self.board_now()
        if self.flow.link_up and getattr(self.source, "vouches", False):
            now = min(now, self.source.board_time())
        return now

    async def _on_worker(self, fn):
        """``fn(reconciler)`` after everything queued before it (at once when inline)."""
        if self._diag is not None:
            return await self._diag.run(fn)
        return fn(self.reconciler)

    def persistent_faults(self) -> list:
        """The reconciler's persistent faults (``health().faults``). On the
        worker, the answer is the one it gave for the last question (asked
        again now): the loop never reads a reconciler the worker is changing."""
        if self.reconciler is None:
            return []
        if self._diag is None:
            return [self._match_numbered(f) for f in self.reconciler.health().faults]
        done = self._diag.call(_health_faults)
        done.add_done_callback(lambda f: f.exception() is None and setattr(self, "_faults", f.result()))
        return [self._match_numbered(f) for f in getattr(self, "_faults", [])]

    async def refresh_faults(self, timeout: float = FAULTS_WAIT) -> None:
        """Ask the worker for the faults now and wait for its answer (at most
        ``timeout``: behind a long diagnosis the last answer stands), so that
        ``ctl status`` shows the faults of the drop just reported, not those
        of the question before."""
        if self.reconciler is None or self._diag is None:
            return
        done = self._diag.call(_health_faults)
        done.add_done_callback(lambda f: f.exception() is None and setattr(self, "_faults", f.result()))
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(done)), timeout)
        except Exception:  # noqa: BLE001 - late or failed: the status says what it last knew
            pass

    def _match_numbered(self, fault: dict) -> dict:
        """A fault's drops ("since drop N") as the match numbers them, the
        numbers the players see: the reconciler counts its own (from 1 again
        after a restart, and second coins in a turn too)."""
        out = dict(fault)
        m = self.flow.match
        # the reconciler outlives a match (the board's faults do): its drops before this match's first are no
        # drop of this match, and the players would read "since drop 12" of the match before as this one's
        first = self.match_first_drop if self.numbers_for is m else float("inf")
        for key in ("first_drop", "last_drop"):
            if out.get(key) is not None:
                if m is not None and out[key] < first:
                    out[key] = None
                    out["earlier_match"] = True
                else:
                    out[key] = match_drop(self.drop_numbers, out[key])
        return out

    def _believe(self, board: BoardState, match: Match | None = None, halls_right: bool = False,
                 pads_checked: bool = False, by_hand: frozenset = frozenset(), unput: frozenset = frozenset()) -> None:
        """The match set the board (a new match, an undo, a drop scored as
        predicted, the players' "Board is right": ``halls_right``; their
        set-up of a new match: ``pads_checked``, the resting coins are known;
        ``by_hand``: pads people were asked to put a coin on or take one off,
        which no sensor sees done; ``unput``: rockers the players left where
        their halls read them, holding past "Not yet")."""
        self._reconciler_for(match or self.flow.match)
        # within a match (an answer, an undo put back, a coin lost) a coin falling now is the next drop:
        # its events are kept; a new match lets go of what fell before it
        keep_open = not pads_checked
        # a coin the reconciler never saw go in (it fell before the match) may still be falling
        falling, self.unfed_t = (getattr(self, "unfed_t", None) if pads_checked else None), None
        if self._diag is not None:
            self._diag.reset(board, halls_right=halls_right, keep_open=keep_open)
            if pads_checked:
                self._diag.call(_PadsKnown(falling))
            if by_hand:
                self._diag.call(methodcaller("set_by_hand", frozenset(by_hand)))
            if unput:
                self._diag.call(methodcaller("not_put_back", frozenset(unput)))
        else:
            self.reconciler.reset(board, halls_right=halls_right, keep_open=keep_open)
            if pads_checked:
                _PadsKnown(falling)(self.reconciler)
            if by_hand:
                self.reconciler.set_by_hand(by_hand)
            if unput:
                self.reconciler.not_put_back(unput)
        self.save_known_faults()  # a new match, an answer, an undo: the faults as the board was set

    def _hands(self, on: bool, steps: tuple = ()) -> None:
        call = methodcaller("hands_on", tuple(steps)) if on else methodcaller("hands_off")  # (pickles to the reconciler's process)
        if self._diag is not None:
            self._diag.call(call)
        elif self.reconciler is not None:
            call(self.reconciler)

    def _expect(self, expecting: bool) -> None:
        if self._diag is not None:
            self._diag.set_expecting(expecting)
        elif self.reconciler is not None:
            self.reconciler.expecting = expecting

    def _reconciler_for(self, match: Match | None) -> Reconciler:
        if self.reconciler is None or (match is not None and self.reconciler.variants != match.setup.variants):
            variants = match.setup.variants if match is not None else None
            board = match.board if match is not None else BoardState.empty(self.geometry)
            if self._in_process:
                first, self.reconciler = self.reconciler is None, Reconciler(self.geometry, board, variants, sensors=self.sensors)
                if first:
                    self.give_known_faults(self.reconciler)  # (the child's old one, if it knows any, wins)
                carry = CarryTiming(self._read_timing(), self._timing_path is not None)
                self._save_timing_on_worker()  # the old one's (the child carries it to the new one)
                self._diag.adopt(self.reconciler, carry)
                self._adopted = self.reconciler
                self.drop_numbers, self.numbers_for = {}, None  # a new reconciler counts from 1
                return self.reconciler
            if self._diag is not None:
                self._save_timing_on_worker()  # the old one's, before the new one reads it
            old, self.reconciler = self.reconciler, Reconciler(self.geometry, board, variants, sensors=self.sensors)
            self.drop_numbers, self.numbers_for = {}, None  # a new reconciler counts from 1
            if old is None:
                self.give_known_faults(self.reconciler)  # the board's faults, as saved before a restart
            if self._diag is not None:
                self._diag.call(lambda rec, new=self.reconciler: (self._restore_timing(new), knowledge.carry(rec, new)))
            else:
                self._restore_timing(self.reconciler)
                if old is not None:
                    knowledge.carry(old, self.reconciler)  # the board's faults outlive a match of other variants
            self._wrap()
        return self.reconciler

    # The board's timing, as the reconciler learned it, outlives a restart.

    @property
    def _timing_path(self):
        return None if self.store is None else self.store.dir / TIMING_FILE

    def _restore_timing(self, rec: Reconciler) -> None:
        saved = self._read_timing()
        if saved is not None:
            _restore(rec, saved, self._timing_path)

    def _read_timing(self):
        path = self._timing_path
        if path is None or not path.exists():
            return None
        try:
            return loads_json(read_limited(path, SMALL))
        except (OSError, ValueError, EngineError) as e:
            log.warning("%s: %s; the board's timing is learned again", path, e)
            return None

    def save_timing(self) -> None:
        if self._diag is not None:
            self._save_timing_on_worker()  # the worker may be learning from a drop right now
        elif self.reconciler is not None:
            self._write_timing(self.reconciler)

    def _save_timing_on_worker(self) -> None:
        if not self._in_process:
            self._diag.call(self._write_timing)
        elif self._timing_path is not None:
            # the child says what it learned; the file is written here, by the thread that takes the answer
            done = self._diag.call(_learned_timing)
            done.add_done_callback(partial(_write_learned, self._timing_path))

    def _write_timing(self, rec: Reconciler) -> None:
        if rec.timing.learned:
            _write_timing_file(self._timing_path, rec.timing.to_json())


def check_timing_file(state_dir, damaged_dir) -> str | None:
    """At recovery: a timing file that does not read is moved to ``damaged_dir``
    byte-exact (the next save would have written over it unseen), and the
    message says so; None when it is fine or not there."""
    from ..reconcile.timing import Timing
    from .journal import move_durably

    path = state_dir / TIMING_FILE
    if not path.exists():
        return None
    try:
        saved = loads_json(read_limited(path, SMALL))
        if not isinstance(saved, dict):
            raise ValueError(f"{json_kind(saved)}, not a JSON object")
        Timing().restore(saved)
        return None
    except UnicodeDecodeError:
        why = "not text"
    except (ValueError, EngineError) as e:
        why = str(e).split("; delete it")[0]
    except OSError as e:
        return f"{path}: cannot read it ({e.strerror}); the board's timing is learned again"
    damaged_dir.mkdir(parents=True, exist_ok=True)
    stamp = int(path.stat().st_mtime)
    copy = next(c for k in range(1, 10_000)
                if not (c := damaged_dir / f"board-timing-{stamp}{'' if k == 1 else f'-{k}'}.damaged").exists())
    try:
        move_durably(path, copy)
    except OSError as e:
        return f"{path} is damaged ({why}) and cannot be moved aside ({e.strerror}); the board's timing is learned again"
    return f"{path} is damaged ({why}); kept as {copy}; the board's timing is learned again"


def _write_timing_file(path, timing: dict) -> None:
    if path is None:
        return
    try:
        write_durably(path, json.dumps(timing).encode())
    except OSError as e:
        log.warning("cannot save the board's timing to %s: %s", path, e.strerror)


def _write_learned(path, done) -> None:
    if done.exception() is None and done.result() is not None:
        _write_timing_file(path, done.result())


def _restore(rec: Reconciler, saved: dict, where) -> None:
    try:
        rec.timing.restore(saved)
    except (ValueError, EngineError) as e:
        log.warning("%s: %s; the board's timing is learned again", where, e)


# What the child is asked (they pickle: module-level functions and plain classes).

def match_drop(numbers: dict, n: int) -> int | None:
    """The match's number of the reconciler's drop ``n`` (``numbers``: the
    table's map). A second coin in a turn is no drop of the match: it fell
    with the drop before it. None: before any drop this table numbered."""
    if n in numbers:
        return numbers[n]
    before = [k for k in numbers if k < n]
    return numbers[max(before)] if before else None


def _health_faults(rec: Reconciler) -> list:
    return rec.health().faults


class _PadsKnown:
    """The players set up a new match: the pads are known; a coin that fell
    before it (last seen at board time ``falling``) may still be falling."""

    def __init__(self, falling: float | None = None):
        self.falling = falling

    def __call__(self, rec: Reconciler) -> None:
        rec.pads_known()
        if self.falling is not None:
            rec.still_falling(self.falling)


def _learned_timing(rec: Reconciler):
    return rec.timing.to_json() if rec.timing.learned else None


class CarryTiming:
    """A new reconciler takes the board's timing the old one learned (the
    table saves it to the file as well), else what the file held."""

    def __init__(self, saved: dict | None, kept: bool):
        self.saved, self.kept = saved, kept

    def __call__(self, old: Reconciler, new: Reconciler) -> None:
        src = old.timing.to_json() if self.kept and old.timing.learned else self.saved
        if src is not None:
            _restore(new, src, TIMING_FILE)
        knowledge.carry(old, new)  # and the board's faults (known_faults.py)


__all__ = ["TIMING_FILE", "CarryTiming", "DiagnosisMixin"]
