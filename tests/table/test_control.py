"""The control socket (table/control.py) and ``coindrel ctl``: status, a new
match through the flow as the menu starts one, button presses, and hostile
clients that never take the daemon down."""

from __future__ import annotations

import asyncio
import json
import os
import stat

import pytest
import pytest_asyncio

from coindrel.cli import main
from coindrel.engine import standard_geometry
from coindrel.sources.base import Capabilities
from coindrel.table import control
from coindrel.table.control import ControlServer
from coindrel.table.daemon import Table
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore

G = standard_geometry()
pytestmark = pytest.mark.asyncio


class BoardOnly:
    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=G.labels)


def table_with_halls(tmp_path) -> Table:
    now = [100.0]
    t = Table(G, Choices(clock="60", players=("Ann", "Bo")), source=BoardOnly(),
              store=MatchStore(tmp_path / "state").open(), clock=lambda: now[0])
    t.positions.update({label: "L" for label in G.labels})  # as the hall sensors read them
    return t


async def ask(path, *lines: bytes) -> list[dict]:
    reader, writer = await asyncio.open_unix_connection(str(path))
    out = []
    for line in lines:
        writer.write(line)
        await writer.drain()
        answer = await reader.readline()
        out.append(json.loads(answer) if answer else None)
    writer.close()
    return out


@pytest_asyncio.fixture
async def served(tmp_path):
    table = table_with_halls(tmp_path)
    server = ControlServer(table, tmp_path / "c.sock")
    assert await server.start()
    yield table, server
    await server.close()


async def test_status_at_the_menu_and_the_socket_is_0660(served):
    table, server = served
    assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o660 and stat.S_ISSOCK(os.stat(server.path).st_mode)
    (a,) = await ask(server.path, b'{"cmd": "status"}\n')
    st = a["status"]
    assert a["ok"] and st["mode"] == "menu" and st["phase"] == "menu" and st["drops"] == 0
    assert st["link"]["up"] is True and st["faults"] == [] and st["players"] == ["Ann", "Bo"]


async def test_new_match_goes_through_the_flow_and_the_journal(served):
    table, server = served
    (a,) = await ask(server.path, json.dumps({"cmd": "new-match", "players": ["Zoë", "Max"], "clock": "turbo",
                                              "variants": ["halved"]}).encode() + b"\n")
    assert a["ok"], a
    m = table.flow.match
    assert m is not None and m.setup.players == ("Zoë", "Max") and m.setup.clock == 5.0
    assert m.setup.variants.halved and not m.setup.variants.holes
    assert table.journal is not None and table.store.current.exists()  # journalled as the menu's start is
    st = a["status"]
    assert st["players"] == ["Zoë", "Max"] and st["round"] == 1 and st["totals"] == [0, 0] and st["turn"] == 1
    assert st["match"]["number"] == 1 and table.reconciler is not None
    (b,) = await ask(server.path, b'{"cmd": "new-match", "players": ["A", "B"]}\n')
    assert not b["ok"] and "a match is in progress" in b["error"]


async def test_a_board_that_cannot_start_says_why(served):
    table, server = served
    table.positions["R3S2"] = "mid"
    (a,) = await ask(server.path, b'{"cmd": "new-match", "players": ["A", "B"]}\n')
    assert not a["ok"] and "did not start" in a["error"] and "R3S2" in a["error"]
    assert table.flow.match is None


async def test_press_moves_the_menu(served):
    table, server = served
    before = table.flow.menu.selected
    (a, b) = await ask(server.path, b'{"cmd": "press", "button": "right"}\n', b'{"cmd": "press", "button": "jump"}\n')
    assert a["ok"] and table.flow.menu.selected != before
    assert not b["ok"] and "unknown button 'jump'" in b["error"] and "select" in b["error"]


@pytest.mark.parametrize("line, error", [
    (b"not json\n", "not a JSON request"),
    (b"\xff\xfe\n", "not a JSON request"),
    (b"[1, 2]\n", "a request is a JSON object"),
    (b'{"cmd": "format-disk"}\n', "unknown command 'format-disk'"),
    (b'{"cmd": "new-match", "players": "AB"}\n', "players: two names"),
    (b'{"cmd": "new-match", "players": ["A", "a"]}\n', "different names"),
    (b'{"cmd": "new-match", "players": ["A", "B"], "clock": 7}\n', "not a turn clock"),
    (b'{"cmd": "new-match", "players": ["A", "B"], "variants": ["upside-down"]}\n', "variants"),
    (b'{"cmd": "press", "button": [1]}\n', "unknown button [1]"),  # was a TypeError and an empty reply
    (b'{"cmd": ["status"]}\n', "unknown command ['status']"),
    (b'{"a": 1}\n', 'a request needs "cmd"'),
    (b'{"cmd": "new-match", "players": ["A", "B"], "holes": "yes"}\n', "unknown field 'holes'"),
    (b'{"cmd": "status", "verbose": true}\n', "status: unknown field 'verbose'"),
    (b"[" * 30000 + b"\n", "nested too deeply"),
    (b'{"cmd": "new-match", "players": ["A\\u001b[2J", "B"]}\n', "control character U+001B"),  # was a RecursionError and an empty reply
])
async def test_bad_requests_get_clear_errors_and_the_connection_goes_on(served, line, error):
    table, server = served
    a, b = await ask(server.path, line, b'{"cmd": "status"}\n')
    assert not a["ok"] and error in a["error"], a
    assert b["ok"] and table.flow.match is None


async def test_hostile_clients_never_stop_the_server(served):
    table, server = served
    # a line longer than any request: refused, and that connection closed
    reader, writer = await asyncio.open_unix_connection(str(server.path))
    writer.write(b"x" * (control.MAX_LINE + 10))
    await writer.drain()
    answer = json.loads(await reader.readline())
    assert not answer["ok"] and "longer than" in answer["error"]
    assert await reader.read() == b""
    writer.close()
    # a client that goes away mid-request, and one that sends nothing at all
    for partial in (b'{"cmd": "sta', b""):
        _, w = await asyncio.open_unix_connection(str(server.path))
        w.write(partial)
        await w.drain()
        w.close()
    # blank lines are skipped; many clients at once are each answered or told to come back
    answers = await asyncio.gather(*(ask(server.path, b"\n" + b'{"cmd": "status"}\n') for _ in range(30)))
    assert all(a[0] is None or a[0]["ok"] or "clients at once" in a[0]["error"] for a in answers)
    (ok,) = await ask(server.path, b'{"cmd": "status"}\n')
    assert ok["ok"] and server.server is not None and server.errors >= 1


async def test_a_stale_socket_is_replaced_and_a_file_in_the_way_is_refused(tmp_path, caplog):
    table = table_with_halls(tmp_path)
    first = ControlServer(table, tmp_path / "c.sock")
    assert await first.start()
    first.server.close()  # a daemon killed with -9 leaves its socket file behind
    assert (tmp_path / "c.sock").exists()
    second = ControlServer(table, tmp_path / "c.sock")
    assert await second.start()
    await second.close()
    (tmp_path / "plain").write_text("keep me")
    third = ControlServer(table, tmp_path / "plain")
    assert not await third.start() and (tmp_path / "plain").read_text() == "keep me"
    assert "not a socket" in caplog.text


async def test_coindrel_ctl_talks_to_the_table(served, capsys):
    table, server = served
    sock = str(server.path)
    assert await asyncio.to_thread(main, ["ctl", "--socket", sock, "new-match", "--players", "Ann,Bo",
                                          "--clock", "30", "--holes"]) == 2  # holes: the pads must be taken out
    assert "did not start" in capsys.readouterr().err
    assert await asyncio.to_thread(main, ["ctl", "--socket", sock, "new-match", "--players", "Ann,Bo"]) == 0
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["ctl", "--socket", sock, "status", "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["players"] == ["Ann", "Bo"] and st["drops"] == 0 and st["phase"] in ("reveal", "turn")
    assert await asyncio.to_thread(main, ["ctl", "--socket", sock, "press", "select"]) == 0
    assert await asyncio.to_thread(main, ["ctl", "--socket", sock, "status"]) == 0
    assert "Round 1: Ann 0, Bo 0" in capsys.readouterr().out


async def test_ctl_without_a_table_says_what_to_do(tmp_path, capsys):
    assert await asyncio.to_thread(main, ["ctl", "--socket", str(tmp_path / "none.sock"), "status"]) == 2
    assert "is the table running" in capsys.readouterr().err
    (tmp_path / "plain").write_text("x")
    for path, what in ((tmp_path / "plain", "is a file"), (tmp_path, "is a folder")):
        assert await asyncio.to_thread(main, ["ctl", "--socket", str(path), "status"]) == 2
        assert f"{what}, not the table's control socket" in capsys.readouterr().err


async def test_a_refused_new_match_exits_2_and_pads_clear_answers_the_question(served, capsys):
    """A coin that went in between matches (a served board's players drop on
    their own): the refusal says how to answer, and --pads-clear does."""
    table, server = served
    sock = str(server.path)
    table.flow.on_entry(3, table.now())  # no match: the coin may rest on any pad
    assert await asyncio.to_thread(main, ["ctl", "--socket", sock, "new-match", "--players", "Ann,Bo"]) == 2
    err = capsys.readouterr().err
    assert "between matches" in err and "--pads-clear" in err and "kill -USR1" in err
    assert table.flow.match is None
    # asked again without it: refused again (nobody said the pads are clear)
    assert await asyncio.to_thread(main, ["ctl", "--socket", sock, "new-match", "--players", "Ann,Bo"]) == 2
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["ctl", "--socket", sock, "new-match", "--players", "Ann,Bo",
                                          "--pads-clear"]) == 0
    assert table.flow.match is not None and table.flow.match.setup.players == ("Ann", "Bo")
    (a,) = await ask(server.path, b'{"cmd": "new-match", "players": ["A", "B"], "pads_clear": "yes"}\n')
    assert not a["ok"] and "pads_clear" in a["error"]



class LateWorker:
    """The diagnosis worker as the loop sees it: an answer comes after the
    question, once the loop has run (a thread or a child answers so)."""

    def __init__(self, rec):
        self.rec = rec

    def call(self, fn):
        from concurrent.futures import Future

        fut = Future()
        asyncio.get_running_loop().call_later(0.01, lambda: fut.set_result(fn(self.rec)))
        return fut


class Faulty:
    """A reconciler whose faults the test sets."""

    def __init__(self):
        self.faults = []

    def health(self):
        return self

    def poll(self, now):
        return []

    revisions = lambda self: []  # noqa: E731


async def test_status_on_the_worker_shows_the_faults_of_now_not_of_the_question_before(served):
    """Found last session: with the reconciler on its worker, ``ctl status``
    answered with the faults the worker gave for the status before."""
    table, server = served
    rec = Faulty()
    table.reconciler, table._diag = rec, LateWorker(rec)
    try:
        (a,) = await ask(server.path, b'{"cmd": "status"}\n')
        assert a["status"]["faults"] == []
        rec.faults = [{"fault": "exit_sensor_dead", "where": "exit 4", "first_drop": None, "last_drop": None}]
        (a,) = await ask(server.path, b'{"cmd": "status"}\n')
        assert [f["fault"] for f in a["status"]["faults"]] == ["exit_sensor_dead"]
        rec.faults = []
        (a,) = await ask(server.path, b'{"cmd": "status"}\n')
        assert a["status"]["faults"] == []
    finally:
        table.reconciler, table._diag = None, None
