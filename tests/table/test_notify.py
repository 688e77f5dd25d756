"""sd_notify against a real unix datagram socket, as systemd listens."""

from __future__ import annotations

import os
import socket
import uuid

import pytest

from coindrel.table.notify import Notifier, WatchdogFeeder, socket_address, watchdog_usec


@pytest.fixture(params=["path", "abstract"])
def manager(request, tmp_path):
    """A socket like systemd's: (NOTIFY_SOCKET value, receiving socket)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.settimeout(60)  # a datagram already sent is there at once: this only bounds a hang
    if request.param == "path":
        name = str(tmp_path / "notify")
        sock.bind(name)
    else:
        name = f"@coindrel-test-{uuid.uuid4().hex}"
        sock.bind("\0" + name[1:])
    yield name, sock
    sock.close()


def received(sock) -> list[str]:
    return sock.recv(4096).decode().split("\n")


def test_every_message_arrives_as_one_datagram(manager):
    name, sock = manager
    n = Notifier(env={"NOTIFY_SOCKET": name})
    assert n.enabled
    assert n.ready("Round 1 of 4: Ann 0, Bo 0")
    assert received(sock) == ["READY=1", "STATUS=Round 1 of 4: Ann 0, Bo 0"]
    assert n.status("two\nlines\r\n here")
    assert received(sock) == ["STATUS=two lines here"]  # STATUS= is one line
    assert n.watchdog() and received(sock) == ["WATCHDOG=1"]
    assert n.extend_timeout(2.5) and received(sock) == ["EXTEND_TIMEOUT_USEC=2500000"]
    assert n.stopping("saved") and received(sock) == ["STOPPING=1", "STATUS=saved"]
    assert n.reloading() and received(sock) == ["RELOADING=1"]
    assert n.watchdog_trigger() and received(sock) == ["WATCHDOG=trigger"]
    n.close()


def test_without_a_manager_everything_is_a_quiet_no_op():
    n = Notifier(env={})
    assert not n.enabled and not n.ready() and not n.watchdog() and n.last_error is None


def test_an_unsupported_address_disables_notify_and_says_why(caplog):
    n = Notifier(env={"NOTIFY_SOCKET": "vsock:2:1234"})
    assert not n.enabled and "neither a socket path" in n.last_error
    assert not n.ready()
    with pytest.raises(ValueError):
        socket_address("relative/path")
    assert socket_address("@x") == "\0x" and socket_address("/run/systemd/notify") == "/run/systemd/notify"


def test_a_vanished_socket_fails_softly_and_recovers(tmp_path):
    path = str(tmp_path / "notify")
    n = Notifier(env={"NOTIFY_SOCKET": path})
    assert not n.watchdog() and n.last_error  # nobody listening yet
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(60)
    try:
        assert n.watchdog() and n.last_error is None
        assert received(sock) == ["WATCHDOG=1"]
    finally:
        sock.close()
    os.unlink(path)
    assert not n.watchdog()


@pytest.mark.parametrize("env, usec", [
    ({}, None),
    ({"WATCHDOG_USEC": "20000000"}, 20_000_000),
    ({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "4242"}, 20_000_000),
    ({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "4243"}, None),  # another process's watchdog
    ({"WATCHDOG_USEC": "0"}, None),
    ({"WATCHDOG_USEC": "soon"}, None),
    ({"WATCHDOG_USEC": "100", "WATCHDOG_PID": "x"}, None),
])
def test_watchdog_usec(env, usec):
    assert watchdog_usec(env, pid=4242) == usec


def test_the_feeder_pings_at_half_the_watchdog_period(tmp_path):
    path = str(tmp_path / "n")
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000000", "WATCHDOG_PID": str(os.getpid())}
    feeder = WatchdogFeeder.from_env(Notifier(env=env), env)
    assert feeder.period == 10.0
    assert WatchdogFeeder.from_env(Notifier(env={}), env) is None  # no socket: nobody to ping
    assert WatchdogFeeder.from_env(Notifier(env=env), {"NOTIFY_SOCKET": path}) is None
    with pytest.raises(ValueError):
        WatchdogFeeder(Notifier(env={}), 0)
