"""The 'done when' of club play, as it happens in a club: the broker stopped
for 30 s in the middle of matches while the tables play on at a fast table's
pace, then started again: every drop and every result reaches the club's
database exactly once, in order (a backlog far over the club's flood
allowance included)."""

import asyncio
import signal

import pytest

from .support import Mosquitto, SimTable, until
from .test_broker import TABLES, Rig

OUTAGE = 30.0  # seconds of real time the broker is away: the scenario, not a wait for something
PACE = 0.1  # seconds between one table's drops: a fast simulated table


@pytest.fixture
def broker(tmp_path):
    b = Mosquitto(tmp_path / "broker", users=[*TABLES, "club"]).start()
    yield b
    b.stop()


def test_a_broker_away_30_s_mid_match_loses_nothing_and_repeats_nothing(broker, tmp_path):
    async def main():
        async with Rig(broker, tmp_path) as rig:
            # the links' own backoff as a table runs it, capped so the test ends soon after the broker is back
            links = []
            for n in TABLES:
                links.append(rig.link(n))
                links[-1]._backoff = (0.5, 8.0)
            tables = [SimTable(link, seed=300 + i) for i, link in enumerate(links)]
            for t in tables:
                t.new_match()
                for _ in range(5):
                    t.drop()
            await until(lambda: all(len(rig.store.drops(n)) == 5 for n in TABLES), rig.club)
            broker.stop(signal.SIGTERM)
            loop = asyncio.get_running_loop()
            end = loop.time() + OUTAGE
            while loop.time() < end:  # the matches go on while the broker is away
                for t in tables:
                    if t.match.over:
                        t.new_match()
                    t.drop()
                await asyncio.sleep(PACE)
            waiting = [len(link.outbox) for link in links]
            assert min(waiting) > 200, waiting  # more than the club lets one table burst
            assert all(len(t.results) >= 2 for t in tables), [len(t.results) for t in tables]
            broker.start()
            want = sum(len(t.results) for t in tables)
            await until(lambda: len(rig.store.results()) == want, rig.club, timeout=120, what=f"{want} results")
            for n, t in zip(TABLES, tables):
                await until(lambda: len(rig.store.drops(n, limit=100000)) == len(t.drops), rig.club, timeout=120,
                            what=f"{n}'s {len(t.drops)} drops")
                stored = rig.store.drops(n, limit=100000)
                assert [d["seq"] for d in stored] == [d["seq"] for d in t.drops]  # each once, in order
            assert sorted((r["table"], r["match"]) for r in rig.store.results()) == sorted(
                (n, r["match"]) for n, t in zip(TABLES, tables) for r in t.results)
            for n, t in zip(TABLES, tables):  # and the scoreboard shows each table as it stands now
                await until(lambda: (rig.club.live[n]["state"] or {}).get("totals") == list(t.match.totals)
                            and rig.club.live[n]["online"], rig.club, what=f"{n}'s state after its backlog")
            assert rig.club.counts["flood"] == 0, rig.club.counts  # duplicates (QoS 1 sends again) are stored once

    asyncio.run(main())
