"""What the hub's messages say of the board (hub/sensed.py, part of the
tracker): beams and halls as board events for wired sensors only, losses and
errors as status events (bounded, printable), and a snapshot's differences
from the remembered board."""

from __future__ import annotations

from coindrel.events import EntryEvent, ExitEvent, StatusEvent, SwitchEvent
from coindrel.hub import protocol as p

from test_hub_tracker import CM, fed, started


def test_events_in_board_seconds_only_for_wired_sensors():
    tr = started()
    out = fed(tr, [(1, p.Beam(1_500_000, 3, True)), (2, p.Beam(1_510_000, 3, False, 10_000)),
                   (3, p.Hall(1_600_000, 12, "mid", 2600)), (4, p.Beam(1_700_000, 23, True))])
    assert out == [EntryEvent(1.5, 3), SwitchEvent(1.6, "R2S5", "mid", 2600), ExitEvent(1.7, 15)]


def test_snapshot_after_a_gap_reports_what_changed():
    tr = started()
    halls = tuple(p.HallState(h.switch, "L", 2980) for h in CM.halls)
    assert fed(tr, [(1, p.Snapshot(0, 10, 0, halls))]) == []  # the first one is the starting picture
    changed = tuple(p.HallState(h.switch, "R" if h.switch == 4 else "L", 2980) for h in CM.halls)
    out = fed(tr, [(2, p.Snapshot(0, 20, 1 << 9, changed))])
    # behind a "lost" status at the snapshot's own time: a move no event told
    # of is a loss, not a stray for the reconciler to blame a hall sensor for
    assert out[1:] == [SwitchEvent(0.00002, "R1S5", "R", 2980)]
    assert out[0].state == "lost" and out[0].t == 0.00002 and out[0].count == 1 and "R1S5" in out[0].detail
    assert tr.state.beams == 1 << 9


def test_hub_errors_and_losses_become_status_events():
    tr = started()
    out = fed(tr, [(1, p.Lost(5, 4, "queue")), (2, p.Error(6, 4, 17, "exit 10 beam broken for over 3 s"))])
    assert [e.state for e in out] == ["lost", "error"] and out[0].count == 4
    assert "exit 10 beam" in out[1].detail and "beam_blocked" in out[1].detail
    assert all(isinstance(e, StatusEvent) for e in out)


def test_hub_errors_are_bounded_and_their_text_made_printable():
    tr = started()
    for i in range(500):
        fed(tr, [(1 + i, p.Error(10 + i, 4, 1, "x"))])
    assert len(tr.errors) == 100 and tr.stats.errors == 500
    out = fed(tr, [(501, p.Error(1_000, 4, 1, "evil\n2026-01-01 INFO forged line\x1b[2J"))])
    assert "\n" not in out[0].detail and "\x1b" not in out[0].detail and "\\n" in out[0].detail
