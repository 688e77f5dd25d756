"""Beyond one room: tables on a room broker, bridged to the club's broker,
where the club server is (docs/club.md draws it)."""

import asyncio

from coindrel.club.link import ClubLink
from coindrel.club.server.club import Club
from coindrel.club.server.store import ClubStore

from .support import PASSWORD, Mosquitto, SimTable, free_port, server_settings, table_settings, until

TABLES = ["r1-a", "r1-b"]


def test_tables_on_a_room_broker_reach_the_club_broker_over_a_bridge_and_requests_come_back(tmp_path):
    club_port = free_port()
    # The room's bridge logs in to the club broker as "room1": it may write every table's topics
    # and read their requests (a room's tables are the club's to trust as a whole).
    central = Mosquitto(tmp_path / "club-broker", users=["club", "room1"], port=club_port,
                        acl="user room1\ntopic write coindrel/#\ntopic read coindrel/+/request\n\n").start()
    bridge = (
        "connection club\n"
        f"address 127.0.0.1:{club_port}\n"
        "remote_username room1\n"
        f"remote_password {PASSWORD}\n"
        "remote_clientid room1-bridge\n"
        "cleansession false\n"
        "topic coindrel/+/status out 1\n"
        "topic coindrel/+/state out 1\n"
        "topic coindrel/+/drop out 1\n"
        "topic coindrel/+/result out 1\n"
        "topic coindrel/+/request in 1\n"
    )
    room = Mosquitto(tmp_path / "room-broker", users=TABLES, extra=bridge).start()

    async def main():
        store = ClubStore(tmp_path / "club.sqlite")
        club = Club(server_settings(central, tmp_path, TABLES), store)
        tasks = [asyncio.create_task(club.run_mqtt(backoff=(0.05, 0.5)))]
        await asyncio.wait_for(club.connected.wait(), 30)
        links = {}
        for name in TABLES:
            (tmp_path / name).mkdir()
            links[name] = ClubLink(table_settings(room, tmp_path, name), tmp_path / name, backoff=(0.05, 0.5))
            tasks.append(asyncio.create_task(links[name].run()))
        await until(lambda: all(club.live[n]["online"] for n in TABLES), club, what="both tables online via the bridge")
        tables = [SimTable(links[n], seed=i) for i, n in enumerate(TABLES)]
        for t in tables:
            t.play_match()
        await until(lambda: len(store.results()) == 2, club, what="both results via the bridge")
        assert {r["table"] for r in store.results()} == set(TABLES)
        for n, t in zip(TABLES, tables):
            assert len(store.drops(n)) == len(t.drops)
        req = await club.send_match("r1-b", ["Gil", "Hal"], None, {})
        got = await asyncio.wait_for(anext(links["r1-b"].requests()), 30)
        assert got["id"] == req
        for link in links.values():
            link.stop()
        club.closing.set()
        await asyncio.wait(tasks, timeout=10)
        store.close()

    try:
        asyncio.run(main())
    finally:
        room.stop()
        central.stop()
