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


# -- a child that dies, a parent that dies ---------------------------------------------------------

import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

FOUR = [("switch_stuck", "R3S4", 8, 1.0, {}), ("exit_sensor_dead", "exit 7", 8, 1.0, {}),
        ("hall_fault", "R2S3", 9, 1.0, {"mode": "frozen"}), ("jam", "R4S2 left outlet", 10, 1.0, {})]
SESSIONS = [(99, FOUR[:2]), (98, FOUR), (97, FOUR[2:])]


def _strip(d):
    return {k: v for k, v in d.items() if k not in ("search_ms", "cpu_ms")}


def _inline(L):
    rec = reconciler_for(L)
    out = []
    for ev in L.events:
        rec.feed(ev)
        out += [r.to_json() for r in rec.poll(ev.t) + rec.revisions()]
    out += [r.to_json() for r in rec.flush() + rec.revisions()]
    return [_strip(d) for d in out], rec.health().to_json() if hasattr(rec.health(), "to_json") else None


def _health(rec):
    h = rec.health()
    return h.to_json() if hasattr(h, "to_json") else None


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # a zombie has ended (its new parent reaps it when it gets to it)


@pytest.mark.parametrize("seed,faults", SESSIONS)
def test_a_child_killed_with_sigkill_is_restarted_and_every_drop_is_reconciled_once(seed, faults):
    """SIGKILL of the child at several points of a faulty session (a drop in
    hand or not): the records are exactly those of the reconciler in process,
    none lost, none twice, in the same order."""
    log, _ = Session(seed, drops=25, faults=faults).run()
    L = load([json.dumps(d) for d in log])
    want, want_health = _inline(L)
    assert any(d["verdict"] != "ok" for d in want)
    diag = ProcessDiagnosis(reconciler_for(L))
    kills = set(range(40, len(L.events), max(1, len(L.events) // 5)))
    got = []
    try:
        for i, ev in enumerate(L.events):
            diag.feed(ev)
            got += diag.poll(ev.t) + diag.revisions()
            if i in kills:
                try:
                    os.kill(diag.pid, signal.SIGKILL)  # wherever it is: mid-diagnosis, between drops, starting
                except ProcessLookupError:
                    pass  # the last kill's child, reaped and not yet replaced (seen under load): dead already
        diag.flush().result(timeout=CEILING)
        assert diag.call(_nothing_here).result(timeout=CEILING) is None
        got += diag.ready() + diag.revisions()
        health = diag.call(_health).result(timeout=CEILING)
        assert diag.restarts >= 1
    finally:
        diag.close()
    assert [_strip(r.to_json()) for r in got] == want
    assert health == want_health


def _nothing_here(rec):
    return None


def test_the_reconciler_handed_back_at_close_is_the_childs():
    log, _ = Session(99, drops=10, faults=SESSIONS[0][1]).run()
    L = load([json.dumps(d) for d in log])
    diag = ProcessDiagnosis(reconciler_for(L))
    for ev in L.events:
        diag.feed(ev)
    diag.flush().result(timeout=CEILING)
    rec = diag.close()
    inline = reconciler_for(L)
    for ev in L.events:
        inline.feed(ev)
    inline.flush()
    assert rec.drops == inline.drops > 0 and rec.belief == inline.belief
    assert rec.geometry is G or rec.geometry == inline.geometry


PARENT = """
import sys, time
from coindrel.engine import BoardState, standard_geometry
from coindrel.reconcile import Reconciler
from coindrel.reconcile.process import ProcessDiagnosis, _nothing
G = standard_geometry()
d = ProcessDiagnosis(Reconciler(G, BoardState.empty(G)))
d.call(_nothing).result(120)
print(d.pid, flush=True)
time.sleep(600)
"""


def test_a_parent_killed_with_sigkill_takes_its_child_with_it():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    try:
        child = int(parent.stdout.readline())  # the child answered: it runs
        assert not _gone(child)
        stat = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        assert int(stat[1]) == parent.pid  # its parent's child (so in its cgroup, under its unit)
        assert Path(f"/proc/{child}/cgroup").read_text() == Path(f"/proc/{parent.pid}/cgroup").read_text()
        parent.send_signal(signal.SIGKILL)
        parent.wait(CEILING)
        deadline = time.monotonic() + CEILING  # only a child that outlives its parent reaches it
        while not _gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(child)
    finally:
        parent.kill()
        parent.wait()


def _refuse():
    raise ImportError("not here")


class _WontLoad:
    """A call the child cannot unpickle (as a function it cannot import)."""

    def __reduce__(self):
        return (_refuse, ())

    def __call__(self, rec):  # pragma: no cover - never reaches the child
        return None


def test_a_call_the_child_cannot_load_fails_alone_and_the_child_goes_on():
    diag = ProcessDiagnosis(Reconciler(G, BoardState.empty(G)))
    try:
        with pytest.raises(ImportError, match="not here"):
            diag.call(_WontLoad()).result(timeout=CEILING)
        diag.feed(EntryEvent(3.0, 0))
        diag.flush().result(timeout=CEILING)
        assert [r.drop for r in diag.ready()] == [1] and diag.restarts == 0
        main = type("Local", (), {"__call__": lambda self, rec: None, "__module__": "__main__"})()
        with pytest.raises(TypeError, match="__main__"):
            diag.call(main)
    finally:
        diag.close()
