"""A club's match request on the table: its own screen, started only by a
person's press, declined by back, never disturbing a match."""

import pytest

from coindrel.display import ClubRequestView, MatchView, render
from coindrel.engine import BoardState, Variants, standard_geometry
from coindrel.table.clubrequest import WAITING, RequestError, match_request
from coindrel.table.flow import TableFlow
from coindrel.table.modes import Mode
from coindrel.table.setupmenu import Choices

G = standard_geometry()
FLAT = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
GOOD = {"id": "r-1", "players": ["Cy", "Di"], "clock": 30, "variants": {"halved": True, "shuffled": True}, "at": 1.0}


def make_flow():
    return TableFlow(G, Choices(clock="off"), new_seed=lambda: 99, read_board=lambda: BoardState.parse(FLAT))


def test_a_request_at_the_menu_shows_and_a_press_starts_exactly_that_match():
    flow = make_flow()
    flow.on_club_request(match_request(GOOD), 1.0)
    assert flow.mode is Mode.CLUB_REQUEST
    v = flow.view(1.0)
    assert v == ClubRequestView(("Cy", "Di"), "30 s", ("Halved", "Shuffled"))
    assert render(v).getbbox() is not None
    assert flow.match is None, "nothing starts before a person says so"
    flow.tick(500.0)  # however long it waits
    assert flow.mode is Mode.CLUB_REQUEST and flow.match is None
    flow.on_action("next", 501.0)  # turning the knob is not an answer
    assert flow.mode is Mode.CLUB_REQUEST
    flow.on_action("select", 502.0)
    m = flow.match
    assert m is not None and m.setup.players == ("Cy", "Di") and m.setup.clock == 30.0
    assert m.setup.variants == Variants(halved=True, shuffled=True)
    assert flow.mode is Mode.REVEAL and flow.club_requests == []
    flow.on_club_request(match_request(GOOD), 503.0)  # delivered again after it was answered: once is enough
    assert flow.club_requests == []


def test_back_declines_and_the_next_waiting_request_follows():
    flow = make_flow()
    flow.on_club_request(match_request(GOOD), 0.0)
    flow.on_club_request(match_request({**GOOD, "id": "r-2", "players": ["Ed", "Flo"], "clock": None}), 0.0)
    assert flow.view(0.0).waiting == 1
    flow.on_action("back", 1.0)
    assert flow.mode is Mode.MENU and flow.match is None and len(flow.club_requests) == 1
    flow.tick(1.1)
    assert flow.mode is Mode.CLUB_REQUEST and flow.view(1.1).players == ("Ed", "Flo")
    flow.on_action("back", 2.0)
    flow.tick(2.1)
    assert flow.mode is Mode.MENU and flow.match is None and flow.club_requests == []


def test_a_request_mid_match_waits_for_the_match_to_end_and_changes_nothing_in_it():
    flow, twin = make_flow(), make_flow()
    for f in (flow, twin):
        f.on_action("select", 0.0)
        f.on_action("select", 1.0)
        assert f.mode is Mode.TURN
    flow.on_club_request(match_request(GOOD), 2.0)
    for t, press in ((3.0, "next"), (4.0, "hold-select"), (5.0, "select"), (6.0, "back"), (7.0, "back")):
        for f in (flow, twin):
            f.tick(t)
            f.on_action(press, t)
        assert flow.mode == twin.mode and flow.view(t) == twin.view(t), press
    assert isinstance(flow.view(8.0), MatchView)
    assert [(e.kind, e.name, e.entry) for e in flow.effects] == [(e.kind, e.name, e.entry) for e in twin.effects]
    flow.on_action("back", 9.0)  # the pause menu: End match, and yes ("End the match?")
    for press in ("next", "next", "next", "select", "next", "select"):
        flow.on_action(press, 9.0)
    assert flow.mode is Mode.MENU and flow.match is None
    flow.tick(9.1)
    assert flow.mode is Mode.CLUB_REQUEST


def test_a_request_waits_behind_the_board_question_and_other_screens():
    flow = make_flow()
    flow.on_action("next", 0.0)
    flow.mode = Mode.RULES
    flow.on_club_request(match_request(GOOD), 0.0)
    assert flow.mode is Mode.RULES
    flow.on_action("back", 1.0)
    flow.tick(1.0)
    assert flow.mode is Mode.CLUB_REQUEST


def test_the_same_request_twice_is_one_and_too_many_are_refused():
    flow = make_flow()
    flow.on_action("select", 0.0)  # a match: requests wait
    flow.on_club_request(match_request(GOOD), 0.0)
    flow.on_club_request(match_request(GOOD), 0.0)  # QoS 1 delivered it again
    assert len(flow.club_requests) == 1
    for i in range(WAITING - 1):
        flow.on_club_request(match_request({**GOOD, "id": f"x{i}"}), 0.0)
    with pytest.raises(RequestError, match="already wait"):
        flow.on_club_request(match_request({**GOOD, "id": "one-too-many"}), 0.0)


@pytest.mark.parametrize("bad,why", [
    ({"players": ["Cy", "cy"]}, "both players"),
    ({"players": ["Cy"]}, "two players"),
    ({"players": ["Cy", "A" * 13]}, "1-12"),
    ({"players": ["Cy", "Dï\u202e"]}, "1-12"),
    ({"players": ["Cy", "  "]}, "1-12"),
    ({"clock": 45}, "clock"),
    ({"clock": True}, "clock"),
    ({"variants": {"mirrored": True}}, "variants"),
    ({"variants": {"holes": "yes"}}, "variants"),
    ({"id": ""}, "id"),
    ({"id": "x" * 65}, "id"),
])
def test_a_request_this_table_cannot_play_or_show_is_refused_with_its_reason(bad, why):
    with pytest.raises(RequestError, match=why):
        match_request({**GOOD, **bad})


def test_what_is_not_a_request_at_all_is_refused():
    for junk in (None, [], "r-1", 3):
        with pytest.raises(RequestError, match="object"):
            match_request(junk)


def test_end_match_from_the_pause_menu_files_the_match_and_the_next_one_is_journalled(tmp_path):
    """The flow lets go of the match as it ends it; the daemon still files it
    (it used to find no match, leave the journal open, and run the next
    match unjournalled)."""
    from coindrel.table.daemon import Table
    from coindrel.table.history import list_matches
    from coindrel.table.store import MatchStore

    table = Table(G, Choices(clock="off"), store=MatchStore(tmp_path).open())
    for press in ("select", "select", "select"):  # start (pads set), the reveal
        table.handle_action(press)
    first = table.journal
    assert table.flow.mode is Mode.TURN and first is not None
    for press in ("back", "next", "next", "next", "select", "next", "select"):  # pause, End match, yes
        table.handle_action(press)
    assert table.flow.match is None and table.journal is None
    assert [m.result for m in list_matches(tmp_path, include_current=False)] == ["abandoned"]
    for press in ("select", "select"):
        table.handle_action(press)
    assert table.flow.match is not None and table.journal is not None and table.journal is not first
