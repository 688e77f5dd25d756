"""Drops and results waiting for the broker, on disk, in order.

An SQLite file in the state directory (``club-outbox.sqlite``). ``put`` gives
a message the next sequence number of this outbox and commits it (fully
synced) before the caller carries on, so a message the table has shown is
also one it will send, across a crash or a power cut. ``done`` deletes it
once the broker has acknowledged it (MQTT QoS 1 PUBACK). A message whose
acknowledgement is lost goes out again; the club stores each (source, seq)
once, so nothing arrives twice in its database.

``source`` is a random id made with the outbox: a new outbox (a new SD card)
starts its numbers again at 1 under another source, so the club never takes
its first drops for ones it has already seen.
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
import time
from pathlib import Path

from ..errors import CoindrelError
from .messages import MessageError, encode

log = logging.getLogger("coindrel.club")
FILE = "club-outbox.sqlite"
LIMIT = 100_000  # messages; a table offline for weeks still keeps every result (drops beyond this are dropped oldest first)


class OutboxError(CoindrelError, OSError):
    """The outbox cannot be written; the message says what to do."""


class Outbox:
    def __init__(self, path: Path, wall=time.time):
        self.path = Path(path)
        self._wall = wall
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)  # a sim's --state-dir may be new
        except OSError as e:
            raise OutboxError(f"cannot make the state directory {self.path.parent} for the club outbox: "
                              f"{e.strerror}; choose a directory this user can write") from None
        existed = self.path.exists()
        try:
            self.db = self._open()
        except sqlite3.DatabaseError as e:
            if not existed:  # nothing was there to be damaged: the directory is what refuses
                raise OutboxError(f"cannot make the club outbox {self.path}: {e}; "
                                  "check the state directory is writable by the daemon") from None
            self.db = self._replace_damaged(e)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload BLOB NOT NULL)")
        db.execute("BEGIN IMMEDIATE")
        if db.execute("SELECT value FROM meta WHERE key='source'").fetchone() is None:
            db.execute("INSERT INTO meta VALUES ('source', ?), ('next', '1')", (secrets.token_hex(8),))
        db.execute("COMMIT")
        db.execute("PRAGMA quick_check").fetchone()
        return db

    def _replace_damaged(self, error: Exception) -> sqlite3.Connection:
        keep = self.path.with_name(f"{self.path.name}.damaged-{int(self._wall())}")
        log.error("the club outbox %s is damaged (%s); kept as %s, starting a new one: messages in it are not sent",
                  self.path, error, keep.name)
        try:
            self.path.rename(keep)
            for suffix in ("-wal", "-shm"):
                side = self.path.with_name(self.path.name + suffix)
                if side.exists():
                    side.rename(keep.with_name(keep.name + suffix))
            return self._open()
        except (OSError, sqlite3.DatabaseError) as e:
            raise OutboxError(f"cannot start a new club outbox at {self.path}: {e}; "
                              "check the state directory is writable by the daemon") from None

    @property
    def source(self) -> str:
        return self.db.execute("SELECT value FROM meta WHERE key='source'").fetchone()[0]

    def put(self, kind: str, message: dict, mark: tuple[str, str] | None = None) -> dict:
        """Number ``message``, save it durably and return it as it will be sent.
        ``mark`` (key, value) is saved in the same transaction: what the feed has
        published survives a crash exactly as the message does."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                seq = int(self.db.execute("SELECT value FROM meta WHERE key='next'").fetchone()[0])
                full = {**message, "source": self.source, "seq": seq}
                payload = encode(full)
                self.db.execute("INSERT INTO outbox VALUES (?, ?, ?)", (seq, kind, payload))
                self.db.execute("UPDATE meta SET value=? WHERE key='next'", (str(seq + 1),))
                if mark is not None:
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"mark:{mark[0]}", str(mark[1])))
                over = self.db.execute("SELECT count(*) FROM outbox").fetchone()[0] - LIMIT
                if over > 0:  # drops go first; results are what a club cannot rebuild
                    self.db.execute("DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE kind='drop' "
                                    "ORDER BY seq LIMIT ?)", (over,))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            raise OutboxError(f"cannot save a club {kind} in {self.path}: {e}; "
                              "check the state directory is writable and not full") from None
        except MessageError as e:
            raise OutboxError(f"a club {kind} message cannot be sent: {e}") from None
        return full

    def mark(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (f"mark:{key}",)).fetchone()
        return None if row is None else row[0]

    def pending(self, limit: int = 100) -> list[tuple[int, str, bytes]]:
        """The oldest waiting messages, in order: (seq, kind, payload)."""
        return self.db.execute("SELECT seq, kind, payload FROM outbox ORDER BY seq LIMIT ?", (limit,)).fetchall()

    def __len__(self) -> int:
        return self.db.execute("SELECT count(*) FROM outbox").fetchone()[0]

    def done(self, seq: int) -> None:
        try:
            self.db.execute("DELETE FROM outbox WHERE seq=?", (seq,))
        except sqlite3.Error as e:  # sent twice later; the club keeps it once
            log.warning("cannot mark club message %d as sent in %s: %s", seq, self.path, e)

    def close(self) -> None:
        self.db.close()
