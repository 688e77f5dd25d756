"""The asyncio link to the sensor hub over pyserial.

``port`` opens the port (a device, ``socket://`` or ``rfc2217://``) and reads
it on a thread in bulk; bytes go to the event loop, through the decoder
(``protocol.Decoder``) and the ``Tracker`` (sequence, time, board events),
and out through ``emit`` as ``coindrel.events`` objects.

The link says hello, refuses a hub with another protocol or channel map (a
clear StatusEvent, then a slow retry so a re-deployed hub is picked up),
asks for a snapshot after every hello, gap or loss, and reconnects by itself
when the hub is unplugged, reset or silent. Every wait uses the injected
clock; nothing here sleeps on the wall clock directly.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from ..errors import CoindrelError
from ..events import SourceEvent, StatusEvent
from . import protocol as p
from .channelmap import ChannelMap
from .device import NotAPort, PortBusy
from .inbound import Inbound
from .port import Connection, open_serial
from .resume import HubPosition
from .session import Conversation
from .tracker import Tracker

log = logging.getLogger("coindrel.hub")


class LinkError(CoindrelError):
    """A request the hub did not answer, or a link that is closed."""


class HubLink(Conversation, Inbound):
    """The link: its public requests, the reconnecting loop, what it
    publishes and how it waits. One connection's conversation (handshake,
    resume, snapshots, silence) is ``session.Conversation``; what the reader
    thread hands over (frames, a lost port) is ``inbound.Inbound``."""

    def __init__(self, url: str, cm: ChannelMap, emit: Callable[[SourceEvent], object], *, clock,
                 baudrate: int = 115200, reconnect_delay: float = 0.5, max_reconnect_delay: float = 5.0,
                 refuse_delay: float = 30.0, handshake_timeout: float = 2.0, request_timeout: float = 3.0,
                 open_port: Callable | None = None, resume_after: HubPosition | None = None,
                 resume_t: float | None = None):
        self.url = url
        self.cm = cm
        self.emit = emit
        self.clock = clock
        self.baudrate = baudrate
        self.reconnect_delay = reconnect_delay
        self.max_reconnect_delay = max_reconnect_delay
        self.refuse_delay = refuse_delay
        self.handshake_timeout = handshake_timeout
        self.request_timeout = request_timeout
        self.open_port = open_port or open_serial
        self.resume_after = resume_after  # the last event the daemon made durable (its journal's)
        self.resume_supported: bool | None = None
        self._held: list[SourceEvent] = []  # events of a connection whose handshake is not done yet
        self._resume_at = -1e9
        self._resume_seq: int | None = None
        self.tracker = Tracker(cm)
        self.tracker.resumes = True  # until the hub answers a resume with an ack (no replay ring)
        if resume_after is not None and resume_t is not None:
            self.tracker.continue_from(resume_after, resume_t, clock.monotonic())
        self.decoder = p.Decoder("hub")
        self.connected = False
        self.closed = False
        self.down_reason: str | None = None
        self.text_seen: list[bytes] = []
        self.in_use = False  # the port said it has another controller (a served virtual board)
        self._news: str | None = None  # what was said of a port that is there but cannot be had
        self.problems = 0
        self._conn: Connection | None = None
        self._ident = 0
        self._seq = 0
        self._requests: dict[int, asyncio.Future] = {}
        self._raw_queues: list[asyncio.Queue] = []
        self._changed = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._last_rx = 0.0
        self._snapshot_asked = False
        self._snapshot_at = 0.0
        self._handshaking = False
        self._said: set[str] = set()  # error details already reported while down

    # -- public ---------------------------------------------------------------
    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"hub link {self.url}")

    async def close(self) -> None:
        self.closed = True
        if self._task:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        if self._conn:
            await self._conn.close()
            self._conn = None
        for fut in self._requests.values():
            if not fut.done():
                fut.set_exception(LinkError("the hub link was closed"))
                fut.exception()  # a caller that gave up waiting must not leave it "never retrieved"
        self._wake()

    @property
    def hello(self) -> p.Hello | None:
        return self.tracker.hello

    @property
    def stats(self) -> dict:
        return {"decoder": self.decoder.stats, "tracker": self.tracker.stats.as_dict()}

    async def wait_until(self, pred, timeout: float | None = None) -> bool:
        """Wait (on the link's clock) until ``pred()`` holds; re-checked whenever the link hears or changes anything."""
        return await self._wait_for(pred, timeout)

    async def wait_connected(self, timeout: float | None = None) -> bool:
        return await self._wait_for(lambda: self.connected or self.closed, timeout)

    async def request(self, msg: p.Message, timeout: float | None = None, wait_connected: float | None = None):
        """Send a command and return the hub's answer (Hello, Snapshot, Calibration or Ack).

        Waits up to ``wait_connected`` seconds (None: as long as it takes) for the link."""
        if not await self.wait_connected(wait_connected) or self.closed:
            raise LinkError(f"the hub on {self.url} is not connected ({self.down_reason or 'closed'})")
        seq = self._next_seq()
        fut = asyncio.get_running_loop().create_future()
        self._requests[seq] = fut
        try:
            await self._send(msg, seq)
            t = self.request_timeout if timeout is None else timeout
            if not await self._wait_for(lambda: fut.done() or not self.connected, t):
                raise LinkError(f"the hub did not answer {msg.NAME} within {t:g} s")
            if not fut.done():
                raise LinkError(f"the hub went away before answering {msg.NAME}")
            return fut.result()
        finally:
            self._requests.pop(seq, None)

    async def snapshot(self, timeout: float | None = None) -> p.Snapshot:
        """A fresh snapshot; any switch that changed unseen is emitted as an event first."""
        reply = await self.request(p.SnapshotReq(), timeout)
        if not isinstance(reply, p.Snapshot):
            raise LinkError(f"the hub answered a snapshot request with {reply.NAME}")
        return reply

    def position_of(self, ev) -> HubPosition | None:
        """The hub position (boot, frame number) of a board event this link
        emitted, for the daemon's journal; None when the hub gave none."""
        return self.tracker.position_of(ev)

    @property
    def losses(self) -> list:
        """``HubLoss`` records: events the hub could not give back (mark drops uncertain)."""
        return list(self.tracker.losses)

    def raw_queue(self) -> asyncio.Queue:
        """A queue that receives every Raw message (stop with ``drop_raw_queue``)."""
        q: asyncio.Queue = asyncio.Queue()
        self._raw_queues.append(q)
        return q

    def drop_raw_queue(self, q: asyncio.Queue) -> None:
        if q in self._raw_queues:
            self._raw_queues.remove(q)

    # -- the connection loop -------------------------------------------------------
    def _next_seq(self) -> int:
        self._seq = self._seq % 0xFFFF + 1  # 1..65535: req 0 means unsolicited
        return self._seq

    def _status(self, state: str, detail: str, count: int = 0, t: float | None = None) -> None:
        log.info("hub %s: %s", state, detail)
        self._publish(StatusEvent(self.tracker.board_t if t is None else t, state, detail, count))

    def _publish_tracked(self, ev: SourceEvent) -> None:
        # Board events the stream carries before the handshake is verified are
        # held, then published after "connected" (or dropped with a connection
        # that fails); the link's own news (a refusal, a resync) goes out now.
        if not self.connected and not isinstance(ev, StatusEvent):
            self._held.append(ev)
            return
        self._publish(ev)

    def _publish(self, ev: SourceEvent) -> None:
        # A hub that keeps being refused would repeat itself every retry: say it once.
        if isinstance(ev, StatusEvent) and ev.state == "error" and not self.connected:
            if ev.detail in self._said:
                return
            self._said.add(ev.detail)
        self.emit(ev)

    def _down(self, reason: str, news: str | None = None) -> None:
        """The link is down for ``reason``. ``news``: a port that is there but
        cannot be had (in use, not a serial port) is said in those words, once
        while it lasts, instead of "waiting for it to come back"."""
        was = self.connected
        self.connected = False
        if news is not None:
            if news != self._news:
                self._status("disconnected", news)
            self._news = news
        elif was or self.down_reason is None or self._news is not None:  # news said before: this is newer
            self._news = None
            self._status("disconnected", f"hub on {self.url}: {reason}; waiting for it to come back "
                                         "(the match waits; events meanwhile cannot be seen)")
        self.down_reason = reason
        self._wake()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        delay = self.reconnect_delay
        while not self.closed:
            try:
                port = await loop.run_in_executor(None, self.open_port, self.url, self.baudrate)
            except PortBusy as e:
                self._down(str(e), f"hub: {e}: stop it; trying again every {self.max_reconnect_delay:g} s")
                await self.clock.sleep(self.max_reconnect_delay)
                continue
            except NotAPort as e:
                self._down(str(e), f"hub: {e}: set [board.hub] url to the hub's port, e.g. /dev/coindrel-hub "
                                   f"(the udev rule's name) or /dev/ttyACM0; looking again every {self.refuse_delay:g} s")
                await self.clock.sleep(self.refuse_delay)
                continue
            except Exception as e:  # noqa: BLE001 - any other failure to open is "not there yet"
                self._down(f"cannot open {self.url} ({e})")
                await self.clock.sleep(delay)
                delay = min(delay * 2, self.max_reconnect_delay)
                continue
            self._ident += 1
            conn = Connection(self, port, self._ident)
            self._conn = conn
            conn.start()
            try:
                reason, pause = await self._session(conn)
            finally:
                self._conn = None
                await conn.close()
            if self.in_use:  # however the connection ended after the board said so
                pause = self.max_reconnect_delay
                self._down(reason, f"hub on {self.url}: in use by another controller (another coindrel run on "
                                   f"the same board?): stop that one; trying again every {pause:g} s")
            else:
                self._down(reason)
            delay = self.reconnect_delay
            await self.clock.sleep(pause)

    async def _session(self, conn: Connection) -> tuple[str, float]:
        try:
            return await self._converse(conn)
        except LinkError:
            return conn.lost or "the port failed", self.reconnect_delay

    async def _send(self, msg: p.Message, seq: int) -> None:
        conn = self._conn
        if conn is None or conn.lost:
            raise LinkError(f"the hub on {self.url} is not connected")
        try:
            await conn.write(p.encode(msg, seq))
        except Exception as e:  # noqa: BLE001 - a port that fails to write is gone
            self._on_lost(conn.ident, e)

    # -- waiting ---------------------------------------------------------------
    def _wake(self) -> None:
        self._changed.set()

    async def _wait_for(self, pred, timeout: float | None) -> bool:
        """Wait until ``pred()`` holds (True) or ``timeout`` seconds pass on the clock (False)."""
        deadline = None if timeout is None else self.clock.monotonic() + timeout
        while not pred():
            sleeper = None
            if deadline is not None:
                left = deadline - self.clock.monotonic()
                if left <= 0:
                    return False
                sleeper = asyncio.ensure_future(self.clock.sleep(left))
            self._changed.clear()
            waiter = asyncio.ensure_future(self._changed.wait())
            tasks = {waiter} | ({sleeper} if sleeper else set())
            try:
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for t in tasks:
                    t.cancel()
        return True
