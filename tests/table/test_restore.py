"""The hand steps of a put-back (restore.py): what they ask, in words a person
follows on the 128x64 panel."""

from coindrel.config import Section
from coindrel.display import TextView, open_display, render
from coindrel.display import text as T
from coindrel.engine import BoardState, standard_geometry
from coindrel.table.restore import Hand, HandStep, restore_steps

G = standard_geometry()


def test_a_coin_lifted_so_its_rocker_can_flip_is_one_coin_taken_off_and_put_back():
    """Found by a newcomer: "Take coin off R3S4" and "Coin on R3S4" in one list
    read as two orders that undo each other."""
    target = BoardState.parse("LLLLLLLL/LLLLLLL/LLLlLLLL/LLLLLLL/LLLLLLLL")  # before the drop: coin on R3S4's L pad
    before = BoardState.parse("LLLLLLLL/LLLLLLL/LLLrLLLL/LLLLLLL/LLLLLLLL")  # after it: the coin on its R pad
    halls = {s: "L" for s in range(G.switch_count)} | {G.index("R3S4"): "R"}
    steps = restore_steps(target, halls, (before, target))
    s = G.index("R3S4")
    assert steps == [HandStep(Hand.COIN_OFF, s), HandStep(Hand.FLIP, s, "L"), HandStep(Hand.COIN_ON, s)]
    assert [x.text for x in steps] == ["Lift coin off R3S4", "Flip R3S4 to L", "Coin back on R3S4"]
    # the put-back screen shows each step on one line of the panel
    lines = [f"{i}/3 {x.text}" for i, x in enumerate(steps, 1)]
    view = TextView("Put the board back", "\n".join(lines + ["Then press."]))
    assert T.wrap(view.text, 10, 127 - 5)[:3] == lines
    display = open_display(Section("display", {"driver": "dummy", "shift_every": 0}), clock=lambda: 0.0)
    display.show(view, 0.0)
    assert display.device.image.tobytes() == render(view).tobytes()


def test_a_coin_the_undo_takes_away_or_adds_keeps_its_plain_words():
    target = BoardState.parse("LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/lLLLLLLL")  # R5S1 holds a coin, R3S4 none
    before = BoardState.parse("LLLLLLLL/LLLLLLL/LLLrLLLL/LLLLLLL/LLLLLLLL")
    halls = {s: "L" for s in range(G.switch_count)} | {G.index("R3S4"): "R"}
    steps = restore_steps(target, halls, (before, target))
    assert [x.text for x in steps] == ["Take coin off R3S4", "Flip R3S4 to L", "Put a coin on R5S1"]
    assert not any(x.back for x in steps)


def test_the_coin_back_step_stays_once_its_rocker_is_over():
    """The steps are worked out again at every hall reading: once R3S4 was
    over, "Coin back on R3S4" vanished with the coin still in a hand."""
    target = BoardState.parse("LLLLLLLL/LLLLLLL/LLLlLLLL/LLLLLLL/LLLLLLLL")
    before = BoardState.parse("LLLLLLLL/LLLLLLL/LLLrLLLL/LLLLLLL/LLLLLLLL")
    halls = {s: "L" for s in range(G.switch_count)}  # R3S4 pushed over to L now
    steps = restore_steps(target, halls, (before, target))
    assert steps == [HandStep(Hand.COIN_ON, G.index("R3S4"))] and steps[0].text == "Coin back on R3S4"
