"""One connection's conversation with the hub (mixed into ``HubLink``):
hello and the refusals, the resume request that asks the hub's replay ring
for every event after the last one the daemon made durable, the snapshot
after every hello, gap or loss, and the silence that ends a connection.

Every wait is the link's ``_wait_for`` on its injected clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import protocol as p

if TYPE_CHECKING:
    from .port import Connection

# Silence is counted in time this process ran. The link sleeps at most SLICE at a time while it
# listens, so a stall of the process (a loaded Pi, a long collection, SIGSTOP) shows as a wait
# that ended late; past LATE (a busy machine's ordinary lateness) the hub is not charged with it.
# (A single wait of up to 1.5 s could not tell: a 1.3 s stall that began 0.3 s into it ended it
# only 0.1 s late, and a board served in this same process had not been able to send.)
SLICE = 0.25  # s
LATE = 0.2  # s


class Conversation:
    async def _converse(self, conn: Connection) -> tuple[str, float]:
        tr = self.tracker
        tr.connection_started()
        self._handshaking = False
        self.decoder.reset()
        self._held = []
        self.text_seen = []
        self.in_use = False
        self._snapshot_asked = False
        self._last_rx = self.clock.monotonic()
        for _attempt in range(3):
            if conn.lost:
                return conn.lost, self.reconnect_delay
            await self._send(p.HelloReq(), self._next_seq())
            tr.need_hello = False
            if await self._wait_for(lambda: not tr.awaiting_hello or tr.refused or conn.lost or self.in_use,
                                    self.handshake_timeout):
                break
        if self.in_use:
            return "in use by another controller", self.max_reconnect_delay
        if conn.lost:
            return conn.lost, self.reconnect_delay
        if tr.refused:
            return f"refused: {tr.refused}", self.refuse_delay
        if tr.awaiting_hello:
            if self.text_seen:
                said = b" / ".join(self.text_seen[-3:]).decode("ascii", "replace")
                detail = (f"the device on {self.url} is not running the Coindrel hub firmware (it printed: {said!r}); "
                          "install it with `coindrel hub deploy`")
                self._status("error", detail)
                return "not a Coindrel hub", self.refuse_delay
            return f"no answer to hello within {3 * self.handshake_timeout:g} s", self.reconnect_delay
        hb = tr.hello.heartbeat_ms / 1000
        silence = max(3 * hb, 1.0)
        self._handshaking = True
        await self._ask_resume()
        await self._ask_snapshot()
        if not await self._wait_for(lambda: self.connected or conn.lost, self.handshake_timeout * 2):
            return conn.lost or "no snapshot after hello", self.reconnect_delay
        if conn.lost:
            return conn.lost, self.reconnect_delay
        while True:
            if conn.lost:
                return conn.lost, self.reconnect_delay
            if tr.refused:
                return f"refused: {tr.refused}", self.refuse_delay
            if tr.need_hello:
                tr.need_hello = False
                await self._send(p.HelloReq(), self._next_seq())
            if tr.hold_live and self.clock.monotonic() - self._resume_at > self.request_timeout:
                tr.resume_wanted = True  # the answer never came (lost on the line): ask again
            if (tr.resume_now or (tr.resume_wanted and self.clock.monotonic() - self._resume_at > self.request_timeout)) \
                    and self.resume_supported is not False:
                await self._ask_resume()  # after a hello (a hub reset mid-stream) at once
            if tr.need_snapshot and (not self._snapshot_asked
                                     or self.clock.monotonic() - self._snapshot_at > self.request_timeout):
                await self._ask_snapshot()
            quiet = self.clock.monotonic() - self._last_rx
            if quiet >= silence and conn.drain():
                continue  # bytes were waiting (a starved reader, a late loop): the hub talked; hear it first
            if quiet >= silence:
                return f"no data from the hub for {quiet:.1f} s (unplugged, reset or stuck)", self.reconnect_delay
            wait = silence - quiet
            if tr.need_snapshot:
                wait = min(wait, max(0.0, self._snapshot_at + self.request_timeout - self.clock.monotonic()) + 1e-3)
            if tr.hold_live or tr.resume_wanted:
                wait = min(wait, max(0.0, self._resume_at + self.request_timeout - self.clock.monotonic()) + 1e-3)
            wait = min(wait, SLICE)
            due = self.clock.monotonic() + wait
            await self._wait_for(lambda: conn.lost or tr.need_hello or (tr.need_snapshot and not self._snapshot_asked)
                                 or ((tr.resume_wanted or tr.resume_now) and self.resume_supported is not False), wait)
            self._stalled(conn, self.clock.monotonic() - due, silence, hb)

    def _stalled(self, conn: Connection, late: float, silence: float, hb: float) -> None:
        """A wait that ended ``late`` seconds past its time: this process did
        not run meanwhile, so the hub had no fair hearing. A real hub's bytes
        wait on the port and the drain hears them; a board served in this same
        process could not even send (a newcomer's sims at load 10: "no data for
        5.1 s", a healthy drop flagged "lost events"). The stall is not counted
        as silence, and after a long one the hub still gets two heartbeats (and
        what the port holds is read now: the reader thread did not run either)."""
        if late <= LATE:
            return
        conn.drain()  # the reader thread was stalled too: what waits on the port is heard first
        now = self.clock.monotonic()
        self._last_rx = max(self._last_rx, min(self._last_rx + late, now - silence + min(silence, 2 * hb)))

    async def _ask_resume(self) -> None:
        """Ask the hub for every event after the last one we (or the daemon's
        journal) have; the answer and the replays come through the tracker."""
        msg = self.tracker.resume_request(self.resume_after)
        if msg is None or self.resume_supported is False:
            return
        self._resume_at = self.clock.monotonic()
        self.tracker.resume_wanted = False
        seq = self._next_seq()
        self._resume_seq = seq
        await self._send(msg, seq)

    async def _ask_snapshot(self) -> None:
        self._snapshot_asked = True
        self._snapshot_at = self.clock.monotonic()
        await self._send(p.SnapshotReq(), self._next_seq())
