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


def undo_once_landed(rig):
    """The players stop, the last coin lands, and they undo it from the pause
    menu; returns the players' step, to hand back to them."""
    flow = rig.table.flow
    play, rig.players.step = rig.players.step, lambda: None
    run_until(rig, lambda: False, 3.0)  # the last coin has landed
    run_until(rig, lambda: flow.match.phase == "turn" and not rig.table.reconciler.busy, 20)
    rig.table.handle_action("back")
    flow.selected = 1  # Undo last drop
    rig.table.handle_action("select")
    assert flow.mode == "restore"
    return play


def put_back(rig, play, settle: float) -> None:
    """Every listed step by hand, ``settle`` seconds, a press; the players play on."""
    flow = rig.table.flow
    do_by_hand(rig.board, flow.asking)
    run_until(rig, lambda: False, settle)
    rig.table.handle_action("select")
    assert flow.mode == "turn"
    rig.players.step = play


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


def test_a_coin_step_of_the_put_back_not_done_is_named_as_such_not_as_a_fault(tmp_path):
    """Undo, then the flips done but not the coin steps (no sensor sees a coin
    on a pad, so the table takes the press for done): the drop that meets that
    pad is a put-back step not done, not a pad or hall fault kept for ever."""
    rig = rig_for(tmp_path, seed=9, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 6)
    play = undo_once_landed(rig)
    coin_steps = [s for s in flow.asking if s.hand in (Hand.COIN_ON, Hand.COIN_OFF)]
    assert coin_steps, "seed 9's undo asks for a coin to be taken off"
    do_by_hand(rig.board, [s for s in flow.asking if s not in coin_steps])
    run_until(rig, lambda: False, 2.0)
    rig.table.handle_action("select")
    assert flow.mode == "turn"
    findings = []
    seen = flow.on_report

    def on_report(report, now):
        findings.extend(report.diagnosis or ())
        seen(report, now)

    flow.on_report = on_report
    rig.players.step = play
    n = len(flow.match.results)
    assert run_until(rig, lambda: len(flow.match.results) >= n + 6, 200)
    assert findings, "a drop met the pad the put-back left wrong"
    pads = {s.label for s in coin_steps}
    first = findings[0].fault
    assert first.name in ("coin_added", "coin_removed") and first.where in pads, findings[:3]
    from coindrel.reconcile.faults import say

    assert "putting the board back" in say(first)
    assert not rig.table.reconciler.worlds[0].faults  # nothing blamed on the board's parts


def test_rockers_pushed_over_by_hand_to_put_the_board_back_blame_no_part(tmp_path):
    """The put-back's flips, made by hand as the table lists them, read as one
    coinless 'drop' whose best story had lying halls and a pad that lets go;
    kept once the board was back, they were blamed for ever after."""
    rig = rig_for(tmp_path, seed=5, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 6)
    play = undo_once_landed(rig)
    assert not rig.table.reconciler.worlds[0].faults
    assert sum(s.hand is Hand.FLIP for s in flow.asking) >= 3, "seed 5's undo flips several rockers back"
    put_back(rig, play, 2.0)
    n = len(flow.match.results)
    assert run_until(rig, lambda: len(flow.match.results) >= n + 6, 200)
    assert not rig.table.reconciler.worlds[0].faults


def test_a_press_just_after_the_last_flip_keeps_the_coins_believed(tmp_path):
    """Put back at once (the last rocker pushed over, select pressed straight
    after): that flip's events were still one open group, grouped again
    against the board just put back, as a rocker moved by hand; the coin
    believed on its pad went, and the next drops blamed a hall."""
    rig = rig_for(tmp_path, seed=8, clock="off")
    flow = rig.table.flow
    for k in range(2):
        assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 5 + 5 * k, 300)
        play = undo_once_landed(rig)
        put_back(rig, play, 0.2)
    n = len(flow.match.results)
    flagged = []
    seen = flow.on_report

    def on_report(report, now):
        if report.drop is not None and report.verdict != "ok":
            flagged.append(report)
        seen(report, now)

    flow.on_report = on_report
    assert run_until(rig, lambda: len(flow.match.results) >= n + 12, 300)
    assert not flagged, [(r.drop, r.diagnosis[:2]) for r in flagged]
    assert not rig.table.reconciler.worlds[0].faults


def drop_before_the_press(rig, play, steps):
    """Some of the put-back's steps by hand, then a coin in the turn's entry
    before anyone presses; returns that drop's report once it is scored."""
    flow = rig.table.flow
    do_by_hand(rig.board, steps)
    run_until(rig, lambda: False, 2.0)
    reports = []
    seen = flow.on_report

    def on_report(report, now):
        reports.append(report)
        seen(report, now)

    flow.on_report = on_report
    m, n = flow.match, len(flow.match.results)
    rig.board.drop(4)
    assert run_until(rig, lambda: len(m.results) > n, 30)
    run_until(rig, lambda: False, 1.0)
    flow.on_report = seen
    rig.players.step = play
    return [r for r in reports if r.drop is not None]


def test_a_coin_dropped_before_the_put_back_is_pressed_leaves_the_belief_as_the_board_is(tmp_path):
    """Undo asks for a coin off R1S1; the players take it off and drop before
    pressing: the table kept believing the coin there (it never heard the step
    was done), so every later drop over R1S1 was a mismatch."""
    rig = rig_for(tmp_path, seed=9, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 6)
    play = undo_once_landed(rig)
    assert [s.hand for s in flow.asking] == [Hand.COIN_OFF], "seed 9's undo asks for one coin off"
    reports = drop_before_the_press(rig, play, flow.asking)
    assert len(reports) == 1
    assert flow.mode == "mismatch" and not flow.restore  # the list is over: the coin played on the board as it stood
    facts = " ".join(flow.diagnosis.facts)
    assert "before the board was put back" in facts and "no coin on R1S1" in facts
    rec = rig.table.reconciler
    physical = rig.board.world.board()
    assert rec.belief.text() == physical.text() == flow.match.board.text()
    assert not rec.worlds[0].faults and "hands_from" not in rec.__dict__
    flow.on_action("back", rig.t)  # Board is right
    n = len(flow.match.results)
    flagged = []
    seen = flow.on_report
    flow.on_report = lambda r, now: (r.drop is not None and r.verdict != "ok" and flagged.append(r), seen(r, now))
    assert run_until(rig, lambda: len(flow.match.results) >= n + 8, 300)
    assert not flagged, [(r.drop, r.diagnosis[:2]) for r in flagged]


def test_a_coin_dropped_with_the_rockers_put_back_but_not_the_coins_meets_the_board_as_it_is(tmp_path):
    """Seed 5's undo: coins off, four rockers, a coin on. The players push the
    rockers and drop before the coin steps (and the press): the coin is
    judged against the rockers the halls see, the coin steps' pads unsure."""
    rig = rig_for(tmp_path, seed=5, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 6)
    play = undo_once_landed(rig)
    flips = [s for s in flow.asking if s.hand is Hand.FLIP]
    pads = {s.switch for s in flow.asking if s.hand in (Hand.COIN_ON, Hand.COIN_OFF)}
    assert len(flips) >= 3 and pads
    reports = drop_before_the_press(rig, play, flips)
    assert len(reports) == 1
    rec = rig.table.reconciler
    assert rec.belief.text() == rig.board.world.board().text() == flow.match.board.text()
    assert not rec.worlds[0].faults
    assert pads <= rec.unsure and pads <= rec.asked  # nobody saw them: a later surprise there is no fault
    assert "before the board was put back" in " ".join(flow.diagnosis.facts)


def test_a_coin_in_a_hub_frame_before_the_undo_press_is_the_drop_still_falling(tmp_path):
    """Scripted race: a coin goes in, and before its entry event has reached
    the table (it waits in the source's queue, as a hub frame in flight does)
    the players press Undo. The undo went ahead on the board it had not heard
    yet, and that coin's cascade met the put-back's hands."""
    rig = rig_for(tmp_path, seed=9, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.match is not None and len(flow.match.results) >= 6)
    play, rig.players.step = rig.players.step, lambda: None
    run_until(rig, lambda: False, 3.0)
    run_until(rig, lambda: flow.match.phase == "turn" and not rig.table.reconciler.busy, 20)
    m, n = flow.match, len(flow.match.results)
    rig.table.handle_action("back")
    flow.selected = 1  # Undo last drop, the knob on it
    rig.board.drop(4)
    rig.board.run_until(rig.t + 0.04)  # the coin is in; its event not yet taken from the source
    rig.t += 0.04
    assert rig.source.queued()
    rig.table.handle_action("select")
    assert flow.mode == "paused" and len(m.results) == n  # held until the board is heard past the press
    rig.tick()
    assert flow.note is not None and "still falling" in flow.note.text
    assert flow.mode != "restore" and len(m.results) == n
    rig.players.step = play
    assert run_until(rig, lambda: len(m.results) == n + 1, 30)  # the coin is the next turn's drop
    assert not rig.table.reconciler.worlds[0].faults
    assert rig.table.reconciler.belief.text() == rig.board.world.board().text()
