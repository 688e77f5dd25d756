"""``coindrel health`` on a match's export (``coindrel history ID --events``)
numbers the drops as the match did: a second coin in a turn scored nothing
and is no drop of the match (health counted it as one of its own, and every
fault after it one drop late)."""

from __future__ import annotations

import json

from coindrel.cli import main
from coindrel.reconcile.health import HealthReport, match_drop
from coindrel.reconcile.offline import match_numbers
from coindrel.reconcile.report import DropReport

from .awkward import rig_for, run_until


def a_match_with_an_extra_coin(tmp_path):
    rig = rig_for(tmp_path, seed=7, clock="off")
    flow = rig.table.flow
    assert run_until(rig, lambda: flow.mode == "turn" and flow.match.phase == "turn" and len(flow.match.results) >= 2)
    m = flow.match
    rig.players.step = lambda: None  # nobody else drops
    assert run_until(rig, lambda: rig.board.world.in_flight() == 0 and rig.board.pending == 0
                     and not rig.table.reconciler.busy and flow.mode == "turn", 30)
    rig.board.drop(2)
    assert run_until(rig, lambda: m.phase == "falling", 5)
    rig.board.drop(4)  # while the first coin still falls
    assert run_until(rig, lambda: flow.note is not None and flow.note.title == "Extra coin", 20)
    assert run_until(rig, lambda: not rig.table.reconciler.busy and rig.board.world.in_flight() == 0, 10)
    return len(m.results)


def test_health_on_a_history_export_counts_the_matchs_drops(tmp_path, capsys):
    drops = a_match_with_an_extra_coin(tmp_path)
    assert main(["history", "current", "--events", "--state-dir", str(tmp_path)]) == 0
    log = tmp_path / "export.jsonl"
    log.write_text(capsys.readouterr().out)
    assert main(["health", "--json", str(log)]) == 0
    h = json.loads(capsys.readouterr().out)
    assert (h["drops"], h["extra_coins"]) == (drops, 1), h
    assert h["ok"] + h["mismatches"] == drops
    assert main(["health", str(log)]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{drops} drops reconciled") and "1 coin(s) that were no drop of the match" in text
    # reconcile writes the reconciler's own lines, each with the match's number beside its own
    assert main(["reconcile", str(log)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    numbered = [x for x in lines if x["drop"] is not None and x.get("revises") is None]
    assert [x["match_drop"] for x in numbered].count(None) == 1, numbered  # the extra coin: no drop of the match
    assert [x["match_drop"] for x in numbered if x["match_drop"] is not None] == list(range(1, drops + 1))
    assert numbered[-1]["drop"] == drops + 1  # the reconciler counts the extra coin as a drop of its own


def report(n, t, entry):
    return DropReport(drop=n, entry=entry, entry_seen=True, t=t, expected_exits=(), observed_exits=(), verdict="ok",
                      diagnosis=[], state=[], scored_exits=())


def test_reconciled_drops_are_matched_to_the_exports_notes_by_time_and_entry():
    reports = [report(1, 1.0, 2), report(2, 4.35, 2), report(3, 4.4, 4), report(4, 7.0, 0)]
    notes = [{"note": "drop", "drop": 1, "entry": 3, "t": 1.0}, {"note": "drop", "drop": 2, "entry": 3, "t": 4.35},
             {"note": "drop", "drop": None, "entry": 5, "t": 4.4}, {"note": "drop", "drop": 3, "entry": 1, "t": 7.0001},
             {"note": "hub session", "t": 0.0}]
    assert match_numbers(reports, notes) == {1: 1, 2: 2, 3: None, 4: 3}
    assert match_numbers(reports, [{"note": "hub session", "t": 1.0}]) is None, "not a match's export"
    assert match_numbers(reports, [{"note": "drop", "drop": "x", "t": 1.0}]) is None
    assert match_drop({1: 1, 2: None, 3: 2}, 2) == 1 and match_drop({2: None}, 2) is None


def test_a_faults_drops_are_the_matchs():
    h = HealthReport(drops=4, ok=3, mismatches=1, stray=0, unexplained=0, lost=0,
                     faults=[{"fault": "exit_sensor_dead", "where": "exit 9", "first_drop": 4, "last_drop": 4,
                              "confidence": 0.9, "say": ""}])
    n = h.numbered_as_match({1: 1, 2: None, 3: 2, 4: 3}, {1: True, 2: True, 3: True, 4: False})
    assert (n.drops, n.ok, n.mismatches, n.extra) == (3, 2, 1, 1)
    assert n.faults[0]["first_drop"] == 3 and n.faults[0]["last_drop"] == 3
    assert "since drop 3" in n.text()
