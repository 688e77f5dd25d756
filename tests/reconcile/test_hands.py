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
