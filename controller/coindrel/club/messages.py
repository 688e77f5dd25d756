"""The club's vocabulary: topics, and the shape of every message on them.

Topics, all under ``coindrel/<table>/``::

    status    retained  {"online": true|false, ...}      (the last will says false)
    state     retained  the table as it stands (players, round, scores, board, health)
    drop      QoS 1     one drop: entry, exits, points, verdict, its match id and sequence number
    result    QoS 1     one finished match: players, totals, winner, its match id and sequence number
    request   QoS 1     the club asks the table to start a match (a person must confirm)

Everything read from the broker goes through ``parse_*`` here: a size limit
first, then JSON, then a schema. A message that fails raises ``MessageError``
naming the problem; the reader logs it and drops the message.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ..errors import CoindrelError
from ..nesting import json_kind, loads_json

PREFIX = "coindrel"
TOPICS = ("status", "state", "drop", "result", "request")
TABLE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
MAX_MESSAGE = 16 * 1024  # bytes; a state with a long fault list is ~2 KB
MAX_TEXT = 200  # characters in any one text field
MAX_LIST = 64
SCHEMA = 1


class MessageError(CoindrelError, ValueError):
    """A message that does not fit its topic's schema."""


def check_table_name(name: str) -> str:
    if not isinstance(name, str) or not TABLE_NAME.match(name):
        raise MessageError(f"{name!r} is not a table name: use 1-32 lowercase letters, digits, '-' or '_', "
                           "starting with a letter or digit")
    return name


def topic(table: str, kind: str) -> str:
    assert kind in TOPICS, kind
    return f"{PREFIX}/{table}/{kind}"


def split_topic(name: str) -> tuple[str, str]:
    """(table, kind) of a club topic; MessageError for anything else."""
    parts = name.split("/")
    if len(parts) != 3 or parts[0] != PREFIX or parts[2] not in TOPICS:
        raise MessageError(f"topic {name[:80]!r} is not a club topic ({PREFIX}/<table>/<kind>)")
    return check_table_name(parts[1]), parts[2]


def encode(message: dict) -> bytes:
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    if len(data) > MAX_MESSAGE:
        raise MessageError(f"a {len(data)}-byte message is over the club's {MAX_MESSAGE}-byte limit")
    return data


def decode(payload: bytes | bytearray | str) -> dict:
    if isinstance(payload, str):
        payload = payload.encode()
    if len(payload) > MAX_MESSAGE:
        raise MessageError(f"{len(payload)} bytes is over the {MAX_MESSAGE}-byte limit")
    try:
        text = bytes(payload).decode("utf-8")  # the schema's encoding: json.loads would guess UTF-16 from two bytes
    except UnicodeDecodeError as e:
        raise MessageError(f"not UTF-8 text (byte {e.start} is {bytes(payload)[e.start:e.start + 1]!r}); "
                           "club messages are JSON in UTF-8") from None
    try:
        obj = loads_json(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, RecursionError) as e:
        raise MessageError(f"not JSON ({str(e)[:80]})") from None
    if not isinstance(obj, dict):
        raise MessageError(f"{json_kind(obj)}, where a JSON object was expected")
    return obj


def _no_constant(name: str):
    raise MessageError(f"{name} is not a number a message may carry")


# -- field checks ---------------------------------------------------------------------------

class _Fields:
    """Typed reads of one message's fields; every error names the field."""

    def __init__(self, kind: str, obj: dict):
        self.kind, self.obj = kind, obj

    def fail(self, key: str, why: str):
        raise MessageError(f"{self.kind} message, field {key!r}: {why}")

    def int(self, key, lo=None, hi=None, optional=False):
        v = self.obj.get(key)
        if v is None and optional:
            return None
        if not isinstance(v, int) or isinstance(v, bool):
            self.fail(key, f"must be a whole number, not {_show(v)}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(key, f"{v} is out of range")
        return v

    def num(self, key, lo=None, hi=None, optional=False):
        v = self.obj.get(key)
        if v is None and optional:
            return None
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            self.fail(key, f"must be a number, not {_show(v)}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(key, f"{v} is out of range")
        return v

    def text(self, key, optional=False, limit=MAX_TEXT):
        v = self.obj.get(key)
        if v is None and optional:
            return None
        if not isinstance(v, str) or len(v) > limit:
            self.fail(key, f"must be text of at most {limit} characters, not {_show(v)}")
        return v

    def bool(self, key, optional=False):
        v = self.obj.get(key)
        if v is None and optional:
            return None
        if not isinstance(v, bool):
            self.fail(key, f"must be true or false, not {_show(v)}")
        return v

    def ints(self, key, length=None, lo=None, hi=None):
        v = self.obj.get(key)
        if not isinstance(v, list) or len(v) > MAX_LIST or (length is not None and len(v) != length):
            self.fail(key, f"must be a list of {length or 'up to ' + str(MAX_LIST)} whole numbers, not {_show(v)}")
        for x in v:
            if not isinstance(x, int) or isinstance(x, bool) or (lo is not None and x < lo) or (hi is not None and x > hi):
                self.fail(key, f"has {_show(x)} where a whole number{' in range' if lo is not None else ''} belongs")
        return list(v)

    def texts(self, key, length=None, optional=False):
        v = self.obj.get(key)
        if v is None and optional:
            return []
        if not isinstance(v, list) or len(v) > MAX_LIST or (length is not None and len(v) != length):
            self.fail(key, f"must be a list of {length or 'up to ' + str(MAX_LIST)} texts, not {_show(v)}")
        for x in v:
            if not isinstance(x, str) or len(x) > MAX_TEXT:
                self.fail(key, f"has {_show(x)} where a text of at most {MAX_TEXT} characters belongs")
        return list(v)

    def players(self, key="players"):
        names = self.texts(key, length=2)
        if not all(n.strip() for n in names):
            self.fail(key, "player names must not be empty")
        return names

    def only(self, *keys):
        extra = sorted(set(self.obj) - set(keys))
        if extra:
            self.fail(extra[0], f"is not a field of a {self.kind} message (fields: {', '.join(keys)})")


def _show(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _common(f: _Fields, table: str) -> None:
    if f.obj.get("schema") != SCHEMA:
        f.fail("schema", f"this club reads schema {SCHEMA}, not {_show(f.obj.get('schema'))}")
    if f.text("table") != table:
        f.fail("table", f"says {_show(f.obj.get('table'))} on the topic of table {table!r}")


def _winner(f: _Fields, key="winner"):
    v = f.obj.get(key)
    if v not in (1, 2, "draw", None) or isinstance(v, bool):
        f.fail(key, f"must be 1, 2, \"draw\" or null, not {_show(v)}")
    return v


# -- the messages ---------------------------------------------------------------------------

def parse_status(table: str, obj: dict) -> dict:
    f = _Fields("status", obj)
    f.only("schema", "table", "online", "at", "app")
    _common(f, table)
    return {"online": f.bool("online"), "at": f.num("at", optional=True), "app": f.text("app", optional=True) or ""}


def parse_state(table: str, obj: dict) -> dict:
    f = _Fields("state", obj)
    f.only("schema", "table", "at", "match", "players", "round", "target", "round_scores", "totals", "to_move",
           "clock", "last_drop", "board", "values", "status", "phase", "link", "health", "faults", "winner")
    _common(f, table)
    playing = obj.get("match") is not None
    out = {
        "at": f.num("at", optional=True),
        "match": f.text("match", optional=True),
        "status": f.text("status", optional=True) or "",
        "link": f.text("link", optional=True) or "",
        "health": f.text("health", optional=True) or "",
        "faults": f.texts("faults", optional=True),
        "phase": f.text("phase", optional=True) or "",
    }
    if playing:
        out.update(
            players=f.players(), round=f.int("round", 1, 4), target=f.int("target", 0, 10_000),
            round_scores=f.ints("round_scores", 2, 0, 100_000), totals=f.ints("totals", 2, 0, 100_000),
            to_move=f.int("to_move", 1, 2), clock=f.num("clock", 0, 86_400, optional=True),
            last_drop=f.bool("last_drop"), board=f.text("board", limit=120),
            values=f.ints("values", None, 0, 10_000) if obj.get("values") is not None else [],
            winner=_winner(f),
        )
    return out


def parse_drop(table: str, obj: dict) -> dict:
    f = _Fields("drop", obj)
    f.only("schema", "table", "source", "seq", "match", "turn", "at", "player", "entry", "exits", "points",
           "round", "round_scores", "totals", "verdict", "explanation", "board", "last_drop", "over")
    _common(f, table)
    return {
        "source": f.text("source", limit=40), "seq": f.int("seq", 1, 2**62), "match": f.text("match"),
        "turn": f.int("turn", 1, 10_000), "at": f.num("at", optional=True), "player": f.int("player", 1, 2),
        "entry": f.int("entry", 0, 63), "exits": f.ints("exits", None, 0, 63), "points": f.int("points", 0, 100_000),
        "round": f.int("round", 1, 4), "round_scores": f.ints("round_scores", 2, 0, 100_000),
        "totals": f.ints("totals", 2, 0, 100_000), "verdict": f.text("verdict", optional=True) or "",
        "explanation": f.text("explanation", optional=True) or "", "board": f.text("board", limit=120),
        "last_drop": bool(f.bool("last_drop", optional=True)), "over": bool(f.bool("over", optional=True)),
    }


def parse_result(table: str, obj: dict) -> dict:
    f = _Fields("result", obj)
    f.only("schema", "table", "source", "seq", "at", "match", "players", "totals", "rounds", "winner", "turns",
           "started", "ended", "variants", "clock", "result")
    _common(f, table)
    rounds = obj.get("rounds") or []
    if not isinstance(rounds, list) or len(rounds) > 4 or not all(
            isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in r)
            for r in rounds):
        f.fail("rounds", "must list up to 4 rounds of two whole numbers")
    variants = obj.get("variants") or {}
    if not isinstance(variants, dict) or len(variants) > 8 or not all(
            isinstance(k, str) and len(k) < 20 and isinstance(v, bool) for k, v in variants.items()):
        f.fail("variants", "must map variant names to true or false")
    out = {
        "source": f.text("source", limit=40), "seq": f.int("seq", 1, 2**62), "match": f.text("match"),
        "players": f.players(), "totals": f.ints("totals", 2, 0, 100_000), "rounds": rounds,
        "winner": _winner(f), "turns": f.int("turns", 0, 10_000), "started": f.num("started", optional=True),
        "ended": f.num("ended", optional=True), "at": f.num("at", optional=True), "variants": variants, "clock": f.num("clock", 0, 86_400, optional=True),
        "result": f.text("result", optional=True) or "finished",
    }
    if out["result"] not in ("finished", "abandoned"):
        f.fail("result", f"must be \"finished\" or \"abandoned\", not {_show(out['result'])}")
    a, b = out["totals"]
    if out["result"] == "finished" and out["winner"] != ("draw" if a == b else 1 if a > b else 2):
        f.fail("winner", f"{_show(out['winner'])} does not follow from the totals {a}-{b}")
    return out


def parse_request(table: str, obj: dict) -> dict:
    """A new match the club asks for: players, clock, variants."""
    f = _Fields("request", obj)
    f.only("schema", "table", "id", "players", "clock", "variants", "at")
    _common(f, table)
    variants = obj.get("variants") or {}
    if not isinstance(variants, dict) or not set(variants) <= {"holes", "halved", "shuffled"} or not all(
            isinstance(v, bool) for v in variants.values()):
        f.fail("variants", "must map holes, halved, shuffled to true or false")
    clock = f.num("clock", optional=True)
    if clock is not None and clock not in (5, 30, 60, 120):
        f.fail("clock", f"must be 5, 30, 60 or 120 seconds per turn, or null, not {_show(clock)}")
    return {"id": f.text("id", limit=64), "players": f.players(), "clock": clock, "variants": dict(variants),
            "at": f.num("at", optional=True)}


PARSERS = {"status": parse_status, "state": parse_state, "drop": parse_drop, "result": parse_result,
           "request": parse_request}


def parse(topic_name: str, payload: bytes) -> tuple[str, str, dict]:
    """(table, kind, message) of anything read from the broker; MessageError otherwise."""
    table, kind = split_topic(topic_name)
    return table, kind, PARSERS[kind](table, decode(payload))
