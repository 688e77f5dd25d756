"""A match whose events span hub sessions exports one board clock that
``coindrel reconcile`` reads in time order (sensing.md sections 2, 3)."""

from __future__ import annotations

import json

from coindrel.obslog import read_log
from coindrel.table.records import Record
from coindrel.table.sessions import SESSION_GAP, continued


def rec(n, data, w):
    return Record(n=n, kind="ev", data=data, w=w, offset=0, size=0)


def ev(t, kind="entry", boot=None, num=0, **kw):
    d = {"t": t, "kind": kind, **kw}
    if kind == "entry":
        d.setdefault("entry", 3)
    if boot is not None:
        d["hub"] = [boot, num]
    return d


def times(lines):
    return [d["t"] for d in lines if d.get("kind") != "note"]


def sessions_of(lines):
    return [d for d in lines if d.get("kind") == "note"]


def test_a_new_boot_continues_the_clock_after_the_wall_time_between():
    records = [rec(1, ev(62.0, boot=11, num=150), 1000.0), rec(2, ev(63.251, "exit", boot=11, num=157, exit=4), 1001.3),
               rec(3, ev(0.2, "status", state="lost", detail="hub restarted"), 1040.0),  # the controller's stamp
               rec(4, ev(0.296323, boot=22, num=3), 1041.0), rec(5, ev(0.9, "exit", boot=22, num=9, exit=7), 1041.6)]
    lines = continued(records)
    t = times(lines)
    assert t == sorted(t)
    assert t[3] - t[1] >= 39.0  # the wall time that passed while the hub was down
    assert round(t[4] - t[3], 6) == round(0.9 - 0.296323, 6)  # within a session, the hub's own spacing
    notes = sessions_of(lines)
    assert [n["boot"] for n in notes] == [22]


def test_a_hub_that_kept_its_boot_id_starts_a_session_where_its_time_went_back():
    # what a restarted virtual hub did before it drew new boot ids: [b, 45] after [b, 157]
    records = [rec(1, ev(63.251, boot=5, num=157), None), rec(2, ev(0.296323, boot=5, num=45), None)]
    t = times(continued(records))
    assert t[1] >= t[0] + SESSION_GAP


def test_a_board_without_hub_positions_starts_a_session_where_time_went_back():
    records = [rec(1, ev(30.0), 10.0), rec(2, ev(31.0, "exit", exit=2), 11.0), rec(3, ev(0.5), 20.0)]
    lines = continued(records)
    assert times(lines)[2] >= 31.0 + SESSION_GAP and len(sessions_of(lines)) == 1


def test_one_session_is_exported_as_it_was_recorded():
    records = [rec(i + 1, ev(1.0 + i, boot=9, num=i), 100.0 + i) for i in range(4)]
    assert continued(records) == [r.data for r in records]


def test_reconcile_reads_the_export_without_complaint(tmp_path):
    header = {"kind": "header", "board": "standard", "variants": {"holes": False},
              "state": ["LLLLLLLL", "LLLLLLL", "LLLLLLLL", "LLLLLLL", "LLLLLLLL"]}
    records = [rec(1, ev(63.0, boot=1, num=1), 1.0), rec(2, ev(0.3, boot=2, num=1), 9.0)]
    path = tmp_path / "ev.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in [header, *continued(records)]) + "\n")
    log = read_log(path)
    assert not log.problems
    assert len(log.notes) == 1
