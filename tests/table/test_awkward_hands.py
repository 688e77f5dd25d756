"""People at awkward moments: each finding of the first newcomer's try, on
the real table, journal and virtual board (``coindrel sim --fast``'s rig).

Hands on the board: undo's steps, holes chosen in the menu, what people's hands do when the
table asks.
"""

from __future__ import annotations

import asyncio

from coindrel.engine import Variants
from coindrel.table.people import do_by_hand
from coindrel.table.restore import Hand
from coindrel.table.sim import Keyboard

from .awkward import G, rig_for, run_until


def test_undo_lists_every_step_and_the_keyboard_puts_the_board_back(tmp_path):
    rig = rig_for(tmp_path, seed=7, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 6)
    rig.players.step = lambda: None
    run_until(rig, lambda: flow.match.phase == "turn" and not rig.table.reconciler.busy, 20)
    rig.table.handle_action("back")
    flow.selected = 1  # Undo last drop
    rig.table.handle_action("select")
    assert flow.mode == "restore"
    view = flow.view(rig.t)
    steps = flow.asking
    assert steps and all(step.text in view.text for step in steps)
    Keyboard(rig.table, rig.board, asyncio.Event()).key("s")
    run_until(rig, lambda: False, 2.0)
    assert not any(s.hand is Hand.FLIP for s in flow.asking)
    rig.table.handle_action("select")
    if flow.mode == "mismatch":  # the set-up's hands made a drop out of turn: the board is right
        rig.table.handle_action("back")
    assert flow.mode in ("turn", "reveal")


def test_holes_chosen_in_the_menu_are_taken_out_by_the_players(tmp_path):
    rig = rig_for(tmp_path, seed=8)
    rig.table.flow.menu.choices.variants = Variants(holes=True)  # chosen in the menu; the board has every switch
    assert not rig.board.world.board().holes()
    assert run_until(rig, lambda: rig.table.flow.match is not None, 60)
    assert rig.table.flow.match.board.holes() == list(G.holes)
    assert sorted(rig.board.world.board().holes()) == sorted(G.holes)


def test_hands_do_what_the_table_asks():
    class Board:
        def __init__(self):
            self.did = []

        def set_by_hand(self, label, side):
            self.did.append(("flip", label, side))
            return {}

        def take_out_switch(self, label):
            self.did.append(("out", label))
            return True

    from coindrel.table.restore import HandStep

    b = Board()
    assert do_by_hand(b, [HandStep(Hand.FLIP, "R1S1", "R"), HandStep(Hand.TAKE_OUT, "R2S2")]) == 2
    assert b.did == [("flip", "R1S1", "R"), ("out", "R2S2")]
