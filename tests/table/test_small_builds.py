"""Builds with fewer sensors: beams only (the GPIO source), and none at all."""

from coindrel.engine import standard_geometry
from coindrel.events import SwitchEvent
from coindrel.sources.base import Capabilities
from coindrel.table.daemon import Table
from coindrel.table.setupmenu import Choices
from coindrel.table.sim import SimOptions, SimPlayers
from coindrel.table.store import MatchStore
from coindrel.virtual import BoardConfig, Collect, Scenario, build_board

G = standard_geometry()


class BeamsOnly:
    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)))


def test_a_beams_only_board_plays_a_whole_match_without_false_alarms(tmp_path):
    out = Collect()
    board, _ = build_board(Scenario(BoardConfig(seed=6, start="LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")), outputs=[out])
    now = [0.0]
    table = Table(G, Choices(clock="off"), source=BeamsOnly(), store=MatchStore(tmp_path).open(),
                  clock=lambda: now[0], reveal_seconds=0.5)
    assert table.sensors.halls is False and table.flow.has_halls is False
    table.handle_action("select")  # start: no hall sensors, so the players set every pad left
    assert "pad to the left" in table.flow.view(0).text
    table.handle_action("select")
    assert table.flow.mode == "reveal"
    players = SimPlayers(table, board, SimOptions(think=0.2, seed=6, pause=0.3), clock=lambda: now[0])
    seen, reports = 0, []
    original = table.flow.on_report
    table.flow.on_report = lambda r, t: (reports.append(r), original(r, t))
    while now[0] < 400 and not (table.flow.match is not None and table.flow.match.over):
        now[0] += 0.05
        board.run_until(now[0])
        for ev in out.events[seen:]:
            if not isinstance(ev, SwitchEvent):  # a GPIO build has beams only
                table.handle_event(ev)
        seen = len(out.events)
        table.step()
        players.step()
    m = table.flow.match
    assert m is not None and m.over
    assert reports and all(r.verdict == "ok" for r in reports)
    assert [c & 1 for c in m.board.codes] == [c & 1 for c in board.world.codes]


def test_no_sensors_the_players_key_in_every_drop(tmp_path):
    table = Table(G, Choices(clock="off"), store=MatchStore(tmp_path).open(), clock=lambda: 0.0, keyed=True)
    flow = table.flow
    table.handle_action("select")
    table.handle_action("select")  # the pads are set left
    table.handle_action("select")  # past the reveal
    table.handle_action("next")
    table.handle_action("select")  # entry 2
    m = flow.match
    assert m.results[0].entry == 1 and table.journal is not None
    assert table.reconciler is not None and table.reports == 0
