"""The virtual hub served live, on a pty and on a TCP socket, read with
pyserial and the hub link's own frame decoder and tracker: a controller
connects to it exactly as to /dev/coindrel-hub.

Reads block on the port (waiting for I/O, never sleeping) with a ceiling
that only bounds a hang; the server runs at speed 0 (as fast as the reader
takes it) or on a clock the test moves."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest
import serial

from coindrel.hub import protocol as p
from coindrel.hub.channelmap import load_channel_map
from coindrel.hub.text import IN_USE
from coindrel.hub.tracker import Tracker
from coindrel.virtual import BoardConfig, Scenario, build_board, fault_from_text
from coindrel.virtual.live import Server
from coindrel.virtual.kernel import Pace
from coindrel.virtual.serve import USER_TIMEOUT, parse_url
from coindrel.virtual.wire import WireHub

from .harness import outputs_map, script
from .oracle import check_physical_facts, compare_with_engine

HANG = 120.0  # real seconds: only a hang takes this long


class Running:
    """A server on its own thread and event loop."""

    def __init__(self, scn, url, until, faults=(), channel_map=None, **kw):
        g = scn.config.geometry
        scn.faults = [fault_from_text(f, g) for f in faults]
        self.board, _ = build_board(scn)
        self.wire = WireHub(self.board, channel_map)
        self.until = until
        self.server = Server(self.board, self.wire, url, speed=0, until=until, say=lambda m: None, hold=True,
                             idle_fast=True, linger=True, **kw)
        self.server.ready = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.run()), daemon=True)

    def __enter__(self):
        self.thread.start()
        assert self.server.ready.wait(HANG)
        return self

    def __exit__(self, *exc):
        self.server.stop()
        self.thread.join(HANG)


def read_all(port, tracker, events, frames=None, until_us=None, stop=None):
    """Frames until a heartbeat at ``until_us`` of hub time (the server lingers
    there), a frame ``stop`` accepts, or until the port goes away. Each read
    waits for one byte, then takes whatever else has arrived without waiting."""
    dec = p.Decoder("hub")
    while True:
        try:
            port.timeout = HANG
            data = port.read(1)
            if not data:
                return dec  # quiet for HANG s: a hang (the assertions after say what is missing)
            port.timeout = 0
            data += port.read(1 << 20)
        except serial.SerialException:
            return dec  # the port went away
        for item in dec.feed(data):
            if isinstance(item, p.Frame):
                if frames is not None:
                    frames.append(item)
                events += tracker.feed(item, 0.0)
                if until_us is not None and isinstance(item.msg, p.Heartbeat) and item.msg.t_us >= until_us:
                    return dec
                if stop is not None and stop(item):
                    return dec


def test_a_healthy_board_through_the_link_over_a_socket_is_the_engine():
    drops, end = script(1, 1000)
    with Running(Scenario(BoardConfig(seed=1), drops=drops), "socket://127.0.0.1:0", until=end + 3) as run:
        port = serial.serial_for_url(run.server.url, timeout=HANG)
        port.write(p.encode(p.HelloReq(), 1))
        tracker, events = Tracker(load_channel_map()), []
        dec = read_all(port, tracker, events, until_us=(run.until - 0.5) * 1e6)
        port.close()
    board = run.board
    truth = board.truth.lines
    assert sum(1 for d in truth if d["kind"] == "drop") == 1000
    assert all(d["as_engine"] for d in truth if d["kind"] == "drop")
    board_events = [e for e in events if e.kind != "status"]
    assert compare_with_engine(board_events, truth, board.geometry, board.start.rows()) == []
    assert check_physical_facts(board_events) == []
    assert dec.stats["crc"] == 0 and tracker.stats.gaps == 0 and tracker.stats.malformed == 0
    assert [e for e in events if e.kind == "status"] == []


def test_a_pty_with_a_symlink_like_dev_coindrel_hub(tmp_path):
    link = str(tmp_path / "coindrel-hub")
    drops, end = script(2, 120)
    with Running(Scenario(BoardConfig(seed=2), drops=drops), "pty", until=end + 3, link=link) as run:
        assert os.path.islink(link) and os.readlink(link).startswith("/dev/pts/")
        port = serial.Serial(link, 115200, timeout=HANG)
        port.write(p.encode(p.HelloReq(), 1))
        tracker, events = Tracker(load_channel_map()), []
        read_all(port, tracker, events, until_us=(run.until - 0.5) * 1e6)
        port.close()
    assert not os.path.lexists(link), "the link goes when the hub does"
    board = run.board
    board_events = [e for e in events if e.kind != "status"]
    assert compare_with_engine(board_events, board.truth.lines, board.geometry, board.start.rows()) == []


def test_unplugging_the_pty_closes_the_port_and_replugging_brings_a_new_one(tmp_path):
    """Paced by a clock the test moves, so it reads everything before the cable goes."""
    link = str(tmp_path / "coindrel-hub")
    drops, end = script(3, 20)
    now = [0.0]
    opened = []
    plugged_again = threading.Event()

    def say(msg):
        if msg.startswith("virtual hub on "):
            opened.append(msg)
            if len(opened) == 2:
                plugged_again.set()

    scn = Scenario(BoardConfig(seed=3), drops=drops)
    scn.faults = [fault_from_text("unplug,t=10,duration=3", scn.config.geometry)]
    board, _ = build_board(scn)
    server = Server(board, WireHub(board), "pty", speed=1.0, clock=lambda: now[0], link=link, say=say,
                    until=end + 3, linger=True)
    server.ready = threading.Event()
    thread = threading.Thread(target=lambda: asyncio.run(server.run()), daemon=True)
    thread.start()
    try:
        assert server.ready.wait(HANG)
        port = serial.Serial(link, timeout=HANG)
        port.write(p.encode(p.HelloReq(), 1))
        tracker, events, frames = Tracker(load_channel_map()), [], []
        read_all(port, tracker, events, frames, stop=lambda f: isinstance(f.msg, p.Hello) and f.msg.req == 1)
        now[0] = 9.9
        server.poke()
        read_all(port, tracker, events, frames, until_us=9.5e6)
        now[0] = 11.0  # the cable goes at 10 s
        server.poke()
        read_all(port, tracker, events, frames)  # ends when the port goes away
        port.close()
        n_first = len(frames)
        now[0] = 14.0  # and comes back at 13 s
        server.poke()
        assert plugged_again.wait(HANG), "the port comes back"
        port = serial.Serial(link, timeout=HANG)  # the same link, a new pty behind it
        tracker.connection_started()
        port.write(p.encode(p.HelloReq(), 2))
        read_all(port, tracker, events, frames, stop=lambda f: isinstance(f.msg, p.Hello) and f.msg.req == 2)
        now[0] = end + 3
        server.poke()
        read_all(port, tracker, events, frames, until_us=(end + 3 - 13.5) * 1e6)
        port.close()
    finally:
        server.stop()
        thread.join(HANG)
    hellos = [f.msg for f in frames if isinstance(f.msg, p.Hello)]
    assert hellos[0].boot_id != hellos[-1].boot_id and len(frames) > n_first + 50
    assert any(e.kind == "status" and e.state == "resync" for e in events)
    cut = next(i for i, e in enumerate(events) if e.kind == "status" and e.state == "resync")
    before, after = events[:cut], events[cut:]
    truth_before = [d for d in board.truth.lines if d["kind"] == "drop" and d["t_end"] < 9.9]
    assert sum(1 for e in before if e.kind == "entry") == len(truth_before)
    # what the hub said before the controller opened the new port is flushed by the open, as on a real port
    drops = [d for d in board.truth.lines if d["kind"] == "drop"]
    seen_after = sum(1 for e in after if e.kind == "entry")
    assert 0 < sum(1 for d in drops if d["t"] > 14.0) <= seen_after <= sum(1 for d in drops if d["t"] > 13.0)
    seen = [e.t for e in events]
    assert seen == sorted(seen), "board time never goes backwards across the restart"


def test_the_controllers_dropper_over_the_socket():
    cm = outputs_map()
    with Running(Scenario(BoardConfig(seed=4, start="LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")),
                 "socket://127.0.0.1:0", until=4.0, channel_map=cm) as run:
        port = serial.serial_for_url(run.server.url, timeout=HANG)
        port.write(p.encode(p.HelloReq(), 1) + p.encode(p.Outputs(leds=0, drop=3, pulse_ms=30), 2)
                   + p.encode(p.Outputs(leds=0, drop=3, pulse_ms=30), 3))
        tracker, events, frames = Tracker(cm), [], []
        read_all(port, tracker, events, frames, until_us=3.5e6)
        port.close()
    acks = [f.msg for f in frames if isinstance(f.msg, p.Ack)]
    assert [(a.req, a.status) for a in acks] == [(2, p.OK), (3, p.OK)]
    assert [e.entry for e in events if e.kind == "entry"] == [3, 3]
    assert [e.exit for e in events if e.kind == "exit"] == [11]  # the second coin tips the first one out


def test_pace_follows_an_injected_clock():
    now = [100.0]
    pace = Pace(2.0, clock=lambda: now[0])
    pace.anchor(0.0)
    now[0] = 101.5
    assert pace.now() == pytest.approx(3.0)
    assert pace.delay(5.0) == pytest.approx(1.0)
    assert pace.delay(1.0) == 0.0
    pace.anchor(10.0)
    now[0] = 102.0
    assert pace.now() == pytest.approx(11.0) and pace.now(speed=1.0) == pytest.approx(10.5)
    with pytest.raises(ValueError):
        Pace(-1)


def test_paced_board_time_follows_the_clock():
    now = [0.0]
    scn = Scenario(BoardConfig(seed=5, start="LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"), drops=[(1.0, 3), (2.0, 3)])
    board, _ = build_board(scn)
    wire = WireHub(board)
    server = Server(board, wire, "socket://127.0.0.1:0", speed=2.0, clock=lambda: now[0], say=lambda m: None, until=3.0)
    server.ready = threading.Event()
    thread = threading.Thread(target=lambda: asyncio.run(server.run()), daemon=True)
    thread.start()
    assert server.ready.wait(HANG)
    port = serial.serial_for_url(server.url, timeout=HANG)
    now[0] = 0.75  # 1.5 s of board time at speed 2
    server.poke()
    dec, frames = p.Decoder("hub"), []
    while not any(isinstance(f.msg, p.Heartbeat) and f.msg.t_us >= 1_000_000 for f in frames):
        frames += [i for i in dec.feed(port.read(1)) if isinstance(i, p.Frame)]
    assert 1.0 <= board.now <= 1.5 + 1e-9
    assert not [d for d in board.truth.lines if d["kind"] == "drop" and d["drop"] == 2]
    now[0] = 10.0
    server.poke()
    thread.join(HANG)
    port.close()
    assert board.now == 3.0 and [d["drop"] for d in board.truth.lines if d["kind"] == "drop"] == [1, 2]


def test_urls():
    assert parse_url("pty") == ("pty", None, None)
    assert parse_url("socket://0.0.0.0:7777") == ("socket", "0.0.0.0", 7777)
    with pytest.raises(ValueError, match="socket://HOST:PORT"):
        parse_url("/dev/ttyUSB0")
    for port in ("99999", "-1"):  # bind() raised OverflowError: a traceback
        with pytest.raises(ValueError, match=f"port {port} is not a TCP port"):
            parse_url(f"socket://127.0.0.1:{port}")


def test_sigusr1_takes_the_coins_off_a_served_boards_pads(tmp_path):
    """A board served with no terminal (no --keyboard): a person's "take every
    coin off the pads" is SIGUSR1, as the board says when it starts."""
    import queue
    import signal
    import subprocess
    import sys

    # a coin at t=0.5 that comes to rest on an empty left pad of the all-left board
    proc = subprocess.Popen([sys.executable, "-m", "coindrel", "virtual-board", "--serve", "socket://127.0.0.1:0",
                             "--speed", "1000", "--start", "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", "--drop", "1@0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] and lines.put(None), daemon=True).start()

    def until(text, ceiling=60.0):  # a real-time ceiling only a hang reaches
        seen = []
        for _ in range(2000):
            line = lines.get(timeout=ceiling)
            assert line is not None, seen
            seen.append(line)
            if text in line:
                return line
        raise AssertionError(seen)

    try:
        hint = until("kill -USR1")
        assert f"kill -USR1 {proc.pid}" in hint
        for _ in range(1000):  # until the coin rests (bounded: at 1000x it falls in about a millisecond)
            proc.send_signal(signal.SIGUSR1)
            said = until("pads cleared by hand")
            if "no coin was resting" not in said:
                break
        assert "R1S1" in said, said
        proc.send_signal(signal.SIGUSR1)
        assert "no coin was resting" in until("pads cleared by hand")  # they were taken off
        assert proc.poll() is None  # the board serves on
    finally:
        proc.terminate()
        proc.wait(10)


def _line(port) -> bytes:
    port.timeout = HANG
    return port.readline()


def test_a_second_client_is_refused_with_a_text_line_and_the_first_keeps_the_port():
    said: list[str] = []
    with Running(Scenario(BoardConfig(seed=3)), "socket://127.0.0.1:0", until=5.0) as run:
        run.server.say = said.append
        first = serial.serial_for_url(run.server.url, timeout=HANG)
        first.write(p.encode(p.HelloReq(), 1))
        tracker, events = Tracker(load_channel_map()), []
        read_all(first, tracker, events, stop=lambda f: isinstance(f.msg, p.Hello))
        second = serial.serial_for_url(run.server.url, timeout=HANG)
        second.write(p.encode(p.HelloReq(), 1))
        assert _line(second) == IN_USE + b"\r\n"
        assert p.Decoder("hub").feed(IN_USE + b"\r\n")[0].kind == "text"  # never taken for a frame
        with pytest.raises(serial.SerialException, match="disconnected"):
            second.read(1)  # then closed by the board
        second.close()
        first.write(p.encode(p.SnapshotReq(), 2))
        frames: list = []
        read_all(first, tracker, events, frames, stop=lambda f: isinstance(f.msg, p.Snapshot))
        assert frames[-1].msg.req == 2  # the first still has the board: its request is answered
        first.close()
        # the first gone (as a kill -9 leaves it: the kernel closes its socket), the next one gets in at once
        third = serial.serial_for_url(run.server.url, timeout=HANG)
        third.write(p.encode(p.HelloReq(), 1))
        read_all(third, tracker, events, stop=lambda f: isinstance(f.msg, p.Hello))
        third.close()
    assert sum("another controller tried to connect" in m for m in said) == 1, said


def test_an_accepted_client_times_out_when_its_heartbeats_go_unacknowledged():
    import socket

    if not hasattr(socket, "TCP_USER_TIMEOUT"):
        pytest.skip("no TCP_USER_TIMEOUT on this system")
    with Running(Scenario(BoardConfig(seed=3)), "socket://127.0.0.1:0", until=5.0) as run:
        client = serial.serial_for_url(run.server.url, timeout=HANG)
        client.write(p.encode(p.HelloReq(), 1))
        read_all(client, Tracker(load_channel_map()), [], stop=lambda f: isinstance(f.msg, p.Hello))
        sock = run.server.transport.writer.get_extra_info("socket")
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == int(USER_TIMEOUT * 1000)
        client.close()
