"""The club asks a real table (the daemon's ``Table`` with its flow) for a
match through a real Mosquitto: the request is shown on its own screen,
starts only when a person presses, waits while a match is played, and a
request the table cannot play is logged and dropped."""

import asyncio
import json
import logging

from coindrel.club.feed import attach
from coindrel.club.server.club import Club
from coindrel.club.server.store import ClubStore
from coindrel.display import ClubRequestView, MatchView
from coindrel.engine import Variants, standard_geometry
from coindrel.table.daemon import Table
from coindrel.table.modes import Mode
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore

from .support import PASSWORD, Mosquitto, server_settings, table_settings, until


def test_a_club_request_reaches_the_table_screen_and_starts_only_when_a_person_confirms(tmp_path, caplog):
    import aiomqtt

    broker = Mosquitto(tmp_path / "broker", users=["t1", "club", "rogue"]).start()
    caplog.set_level(logging.WARNING, logger="coindrel.table")

    async def main():
        store = ClubStore(tmp_path / "club.sqlite")
        club = Club(server_settings(broker, tmp_path, ["t1"]), store)
        mqtt = asyncio.create_task(club.run_mqtt(backoff=(0.05, 0.5)))
        await asyncio.wait_for(club.connected.wait(), 30)
        state = tmp_path / "t1"
        # no board (drops keyed in), the journal in its state directory
        table = Table(standard_geometry(), Choices(clock="off"), store=MatchStore(state).open())
        heard: asyncio.Queue = asyncio.Queue()
        take = table.handle_club_request
        table.handle_club_request = lambda req: heard.put_nowait((req, take(req)))
        joined = attach(table, table_settings(broker, tmp_path, "t1"), state)
        try:
            await until(lambda: club.live["t1"]["online"], club, what="the table online")

            # a match in progress: a request waits and changes nothing on the table
            table.handle_action("select")  # Start match: "no switch sensors, set the pads"
            table.handle_action("select")
            table.handle_action("select")  # the reveal: turns start
            assert table.flow.mode is Mode.TURN
            shown = table.flow.view(table.now())
            first = await club.send_match("t1", ["Cy", "Di"], 30.0, {"halved": True})
            req, taken = await asyncio.wait_for(heard.get(), 30)
            assert req["id"] == first and taken
            assert table.flow.mode is Mode.TURN and table.flow.view(table.now()) == shown
            assert isinstance(shown, MatchView)
            table.handle_action("back")  # pause, End match, and yes ("End the match?")
            for press in ("next", "next", "next", "select", "next", "select"):
                table.handle_action(press)
            table.step()
            assert table.flow.mode is Mode.CLUB_REQUEST
            assert table.flow.view(table.now()) == ClubRequestView(("Cy", "Di"), "30 s", ("Halved",))

            # what the club link lets through but this table cannot play: logged, dropped
            async with aiomqtt.Client("127.0.0.1", broker.port, username="rogue", password=PASSWORD) as c:
                bad = {"schema": 1, "table": "t1", "id": "same-names", "players": ["Ed", "Ed"], "clock": 60}
                await c.publish("coindrel/t1/request", json.dumps(bad), qos=1)
            req, taken = await asyncio.wait_for(heard.get(), 30)
            assert req["id"] == "same-names" and not taken
            assert "both players are called 'Ed'" in caplog.text and "dropped" in caplog.text
            assert [r.id for r in table.flow.club_requests] == [first]

            # a second request waits behind the first; a person says yes to the first
            second = await club.send_match("t1", ["Ed", "Flo"], None, {})
            await asyncio.wait_for(heard.get(), 30)
            assert table.flow.view(table.now()).waiting == 1
            table.handle_action("select")  # yes: the menu's own Start match asks for the pads first
            assert table.flow.match is None and table.flow.message is not None
            table.handle_action("select")  # the pads are set
            m = table.flow.match
            assert m is not None and m.setup.players == ("Cy", "Di") and m.setup.clock == 30.0
            assert m.setup.variants == Variants(halved=True)
            assert [r.id for r in table.flow.club_requests] == [second]
            await until(lambda: (club.live["t1"]["state"] or {}).get("players") == ["Cy", "Di"], club,
                        what="the requested match on the scoreboard")
        finally:
            await joined.finish(timeout=5)
            club.closing.set()
            await asyncio.wait_for(mqtt, 30)
            store.close()

    try:
        asyncio.run(main())
    finally:
        broker.stop()
