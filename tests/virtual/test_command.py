"""``coindrel virtual-board`` from the command line: runs, logs, and clear
messages for every mistake."""

from __future__ import annotations

import json
import os
import sys

import pytest

from coindrel.cli import main
from coindrel.obslog import read_log
from coindrel.virtual import read_truth

from .harness import SCENARIOS
from .oracle import compare_with_engine

ALL_L = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def test_scripted_drops_write_both_logs(tmp_path, capsys):
    log, truth = tmp_path / "obs.jsonl", tmp_path / "truth.jsonl"
    rc = main(["virtual-board", "--seed", "3", "--start", ALL_L, "--drops", "4,4,5", "--drop", "1@9.5",
               "--log", str(log), "--truth", str(truth)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "virtual board: 4 drops" in out and "0 drop(s) physically unlike" in out
    obs = read_log(log)
    assert obs.problems == [] and list(obs.header.state) == ALL_L.split("/")
    assert obs.header.extra == {"source": "virtual-board", "seed": 3}
    lines = read_truth(truth)
    assert lines[0]["kind"] == "header" and lines[0]["seed"] == 3 and lines[-1]["kind"] == "end"
    drops = [d for d in lines if d["kind"] == "drop"]
    assert [(d["entry"], d["t"]) for d in drops] == [(4, 0.5), (4, 2.5), (5, 4.5), (1, 9.5)]
    g = __import__("coindrel.engine", fromlist=["standard_geometry"]).standard_geometry()
    assert compare_with_engine(obs.events, lines, g, ALL_L.split("/")) == []


def test_events_on_stdout_are_the_log_without_header(tmp_path, capsys):
    log = tmp_path / "obs.jsonl"
    assert main(["virtual-board", "--seed", "5", "--players", "greedy,random", "--max-drops", "30", "--events",
                 "--log", str(log)]) == 0
    captured = capsys.readouterr()
    printed = [json.loads(line) for line in captured.out.splitlines()]
    logged = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    assert printed == logged and len(printed) > 30
    assert "virtual board: 30 drops" in captured.err


def test_a_scenario_with_overrides_and_faults(tmp_path, capsys):
    truth = tmp_path / "truth.jsonl"
    rc = main(["virtual-board", "--scenario", str(SCENARIOS / "faults" / "switch-stuck.toml"),
               "--fault", "exit_sensor_dead@exit 12,t=0.1", "--timing", "row_fall=0.07:0.09", "--truth", str(truth)])
    assert rc == 0
    lines = read_truth(truth)
    assert [f["fault"] for f in lines if f["kind"] == "fault"] == ["exit_sensor_dead", "switch_stuck"]
    assert lines[0]["timing"]["row_fall"] == [0.07, 0.09]
    drop2 = next(d for d in lines if d["kind"] == "drop" and d["drop"] == 2)
    assert drop2["missed"] == ["exit 12"] and drop2["faults"] == [1, 2]


def test_same_seed_same_files(tmp_path):
    for name in ("a", "b"):
        assert main(["virtual-board", "--seed", "9", "--players", "random,greedy", "--overlap", "0.3",
                     "--log", str(tmp_path / f"{name}.jsonl"), "--truth", str(tmp_path / f"{name}-t.jsonl")]) == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a-t.jsonl").read_bytes() == (tmp_path / "b-t.jsonl").read_bytes()


@pytest.mark.parametrize("args, words", [
    (["--drop", "9"], "entries are 1..8"),
    (["--drop", "x@1"], "write ENTRY or ENTRY@SECONDS"),
    (["--fault", "jam@R3S2", "--drop", "1"], "write a switch and an outlet"),
    (["--scenario", "/nonexistent.toml"], "cannot read the scenario"),
    ([], "nothing would happen"),
    (["--keyboard", "--drop", "1"], "need --serve"),
    (["--players", "greedy", "--drop", "1"], "name two players"),
    (["--players", "clever,random"], "unknown computer player 'clever'"),
    (["--start", "LLL", "--drop", "1"], "has 1 row(s)"),
    (["--timing", "row_fall", "--drop", "1"], "write KEY=LO:HI"),
    (["--timing", "rowfall=1:2", "--drop", "1"], "unknown timing key(s) rowfall"),
    (["--serve", "/dev/ttyUSB0"], "write 'pty' or socket://HOST:PORT"),
    (["--log", "/nonexistent/dir/log.jsonl", "--drop", "1"], "/nonexistent/dir does not exist"),
    (["--serve", "pty", "--speed", "-2"], "--speed -2.0"),
])
def test_mistakes_get_a_clear_message(args, words, capsys):
    assert main(["virtual-board", *args]) == 2
    assert words in capsys.readouterr().err


def test_serving_on_a_socket_from_the_command_line(tmp_path, capsys, monkeypatch):
    import socket
    import threading

    import serial

    from coindrel.hub import protocol as p
    from coindrel.virtual.live import Server

    ready = threading.Event()
    init = Server.__init__

    def with_ready(self, *a, **k):
        init(self, *a, **k)
        self.ready = ready  # set by the server once its port is open

    monkeypatch.setattr(Server, "__init__", with_ready)

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port_no = s.getsockname()[1]
    log = tmp_path / "obs.jsonl"
    result = {}
    args = ["virtual-board", "--serve", f"socket://127.0.0.1:{port_no}", "--speed", "0", "--wait", "--until", "7",
            "--seed", "2", "--start", ALL_L, "--drops", "4,4,5", "--log", str(log)]
    th = threading.Thread(target=lambda: result.setdefault("rc", main(args)), daemon=True)
    th.start()
    assert ready.wait(120)
    port = serial.serial_for_url(f"socket://127.0.0.1:{port_no}", timeout=120)
    port.write(p.encode(p.HelloReq(), 1))
    dec, frames = p.Decoder("hub"), []
    while True:
        try:
            port.timeout = 120  # a ceiling for a hang; the board's --until ends the reading
            data = port.read(1)
            port.timeout = 0
            data += port.read(1 << 16)
        except serial.SerialException:
            break  # the board reached --until and the virtual hub closed the port
        if not data:
            break
        frames += [i for i in dec.feed(data) if isinstance(i, p.Frame)]
    port.close()
    th.join(120)
    assert result["rc"] == 0
    assert any(isinstance(f.msg, p.Hello) and f.msg.req == 1 for f in frames)
    assert sum(1 for f in frames if isinstance(f.msg, p.Beam) and f.msg.broken and f.msg.beam < 8) == 3
    assert read_log(log).problems == [] and "virtual board: 3 drops" in capsys.readouterr().out


def test_a_port_already_taken_is_named_with_the_fix(capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port_no = s.getsockname()[1]
        rc = main(["virtual-board", "--serve", f"socket://127.0.0.1:{port_no}", "--speed", "0", "--until", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert f"cannot serve on socket://127.0.0.1:{port_no}: address already in use" in err
    assert "socket://127.0.0.1:0 picks a free one" in err


def test_speed_0_with_players_is_refused_with_the_fix(capsys, tmp_path):
    """Found by a newcomer: served at --speed 0, the players' whole match was
    over in a moment, before the table could start one: no drop ever came."""
    assert main(["virtual-board", "--serve", "socket://127.0.0.1:0", "--speed", "0", "--players", "greedy,random"]) == 2
    assert "use --speed 1" in capsys.readouterr().err
    config = tmp_path / "c.toml"
    config.write_text('[board]\nsource = "virtual"\n[board.virtual]\nplayers = "greedy,random"\nspeed = 0\n')
    assert main(["run", "--config", str(config), "--check"]) == 2
    err = capsys.readouterr().err
    assert "[board.virtual] speed" in err and "use 1 (real time)" in err and "Traceback" not in err


def test_a_served_board_stopped_with_sigterm_closes_its_truth(tmp_path):
    """Found by a newcomer: a virtual board stopped with SIGTERM (kill,
    systemctl stop) wrote no closing {"kind": "end"} line in --truth."""
    import signal
    import subprocess
    import sys

    truth = tmp_path / "truth.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "coindrel", "virtual-board", "--serve", "socket://127.0.0.1:0",
                             "--drops", "4", "--truth", str(truth)], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # "virtual hub on socket://...": serving
        assert "virtual hub on" in line, line
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
    last = json.loads(truth.read_text().splitlines()[-1])
    assert last["kind"] == "end"


def test_keyboard_keys_from_a_file_or_dev_null_are_refused_by_name(tmp_path, capsys, monkeypatch):
    """Found by a newcomer: `--keyboard < /dev/null` said only "Operation not
    permitted" (the loop cannot wait on a file); a pipe is fine (a rig types through one)."""
    import io

    with open(os.devnull) as null:
        monkeypatch.setattr(sys, "stdin", null)
        assert main(["virtual-board", "--serve", "pty", "--keyboard"]) == 2
    assert "--keyboard needs a terminal (or a pipe)" in capsys.readouterr().err
    from coindrel.commands import virtual_board

    r, w = os.pipe()
    with os.fdopen(r) as pipe:
        monkeypatch.setattr(sys, "stdin", pipe)
        assert virtual_board._keys_can_come()
    os.close(w)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no file descriptor at all
    assert not virtual_board._keys_can_come()
