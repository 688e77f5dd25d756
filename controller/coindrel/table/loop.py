"""The table's asyncio loop: one task each for the board's events, the
buttons and the steps, and a step loop that sleeps until something can change
(an event, a press, the next second on a clock, dimming).

A task that dies ends the run (``TableDied``): systemd restarts the daemon and
the journal resumes the match, rather than a live-looking table that no
longer reads its board.
"""

from __future__ import annotations

import asyncio
import logging

from ..engine import EngineError
from .status import status_text

log = logging.getLogger("coindrel.table")
STEP = 0.03  # seconds between steps of the loop while something moves (coins, the reveal, a melody)
IDLE = 1.0  # the longest the loop sleeps when nothing on the screen or a clock can change
# A step that comes this late (s) means the daemon itself did not run: a loaded Pi, an SD card's
# fsync, SIGSTOP. The player's turn clock stands still for that stretch: nobody could see the
# clock count, press a button or be told time was up, so the machine's stall is not their time.
STALL = 0.5


class TableDied(EngineError):
    """A part of the running table failed; the process must end (and be restarted)."""


class LoopMixin:
    """Part of ``daemon.Table``: ``run`` and the timers that pace it."""

    async def run(self, actions: asyncio.Queue | None = None, stop: asyncio.Event | None = None,
                  control=None) -> None:
        """``control``: a ``control.ControlServer`` to serve in this loop (coindrel ctl)."""
        stop = stop or asyncio.Event()
        self._off_loop()  # diagnosis in its child process from here on (diagnosing.py)
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
            self.notifier.ready(self.room_status() if self.room_wait is not None else status_text(self.flow.match))
        stopping = asyncio.create_task(stop.wait())
        try:
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
            self.close_diagnosis()
            self.save_timing()
            await self.source.close()
            if self.notifier is not None and self.room_again is None:  # (with room again the daemon goes on)
                self.notifier.stopping()

    async def _pump_actions(self, actions: asyncio.Queue) -> None:
        while True:
            action = await actions.get()
            self.handle_action(getattr(action, "name", action))

    async def _pump_steps(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if self.room_wait is not None:
                if await self._wait_for_room_step():
                    stop.set()  # the disk has room: serve() builds the table again from the journal
                    break
                continue
            self.step()
            if self.room_wait is not None:
                continue
            if self.failed is not None:
                if self.display is not None:  # why, on the panel left lit while the table is down (a full disk)
                    await self.display.show_async(self.flow.view(self.now()), self.now())
                stop.set()  # nothing more can be saved: let systemd restart us
                break
            if self.display is not None:
                view = self.flow.view(self.now())
                if view != self._shown:  # an unchanged screen costs no frame (and no worker thread wakes)
                    if await self.display.show_async(view, self.now()):
                        self._shown = view
            self._poke.clear()
            wait = self.next_step_in(self.now())
            due = self.now() + wait
            try:  # an event, a press or a finished diagnosis wakes the loop at once
                await asyncio.wait_for(self._poke.wait(), wait)
            except asyncio.TimeoutError:
                pass
            self.stood_still(due)

    async def _wait_for_room_step(self) -> bool:
        """The disk is full (roomwait.py): the panel says so, the disk is
        probed when due; True once it has room."""
        self.step()  # (only the panel's timers and the status while the disk is full)
        room = self.check_room()
        if self.display is not None:
            view = self.room_wait.view
            if room:
                from ..display import MessageView

                view = MessageView("Disk has room", self.room_again.split(": ", 1)[1].capitalize() + ".")
            if view != self._shown and await self.display.show_async(view, self.now()):
                self._shown = view
        if room:
            return True
        wait = min(IDLE, self.room_in())
        if self.display is not None:
            due = self.display.next_deadline(self.now())
            if due is not None:
                wait = min(wait, due - self.now())
        await asyncio.sleep(max(STEP, wait))
        return False

    def stood_still(self, due: float) -> None:
        """The loop woke at ``self.now()`` for a step due at ``due``: if it is
        ``STALL`` late, the turn clock pauses over the stall (a pause and a
        resume in the match's log, journalled: a restart replays it)."""
        now = self.now()
        m = self.flow.match
        if now - due <= STALL or m is None or m.over or m.clock is None or not m.clock.active:
            return
        t0 = max(due, m.clock.last if m.clock.last is not None else due)  # what the clock saw stays counted
        if now - t0 <= STALL:
            return
        log.warning("the table did not run for %.1f s; the turn clock stood still meanwhile", now - t0)
        m.pause(t0)
        m.resume(now)
        self._after_flow()

    def next_step_in(self, now: float) -> float:
        """How long the loop may sleep before something on the screen, a
        clock or a falling coin needs it (board events and presses wake it)."""
        f, m = self.flow, self.flow.match
        if self.diagnosing or f.mode == "reveal" or f.undo_held is not None \
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


__all__ = ["IDLE", "STEP", "LoopMixin", "TableDied"]
