"""`coindrel sim --fast --club URL --table NAME`: the real daemon code (table,
flow, journal, virtual board) joins a club through a real Mosquitto."""

import asyncio
import subprocess
import sys

from coindrel.club.server.club import Club
from coindrel.club.server.store import ClubStore

from .support import Mosquitto, server_settings, until

TABLES = ["t1", "t2"]


def test_simulated_tables_play_matches_into_the_club_each_drop_and_result_once(tmp_path):
    broker = Mosquitto(tmp_path / "broker", users=[*TABLES, "club"]).start()
    pw = broker.password_file(tmp_path)

    async def main():
        store = ClubStore(tmp_path / "club.sqlite")
        club = Club(server_settings(broker, tmp_path, TABLES), store)
        mqtt = asyncio.create_task(club.run_mqtt(backoff=(0.05, 0.5)))
        await asyncio.wait_for(club.connected.wait(), 30)
        procs = [await asyncio.create_subprocess_exec(
            sys.executable, "-m", "coindrel", "sim", "--club", broker.url(), "--table", name,
            "--club-password-file", str(pw), "--fast", "--clock", "off", "--matches", "2", "--seed", str(i + 1),
            "--names", f"Ann{i},Bo{i}", "--state-dir", str(tmp_path / name),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for i, name in enumerate(TABLES)]
        try:
            outs = [(await asyncio.wait_for(p.communicate(), 120))[0].decode() for p in procs]
        finally:
            for p in procs:
                if p.returncode is None:
                    p.kill()
                    await p.wait()
        for p, out in zip(procs, outs):
            assert p.returncode == 0, out
        await until(lambda: len(store.results()) == 4, club, what="four results")
        for i, name in enumerate(TABLES):
            results = [r for r in store.results() if r["table"] == name]
            assert [r["players"] for r in results] == [[f"Ann{i}", f"Bo{i}"]] * 2
            for r in results:
                drops = store.drops(name, r["match"])
                assert [d["turn"] for d in drops] == list(range(1, r["turns"] + 1))  # each once, in order
                assert drops[-1]["totals"] == r["totals"]
        await until(lambda: not any(club.live[n]["online"] for n in TABLES), club, what="the tables' offline status")
        assert club.counts.get("invalid", 0) == 0
        club.closing.set()
        await mqtt
        store.close()

    try:
        asyncio.run(main())
    finally:
        broker.stop()


def sockets(pid: int) -> list[tuple[str, str, str]]:
    """(kind, state, remote) of every TCP and unix socket ``pid`` holds (from /proc):
    state "listen", or "connected" (TCP established) or "" for the rest."""
    import os

    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as f:
            for line in list(f)[1:]:
                cols = line.split()
                if cols[9] in inodes:
                    state = {"0A": "listen", "01": "connected"}.get(cols[3], "")
                    found.append((table, state, cols[2]))
    with open(f"/proc/{pid}/net/unix") as f:
        for line in list(f)[1:]:
            cols = line.split()
            if cols[6] in inodes:  # __SO_ACCEPTCON in the flags: a listening socket
                found.append(("unix", "listen" if int(cols[3], 16) & 0x10000 else "", cols[-1] if len(cols) > 7 else ""))
    return found


def test_a_table_in_a_club_opens_no_listening_socket(tmp_path):
    """The table only connects out: sampled all through a sim's matches."""
    broker = Mosquitto(tmp_path / "broker", users=["t1", "club"]).start()
    pw = broker.password_file(tmp_path)
    try:
        assert any(state == "listen" for _, state, _ in sockets(broker.proc.pid))  # the check sees a listener
        proc = subprocess.Popen([sys.executable, "-m", "coindrel", "sim", "--club", broker.url(), "--table", "t1",
                                 "--club-password-file", str(pw), "--fast", "--clock", "off", "--matches", "2",
                                 "--state-dir", str(tmp_path / "t1")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples, listening, connected = 0, [], False
        while proc.poll() is None:
            try:
                held = sockets(proc.pid)
            except (FileNotFoundError, ProcessLookupError):
                break  # it ended between the poll and the read
            listening += [s for s in held if s[1] == "listen"]
            connected = connected or any(s[1] == "connected" and s[2].endswith(f":{broker.port:04X}") for s in held)
            samples += 1
        assert proc.wait(120) == 0
        assert samples > 10 and connected and listening == [], (samples, connected, listening)
    finally:
        broker.stop()
