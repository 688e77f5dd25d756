"""`coindrel sim --club URL --table NAME`: the real daemon code (table, flow,
journal, virtual board) joins a club through a real Mosquitto."""

import asyncio
import subprocess
import sys

import pytest

from coindrel.club.server.club import Club
from coindrel.club.server.store import ClubStore

from .support import Mosquitto, server_settings, until


@pytest.mark.slow
def test_a_simulated_table_plays_a_match_into_the_club(tmp_path):
    broker = Mosquitto(tmp_path / "broker", users=["t1", "club"]).start()
    pw = broker.password_file(tmp_path)

    async def main():
        store = ClubStore(tmp_path / "club.sqlite")
        club = Club(server_settings(broker, tmp_path, ["t1"]), store)
        mqtt = asyncio.create_task(club.run_mqtt(backoff=(0.05, 0.5)))
        await asyncio.wait_for(club.connected.wait(), 30)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "coindrel", "sim", "--club", broker.url(), "--table", "t1",
            "--club-password-file", str(pw), "--display", "none", "--think", "0.02", "--clock", "off",
            "--matches", "1", "--state-dir", str(tmp_path / "state"),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            await until(lambda: len(store.results()) == 1, club, timeout=240, what="the simulated match's result")
            out = (await asyncio.wait_for(proc.communicate(), 60))[0].decode()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        assert proc.returncode == 0, out
        result = store.results()[0]
        drops = store.drops("t1")
        assert [d["turn"] for d in drops] == list(range(1, result["turns"] + 1))
        assert drops[-1]["totals"] == result["totals"]
        assert result["players"] == ["Ann", "Bo"]
        await until(lambda: club.live["t1"]["online"] is False, club, what="the table's offline status")
        club.closing.set()
        await mqtt
        store.close()

    try:
        asyncio.run(main())
    finally:
        broker.stop()
