"""The club server's parts without a broker: storing once, standings, hostile messages."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from coindrel.club.messages import SCHEMA
from coindrel.club.server.auth import check_hash_format, hash_password, verify_password
from coindrel.club.server.club import Club
from coindrel.club.server.config import load_server_settings
from coindrel.club.server.standings import standings
from coindrel.club.server.store import ClubStore
from coindrel.config import ConfigError

from .support import SimTable, free_port


class FakeLink:
    """Numbers messages as the outbox does, and keeps them for the test to deliver."""

    def __init__(self, table):
        self.table, self.seq, self.sent = table, 0, []

    def _msg(self, kind, record):
        self.seq += 1
        msg = {"schema": SCHEMA, "table": self.table, "at": 1.0, "source": "src1", "seq": self.seq, **record}
        self.sent.append((f"coindrel/{self.table}/{kind}", json.dumps(msg).encode()))
        return msg

    def publish_state(self, s):
        self.sent.append((f"coindrel/{self.table}/state", json.dumps({"schema": SCHEMA, "table": self.table, "at": 1.0, **s}).encode()))

    def publish_drop(self, d):
        return self._msg("drop", d)

    def publish_result(self, r):
        return self._msg("result", r)


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


@pytest.fixture
def club(tmp_path):
    settings = load_server_settings(None, broker="mqtt://127.0.0.1:1", tables="t1,t2", db=str(tmp_path / "c.sqlite"))
    clock = Clock()
    c = Club(settings, ClubStore(settings.db), clock=clock)
    c.test_clock = clock
    yield c
    c.store.close()


def deliver(club, link, step=0.05):
    outcomes = []
    for topic, payload in link.sent:
        club.test_clock.t += step
        outcomes.append(club.handle(topic, payload))
    link.sent.clear()
    return outcomes


def test_every_drop_and_result_is_stored_once_even_when_sent_twice(club):
    link = FakeLink("t1")
    table = SimTable(link, seed=5)
    table.play_match()
    twice = list(link.sent)
    assert set(deliver(club, link)) == {"ok"}
    link.sent = twice
    outcomes = deliver(club, link)
    assert outcomes.count("duplicate") == len(table.drops) + 1
    assert len(club.store.results()) == 1 and len(club.store.drops("t1")) == len(table.drops)
    assert club.live["t1"]["state"]["totals"] == list(table.match.totals)


def hostile_cases():
    big = b"{" + b" " * 20000 + b"}"
    return [
        ("coindrel/t2/result", big, "oversized"),
        ("coindrel/t2/result", b"{not json", "invalid"),
        ("coindrel/t2/state", json.dumps({"schema": 7, "table": "t2"}).encode(), "invalid"),
        ("coindrel/t2/result", json.dumps({"schema": SCHEMA, "table": "t1", "source": "s", "seq": 1, "match": "m",
                                            "players": ["X", "Y"], "totals": [999, 0], "winner": 1, "turns": 1}).encode(),
         "invalid"),  # t2 claiming to be t1
        ("coindrel/intruder/result", b"{}", "unknown table"),
        ("coindrel/t2/../t1/result", b"{}", "topic"),
        ("$SYS/broker/x", b"1", "topic"),
    ]


@pytest.mark.parametrize("topic, payload, why", hostile_cases())
def test_a_hostile_message_is_dropped_by_name_and_changes_nothing(club, topic, payload, why):
    link = FakeLink("t1")
    SimTable(link, seed=9).play_match()
    deliver(club, link)
    before = (club.store.results(), club.store.drops("t1"), json.dumps(club.live["t1"], default=str))
    assert club.handle(topic, payload) == why
    assert (club.store.results(), club.store.drops("t1"), json.dumps(club.live["t1"], default=str)) == before


def test_a_flooding_table_is_throttled_and_the_others_still_score(club):
    good, bad = FakeLink("t1"), FakeLink("t2")
    flood_table = SimTable(bad, seed=1)
    flood_table.new_match()
    drop = json.loads(bad.sent[-1][1]) if False else None
    flood_table.drop()
    topic, payload = bad.sent[-1]
    outcomes = [club.handle(topic, payload) for _ in range(5000)]  # at one instant: far over the rate
    assert outcomes.count("flood") > 4000
    table = SimTable(good, seed=2)
    table.play_match()
    assert "flood" not in deliver(club, good)
    assert len(club.store.results()) == 1 and club.store.results()[0]["table"] == "t1"
    club.test_clock.t += 60
    assert club.handle(topic, payload) in ("ok", "duplicate")  # t2 is heard again once it calms down


@settings(max_examples=150)
@given(topic=st.sampled_from(["coindrel/t2/drop", "coindrel/t2/result", "coindrel/t2/state", "coindrel/t2/status",
                              "coindrel/t1x/result", "coindrel/t2/request"]),
       body=st.one_of(st.binary(max_size=300), st.dictionaries(st.text(max_size=10), st.integers() | st.text(max_size=5)
                                                               | st.lists(st.integers(), max_size=3), max_size=12)
                      .map(lambda d: json.dumps({"schema": SCHEMA, "table": "t2", **d}).encode())))
def test_no_message_from_one_table_can_raise_or_touch_another(tmp_path_factory, topic, body):
    path = tmp_path_factory.mktemp("c") / "c.sqlite"
    s = load_server_settings(None, broker="mqtt://127.0.0.1:1", tables="t1,t2", db=str(path))
    c = Club(s, ClubStore(path))
    link = FakeLink("t1")
    SimTable(link, seed=4).play_match()
    deliver_all = [c.handle(t, p) for t, p in link.sent]
    assert set(deliver_all) == {"ok"}
    before = (c.store.results(), c.store.drops("t1"), json.dumps(c.live["t1"], default=str))
    assert c.handle(topic, body) != "error"
    assert (c.store.results(), c.store.drops("t1"), json.dumps(c.live["t1"], default=str)) == before
    c.store.close()


def test_standings_count_wins_draws_points_and_elo():
    rows = [
        {"players": ["A", "B"], "totals": [100, 50]},
        {"players": ["B", "C"], "totals": [70, 70]},
        {"players": ["C", "A"], "totals": [10, 90], "voided": True},
        {"players": ["C", "A"], "totals": [10, 90], "result": "abandoned"},
    ]
    s = {x.player: x for x in standings(rows)}
    assert (s["A"].played, s["A"].won, s["A"].points) == (1, 1, 100)
    assert (s["B"].played, s["B"].lost, s["B"].drawn) == (2, 1, 1)
    assert s["A"].rating == pytest.approx(1516)
    assert s["B"].rating < s["C"].rating < 1500  # the draw took a little from the higher-rated C
    assert sum(x.rating for x in s.values()) == pytest.approx(1500 * 3)  # Elo moves points, it never makes them


def test_password_hashes():
    h = hash_password("correct horse")
    assert verify_password("correct horse", h) and not verify_password("wrong", h)
    assert check_hash_format(h) == ""
    assert "scrypt" in check_hash_format("md5$abc") and not verify_password("x", "garbage")


@pytest.mark.parametrize("kw, words", [
    ({"broker": None}, "needs a broker"),
    ({"broker": "http://x"}, "mqtt://"),
    ({"tables": ""}, "list the club's tables"),
    ({"tables": "Bad Name"}, "not a table name"),
    ({"http": "8080"}, "HOST:PORT"),
    ({"admin_password_hash": "plain"}, "scrypt"),
])
def test_server_settings_errors_say_what_to_fix(kw, words):
    base = {"broker": "mqtt://127.0.0.1", "tables": "t1"}
    with pytest.raises(ConfigError, match=words):
        load_server_settings(None, **{**base, **kw})


def test_serve_on_an_address_in_use_says_so_without_a_traceback(tmp_path, capsys):
    import socket

    from coindrel.cli import main

    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        code = main(["club", "serve", "--broker", "mqtt://127.0.0.1:1", "--tables", "t1", "--http",
                     f"127.0.0.1:{port}", "--db", str(tmp_path / "c.sqlite")])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot serve on 127.0.0.1:{port}" in err and "another --http" in err
    assert "Traceback" not in err
    code = main(["club", "serve", "--broker", "mqtt://127.0.0.1:1", "--tables", "t1", "--db",
                 str(tmp_path / "no" / "such" / "c.sqlite"), "--http", f"127.0.0.1:{free_port()}"])
    assert code == 2 and "cannot use the club database" in capsys.readouterr().err


def test_a_backlog_after_the_broker_was_away_is_stored_whole_however_fast_it_comes(club):
    """A table's outbox deletes each message when the broker acknowledges it,
    so what the club drops is lost. A table back after a long outage sends
    its backlog as fast as the broker takes it (on a fast disk, thousands a
    second): far over the flood allowance, and every message of it counts.
    Replays of what is stored, at that rate, are the flood."""
    link = FakeLink("t1")
    table = SimTable(link, seed=21)
    for _ in range(12):  # about 600 drops and results (and states), all at one instant of the club's clock
        table.play_match()
    backlog = list(link.sent)
    sequenced = [p for t, p in backlog if t.endswith(("/drop", "/result"))]
    assert len(sequenced) > 2 * 200  # the burst the club allows a table
    outcomes = [club.handle(t, p) for t, p in backlog]
    assert "flood" not in [o for (t, _), o in zip(backlog, outcomes) if t.endswith(("/drop", "/result"))]
    assert len(club.store.drops("t1", limit=100000)) == len(table.drops)
    assert len(club.store.results()) == len(table.results) == 12
    again = [club.handle(t, p) for t, p in backlog[:400] if t.endswith("/drop")]  # the same again, still at once
    assert again.count("flood") > 0 and set(again) <= {"flood", "duplicate"}
    assert len(club.store.drops("t1", limit=100000)) == len(table.drops)


@pytest.mark.parametrize("stdin", ["longpassword\n", ""])
def test_hash_password_without_a_terminal_points_to_stdin(monkeypatch, capsys, stdin):
    """Found by a newcomer: `echo pw | coindrel club hash-password` (or </dev/null)
    ended in termios.error, then EOFError."""
    import io

    from coindrel.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main(["club", "hash-password"]) == 2
    out, err = capsys.readouterr()
    assert "standard input is not a terminal" in err and "--stdin" in err and "Traceback" not in err and out == ""
    monkeypatch.setattr("sys.stdin", io.StringIO("longpassword\n"))
    assert main(["club", "hash-password", "--stdin"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith('admin_password_hash = "scrypt$') and verify_password("longpassword", line.split('"')[1])
    monkeypatch.setattr("sys.stdin", io.StringIO("\udcff\udcfe12345678\n"))  # bad bytes, as a C locale reads them
    assert main(["club", "hash-password", "--stdin"]) == 2
    assert "not UTF-8 text" in capsys.readouterr().err
