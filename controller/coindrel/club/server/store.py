"""The club's SQLite database: tables, drops, results and the admin's voids.

Every drop and result is stored once: the key is the table, the outbox's
source and its sequence number (a message the table sends again after a
lost acknowledgement is the same row), and a match has at most one result.
One connection, used from the server's event loop only.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from ...errors import CoindrelError

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (name TEXT PRIMARY KEY, online INTEGER NOT NULL DEFAULT 0,
    state TEXT, status TEXT, seen REAL);
CREATE TABLE IF NOT EXISTS drops (tbl TEXT NOT NULL, source TEXT NOT NULL, seq INTEGER NOT NULL,
    match TEXT NOT NULL, turn INTEGER NOT NULL, data TEXT NOT NULL, received REAL NOT NULL,
    PRIMARY KEY (tbl, source, seq));
CREATE TABLE IF NOT EXISTS results (id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, source TEXT NOT NULL,
    seq INTEGER NOT NULL, match TEXT NOT NULL, player1 TEXT NOT NULL, player2 TEXT NOT NULL,
    score1 INTEGER NOT NULL, score2 INTEGER NOT NULL, winner TEXT, ended REAL, data TEXT NOT NULL,
    received REAL NOT NULL, voided INTEGER NOT NULL DEFAULT 0, UNIQUE (tbl, source, seq), UNIQUE (tbl, match));
CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY, tbl TEXT NOT NULL, data TEXT NOT NULL, sent REAL NOT NULL);
"""


class StoreError(CoindrelError, RuntimeError):
    """The club database cannot be used; the message says what to give instead."""


class ClubStore:
    def __init__(self, path: str | Path, wall=time.time):
        self.path = str(path)
        self._wall = wall
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{path}: cannot use the club database ({e}); give another --db or move the file away") from None
        self.version = 0  # bumped when results change (standings are recomputed)

    def close(self) -> None:
        self.db.close()

    # -- tables --------------------------------------------------------------------------------

    def save_table(self, name: str, *, state: dict | None = None, status: dict | None = None) -> None:
        now = self._wall()
        self.db.execute("INSERT OR IGNORE INTO tables (name, seen) VALUES (?, ?)", (name, now))
        if state is not None:
            self.db.execute("UPDATE tables SET state=?, seen=? WHERE name=?", (json.dumps(state), now, name))
        if status is not None:
            self.db.execute("UPDATE tables SET status=?, online=?, seen=? WHERE name=?",
                            (json.dumps(status), int(bool(status.get("online"))), now, name))

    def tables(self) -> dict[str, dict]:
        out = {}
        for name, online, state, status, seen in self.db.execute("SELECT name, online, state, status, seen FROM tables"):
            out[name] = {"online": bool(online), "state": json.loads(state) if state else None,
                         "status": json.loads(status) if status else None, "seen": seen}
        return out

    # -- drops and results -------------------------------------------------------------------------

    def add_drop(self, table: str, d: dict) -> bool:
        """Store a drop; False if this (table, source, seq) is already stored."""
        cur = self.db.execute("INSERT OR IGNORE INTO drops VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (table, d["source"], d["seq"], d["match"], d["turn"], json.dumps(d), self._wall()))
        return cur.rowcount == 1

    def last_seq(self, table: str, source: str) -> int:
        """The highest sequence number stored from this table's outbox (0: none yet)."""
        row = self.db.execute("SELECT max(m) FROM (SELECT max(seq) AS m FROM drops WHERE tbl=? AND source=? "
                              "UNION ALL SELECT max(seq) FROM results WHERE tbl=? AND source=?)",
                              (table, source, table, source)).fetchone()
        return int(row[0] or 0)

    def drops(self, table: str | None = None, match: str | None = None, limit: int = 1000) -> list[dict]:
        q, args = "SELECT tbl, data FROM drops", []
        where = []
        if table is not None:
            where.append("tbl=?"), args.append(table)
        if match is not None:
            where.append("match=?"), args.append(match)
        if where:
            q += " WHERE " + " AND ".join(where)
        q += " ORDER BY received, seq LIMIT ?"
        args.append(limit)
        return [{"table": t, **json.loads(data)} for t, data in self.db.execute(q, args)]

    def add_result(self, table: str, r: dict) -> bool:
        """Store a result; False if it is already stored (same message, or same match)."""
        winner = None if r["winner"] is None else str(r["winner"])
        cur = self.db.execute(
            "INSERT OR IGNORE INTO results (tbl, source, seq, match, player1, player2, score1, score2, winner, ended, "
            "data, received) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (table, r["source"], r["seq"], r["match"], r["players"][0], r["players"][1], r["totals"][0],
             r["totals"][1], winner, r.get("ended"), json.dumps(r), self._wall()))
        if cur.rowcount == 1:
            self.version += 1
            return True
        return False

    def results(self, include_voided: bool = True) -> list[dict]:
        q = ("SELECT id, tbl, match, player1, player2, score1, score2, winner, ended, received, voided, data "
             "FROM results")
        if not include_voided:
            q += " WHERE voided=0"
        out = []
        for row in self.db.execute(q + " ORDER BY received, id"):
            rid, tbl, match, p1, p2, s1, s2, winner, ended, received, voided, data = row
            d = json.loads(data)
            out.append({"id": rid, "table": tbl, "match": match, "players": [p1, p2], "totals": [s1, s2],
                        "winner": int(winner) if winner in ("1", "2") else winner, "ended": ended,
                        "received": received, "voided": bool(voided), "result": d.get("result", "finished"),
                        "rounds": d.get("rounds", []), "turns": d.get("turns", 0)})
        return out

    def void(self, result_id: int, voided: bool = True) -> bool:
        cur = self.db.execute("UPDATE results SET voided=? WHERE id=?", (int(voided), result_id))
        if cur.rowcount:
            self.version += 1
        return cur.rowcount == 1

    def add_request(self, req_id: str, table: str, data: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO requests VALUES (?, ?, ?, ?)", (req_id, table, json.dumps(data), self._wall()))
