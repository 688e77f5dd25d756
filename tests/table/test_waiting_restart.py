"""What waits at the table outlives a kill -9: the club's match requests not
yet answered (``waiting.journal``) and, in a match, the coins seen going in
whose drops have not come back, each with what the table decided of it (a
second coin while the turn's coin fell scores nothing). A real process
(tests/table/waiting_child.py) is SIGKILLed; a new table resumes its state
directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from coindrel.events import ExitEvent
from coindrel.table.modes import Mode
from coindrel.table.waiting import FILE

from .waiting_child import REQUESTS, Clock, table_on

CHILD = Path(__file__).with_name("waiting_child.py")
CONTROLLER = Path(__file__).resolve().parents[2] / "controller"


def first_life(state_dir: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(CONTROLLER))
    proc = subprocess.Popen([sys.executable, str(CHILD), str(state_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()  # bounded: the child exits (and the pipe closes) if anything fails
        assert line.strip() == "READY", proc.stderr.read() if proc.poll() is not None else line
    finally:
        proc.kill()  # SIGKILL: nothing closed, nothing flushed
        proc.wait(timeout=60)


@pytest.mark.timeout(300)
def test_waiting_club_requests_and_a_second_coin_outlive_a_kill(tmp_path):
    state = tmp_path / "state"
    first_life(state)
    assert (state / FILE).exists()
    clock = Clock()
    clock.t = 5.0
    table = table_on(state, clock)
    flow = table.flow
    assert [r.id for r in flow.club_requests] == [r["id"] for r in REQUESTS], "the club's requests wait again, in order"
    assert flow.club_requests[0].players == ("Cy", "Di") and flow.club_requests[0].variants.halved
    assert [(c[1], c[2]) for c in flow.coins_in] == [(3, False), (5, True)], "the second coin is still out of turn"
    m = flow.match
    assert m is not None and len(m.results) == 0
    for ev in (ExitEvent(1.6, 3), ExitEvent(1.8, 5)):  # the rest of the cascade, after the restart
        table.handle_event(ev)
    notes = set()
    for _ in range(20):
        clock.t += 0.5
        table.step()
        notes.add(getattr(flow.note, "title", None))
    assert len(m.results) == 1 and m.results[0].entry == 3 and m.to_move == 2, "the extra coin is no drop of Bo's"
    assert "Extra coin" in notes
    # the match ends; the first request is offered; a second restart keeps the two others
    table.handle_action("back")  # pause, End match, and yes ("End the match?")
    for press in ("next", "next", "next", "select", "next", "select"):
        table.handle_action(press)
    table.step()
    assert flow.mode is Mode.CLUB_REQUEST
    table.handle_action("back")  # declined
    table.step()
    assert [r.id for r in flow.club_requests] == ["club-8", "club-9"]
    table.store.close()
    again = table_on(state, Clock())
    assert [r.id for r in again.flow.club_requests] == ["club-8", "club-9"]
    assert again.flow.mode is Mode.CLUB_REQUEST, "offered at once: the table is at its menu"
    assert "club-7" in again.flow.club_seen, "a request answered before the restart is not shown again"
