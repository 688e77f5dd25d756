"""The synthetic board keeps sensing.md's physical facts, and its truth agrees
with the engine."""

from collections import Counter

from coindrel.engine import BoardState, SwitchStuck, drop
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile.faults import ExitSensorChatter
from benchmarks.models.synth import Injection, match_entries, synthesize


def test_events_follow_the_physical_facts():
    start, entries = match_entries(2)
    run = synthesize(start, entries, seed=2, overlap=0.4)
    events = run.events
    assert all(a.t <= b.t for a, b in zip(events, events[1:]))
    # Each flip shows as mid then the new side: a switch never repeats a side or skips mid.
    last = {}
    for e in events:
        if isinstance(e, SwitchEvent):
            prev = last.get(e.switch)
            if e.pos in ("L", "R"):
                assert prev == "mid"
            else:
                assert prev != "mid"
            last[e.switch] = e.pos
    # Totals agree with the engine's drops (the network is abelian).
    s, exits = start, Counter()
    for e in entries:
        o = drop(s, [e])
        exits.update(o.exits)
        s = o.board
    assert Counter(e.exit for e in events if isinstance(e, ExitEvent)) == exits
    assert [e.entry for e in events if isinstance(e, EntryEvent)] == entries
    assert [d.exits for d in run.drops] == [tuple(sorted(d.exits)) for d in run.drops]


def test_same_seed_same_run():
    start, entries = match_entries(3)
    a = synthesize(start, entries, seed=9)
    b = synthesize(start, entries, seed=9)
    assert a.events == b.events


def test_faults_change_what_the_sensors_report(tmp_path):
    start, entries = match_entries(6)
    clean = synthesize(start, entries, seed=6)
    x = next(d.exits[0] for d in clean.drops[5:] if d.exits)
    run = synthesize(start, entries, [Injection(ExitSensorChatter(x), 5)], seed=6)
    assert sum(isinstance(e, ExitEvent) and e.exit == x for e in run.events) > sum(
        isinstance(e, ExitEvent) and e.exit == x for e in clean.events)
    assert any(d.affected for d in run.drops[5:]) and not any(d.affected for d in run.drops[:5])
    run.write(tmp_path / "log.jsonl", tmp_path / "truth.jsonl")
    from coindrel.obslog import read_log

    log = read_log(tmp_path / "log.jsonl")
    assert len(log.events) == len(run.events) and not log.problems
    assert (tmp_path / "truth.jsonl").read_text().count('{"drop"') == len(entries)


def test_a_stuck_switch_changes_the_truth_but_not_the_entries():
    start = BoardState.parse("RRRRRRRR/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL")
    run = synthesize(start, [0, 0], [Injection(SwitchStuck("R1S1"), 0)], seed=1)
    flips = [e for e in run.events if isinstance(e, SwitchEvent) and e.switch == "R1S1"]
    assert flips == []  # it never moves
    assert run.drops[0].affected
