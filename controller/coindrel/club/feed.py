"""The daemon's table, told to the club: ``attach(table, settings, state_dir)``.

``TableFeed.check(table)`` looks at the ``coindrel.table.daemon.Table`` (its
match, the match's journal id, its status and link) and hands the link what
is new: each scored drop once, the result once, the state when it changed.
What it has published is saved with the message itself (an outbox mark), so
a daemon killed and restarted mid-match neither repeats nor skips a drop.
Looking rather than hooking keeps the daemon's code as it is: the feed runs
in its own task of the daemon's loop, every ``EVERY`` seconds. The one way
in is the club's match requests: ``Table.handle_club_request``.
"""

from __future__ import annotations

import asyncio
import logging
import time

from ..table.history import match_summary
from .limits import QuietLog
from .link import ClubLink
from .outbox import OutboxError
from .records import drop_of, result_of, state_of

log = logging.getLogger("coindrel.club")
EVERY = 0.05  # seconds; the daemon itself steps every 0.03


class TableFeed:
    def __init__(self, link: ClubLink, wall=time.time):
        self.link = link
        self._wall = wall
        self.match = None
        self.match_id = ""
        self.number = None
        self.started = None
        self.last_state: dict | None = None

    def check(self, table) -> None:
        if table is None:
            return
        m, journal = table.flow.match, table.journal
        if m is not self.match:
            old = self.match
            if old is not None and self.match_id:  # what the old match did since the last look, then its end
                self._drops(old, None)
                self._result(old, "finished" if old.over else "abandoned")
            self.match, self.match_id = m, ""
        if m is not None and not self.match_id and journal is not None:
            self.match_id, self.number, self.started = journal.match_id, journal.number, journal.started
        if m is not None and self.match_id:
            self._drops(m, table)
            if m.over:
                self._result(m, "finished")
        self._state(table)

    def _drops(self, m, table) -> None:
        key = f"drops:{self.match_id}"
        done = int(self.link.outbox.mark(key) or 0)
        if len(m.results) < done:  # a drop was undone: the state carries the scores as they are now
            done = len(m.results)
        diagnosis = getattr(table.flow, "diagnosis", None) if table is not None else None
        for turn in range(done + 1, len(m.results) + 1):
            verdict, why = "ok", ""
            if diagnosis is not None and turn == len(m.results):
                verdict, why = "mismatch", "; ".join(diagnosis.findings)
            self.link.publish_drop(drop_of(self.match_id, turn, m.results[turn - 1], verdict=verdict, explanation=why),
                                   mark=(key, str(turn)))

    def _result(self, m, result: str) -> None:
        key = f"result:{self.match_id}"
        if not self.match_id or self.link.outbox.mark(key):
            return
        summary = match_summary(m, result=result, number=self.number, match_id=self.match_id, started=self.started,
                                ended=self._wall())
        self.link.publish_result(result_of(summary), mark=(key, "1"))

    def _state(self, table) -> None:
        m = table.flow.match
        link_up = getattr(table.flow, "link_up", True)
        snap = state_of(m, match_id=self.match_id or None, now=table.now(), status=table.last_status,
                        link="ok" if link_up else "waiting for the hub",
                        health="ok" if table.healthy else f"stopping: {table.failed}")
        if snap != self.last_state:
            self.last_state = snap
            self.link.publish_state(snap)


class Attached:
    """A feed and its link running in the daemon's loop."""

    def __init__(self, table, settings, state_dir):
        self.get = table if callable(table) else (lambda: table)
        self.link = ClubLink(settings, state_dir, on_request=self._request)
        self.feed = TableFeed(self.link)
        self.quiet = QuietLog(log)
        self._runner = asyncio.create_task(self.link.run())
        self.task = asyncio.create_task(self._watch())

    def _request(self, request: dict) -> None:
        """A validated match request from the club: to the table of the moment."""
        table = self.get()
        if table is None:
            log.warning("club: match request %s dropped: the table is not running", request.get("id"))
            return
        table.handle_club_request(request)

    async def _watch(self) -> None:
        while True:
            self.look()
            await asyncio.sleep(EVERY)

    def look(self) -> None:
        try:
            self.feed.check(self.get())
        except OutboxError as e:  # a full or read-only disk: tried again on the next look
            self.quiet.warning("outbox", "club: %s", e)
        except Exception:  # the club must never stop the match
            log.exception("club: could not tell the club about the table")

    async def finish(self, timeout: float = 5.0) -> None:
        """A last look, up to ``timeout`` seconds for the broker to take what is
        waiting (the rest stays in the outbox for next time), then offline."""
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        self.look()
        await self.link.flush(timeout)
        self.link.stop()
        try:
            await asyncio.wait_for(self._runner, 3)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            pass
        self.link.close()


def attach(table, settings, state_dir) -> Attached:
    """Start club play for a running table (or a function returning the table
    of the moment, for a sim whose table restarts): ``await finish()`` to stop."""
    return Attached(table, settings, state_dir)
