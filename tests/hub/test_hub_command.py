"""``coindrel hub``: deploy with a stand-in mpremote, and monitor / calibration
over socket:// against a hub made of HubSide on a local TCP port."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from coindrel.hub import calibrate as calib
from coindrel.hub import protocol as p
from coindrel.hub.channelmap import load_channel_map
from coindrel.hub.hubside import HubSide

ROOT = Path(__file__).resolve().parents[2]
CM = load_channel_map()


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT / "controller") + os.pathsep + e.get("PYTHONPATH", "")
    return e


def test_deploy_stages_the_manifest_with_the_chosen_map(tmp_path):
    record = tmp_path / "record"
    record.mkdir()
    fake = tmp_path / "bin" / "mpremote"
    fake.parent.mkdir()
    fake.write_text(f"""#!{sys.executable}
import json, os, shutil, sys
rec = {str(record)!r}
n = len(os.listdir(rec))
args = sys.argv[1:]
if "cp" in args:
    src = args[args.index("-r") + 1]
    shutil.copytree(src, os.path.join(rec, "staged"))
json.dump(args, open(os.path.join(rec, "call%d.json" % n), "w"))
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    mymap = json.loads((ROOT / "hardware" / "channel_map.json").read_text())
    mymap["hub"]["heartbeat_ms"] = 250
    (tmp_path / "map.json").write_text(json.dumps(mymap))
    e = env()
    e["PATH"] = str(fake.parent) + os.pathsep + e["PATH"]
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "coindrel", "hub", "deploy", "--port", "/dev/null", "--map",
                           str(tmp_path / "map.json")], capture_output=True, text=True, env=e, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads((record / f"call{i}.json").read_text()) for i in range(2)]
    assert calls[0] == ["connect", "/dev/null", "rm", "-r", ":coindrel_hub"]
    assert calls[1][:4] == ["connect", "/dev/null", "cp", "-r"] and calls[1][-1] == "reset"
    staged = record / "staged"
    chan = (staged / "chanmap.py").read_text()
    mine = load_channel_map(tmp_path / "map.json")
    assert "HEARTBEAT_MS = 250" in chan and f"MAP_HASH = {mine.map_hash!r}" in chan and mine.map_hash != CM.map_hash
    assert sorted(f.name for f in staged.iterdir()) == sorted(
        f.name for f in (ROOT / "firmware" / "coindrel_hub").glob("*.py"))


class TcpHub:
    """HubSide behind a TCP port: what `socket://` reaches."""

    def __init__(self):
        self.t_us = 2_000_000
        self.side = HubSide(CM, clock_us=lambda: self.t_us, firmware="tcp-test")
        self.ready = asyncio.Event()
        self.writer = None

    async def serve(self, reader, writer):
        first = self.writer is None
        self.writer = writer
        if first:
            writer.write(self.side.boot())
        beat = asyncio.create_task(self.heartbeats(writer))
        try:
            while data := await reader.read(4096):
                writer.write(self.side.feed(data))
                if any(isinstance(f.msg, p.SnapshotReq) for f in self.side.commands):
                    self.ready.set()
                await writer.drain()
        finally:
            beat.cancel()

    async def heartbeats(self, writer):
        # A real hub says something at least every heartbeat_ms; so does this one.
        while True:
            await asyncio.sleep(CM.heartbeat_ms / 1000 / 2)
            writer.write(self.side.heartbeat())

    def send(self, data: bytes) -> None:
        self.writer.write(data)


async def cli(*args):
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "coindrel", "hub", *args, env=env(),
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                stdin=asyncio.subprocess.DEVNULL)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def test_monitor_prints_board_events_as_sensing_json():
    async def main():
        hub = TcpHub()
        server = await asyncio.start_server(hub.serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        proc = await cli("monitor", "--url", f"socket://127.0.0.1:{port}", "--count", "3")
        await hub.ready.wait()
        hub.t_us += 1000
        hub.send(hub.side.coin(hub.t_us, 3) + hub.side.hall(hub.t_us + 30_000, 3, "mid", 2650)
                 + hub.side.coin(hub.t_us + 90_000, 8 + 11))
        out, err = await proc.communicate()
        server.close()
        assert proc.returncode == 0, err.decode()
        lines = [json.loads(x) for x in out.decode().splitlines()]
        board = [x for x in lines if x["kind"] != "status"]
        assert board == [{"t": 2.001, "kind": "entry", "entry": 4},
                         {"t": 2.031, "kind": "switch", "switch": "R1S4", "pos": "mid", "raw": 2650},
                         {"t": 2.091, "kind": "exit", "exit": 12}]
        assert lines[0]["kind"] == "status" and lines[0]["state"] == "connected"

    run(main())


def test_calibration_get_then_set_round_trip(tmp_path):
    async def main():
        hub = TcpHub()
        server = await asyncio.start_server(hub.serve, "127.0.0.1", 0)
        url = f"socket://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        out = tmp_path / "cal.json"
        proc = await cli("calibration", "get", "--url", url, "--out", str(out))
        _, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()
        doc = json.loads(out.read_text())
        assert doc["halls"]["R1S1"] == {"l": 2980, "r": 2330, "none": 2048, "band": 120}
        doc["halls"]["R1S1"]["band"] = 99
        doc["hyst"] = 33
        out.write_text(json.dumps(doc))
        proc = await cli("calibration", "set", "--url", url, str(out))
        stdout, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()
        assert b"hub: saved" in stdout
        assert hub.side.calibration.hyst == 33 and hub.side.calibration.halls[0].band == 99
        doc["halls"]["R9S9"] = doc["halls"]["R1S1"]
        out.write_text(json.dumps(doc))
        proc = await cli("calibration", "set", "--url", url, str(out))
        _, err = await proc.communicate()
        assert proc.returncode == 2 and b"'R9S9' has no hall sensor" in err
        server.close()

    run(main())


def test_compute_calibration_from_readings():
    left = {h.switch: [2980 + (i % 5) for i in range(20)] for h in CM.halls}
    right = {h.switch: [2330 - (i % 5) for i in range(20)] for h in CM.halls}
    right[5] = [2900] * 20  # R1S6: magnet too weak
    empty = {9: [2050] * 10, 13: [2046] * 10}
    plan = calib.compute(CM, left, right, empty)
    by = {c.switch: c for c in plan.halls}
    assert by[0] == p.HallCal(0, 2982, 2328, 2048, 98)
    assert by[9].none == 2050
    assert any(w.startswith("R1S6: L (2982) and R (2900)") for w in plan.warnings)
    assert 20 <= plan.hyst <= 200


def test_compute_flags_none_between_l_and_r():
    left = {h.switch: [3000] * 5 for h in CM.halls}
    right = {h.switch: [1100] * 5 for h in CM.halls}
    plan = calib.compute(CM, left, right)
    assert len([w for w in plan.warnings if "lies between L and R" in w]) == 38


def test_calibration_file_errors_are_named():
    with pytest.raises(calib.CalibrationError, match="format 1"):
        calib.from_json({"halls": {}}, CM)
    with pytest.raises(calib.CalibrationError, match="R1S1 needs whole numbers"):
        calib.from_json({"format": 1, "halls": {"R1S1": {"l": 1}}}, CM)
    with pytest.raises(calib.CalibrationError, match="hall_filter 0"):
        calib.from_json({"format": 1, "hall_filter": 0, "halls": {}}, CM)


@pytest.mark.parametrize("action", [["monitor"], ["info"], ["calibration", "get"]])
def test_a_url_pyserial_cannot_open_is_said_at_once_not_retried(capsys, action):
    from coindrel.cli import main

    assert main(["hub", *action, "--url", "nonsense://x"]) == 2
    err = capsys.readouterr().err
    assert "--url 'nonsense://x': pyserial has no nonsense:// ports" in err and "socket://" in err


@pytest.mark.parametrize("url, needle", [
    ("/etc/passwd", "that is a file, not a serial port"),
    ("/tmp", "that is a folder, not a serial port"),
    ("/dev/null", "that is character device 1:3, not a serial port"),
])
def test_a_path_that_cannot_be_a_hub_is_said_at_once(capsys, url, needle):
    """Found by a newcomer: each waited the whole connect timeout (10 s) first."""
    from coindrel.cli import main

    assert main(["hub", "snapshot", "--url", url]) == 2
    assert needle in capsys.readouterr().err


def test_a_named_port_that_is_not_there_is_waited_for_and_says_so_first(capsys, monkeypatch):
    """Found by a newcomer: `hub info --url /dev/nonexist` said nothing for 10 s."""
    from coindrel.cli import main
    from coindrel.hub import console

    monkeypatch.setattr(console, "CONNECT_TIMEOUT", 0.2)
    assert main(["hub", "info", "--url", "/nonexistent/ttyACM9"]) == 2
    err = capsys.readouterr().err
    first, *rest = err.splitlines()
    assert "/nonexistent/ttyACM9 is not there yet; waiting up to 0.2 s" in first and "plug the hub in" in first
    assert "no hub on /nonexistent/ttyACM9 after 0.2 s" in err


def test_no_hub_at_the_default_name_says_how_it_gets_that_name(capsys, monkeypatch):
    from coindrel.cli import main
    from coindrel.sources import hub

    monkeypatch.setattr(hub, "DEFAULT_URL", "/nonexistent/coindrel-hub")
    assert main(["hub", "info"]) == 2
    err = capsys.readouterr().err
    assert "no hub at /nonexistent/coindrel-hub" in err and "99-coindrel-hub.rules" in err and "--url" in err


@pytest.mark.parametrize("argv, tool", [(["--port", "/dev/null"], "mpremote"), (["--mpy", "--dry-run"], "mpy-cross")])
def test_deploy_without_the_tool_says_it_is_not_installed_and_how(tmp_path, monkeypatch, capsys, argv, tool):
    """Found by a newcomer: ".../.venv/bin/mpremote: No such file or directory (check the path...)"."""
    from coindrel.cli import main
    from coindrel.commands import hub

    monkeypatch.setattr(hub.shutil, "which", lambda name: None)
    monkeypatch.setattr(hub.sys, "executable", str(tmp_path / "bin" / "python3"))
    assert main(["hub", "deploy", *argv]) == 2
    err = capsys.readouterr().err
    assert f"coindrel hub: {tool} is not installed" in err and f"{tmp_path / 'bin' / 'pip'} install {tool}" in err
    assert "'.[firmware]'" in err and "No such file" not in err, err


def test_deploy_and_the_link_commands_take_either_port_or_url_and_deploy_refuses_a_network_address(capsys):
    """hub deploy said --port, hub info --url: a newcomer typed the other one and got a usage error."""
    from coindrel.cli import main

    assert main(["hub", "deploy", "--url", "socket://127.0.0.1:7777", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "needs the Pico on USB" in err and "--port /dev/ttyACM0" in err
    assert main(["hub", "info", "--port", "/nonexistent/hub"]) == 2
    assert "/nonexistent/hub" in capsys.readouterr().err


def test_an_installed_coindrel_finds_the_firmware_of_the_checkout_it_runs_in(tmp_path, monkeypatch):
    from coindrel.commands import hub
    from coindrel.engine import EngineError

    monkeypatch.setattr(hub, "__file__", str(tmp_path / "venv/lib/python3/site-packages/coindrel/commands/hub.py"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(EngineError, match="pass --firmware DIR, the checkout's firmware/ folder"):
        hub.find_firmware(None)
    monkeypatch.chdir(ROOT)
    assert hub.find_firmware(None) == ROOT / "firmware"
