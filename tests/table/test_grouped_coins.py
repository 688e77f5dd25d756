"""Coins the reconciler reconciled as one group are each the drop the board
made: a coin that came to rest at once is over when it rested, not when the
group closed.

Found by the kill bench's unplug runs (benchmarks/bench_kill.py --mode
unplug): 4 of 60 drops were lost with the hub powered. While the hub was
unplugged a coin left a pad unseen, so the belief still had it there; the
next coin came to rest on that pad (only its entry beam said anything) while
the belief expected it to tip the rocker. The group stayed open for the
flips it expected, the next player's coin went in meanwhile and joined it,
and that coin, reported with the group's end time, was taken for a second
coin in the same turn: it scored nothing.
"""

from __future__ import annotations

from coindrel.engine import standard_geometry
from coindrel.events import EntryEvent, ExitEvent, StatusEvent, SwitchEvent
from coindrel.reconcile import Reconciler
from coindrel.sources.base import Capabilities
from coindrel.table.daemon import Table
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore

G = standard_geometry()
FAST = {"datasync": lambda fd: None}


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def _entry8_through(t: float) -> list:
    """A coin into entry 8 on an empty board's right edge: R1S8, R3S8, R5S8 go over, exit 16."""
    out = [EntryEvent(t, 7)]
    for k, label in enumerate(("R1S8", "R3S8", "R5S8")):
        at = t + 0.08 + 0.15 * k
        out += [SwitchEvent(at, label, "mid"), SwitchEvent(at + 0.03, label, "R")]
    return out + [ExitEvent(t + 0.55, 15)]


def _settle(table, clock, until: float) -> None:
    steps = 0
    while clock.t < until:
        assert steps < 1000
        clock.t += 0.1
        table.step()
        steps += 1


def test_a_coin_resting_at_once_is_over_before_the_next_coin_that_joined_its_group():
    rec = Reconciler(G, "LLLLLLLr/LLLLLLL/LLLLLLLR/LLLLLLL/LLLLLLLR")
    rec.feed(StatusEvent(9.0, "resync", "the hub restarted"))  # what fell meanwhile: nobody saw
    rec.feed(EntryEvent(12.0, 7))  # rests on R1S8: its coin was taken off unseen
    assert rec.poll(13.9) == [], "the belief expects R1S8 to tip: the group waits"
    rec.feed(EntryEvent(13.8, 0))  # the next player's coin, resting on R1S1
    reports = rec.poll(30.0)
    assert [r.entry for r in reports] == [7, 0]
    assert reports[0].t_last < 13.8 <= reports[1].t_end, "the first coin's own cascade ended before the second went in"
    assert reports[0].to_json()["t_last"] == round(reports[0].t_last, 4)


def test_a_coin_out_past_its_beam_is_over_when_the_beam_saw_it():
    """Found by a newcomer on a served board: the next player's coin, in
    26-200 ms after the last one left through exit 14, joined its group and
    scored nothing as a second coin: the first coin's end was taken as its
    last event plus the longest silence a cascade has (a coin at rest may
    still fall unseen that long), though it had left the board."""
    rec = Reconciler(G, "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    for ev in _entry8_through(10.0):
        rec.feed(ev)
    rec.feed(EntryEvent(10.6, 0))  # 50 ms after exit 16 saw the first coin: rests on R1S1
    reports = rec.poll(30.0)
    assert [r.entry for r in reports] == [7, 0] and [r.verdict for r in reports] == ["ok", "ok"]
    assert reports[0].t_last <= 10.55 < 10.6, "out of the board when exit 16 saw it"


def test_the_next_players_coin_grouped_with_a_resting_one_is_their_drop(tmp_path):
    clock = Clock()
    table = Table(G, Choices(clock="off"), store=MatchStore(tmp_path, **FAST).open(), new_seed=lambda: 7, clock=clock)
    for press in ("select", "select", "select"):
        table.handle_action(press)
    m = table.flow.match
    assert m.phase == "turn" and m.board.text() == "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"

    def feed(events):
        for ev in events:
            clock.t = ev.t
            table.handle_event(ev)
            table.step()

    feed(_entry8_through(10.0))
    _settle(table, clock, 12.5)
    feed([EntryEvent(12.5, 7)])  # Bo's coin rests on R1S8
    _settle(table, clock, 15.0)
    assert [(r.entry, r.player) for r in m.results] == [(7, 1), (7, 2)] and m.board.text().startswith("LLLLLLLr")
    # the hub is unplugged; meanwhile someone lifts the coin off R1S8 (no sensor sees a resting coin)
    feed([StatusEvent(16.0, "disconnected", "unplugged"), StatusEvent(20.0, "connected", "back"),
          StatusEvent(20.0, "resync", "the hub restarted")])
    _settle(table, clock, 24.0)
    for _ in range(5):  # past whatever the table asks after the outage
        if m.phase == "turn" and table.flow.mode == "turn":
            break
        table.handle_action("select")
        _settle(table, clock, clock.t + 0.5)
    assert m.phase == "turn" and m.to_move == 1, table.flow.mode
    feed([EntryEvent(25.0, 7)])  # Ann's coin rests on the empty R1S8: its entry beam is all there is
    clock.t = 26.8
    table.step()
    feed([EntryEvent(26.8, 0)])  # Bo's, before the group closed; it rests on R1S1
    _settle(table, clock, 40.0)
    assert [(r.entry, r.player) for r in m.results[2:]] == [(7, 1), (0, 2)], "Bo's coin is his drop, not an extra coin"
    assert table.flow.note is None or table.flow.note.title != "Extra coin"


def test_an_answer_given_while_the_next_coin_falls_loses_none_of_its_drop(tmp_path):
    """Found by the same bench: the rig's players answered a mismatch ("Board
    is right") while the next coin fell; the reconciler was reset then, and
    the open group went with the reset (its report thrown away, the rest of
    its cascade a stray coin): the drop was lost with every event there."""
    clock = Clock()
    table = Table(G, Choices(clock="off"), source=Sensed(), store=MatchStore(tmp_path, **FAST).open(),
                  new_seed=lambda: 7, clock=clock)
    table.learn_positions({label: "L" for label in G.labels})
    for press in ("select", "select", "select"):
        table.handle_action(press)
    m = table.flow.match
    assert m is not None and m.phase == "turn", table.flow.mode

    def feed(events):
        for ev in events:
            clock.t = ev.t
            table.handle_event(ev)
            table.step()

    feed(_entry8_through(10.0)[:-1])  # exit 16 never says so: a mismatch
    _settle(table, clock, 14.0)
    assert table.flow.mode == "mismatch" and len(m.results) == 1
    # Bo's coin into entry 5: R1S5, R2S5, R3S6, R4S6, R5S7 go over, exit 14
    t = 14.5
    steps = [EntryEvent(t, 4)]
    for k, label in enumerate(("R1S5", "R2S5", "R3S6", "R4S6", "R5S7")):
        steps += [SwitchEvent(t + 0.08 + 0.12 * k, label, "mid"), SwitchEvent(t + 0.1 + 0.12 * k, label, "R")]
    steps.append(ExitEvent(t + 0.75, 13))
    feed(steps[:5])
    for _ in range(4):  # Ann answers the last drop's mismatch: "Board is right" (past its words)
        if table.flow.mode != "mismatch":
            break
        table.handle_action("select")
        table.step()
    assert table.flow.mode == "turn", "answered while the coin still falls"
    feed(steps[5:])
    _settle(table, clock, 18.0)
    assert [(r.entry, r.exits) for r in m.results][1:] == [(4, (13,))], m.results
    kept = [v for v in _verdicts(tmp_path) if v.get("drop") == 2]
    assert kept and kept[0]["entry"] == 5 and kept[0]["observed"]["exits"] == [14], kept
    assert not [v for v in _verdicts(tmp_path) if v.get("drop") is None and v.get("verdict") != "revised"], \
        "no part of the cascade is a stray coin"
    assert m.board.text().split("/")[0] == "LLLLRLLR", m.board.text()


class Sensed:
    """A board source with every sensor (events come from the test)."""

    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=G.labels)


def _verdicts(state_dir):
    from coindrel.table.journal import read_journal

    return [r.data for r in read_journal(state_dir / "match.journal").records if r.kind == "verdict"]


def test_the_health_says_since_which_drop_of_the_match(tmp_path):
    """The persistent faults ``coindrel ctl status`` shows ("since drop N")
    count the match's drops, as the players do: not the reconciler's own
    count, which starts from 1 again after a restart."""
    clock = Clock()

    def table_now():
        t = Table(G, Choices(clock="off"), source=Sensed(), store=MatchStore(tmp_path, **FAST).open(),
                  new_seed=lambda: 7, clock=clock)
        t.learn_positions({label: "L" for label in G.labels})
        t.resume(t.store.recover())
        return t

    table = table_now()
    for press in ("select", "select", "select"):
        table.handle_action(press)

    def feed(events):
        for ev in events:
            clock.t = ev.t
            table.handle_event(ev)
            table.step()

    feed(_entry8_through(10.0))
    _settle(table, clock, 13.0)
    feed([EntryEvent(13.0, 7)])  # rests on R1S8
    _settle(table, clock, 16.0)
    assert len(table.flow.match.results) == 2
    table.store.close()  # a restart: the new reconciler counts from 1
    table = table_now()
    assert len(table.flow.match.results) == 2
    feed([EntryEvent(20.0, 4)] + [SwitchEvent(20.1 + 0.12 * k, label, side) for k, label in enumerate(
        ("R1S5", "R2S5", "R3S6", "R4S6", "R5S7")) for side in ("mid", "R")])  # exit 14 says nothing
    _settle(table, clock, 26.0)
    assert len(table.flow.match.results) == 3
    faults = [f for f in table.persistent_faults() if f["fault"] == "exit_sensor_dead"]
    assert faults and faults[0]["first_drop"] == 3, faults


def test_a_fault_from_the_match_before_is_no_drop_of_this_one():
    """Found by a newcomer: after a new match, ``ctl status`` said a fault was
    there "since drop 12", the match before's drop 12 (the reconciler outlives
    a match, as the board's faults do)."""
    from coindrel.table.diagnosing import DiagnosisMixin

    one, two = object(), object()
    fault = {"fault": "exit_sensor_dead", "where": "exit 9", "first_drop": 5, "last_drop": 31}
    table = type("T", (), {})()
    table.flow = type("F", (), {"match": one})()
    table.drop_numbers, table.numbers_for, table.match_first_drop = {5: 5, 30: 30}, one, 1
    numbered = DiagnosisMixin._match_numbered
    assert numbered(table, fault)["first_drop"] == 5  # the match it was seen in
    table.flow.match = two  # a new match, no drop of it yet
    out = numbered(table, fault)
    assert out["first_drop"] is None and out["last_drop"] is None and out["earlier_match"]
    table.drop_numbers[31], table.numbers_for, table.match_first_drop = 1, two, 31  # its first drop
    out = numbered(table, fault)
    assert out["first_drop"] is None and out["last_drop"] == 1 and out["earlier_match"]
