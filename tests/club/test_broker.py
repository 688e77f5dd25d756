"""Tables, a real Mosquitto (password file, ACL) and the club, in one loop."""

import asyncio
import json
import signal


from coindrel.club.link import ClubLink

from .support import TABLES, Rig, SimTable, until

def test_drops_and_results_reach_the_club_once_and_state_is_live(broker, tmp_path):
    async def main():
        async with Rig(broker, tmp_path) as rig:
            tables = [SimTable(rig.link(n), seed=10 * i) for i, n in enumerate(TABLES)]
            for t in tables:
                t.play_match()
            await until(lambda: len(rig.store.results()) == 3 and all(
                (rig.club.live[n]["state"] or {}).get("totals") == list(t.match.totals) for n, t in zip(TABLES, tables)),
                rig.club)
            for n, t in zip(TABLES, tables):
                stored = rig.store.drops(n)
                assert [d["turn"] for d in stored] == list(range(1, len(t.drops) + 1))
                assert rig.club.live[n]["online"]
            assert rig.club.counts.get("duplicate", 0) == 0 and rig.club.counts.get("invalid", 0) == 0

    asyncio.run(main())


def test_a_broker_stopped_mid_match_and_a_table_restarted_lose_no_result(broker, tmp_path):
    """The 'done when': broker away in the middle of matches, then back: every
    result once. One table is also restarted while the broker is away."""
    async def main():
        async with Rig(broker, tmp_path) as rig:
            links = [rig.link(n) for n in TABLES]
            tables = [SimTable(link, seed=100 + i) for i, link in enumerate(links)]
            await rig.begin_matches(tables)
            broker.stop(signal.SIGTERM)
            for t in tables:  # play on while the broker is away
                while not t.match.over:
                    t.drop()
                t.play_match()
            assert all(len(link.outbox) > 0 for link in links)
            # t1's daemon restarts before the broker is back: a new link on the same state directory
            links[0].stop()
            await asyncio.sleep(0)
            restarted = ClubLink(links[0].settings, tmp_path / "t1", backoff=(0.05, 0.5))
            rig.links["t1-again"] = restarted
            rig.tasks.append(asyncio.create_task(restarted.run()))
            tables[0].link = restarted
            tables[0].play_match()
            broker.start()
            want = sum(len(t.results) for t in tables)
            await until(lambda: len(rig.store.results()) == want, rig.club, what=f"{want} results")
            assert sorted((r["table"], r["match"]) for r in rig.store.results()) == sorted(
                (n, r["match"]) for n, t in zip(TABLES, tables) for r in t.results)
            for n, t in zip(TABLES, tables):
                await until(lambda: len(rig.store.drops(n)) == len(t.drops), rig.club, what=f"{n}'s drops")
                assert [d["seq"] for d in rig.store.drops(n)] == sorted(d["seq"] for d in t.drops)  # in order

    asyncio.run(main())


def test_the_acl_keeps_a_table_to_its_own_topics_and_the_club_refuses_lies(broker, tmp_path):
    import aiomqtt

    from .support import PASSWORD

    async def main():
        async with Rig(broker, tmp_path) as rig:
            t1 = SimTable(rig.link("t1"), seed=1)
            t1.play_match()
            await until(lambda: len(rig.store.results()) == 1, rig.club)
            before = rig.store.results()
            fake = dict(t1.results[0], seq=999, match="fake", totals=[0, 999], winner=2)
            async with aiomqtt.Client("127.0.0.1", broker.port, username="t2", password=PASSWORD) as c:
                await c.publish("coindrel/t1/result", json.dumps(fake), qos=1)  # the broker's ACL drops it
                await c.publish("coindrel/t2/result", json.dumps({**fake, "table": "t1"}), qos=1)  # the club refuses
                await c.publish("coindrel/t2/status", json.dumps({"schema": 1, "table": "t2", "online": True}), qos=1)
            await until(lambda: rig.club.live["t2"]["online"], rig.club, what="t2's sentinel")
            assert rig.store.results() == before
            assert rig.club.counts["invalid"] == 1

    asyncio.run(main())


def test_club_match_requests_reach_the_table_validated(broker, tmp_path):
    import aiomqtt

    from .support import PASSWORD

    async def main():
        async with Rig(broker, tmp_path) as rig:
            link = rig.link("t2")
            await until(lambda: rig.club.live["t2"]["online"], rig.club)
            async with aiomqtt.Client("127.0.0.1", broker.port, username="rogue", password=PASSWORD) as c:
                for bad in (b"{", b"x" * 50000, json.dumps({"schema": 1, "table": "t2", "id": "r", "players": ["A"]}).encode(),
                            json.dumps({"schema": 1, "table": "t1", "id": "r", "players": ["A", "B"]}).encode()):
                    await c.publish("coindrel/t2/request", bad, qos=1)
            req_id = await rig.club.send_match("t2", ["Cy", "Di"], 30.0, {"holes": True})
            got = await asyncio.wait_for(anext(link.requests()), 30)
            assert got == {"id": req_id, "players": ["Cy", "Di"], "clock": 30, "variants": {"holes": True},
                           "at": got["at"]}
            assert link.connected and link._requests.empty()  # the bad ones were dropped, the link lives on

    asyncio.run(main())


def test_home_assistant_discovery_is_retained_and_sent_again_when_it_comes_back(broker, tmp_path):
    import aiomqtt

    from .support import PASSWORD

    async def main():
        async with Rig(broker, tmp_path) as rig:
            link = rig.link("t3", home_assistant=True)
            t = SimTable(link, seed=3)
            t.new_match()
            await until(lambda: rig.club.live["t3"]["state"] is not None, rig.club)
            async with aiomqtt.Client("127.0.0.1", broker.port, username="homeassistant", password=PASSWORD) as c:
                await c.subscribe("homeassistant/sensor/+/config")
                seen = {}
                async with asyncio.timeout(30):
                    async for m in c.messages:
                        seen[str(m.topic)] = json.loads(m.payload)
                        if len(seen) == 5:
                            break
                cfg = seen["homeassistant/sensor/coindrel_t3_player1_score/config"]
                assert cfg["state_topic"] == "coindrel/t3/state" and cfg["availability_topic"] == "coindrel/t3/status"
                before = link.sent
                # Home Assistant restarts: it says so, and the configs come again (not retained copies)
                await c.publish("homeassistant/status", b"online")
                async with asyncio.timeout(30):
                    async for m in c.messages:
                        if not m.retain:
                            break
                assert link.sent == before  # discovery is not an outbox message

    asyncio.run(main())
