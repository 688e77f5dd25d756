"""A coin still falling when the board is set anew (``Reconciler.reset`` for
a new match, or ``still_falling`` for a coin that fell before the match):
the rest of its cascade is no hand, no hall fault, no mismatch; its line says
what the board did and the belief follows the rockers it moved."""

from __future__ import annotations

from coindrel.engine import BoardState, standard_geometry
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile import Reconciler

G = standard_geometry()
START = "RRRRLLLL/RRRLLLL/RRRRLLLL/RRRLLLL/RRRRLLLL"  # entry 1: R1S1, R3S1, R5S1 flip, exit 1


def flip(t, label, side):
    return [SwitchEvent(t, label, "mid"), SwitchEvent(t + 0.014, label, side)]


HEAD = [EntryEvent(10.0, 0), *flip(10.10, "R1S1", "L")]
TAIL = [*flip(10.32, "R3S1", "L"), *flip(10.52, "R5S1", "L"), ExitEvent(10.62, 0)]


def run(rec, events, until):
    out = []
    for ev in events:
        rec.feed(ev)
        out += rec.poll(ev.t)
    return out + rec.poll(until)


def test_a_new_match_while_a_coin_falls_takes_its_rest_for_that_coin():
    rec = Reconciler(G, START)
    run(rec, HEAD, 10.15)
    assert rec.busy
    rec.reset(BoardState.parse(START.replace("R", "L", 1), G))  # a new match, R1S1 read left
    lines = [r.to_json() for r in run(rec, TAIL, 14.0)]
    assert [(line["verdict"], line["drop"], line.get("carried")) for line in lines] == [("ok", None, True)], lines
    assert lines[0]["observed"]["flips"] == {"R1S1": 1, "R3S1": 1, "R5S1": 1} and lines[0]["observed"]["exits"] == [1]
    assert rec.health().faults == [] and rec.belief.text() == "LRRRLLLL/RRRLLLL/LRRRLLLL/RRRLLLL/LRRRLLLL"


def test_a_coin_that_fell_before_the_match_was_set_up_is_that_coin_too():
    rec = Reconciler(G, START.replace("R", "L", 1))  # the match's reconciler never saw the coin go in
    rec.still_falling(10.114)
    lines = [r.to_json() for r in run(rec, TAIL, 14.0)]
    assert [line["verdict"] for line in lines] == ["ok"] and rec.health().faults == [], lines


def test_the_same_flips_long_after_are_a_hand_or_a_sensor_as_ever():
    rec = Reconciler(G, START.replace("R", "L", 1))
    rec.still_falling(10.114)
    late = [SwitchEvent(ev.t + 5.0, ev.switch, ev.pos) if isinstance(ev, SwitchEvent) else ExitEvent(ev.t + 5.0, ev.exit)
            for ev in TAIL]
    lines = [r.to_json() for r in run(rec, late, 20.0)]
    assert lines and lines[0]["verdict"] == "mismatch", lines


def test_a_coin_of_the_new_board_is_its_own_drop_even_while_the_tail_falls():
    rec = Reconciler(G, START.replace("R", "L", 1))
    rec.still_falling(10.114)
    events = [*flip(10.32, "R3S1", "L"), EntryEvent(10.40, 7), *flip(10.52, "R5S1", "L"), ExitEvent(10.62, 0)]
    lines = [r.to_json() for r in run(rec, events, 14.0)]
    drops = [line for line in lines if line["drop"] is not None]
    assert len(drops) == 1 and drops[0]["entry"] == 8, lines
