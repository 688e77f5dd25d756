"""Diagnosis in a child process (reconcile.process): the same reports as the
reconciler in process, events in order, errors handed to the loop, calls
that must pickle."""

import asyncio
import json

import pytest

from benchmarks.models.board2 import Session
from coindrel.engine import BoardState, standard_geometry
from coindrel.events import EntryEvent, EventError, SwitchEvent
from coindrel.reconcile import Reconciler
from coindrel.reconcile.offline import load, reconcile_log, reconciler_for
from coindrel.reconcile.process import ProcessDiagnosis

G = standard_geometry()
CEILING = 120  # s: only a hang reaches it


def _expecting(rec):
    return rec.expecting


def _fed_board(rec):
    return rec.belief.text()


def test_a_faulty_session_gives_the_same_lines_as_in_process():
    log, _ = Session(99, drops=30, faults=[("switch_stuck", "R3S4", 8, 1.0, {}), ("exit_sensor_dead", "exit 7", 8, 1.0, {})]).run()
    L = load([json.dumps(d) for d in log])
    want = [r.to_json() for r in reconcile_log(L)[1]]
    diag = ProcessDiagnosis(reconciler_for(L))

    async def main():
        got = []
        for ev in L.events:
            diag.feed(ev)
            got += diag.poll(ev.t) + diag.revisions()
        await asyncio.wait_for(asyncio.wrap_future(diag.flush()), CEILING)
        return got + diag.ready() + diag.revisions()

    try:
        got = asyncio.run(main())
    finally:
        diag.close()
    key = lambda d: (d["t"], d.get("drop") or 0, d["verdict"])  # noqa: E731  (revisions arrive with their group)
    strip = lambda d: {k: v for k, v in d.items() if k not in ("search_ms", "cpu_ms")}  # noqa: E731
    assert sorted(map(strip, (r.to_json() for r in got)), key=key) == sorted(map(strip, want), key=key)
    assert any(d["verdict"] == "mismatch" for d in want)


def test_an_error_in_the_child_reaches_the_loop_and_the_child_goes_on():
    diag = ProcessDiagnosis(Reconciler(G, BoardState.empty(G)))
    try:
        diag.feed(SwitchEvent(1.0, "R9S9", "L"))
        diag.call(_expecting).result(timeout=CEILING)  # after the failing feed: its error has arrived
        with pytest.raises(EventError, match="R9S9"):
            diag.feed(EntryEvent(2.0, 0))
        diag.feed(EntryEvent(3.0, 0))
        diag.flush().result(timeout=CEILING)
        assert [r.drop for r in diag.ready()] == [1]
    finally:
        diag.close()


def test_reset_and_expecting_go_to_the_child():
    diag = ProcessDiagnosis(Reconciler(G, BoardState.empty(G)))
    try:
        state = BoardState.parse("RLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", G)
        diag.reset(state)
        diag.set_expecting(False)
        assert diag.call(_expecting).result(timeout=CEILING) is False
        assert diag.call(_fed_board).result(timeout=CEILING) == state.text()
    finally:
        diag.close()
