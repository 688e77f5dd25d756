"""``ClubLink``: the table's side of club play, inside the daemon's asyncio loop.

The daemon feeds it (``publish_state``, ``publish_drop``, ``publish_result``)
and never waits on the network: drops and results are saved in the outbox
first (``outbox``) and sent in order at QoS 1 when the broker is there; the
state is retained and only its newest version matters, so it is coalesced.
``run()`` keeps one connection to the broker with a retained online status
and an offline last will, reconnects with a growing pause, and hands the
club's match requests, once validated, to ``requests()`` (or ``on_request``).
The table opens no listening socket: the link only connects out.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from pathlib import Path
from typing import AsyncIterator, Callable

from .. import __version__
from .config import ClubSettings
from .homeassistant import BIRTH_TOPIC, discovery
from .limits import QuietLog, TokenBucket
from .messages import SCHEMA, MessageError, encode, parse, topic
from .outbox import FILE, Outbox

log = logging.getLogger("coindrel.club")
REQUESTS_WAITING = 8  # match requests not yet read by the table; more are refused


class ClubLink:
    def __init__(self, settings: ClubSettings, state_dir: str | Path, *, wall: Callable[[], float] = time.time,
                 backoff: tuple[float, float] = (0.5, 30.0), on_request: Callable[[dict], None] | None = None):
        self.settings = settings
        self.table = settings.table
        self._password = settings.password()  # a missing or unreadable file is a config error at start
        self.outbox = Outbox(Path(state_dir) / FILE, wall)
        self._wall = wall
        self._backoff = backoff
        self.on_request = on_request
        self._requests: asyncio.Queue = asyncio.Queue(REQUESTS_WAITING)
        self._wake = asyncio.Event()
        self._progress = asyncio.Event()  # something was sent
        self._stop = asyncio.Event()
        self._state: bytes | None = None
        self._state_version = 0
        self._sent_version = 0
        self._ha_due = settings.home_assistant
        self._quiet = QuietLog(log)
        self._bucket = TokenBucket(rate=1.0, burst=5.0)
        self.connected = False
        self.connects = 0
        self.sent = 0

    # -- what the daemon calls (never blocks on the network) --------------------------------

    def _message(self, record: dict) -> dict:
        return {"schema": SCHEMA, "table": self.table, "at": round(self._wall(), 3), **record}

    def publish_state(self, snapshot: dict) -> None:
        """The table as it stands (``records.state_of``); sent retained, newest only."""
        try:
            self._state = encode(self._message(snapshot))
        except MessageError as e:
            self._quiet.warning("state", "club state not sent: %s", e)
            return
        self._state_version += 1
        self._wake.set()

    def publish_drop(self, record: dict, mark: tuple[str, str] | None = None) -> dict:
        """One drop (``records.drop_of``): saved in the outbox, then sent; returns it numbered."""
        return self._put("drop", record, mark)

    def publish_result(self, record: dict, mark: tuple[str, str] | None = None) -> dict:
        """One finished match (``records.result_of``): saved in the outbox, then sent."""
        return self._put("result", record, mark)

    def _put(self, kind: str, record: dict, mark=None) -> dict:
        full = self.outbox.put(kind, self._message(record), mark)
        self._wake.set()
        return full

    async def requests(self) -> AsyncIterator[dict]:
        """The club's match requests, validated; the table shows each and waits for a person."""
        while True:
            yield await self._requests.get()

    @property
    def idle(self) -> bool:
        """Nothing waits: the outbox is empty and the newest state is sent."""
        return len(self.outbox) == 0 and self._sent_version == self._state_version

    async def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until ``idle`` (while connected)."""
        try:
            async with asyncio.timeout(timeout):
                while not self.idle:
                    self._progress.clear()
                    await self._progress.wait()
        except TimeoutError:
            return False
        return True

    def stop(self) -> None:
        """Say offline (retained) and close the connection; ``run()`` returns."""
        self._stop.set()
        self._wake.set()

    # -- the connection -----------------------------------------------------------------------

    def _status(self, online: bool) -> bytes:
        return encode({"schema": SCHEMA, "table": self.table, "online": online, "at": round(self._wall(), 3),
                       "app": f"coindrel {__version__}"})

    def _client(self):
        import aiomqtt  # the club extra; only a table with [club] loads it

        s = self.settings
        tls = {}
        if s.broker.tls:
            ctx = ssl.create_default_context(cafile=str(s.ca_file) if s.ca_file else None)
            tls = {"tls_context": ctx}
        return aiomqtt.Client(
            s.broker.host, s.broker.port, username=s.username, password=self._password,
            identifier=f"coindrel-table-{self.table}", keepalive=s.keepalive, timeout=10,
            will=aiomqtt.Will(topic(self.table, "status"), self._status(False), qos=1, retain=True), **tls,
        )

    async def run(self) -> None:
        import aiomqtt

        pause = self._backoff[0]
        while not self._stop.is_set():
            try:
                async with self._client() as client:
                    self.connected, self.connects, pause = True, self.connects + 1, self._backoff[0]
                    log.info("club: connected to %s as table %r (%d waiting)", self.settings.broker, self.table,
                             len(self.outbox))
                    await self._session(client)
                    await client.publish(topic(self.table, "status"), self._status(False), qos=1, retain=True)
                    return
            except aiomqtt.MqttError as e:
                if self.connected or self.connects == 0:
                    log.warning("club: broker %s not reachable (%s); drops and results wait in the outbox and go "
                                "out when it is back", self.settings.broker, e)
                self.connected = False
            try:
                await asyncio.wait_for(self._stop.wait(), pause)
            except asyncio.TimeoutError:
                pass
            pause = min(self._backoff[1], pause * 2)
        self.connected = False

    async def _session(self, client) -> None:
        await client.publish(topic(self.table, "status"), self._status(True), qos=1, retain=True)
        await client.subscribe(topic(self.table, "request"), qos=1)
        if self.settings.home_assistant:
            await client.subscribe(BIRTH_TOPIC, qos=1)
        self._sent_version = 0  # the broker may have lost the retained state: send it again
        self._ha_due = self.settings.home_assistant  # and the retained discovery configs (a broker killed -9)
        tasks = [asyncio.create_task(self._send(client)), asyncio.create_task(self._receive(client))]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for t in done:
                t.result()  # a lost connection raises MqttError here
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.connected = False

    async def _send(self, client) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            while batch := self.outbox.pending():
                for seq, kind, payload in batch:
                    await client.publish(topic(self.table, kind), payload, qos=1)  # returns on PUBACK
                    self.outbox.done(seq)
                    self.sent += 1
                    self._progress.set()
            if self._state is not None and self._sent_version != self._state_version:
                version = self._state_version
                await client.publish(topic(self.table, "state"), self._state, qos=1, retain=True)
                self._sent_version = version
                self._progress.set()
            if self._ha_due:
                self._ha_due = False
                for name, config in discovery(self.table, __version__):
                    await client.publish(name, encode(config), qos=1, retain=True)
            if not self._wake.is_set():
                await self._wake.wait()

    async def _receive(self, client) -> None:
        async for message in client.messages:
            name, payload = str(message.topic), message.payload
            if name == BIRTH_TOPIC:
                if payload in (b"online", "online") and self.settings.home_assistant:
                    self._ha_due = True
                    self._wake.set()
                continue
            self._request(name, payload if isinstance(payload, (bytes, bytearray)) else str(payload).encode())

    def _request(self, name: str, payload: bytes) -> None:
        if not self._bucket.take():
            self._quiet.warning("flood", "club: a match request on %s dropped: more than one a second", name)
            return
        try:
            table, kind, req = parse(name, payload)
            if table != self.table or kind != "request":
                raise MessageError(f"table {self.table!r} does not read {name[:80]!r}")
        except MessageError as e:
            self._quiet.warning("bad", "club: a message on %s dropped: %s", name[:80], e)
            return
        if not self.settings.accept_matches:
            self._quiet.warning("refused", "club: match request %s refused: [club] accept_matches is false", req["id"])
            return
        if self.on_request is not None:
            try:
                self.on_request(req)
            except Exception:  # the table's handler failing must not end the link
                log.exception("club: the table could not take match request %s", req["id"])
            return
        try:
            self._requests.put_nowait(req)
        except asyncio.QueueFull:
            self._quiet.warning("full", "club: match request %s dropped: %d are already waiting", req["id"],
                                REQUESTS_WAITING)

    def close(self) -> None:
        self.outbox.close()
