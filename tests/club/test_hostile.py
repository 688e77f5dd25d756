"""A hostile table through the real broker: a table's own login sending
oversized, malformed, wrong-schema and other-table messages and a flood, and
a login that may write anywhere naming tables the club does not know. The
club server's MQTT task lives on, the honest table's drops and results are
stored exactly once, and each kind of message is counted for what it is."""

import asyncio
import json
import os

import aiomqtt

from coindrel.club.messages import SCHEMA

from .support import PASSWORD, Rig, SimTable, until


def lie(table="t2", **over):
    base = {"schema": SCHEMA, "table": table, "at": 1.0, "source": "evil", "seq": 1, "match": "m1",
            "players": ["X", "Y"], "totals": [0, 999], "winner": 2, "turns": 1, "rounds": []}
    return json.dumps({**base, **over}).encode()


def test_a_hostile_table_cannot_stop_the_club_or_touch_another_tables_results(broker, tmp_path):
    async def main():
        async with Rig(broker, tmp_path) as rig:
            honest = SimTable(rig.link("t1"), seed=41)
            honest.play_match()
            await until(lambda: len(rig.store.results()) == 1, rig.club)
            reader = rig.tasks[0]
            sent = {}
            async with aiomqtt.Client("127.0.0.1", broker.port, username="t2", password=PASSWORD) as t2, \
                    aiomqtt.Client("127.0.0.1", broker.port, username="rogue", password=PASSWORD) as rogue:
                cases = [
                    ("oversized", t2, "coindrel/t2/result", b"{" + b" " * 70_000 + b"}"),
                    ("oversized", t2, "coindrel/t2/state", os.urandom(1 << 20)),
                    ("invalid", t2, "coindrel/t2/drop", b"{not json"),
                    ("invalid", t2, "coindrel/t2/drop", os.urandom(300)),
                    ("invalid", t2, "coindrel/t2/result", lie(schema=7)),
                    ("invalid", t2, "coindrel/t2/result", lie(totals="lots")),
                    ("invalid", t2, "coindrel/t2/state", json.dumps([1, 2, 3]).encode()),
                    ("invalid", t2, "coindrel/t2/result", lie(table="t1")),  # t2 saying it is t1
                    ("unknown table", rogue, "coindrel/intruder/result", lie(table="intruder")),
                    ("topic", rogue, "coindrel/T1/result", lie(table="T1")),  # not a table name at all
                ]
                for why, client, name, payload in cases:
                    await client.publish(name, payload, qos=1)
                    sent[why] = sent.get(why, 0) + 1
                await t2.publish("coindrel/t1/result", lie(table="t1", source="s", seq=5), qos=1)  # the ACL drops it
                flood = lie(source="flood", seq=1, match="f1", totals=[1, 0], winner=1)
                for _ in range(3000):  # the same result again and again, as fast as the broker takes it
                    await t2.publish("coindrel/t2/result", flood, qos=0)
            honest.play_match()  # the honest table plays on through all of it
            await until(lambda: len([r for r in rig.store.results() if r["table"] == "t1"]) == 2, rig.club,
                        what="the honest table's second result")
            assert not reader.done(), "the club's broker task ended"
            counts = rig.club.counts
            for why, n in sent.items():
                assert counts[why] >= n, (why, counts)
            assert counts["flood"] > 0 and counts["error"] == 0, counts
            mine = [r for r in rig.store.results() if r["table"] == "t1"]
            assert [(r["match"], r["totals"]) for r in mine] == [(r["match"], r["totals"]) for r in honest.results]
            assert [d["seq"] for d in rig.store.drops("t1", limit=10000)] == [d["seq"] for d in honest.drops]
            others = [r for r in rig.store.results() if r["table"] != "t1"]
            assert [(r["table"], r["match"]) for r in others] == [("t2", "f1")]  # t2's own row, once
            await until(lambda: rig.club.live["t1"]["state"]["totals"] == list(honest.match.totals), rig.club,
                        what="the honest table's state")

    asyncio.run(main())
