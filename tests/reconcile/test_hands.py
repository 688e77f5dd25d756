"""Hands on the board as the table asks (reconcile/hands.py): a coin that goes
in before the put-back is done meets the board as far as it was put back."""

from __future__ import annotations

import pytest

from coindrel.engine import BoardState, standard_geometry
from coindrel.events import EntryEvent, SwitchEvent
from coindrel.reconcile import Reconciler

G = standard_geometry()
START = "lLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"  # a coin on R1S1
STEPS = (("coin-off", G.index("R1S1"), ""), ("flip", G.index("R2S1"), "R"), ("coin-on", G.index("R3S1"), ""))


def hands_then_a_coin(flipped: bool):
    rec = Reconciler(G, BoardState.parse(START, G))
    rec.hands_on(STEPS)
    if flipped:  # the hands push R2S1 over; a moment later a coin goes in (the flips' group still open)
        rec.feed(SwitchEvent(1.0, "R2S1", "mid"))
        rec.feed(SwitchEvent(1.02, "R2S1", "R"))
    rec.feed(EntryEvent(1.1, 7))
    return rec


@pytest.mark.parametrize("flipped", [True, False])
def test_a_coin_before_the_press_meets_the_pads_as_far_as_the_list_was_done(flipped):
    rec = hands_then_a_coin(flipped)
    b = rec.belief
    assert not rec.hands_busy and rec.hands_steps == ()  # the hands are done
    assert b.pad("R2S1") == (1 if flipped else 0)  # the rocker as its hall reads it (1: right)
    # a rocker listed is seen back: the coin off before it was taken off, and (every rocker back) the coin on put on
    assert b.has_coin("R1S1") is not flipped and b.has_coin("R3S1") is flipped
    pads = {G.index("R1S1"), G.index("R3S1")}
    assert pads <= rec.unsure and pads == set(rec.asked)  # nobody saw them: a surprise there is no fault
    assert not rec.worlds[0].faults


def test_the_hands_flips_just_before_the_coin_make_no_report_of_their_own():
    rec = hands_then_a_coin(True)
    reports = rec.poll(1.15) + rec.flush()
    assert all(r.drop is not None for r in reports), [r.to_json() for r in reports]


def coin_events(board: BoardState, entry: int, t: float, deaf=()):
    """A coin's events on ``board`` as it really stands (halls at ``deaf`` see nothing)."""
    from coindrel.engine import drop, side_name
    from coindrel.events import ExitEvent

    out = drop(board, [entry])
    evs, pads = [EntryEvent(t, entry)], list(board.pads())
    for k, sw in enumerate(out.flipped):
        pads[sw] = 1 - pads[sw]
        if sw not in deaf:
            evs += [SwitchEvent(t + 0.1 + k / 50, G.labels[sw], "mid", 2000),
                    SwitchEvent(t + 0.104 + k / 50, G.labels[sw], side_name(pads[sw]))]
    return evs + [ExitEvent(t + 0.8, x) for x in out.exits], out.board


def test_a_rocker_held_past_not_yet_whose_hall_is_held_lying_is_the_board_not_put_back():
    """The players held past "Not yet" at R1S8, whose hall the reconciler
    already holds lying: the table believes the side listed (R), not the
    hall; the rocker was in fact left at L, and the coin that finds it so is
    the board not put back there, not a fault."""
    from coindrel.engine import HallFault
    from coindrel.reconcile.faults import say
    from coindrel.reconcile.world import World

    from .helpers import run_events

    s = G.index("R1S8")
    sensed = BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", G)  # R1S8 as its hall reads it
    rec = Reconciler(G, sensed)
    rec.worlds = [World(G, rec.worlds[0].codes, frozenset({HallFault("R1S8")}))]
    rec.reset(sensed)
    rec.not_put_back({s})
    assert rec.belief.pad("R1S8") == 1 and rec.unput == {s}  # the side listed: that hall proves nothing
    events, truth = coin_events(sensed, 7, 5.0, deaf={s})
    reports = [r for r in run_events(rec, events) if r.drop is not None]
    assert len(reports) == 1 and reports[0].diagnosis
    first = reports[0].diagnosis[0].fault
    assert (first.name, first.where) == ("moved_by_hand", "R1S8") and first.unput, [(f.fault, f.confidence) for f in reports[0].diagnosis]
    assert "not put back" in say(first) and "not a fault" in say(first)
    assert rec.worlds[0].faults == {HallFault("R1S8")}  # nothing new blamed; the hall was held lying already
    assert rec.belief.text() == truth.text() and not rec.unput  # a coin met it: known again


def test_a_coin_before_the_press_meets_a_rocker_to_check_by_eye_as_listed():
    """A suspected hall (still reading L) cannot say R2S1 was pushed to R:
    the coin meets it as the list asked once the rockers seen are back."""
    rec = Reconciler(G, BoardState.parse(START, G))
    rec.hands_on((("flip-by-eye", G.index("R2S1"), "R"),))
    rec.feed(EntryEvent(1.1, 7))
    assert not rec.hands_busy and rec.belief.pad("R2S1") == 1
