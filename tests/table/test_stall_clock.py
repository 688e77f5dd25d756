"""A stall of the daemon itself (a loaded Pi, an SD card's fsync, SIGSTOP) is
not the player's time: the turn clock stands still over it (table/loop.py,
``stood_still``). Driven with a fake clock: the stall is the clock jumping
past a step's due time."""

from __future__ import annotations

import pytest

from coindrel.engine import standard_geometry
from coindrel.table.daemon import Table
from coindrel.table.loop import STALL
from coindrel.table.modes import Mode
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore

from .test_daemon_wiring import HubLike


def timed_turn(tmp_path, now):
    table = Table(standard_geometry(), Choices(clock="30"), source=HubLike(), store=MatchStore(tmp_path).open(),
                  clock=lambda: now[0], reveal_seconds=0.1)
    table.resume(table.store.recover())
    for _ in range(3):
        table.handle_action("select")
        now[0] += 0.2
        table.step()
    m = table.flow.match
    assert m is not None and table.flow.mode is Mode.TURN and m.clock.active
    return table, m


def stall(table, now, seconds):
    """One step of the loop, planned as ``run`` plans it, that wakes ``seconds`` late."""
    due = now[0] + table.next_step_in(now[0])
    now[0] = due + seconds
    table.stood_still(due)
    table.step()


def test_a_stall_of_the_daemon_does_not_run_the_turn_clock_down(tmp_path):
    now = [0.0]
    table, m = timed_turn(tmp_path, now)
    left = m.remaining(now[0])
    stall(table, now, 40.0)  # longer than the whole turn: before, the clock ran out and an entry was forced
    assert m.forced_entry is None and table.flow.mode is Mode.TURN
    assert m.remaining(now[0]) == pytest.approx(left - table.next_step_in(now[0] - 40.0), abs=1.0)
    assert [e["do"] for e in m.log[-2:]] == ["pause", "resume"] and not m.clock.paused
    # the journal has it: a restart replays the same clock
    table.store.close()
    again = Table(standard_geometry(), Choices(clock="30"), source=HubLike(), store=MatchStore(tmp_path).open(),
                  clock=lambda: now[0], reveal_seconds=0.1)
    again.resume(again.store.recover())
    assert again.flow.match is not None and again.flow.match.forced_entry is None


def test_ordinary_lateness_counts_and_the_clock_still_runs_out(tmp_path):
    now = [0.0]
    table, m = timed_turn(tmp_path, now)
    before = len(m.log)
    stall(table, now, STALL * 0.8)  # a busy machine's lateness: the player's time
    assert len(m.log) == before
    for k in range(200):  # time that passes with the daemon running: the clock runs out
        if m.forced_entry is not None:
            break
        now[0] += 0.25
        table.stood_still(now[0])
        table.step()
    assert m.forced_entry is not None and k * 0.25 <= 31
