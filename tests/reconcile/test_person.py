"""Person-caused explanations (issue 13): what a person's hand shows on
real sensors, against the hardware faults that could show the same.
Judged by the JSON lines (``to_json``), as ``coindrel reconcile`` writes them."""

from __future__ import annotations

from coindrel.engine import BoardState, drop, standard_geometry
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile import Reconciler

G = standard_geometry()


def cascade(board: BoardState, entry: int, t: float, flip_s: float = 0.014):
    """The events a healthy board's sensors give for a coin in ``entry``
    (``board``: the board as it really is): row by row, each flip through mid."""
    out = drop(board, [entry])
    events, k = [EntryEvent(t, entry)], 1
    sides = out.board.text().replace("/", "")
    before = board.text().replace("/", "")
    for s in sorted((s for s, n in enumerate(out.flips) if n), key=lambda s: (G.labels[s][1], s)):
        side = before[s].upper()
        for _ in range(out.flips[s]):
            side = "L" if side == "R" else "R"
            events += [SwitchEvent(t + 0.1 * k, G.labels[s], "mid"), SwitchEvent(t + 0.1 * k + flip_s, G.labels[s], side)]
            k += 1
        assert side == sides[s].upper()
    events += [ExitEvent(t + 0.1 * k + 0.05 * i, x) for i, x in enumerate(out.exits)]
    return events, out.board


def lines_of(rec, events, until):
    out = []
    for ev in events:
        rec.feed(ev)
        out += [r.to_json() for r in rec.poll(ev.t)]
    return out + [r.to_json() for r in rec.poll(until)]


def conf(line, name, where):
    return max((d["confidence"] for d in line["diagnosis"] if (d["fault"], d["where"]) == (name, where)), default=0.0)


def test_a_coin_put_on_an_entrys_pad_is_a_hand_before_a_beam_that_saw_this_coin():
    """Found by a newcomer (`coindrel sim --fast --seed 3` with a lone
    `{"t": 10, "place": "R1S3"}`): the next coin in entry 3 met that coin and
    "entry 3 beam dead" ranked first (a coin it missed resting there). Entry
    3's beam saw that very coin, so it would be a beam that misses some coins
    only; a person putting a coin on a pad needs no failing part."""
    start = "RRLLLLLL/LRRLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"  # R1S3 pad left (its inlet), empty; both coins it sends flip a rocker
    rec = Reconciler(G, start)
    real = BoardState.parse("RRlLLLLL/LRRLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", G)  # a hand put a coin on R1S3
    events, _ = cascade(real, 2, 20.0)
    (line,) = [x for x in lines_of(rec, events, 30.0) if x["drop"] is not None]
    assert line["verdict"] == "mismatch"
    first = (line["diagnosis"][0]["fault"], line["diagnosis"][0]["where"])
    assert first == ("coin_added", "R1S3"), line["diagnosis"]
    assert conf(line, "coin_added", "R1S3") > 2 * conf(line, "entry_sensor_dead", "entry 3"), line["diagnosis"]
