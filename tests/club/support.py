"""Real parts for the club tests: a Mosquitto broker with a password file and
an ACL on 127.0.0.1, found on the machine (CI installs it and must not skip),
and a table driver that plays matches with the engine and feeds a ClubLink."""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from coindrel.ai.players import GreedyPlayer, RandomPlayer
from coindrel.club.link import ClubLink
from coindrel.club.records import drop_of, result_of, state_of
from coindrel.club.server.club import Club
from coindrel.club.server.store import ClubStore
from coindrel.engine import Match, MatchSetup
from coindrel.table.history import match_summary

PASSWORD = "club-test-password"
TABLES = ["t1", "t2", "t3"]  # the tables of the broker tests (tests/club/conftest.py's broker knows them)


def need(binary: str, *more: str) -> str:
    """The path of a system program the test needs: skipped on a developer's
    machine without it, a failure in CI (where .ci/run installs it)."""
    for name in (binary, *more):
        path = shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.access(p, os.X_OK)), None)
        if path:
            return path
    message = f"{binary} is not installed (Debian: apt-get install {binary}); .ci/run installs it"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ACL = """\
# The club server reads every table and may ask any table for a match.
user club
topic read coindrel/#
topic write coindrel/+/request

# A misconfigured login that may write anywhere (to test the server's own checks).
user rogue
topic readwrite coindrel/#

# Home Assistant reads discovery and the tables, and says when it starts.
user homeassistant
topic read homeassistant/#
topic write homeassistant/status
topic read coindrel/#

# Each table (user name = table name) writes its own topics only.
pattern write coindrel/%u/status
pattern write coindrel/%u/state
pattern write coindrel/%u/drop
pattern write coindrel/%u/result
pattern read coindrel/%u/request
pattern write homeassistant/#
pattern read homeassistant/status
"""


class Mosquitto:
    """One broker process; ``stop`` and ``start`` again keep its port and its
    persistence file (a graceful stop saves queued messages, as systemd's does)."""

    def __init__(self, root: Path, users: list[str], port: int | None = None, extra: str = "", acl: str = ""):
        self.binary = need("mosquitto")
        self.root = root
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        root.mkdir(parents=True, exist_ok=True)
        passwd = need("mosquitto_passwd")
        pw = root / "passwd"
        pw.write_text("")
        for u in users:
            subprocess.run([passwd, "-b", str(pw), u, PASSWORD], check=True, capture_output=True)
        (root / "acl").write_text(acl + ACL)
        (root / "mosquitto.conf").write_text(
            # as root, mosquitto would switch to its own user, who cannot read the test's files
            f"user {pwd.getpwuid(os.getuid()).pw_name}\n"
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous false\n"
            f"password_file {pw}\n"
            f"acl_file {root / 'acl'}\n"
            "persistence true\n"
            f"persistence_location {root}/\n"
            "log_dest stderr\n"  # unbuffered: the fixture reads it to know the broker listens
            "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
            "max_queued_messages 100000\n"
            + extra
        )
        for f in (pw, root / "acl"):
            os.chmod(f, 0o600)

    def start(self) -> "Mosquitto":
        self.proc = subprocess.Popen([self.binary, "-c", str(self.root / "mosquitto.conf")], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        lines = []
        for line in self.proc.stdout:  # blocks until the broker says it listens (or dies)
            lines.append(line)
            if " running" in line:
                break
        else:
            raise RuntimeError("mosquitto did not start:\n" + "".join(lines))
        self._drain()
        return self

    def _drain(self) -> None:
        import threading

        proc = self.proc
        self.log: list[str] = []

        def read():
            for line in proc.stdout:
                self.log.append(line)

        threading.Thread(target=read, daemon=True).start()

    def stop(self, sig=signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)
        self.proc = None

    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def password_file(self, root: Path) -> Path:
        p = root / "club-password"
        p.write_text(PASSWORD + "\n")
        return p


class SimTable:
    """A table without a board: the engine plays both sides and the table's
    club link hears what the daemon would tell it."""

    def __init__(self, link, seed: int, players=("Ada", "Bo"), clock=None):
        self.link, self.seed, self.players, self.clock = link, seed, players, clock
        self.number = 0
        self.match: Match | None = None
        self.match_id = ""
        self.results: list[dict] = []  # what was published, numbered
        self.drops: list[dict] = []

    def new_match(self, players=None) -> None:
        self.number += 1
        self.seed += 1
        self.match = Match(MatchSetup(players=tuple(players or self.players), seed=self.seed, clock=self.clock))
        self.match_id = f"{self.number:04d}-{self.seed}"
        self.started = time.time()
        self.ai = [GreedyPlayer(self.seed), RandomPlayer(self.seed + 1)]
        self.match.reveal_done(0.0)
        self.link.publish_state(state_of(self.match, match_id=self.match_id, now=0.0))

    def drop(self) -> dict:
        """One drop by the player to move; a finished match also publishes its result."""
        m = self.match
        if m.phase == "reveal":
            m.reveal_done(0.0)
        entry = self.ai[m.to_move - 1].choose(m)
        result = m.play(entry, 0.0)
        sent = self.link.publish_drop(drop_of(self.match_id, len(m.results), result, explanation="as predicted"))
        self.drops.append(sent)
        if m.over:
            summary = match_summary(m, result="finished", number=self.number, match_id=self.match_id,
                                    started=self.started, ended=time.time())
            self.results.append(self.link.publish_result(result_of(summary)))
        self.link.publish_state(state_of(m, match_id=self.match_id, now=0.0))
        return sent

    def play_match(self, players=None) -> dict:
        self.new_match(players)
        while not self.match.over:
            self.drop()
        return self.results[-1]


async def until(cond, club, timeout: float = 60.0, what: str = "the club to catch up") -> None:
    """Wait (on the club's own change notifications, not a sleep) until ``cond()``."""
    import asyncio

    w = club.watch()
    try:
        async with asyncio.timeout(timeout):
            while not cond():
                await w.event.wait()
                w.take()
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout} s waiting for {what}") from None
    finally:
        club.unwatch(w)


def table_settings(broker: "Mosquitto", root: Path, name: str, **kw):
    from coindrel.club.config import settings_from_url

    return settings_from_url(broker.url(), name, password_file=str(broker.password_file(root)), **kw)


def server_settings(broker: "Mosquitto", root: Path, tables, **kw):
    from coindrel.club.server.config import load_server_settings

    return load_server_settings(None, broker=broker.url(), tables=",".join(tables), db=str(root / "club.sqlite"),
                                username="club", password_file=str(broker.password_file(root)), **kw)


class Rig:
    """The club server's MQTT side and tables' club links on one loop, through ``broker``."""

    def __init__(self, broker, root):
        self.broker, self.root = broker, root
        self.store = ClubStore(root / "club.sqlite")
        self.club = Club(server_settings(broker, root, TABLES), self.store)
        self.links: dict[str, ClubLink] = {}
        self.tasks = []

    async def __aenter__(self):
        self.tasks.append(asyncio.create_task(self.club.run_mqtt(backoff=(0.05, 0.5))))
        await asyncio.wait_for(self.club.connected.wait(), 30)
        return self

    def link(self, name, **kw) -> ClubLink:
        d = self.root / name
        d.mkdir(exist_ok=True)
        link = ClubLink(table_settings(self.broker, self.root, name, **kw), d, backoff=(0.05, 0.5))
        self.links[name] = link
        self.tasks.append(asyncio.create_task(link.run()))
        return link

    async def begin_matches(self, tables, drops: int = 5) -> None:
        """Each of ``tables`` (those of ``TABLES``, in order) begins a match and
        drops ``drops`` coins; back once the club has stored them all."""
        for t in tables:
            t.new_match()
            for _ in range(drops):
                t.drop()
        await until(lambda: all(len(self.store.drops(n)) == drops for n in TABLES[:len(tables)]), self.club)

    async def __aexit__(self, *exc):
        for link in self.links.values():
            link.stop()
        self.club.closing.set()
        await asyncio.wait(self.tasks, timeout=10)
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.store.close()
