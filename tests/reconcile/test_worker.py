"""Diagnosis off the event loop: every call returns at once, the worker keeps
the events' order, results come back on the next call, errors are not lost."""

import asyncio
import threading

import pytest

from coindrel.engine import BoardState, standard_geometry
from coindrel.events import EntryEvent, EventError, SwitchEvent
from coindrel.reconcile import Reconciler
from coindrel.reconcile.worker import Diagnosis

G = standard_geometry()


class Gate(Reconciler):
    """A reconciler whose poll waits until the test opens the gate (a slow diagnosis)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.gate = threading.Event()
        self.fed = []

    def feed(self, ev):
        self.fed.append(ev)
        super().feed(ev)

    def poll(self, now):
        self.gate.wait(timeout=30)
        return super().poll(now)


def _drop(t):
    # R1S1's pad left (inlet left), empty: the coin rests, nothing else happens.
    return [EntryEvent(t, 0)]


def test_poll_returns_at_once_while_the_worker_is_busy_and_reports_come_later():
    rec = Gate(G, BoardState.empty(G))
    diag = Diagnosis(rec)
    try:
        for ev in _drop(1.0):
            diag.feed(ev)
        assert diag.poll(5.0) == []  # the worker is stuck in poll: the loop is not
        assert not diag.idle
        rec.gate.set()
        diag.call(lambda r: None).result(timeout=30)
        reports = diag.ready()
        assert [r.drop for r in reports] == [1] and reports[0].ok
        assert diag.idle
    finally:
        rec.gate.set()
        diag.close()


def test_events_keep_their_order_and_awaited_calls_run_after_them():
    rec = Gate(G, BoardState.empty(G))
    rec.gate.set()
    diag = Diagnosis(rec)

    async def main():
        for i in range(20):
            diag.feed(EntryEvent(1.0 + 2 * i, i % 8))
        return await diag.run(lambda r: [e.t for e in r.fed])

    try:
        assert asyncio.run(main()) == [1.0 + 2 * i for i in range(20)]
    finally:
        diag.close()


def test_an_error_on_the_worker_reaches_the_loop_on_its_next_call():
    diag = Diagnosis(Reconciler(G, BoardState.empty(G)))
    try:
        diag.feed(SwitchEvent(1.0, "R9S9", "L"))
        with pytest.raises(EventError, match="R9S9"):
            diag.call(lambda r: None).result(timeout=30)  # queued after the failing feed: it ran
            diag.feed(EntryEvent(2.0, 0))
        # The error was handed over once; the worker goes on.
        diag.feed(EntryEvent(3.0, 0))
        diag.flush().result(timeout=30)
        assert [r.drop for r in diag.ready()] == [1]
    finally:
        diag.close()


def test_reset_and_expecting_go_through_the_worker():
    diag = Diagnosis(Reconciler(G, BoardState.empty(G)))
    try:
        state = BoardState.parse("RLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", G)
        diag.reset(state)
        diag.set_expecting(False).result(timeout=30)
        assert diag.rec.belief.text() == state.text() and diag.rec.expecting is False
    finally:
        diag.close()


def test_the_worker_lets_the_loop_in_every_millisecond_and_never_raises_a_lower_interval():
    import sys

    from coindrel.reconcile.worker import SWITCH_INTERVAL

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)  # CPython's default: a loop wake-up could wait 5 ms for the lock
        d = Diagnosis(Reconciler(G))
        assert sys.getswitchinterval() <= SWITCH_INTERVAL <= 0.001
        d.close()
        sys.setswitchinterval(0.0002)
        d = Diagnosis(Reconciler(G))
        assert sys.getswitchinterval() == pytest.approx(0.0002)
        d.close()
    finally:
        sys.setswitchinterval(before)
