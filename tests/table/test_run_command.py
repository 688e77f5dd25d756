"""``coindrel run``: the daemon as systemd starts it, against the virtual board."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

CONFIG = """
[storage]
state_dir = "{state}"
[match]
clock = "turbo"
players = ["Ann", "Bo"]
[board]
source = "virtual"
[board.virtual]
seed = 4
speed = 1.0
[display]
driver = "none"
"""


def write_config(tmp_path, text=CONFIG):
    path = tmp_path / "coindrel.toml"
    path.write_text(text.format(state=tmp_path / "state"))
    return path


def test_check_reports_what_would_run(tmp_path):
    r = subprocess.run([sys.executable, "-m", "coindrel", "run", "--config", str(write_config(tmp_path)), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "source virtual" in r.stdout and "[display] configured" in r.stdout
    assert "diagnosis in a child process" in r.stdout
    r = subprocess.run([sys.executable, "-m", "coindrel", "run", "--check", "--config",
                        str(write_config(tmp_path, CONFIG.replace('source = "virtual"', 'source = "virtual"\ndiagnosis = "thread"')))],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "diagnosis in a worker thread" in r.stdout, r.stderr


def test_a_bad_config_names_the_key_before_anything_starts(tmp_path):
    bad = CONFIG.replace('clock = "turbo"', 'clock = "fast"')
    r = subprocess.run([sys.executable, "-m", "coindrel", "run", "--config", str(write_config(tmp_path, bad))],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "[match] clock" in r.stderr and "turbo" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "state").exists()


def test_the_daemon_notifies_systemd_and_stops_cleanly(tmp_path):
    sock_path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(sock_path)
    sock.settimeout(120)  # only a hang takes this long
    env = dict(os.environ, NOTIFY_SOCKET=sock_path, WATCHDOG_USEC="2000000", WATCHDOG_PID="")
    proc = subprocess.Popen([sys.executable, "-m", "coindrel", "run", "--config", str(write_config(tmp_path))],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    messages = []
    try:
        while not any("READY=1" in m for m in messages) or not any("WATCHDOG=1" in m for m in messages):
            messages.append(sock.recv(4096).decode())
        assert any(m.startswith("STATUS=") or "\nSTATUS=" in m for m in messages)
        assert any("Waiting for a new match" in m for m in messages)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    assert proc.returncode == 0, err
    assert (tmp_path / "state" / "lock").exists()
