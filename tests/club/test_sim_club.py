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
