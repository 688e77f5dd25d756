"""After board events were lost the table asks the players to check the
pads (table/modes_pads.py): once the hub is back and what it saw is
reconciled, over the turn, which goes on under it."""

from __future__ import annotations

from coindrel.display import TextView
from coindrel.events import EntryEvent, StatusEvent
from coindrel.table.modes import Mode
from coindrel.table.modes_pads import SETTLE, pads_text

from .test_daemon_wiring import HubLike, started


def _lost(table, now):
    table.handle_event(StatusEvent(2.0, "resync", "the hub restarted; events while it was restarting are unknown"))
    for _ in range(int(SETTLE / 0.5) + 4):
        now[0] += 0.5
        table.step()


def test_the_pads_are_asked_about_after_the_hub_restarted_and_a_press_plays_on(tmp_path):
    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    assert table.flow.mode is Mode.TURN
    _lost(table, now)
    flow = table.flow
    assert flow.mode is Mode.CHECK_PADS
    screen = flow.screen_of(Mode.CHECK_PADS).view(flow, now[0])
    assert isinstance(screen, TextView) and screen.title == "Check the pads"
    assert screen.text == pads_text(flow.match) and "no coin on any pad" in screen.text
    table.handle_action("select")
    assert flow.mode is Mode.TURN and not flow.pads_unknown
    now[0] += 5
    table.step()
    assert flow.mode is Mode.TURN  # asked once


def test_a_coin_dropped_meanwhile_is_the_turns_drop_and_answers(tmp_path):
    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    _lost(table, now)
    assert table.flow.mode is Mode.CHECK_PADS
    table.handle_event(EntryEvent(now[0], 3))
    table.step()
    assert table.flow.mode is Mode.TURN and not table.flow.pads_unknown
    assert table.flow.match.phase == "falling" and table.flow.coins_in and not table.flow.coins_in[-1][2]


def test_nothing_is_asked_without_a_loss(tmp_path):
    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    table.handle_event(StatusEvent(2.0, "disconnected", "unplugged"))
    table.handle_event(StatusEvent(3.0, "connected", "back"))
    for _ in range(10):
        now[0] += 0.5
        table.step()
    assert table.flow.mode is Mode.TURN


def test_the_turn_goes_on_under_the_question_its_clock_too(tmp_path):
    """Found by the monkey: in the check the turn's tick stopped (its clock, the computer
    opponent's choice and dropper), so a computer's turn waited for a press for ever."""
    from .test_stall_clock import timed_turn

    now = [0.0]
    table, m = timed_turn(tmp_path, now)
    assert m.forced_entry is None
    _lost(table, now)
    assert table.flow.mode is Mode.CHECK_PADS
    for _ in range(70):  # past the 30 s turn clock, nobody pressing
        now[0] += 0.5
        table.step()
    assert m.forced_entry is not None, "the turn's clock ran out under the question"
