"""The club's live picture: every message from the broker, checked, stored and
passed on to the open scoreboards.

``Club.handle(topic, payload)`` is the one way in and never raises: a message
too big, not JSON, of the wrong shape, from a table the club does not know,
or one too many from a flooding table is counted, logged (quietly) and
dropped. A table's messages only ever touch that table's rows: the table is
the topic's (which the broker's ACL ties to the table's login), and a body
naming another table is refused.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections import Counter
from typing import Callable

from ..limits import QuietLog, TokenBucket
from ..messages import MAX_MESSAGE, PREFIX, SCHEMA, MessageError, encode, parse, split_topic, topic
from .config import ServerSettings
from .store import ClubStore

log = logging.getLogger("coindrel.club.server")
RATE, BURST = 50.0, 200.0  # messages a second per table; a fast simulated table sends ~10
SEQUENCED = ("drop", "result")  # numbered by the table's outbox, stored exactly once
_SEQ = re.compile(rb'"seq"\s*:\s*(\d{1,15})\s*[,}]')
_SOURCE = re.compile(rb'"source"\s*:\s*"([0-9A-Za-z_-]{1,64})"')


class Watcher:
    """One open scoreboard: the tables changed since it last drew them."""

    def __init__(self):
        self.dirty: set[str] = set()
        self.event = asyncio.Event()

    def mark(self, name: str) -> None:
        self.dirty.add(name)
        self.event.set()

    def take(self) -> set[str]:
        self.event.clear()
        names, self.dirty = self.dirty, set()
        return names


class Club:
    def __init__(self, settings: ServerSettings, store: ClubStore, *, clock: Callable[[], float] = time.monotonic):
        self.settings = settings
        self.store = store
        self.clock = clock
        self.known = frozenset(settings.tables)
        self.live: dict[str, dict] = {name: self._blank(name) for name in settings.tables}
        for name, row in store.tables().items():
            if name in self.live:
                self.live[name].update(state=row["state"], status=row["status"], online=False)
        self.watchers: set[Watcher] = set()
        self.buckets: dict[str, TokenBucket] = {}
        self.counts: Counter = Counter()
        self.last_seq: dict[tuple[str, str], int] = {}  # (table, outbox source): highest seq stored
        self.quiet = QuietLog(log, clock=clock)
        self.client = None  # the MQTT client while connected
        self.on_connect: Callable[[], None] | None = None
        self.connected = asyncio.Event()
        self.closing = asyncio.Event()

    @staticmethod
    def _blank(name: str) -> dict:
        return {"name": name, "online": False, "state": None, "status": None, "last": None, "result": None,
                "updated": None}

    # -- the way in ------------------------------------------------------------------------------

    def handle(self, name: str, payload: bytes) -> str:
        """Take one message; returns what became of it ("ok", "duplicate" or why it was dropped)."""
        try:
            why = self._handle(name, payload)
        except Exception:  # a bug must not stop the scoreboard of every other table
            log.exception("club: message on %r could not be handled", name[:80])
            why = "error"
        self.counts[why] += 1
        return why

    def _handle(self, name: str, payload: bytes) -> str:
        if len(payload) > MAX_MESSAGE:
            self.quiet.warning("size", "club: %d-byte message on %s dropped (limit %d)", len(payload), name[:80], MAX_MESSAGE)
            return "oversized"
        try:
            table, kind = split_topic(name)
        except MessageError as e:
            self.quiet.warning("topic", "club: %s; dropped", e)
            return "topic"
        if table not in self.known:
            self.quiet.warning("unknown", "club: message from table %r, which is not in the club's tables; dropped", table)
            return "unknown table"
        if kind == "request":
            return "own"  # what the club itself sent
        bucket = self.buckets.setdefault(table, TokenBucket(RATE, BURST, self.clock))
        if not payload:
            return "cleared" if bucket.take() else self._flood(table)  # a retained message being removed
        # What moves a table's outbox on is never held back and uses none of its allowance: a
        # table back after the broker was away sends its backlog as fast as the broker
        # acknowledges it (each message deleted from its outbox then: dropping one here would
        # lose it), and its state and status after it need the allowance. Replays, duplicates,
        # anything out of order and everything else over the rate are a flood, dropped before
        # they cost a parse.
        ahead = self._moves_on(table, payload) if kind in SEQUENCED else None
        if ahead is None and not bucket.take():
            return self._flood(table)
        try:
            table, kind, msg = parse(name, payload)
        except MessageError as e:
            self.quiet.warning(f"bad {table}", "club: message from table %r dropped: %s", table, e)
            return "invalid"
        if ahead is not None and ahead != (msg["source"], msg["seq"]):
            self.quiet.warning(f"bad {table}", "club: message from table %r dropped: its numbers are written twice", table)
            return "invalid"
        return getattr(self, f"_on_{kind}")(table, msg)

    def _moves_on(self, table: str, payload: bytes) -> tuple[str, int] | None:
        """(source, seq) of a drop or result numbered above everything stored
        from its outbox, read without parsing it (the table encodes them so);
        None for anything else."""
        seq, source = _SEQ.search(payload), _SOURCE.search(payload)
        if seq is None or source is None:
            return None
        key = (source.group(1).decode(), int(seq.group(1)))
        return key if key[1] > self._last_seq(table, key[0]) else None

    def _flood(self, table: str) -> str:
        self.quiet.warning(f"flood {table}", "club: table %r sends more than %d messages a second; dropped", table, RATE)
        return "flood"

    def _last_seq(self, table: str, source: str) -> int:
        key = (table, source)
        if key not in self.last_seq:
            if len(self.last_seq) > 4 * len(self.known) + 64:  # sources come from the network: keep it small
                self.last_seq.clear()
            self.last_seq[key] = self.store.last_seq(table, source)
        return self.last_seq[key]

    def _stored(self, table: str, msg: dict) -> None:
        key = (table, msg["source"])
        self.last_seq[key] = max(self.last_seq.get(key, 0), msg["seq"])

    def _on_status(self, table: str, msg: dict) -> str:
        live = self.live[table]
        live["online"], live["status"] = msg["online"], msg
        self.store.save_table(table, status=msg)
        self._changed(table)
        return "ok"

    def _on_state(self, table: str, msg: dict) -> str:
        live = self.live[table]
        live["state"] = msg
        if msg.get("match") != (live["last"] or {}).get("match"):
            live["last"] = None  # a new match: the last drop banner belongs to the old one
        self.store.save_table(table, state=msg)
        self._changed(table)
        return "ok"

    def _on_drop(self, table: str, msg: dict) -> str:
        if not self.store.add_drop(table, msg):
            return "duplicate"
        self._stored(table, msg)
        last = self.live[table]["last"]
        if last is None or (msg["match"], msg["turn"]) >= (last["match"], last["turn"]):
            self.live[table]["last"] = msg
            self._changed(table)
        return "ok"

    def _on_result(self, table: str, msg: dict) -> str:
        if not self.store.add_result(table, msg):
            return "duplicate"
        self._stored(table, msg)
        self.live[table]["result"] = msg
        self._changed(table)
        for w in self.watchers:
            w.mark("")  # "" stands for the results and standings
        return "ok"

    def _all_changed(self) -> None:
        for w in self.watchers:
            for name in self.live:
                w.mark(name)

    def _changed(self, table: str) -> None:
        self.live[table]["updated"] = time.time()
        for w in self.watchers:
            w.mark(table)

    # -- scoreboards ---------------------------------------------------------------------------

    def watch(self) -> Watcher:
        w = Watcher()
        self.watchers.add(w)
        return w

    def unwatch(self, w: Watcher) -> None:
        self.watchers.discard(w)

    # -- the broker ----------------------------------------------------------------------------

    def _client(self):
        import ssl

        import aiomqtt

        s = self.settings
        tls = {"tls_context": ssl.create_default_context(cafile=str(s.ca_file) if s.ca_file else None)} if s.broker.tls else {}
        return aiomqtt.Client(s.broker.host, s.broker.port, username=s.username, password=s.password(),
                              identifier=f"coindrel-club-{s.username or 'server'}", clean_session=False,
                              keepalive=30, timeout=10, max_queued_incoming_messages=20_000, **tls)

    async def run_mqtt(self, backoff: tuple[float, float] = (0.5, 10.0)) -> None:
        """Stay subscribed to every table; a lost broker is retried, never fatal."""
        import aiomqtt

        pause, said = backoff[0], False
        while not self.closing.is_set():
            try:
                async with self._client() as client:
                    await client.subscribe(f"{PREFIX}/+/+", qos=1)
                    self.client, pause, said = client, backoff[0], False
                    self.connected.set()
                    self._all_changed()  # the cards' "online" can be believed again
                    if self.on_connect is not None:
                        self.on_connect()
                    log.info("club: subscribed to %s at %s", f"{PREFIX}/+/+", self.settings.broker)
                    reader = asyncio.create_task(self._read(client))
                    closing = asyncio.create_task(self.closing.wait())
                    try:
                        done, _ = await asyncio.wait({reader, closing}, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        reader.cancel(), closing.cancel()
                        await asyncio.gather(reader, closing, return_exceptions=True)
                    if reader in done:
                        reader.result()  # the broker went away: MqttError
            except aiomqtt.MqttError as e:
                if not said:
                    log.warning("club: broker %s lost or not reachable (%s); retrying", self.settings.broker, e)
                    said = True
            finally:
                self.client = None
                if self.connected.is_set():
                    self.connected.clear()
                    self._all_changed()  # what the cards say is no longer heard: they show it
            try:
                await asyncio.wait_for(self.closing.wait(), pause)
            except asyncio.TimeoutError:
                pass
            pause = min(backoff[1], pause * 2)

    async def _read(self, client) -> None:
        async for message in client.messages:
            payload = message.payload
            if not isinstance(payload, (bytes, bytearray)):
                payload = str(payload).encode()
            self.handle(str(message.topic), bytes(payload))

    async def send_match(self, table: str, players: list[str], clock: float | None, variants: dict) -> str:
        """Ask a table to start a match (a person there confirms it)."""
        if table not in self.known:
            raise MessageError(f"{table!r} is not one of the club's tables")
        req = {"schema": SCHEMA, "table": table, "id": secrets.token_hex(6), "players": players, "clock": clock,
               "variants": variants, "at": round(time.time(), 3)}
        from ..messages import parse_request

        parse_request(table, json.loads(encode(req)))  # the table will check it the same way
        if self.client is None:
            raise MessageError("the club server is not connected to the broker; try again when it is")
        await self.client.publish(topic(table, "request"), encode(req), qos=1)
        self.store.add_request(req["id"], table, req)
        return req["id"]
