"""Diagnosis in a process of its own: ``Diagnosis``'s calls, with the
reconciler in a child process (issue 13: the event loop never waits for it).

A worker thread shares the interpreter lock with the event loop: on a busy
machine the operating system may stop the worker while it holds the lock,
and the loop then waits for the worker's next time slice, however short the
switch interval. A process holds no lock the loop needs; the loop only
pickles events and its writer and reader threads move bytes.

    diag = ProcessDiagnosis(Reconciler(geometry, state, variants))   # starts the child once
    diag.feed(event); diag.poll(now); diag.revisions()   # as Diagnosis
    await diag.run(fn)          # fn(reconciler) in the child: a module-level function or a class instance
    diag.adopt(new_rec, carry)  # another reconciler (new variants): carry(old, new) in the child first
    rec = diag.close()          # the reconciler as the child left it

What crosses is plain data: events, a poll's board time, reports, revision
records, call results, and the reconciler itself as a checkpoint. The child
is ``python -m coindrel.reconcile.child`` on two pipes (its stdin and
stdout); it reads messages until the end of its stdin, so it dies with its
parent (a parent killed with SIGKILL closes the pipe), and it ignores
SIGINT and SIGTERM (a terminal's Ctrl-C, systemd's stop: the parent ends
it). Every answer that hands something over (a report, a revision, a
call's result, an error) carries a checkpoint of the reconciler it came
from, and so does every 256th message; the parent keeps the last checkpoint
and every message sent after it. A child that dies is started again from
that checkpoint and given those messages again: the reconciler is
deterministic (its search counts work, not time), so the drop it had in
hand is reconciled as before, not lost, and nothing handed over is handed
over twice.

The child and the pickling both sides share are ``child.py``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future
from multiprocessing.connection import Connection
from typing import Callable

from ..errors import CoindrelError
from .child import dumps, known, loads
from .reconciler import Reconciler

log = logging.getLogger("coindrel.reconcile")
RESTARTS = 5  # child deaths in a row without a checkpoint between them: then the loop is told
WAIT = 10.0  # s: the longest ``close`` waits for the child's last answer (under systemd's TimeoutStopSec)
# The child's niceness: on a busy machine the scheduler then runs the event loop before the
# diagnosis (a drop's score waits a little longer, the loop does not wait for a core).
NICE = 10

# -- the parent --------------------------------------------------------------------------------------

class DiagnosisDied(CoindrelError, RuntimeError):
    """The diagnosis child died again and again from the same checkpoint."""


def _child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # what the parent imports, the child does
    return env


class ProcessDiagnosis:
    def __init__(self, rec: Reconciler, *, restarts: int = RESTARTS, nice: int = NICE):
        known(rec.geometry)
        self.nice = nice
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._reports: deque = deque()
        self._revisions: deque = deque()
        self._calls: dict = {}
        self._next = 0
        self._sent = 0  # sequence number of the last message
        self._done = 0  # ... of the last one the child applied
        self._ckpt = dumps(rec)  # the reconciler as of message _ckpt_seq
        self._unacked: deque = deque()  # (seq, bytes) sent after the checkpoint
        self._error: BaseException | None = None
        self._closing = False
        self._restarts_left = self._restarts = restarts
        self.restarts = 0  # how many times a dead child was started again
        self.belief = rec.belief
        self.busy = rec.busy
        self._proc, self._w, self._r = self._spawn()
        self._out: deque = deque([self._start_msg()])
        self._reader = threading.Thread(target=self._read, name="coindrel-diagnosis-reader", daemon=True)
        self._writer = threading.Thread(target=self._write, name="coindrel-diagnosis-writer", daemon=True)
        self._reader.start()
        self._writer.start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    # -- from the event loop: all return at once -----------------------------------------

    def feed(self, ev) -> None:
        self._send("feed", (ev,))

    def poll(self, now: float) -> list:
        """Queue a poll at ``now``; the drop reports and revision records
        finished so far, in the order they were made (as ``rec.poll(now) +
        rec.revisions()`` after each poll)."""
        self._send("poll", (now,))
        return self._take(self._reports)

    def revisions(self) -> list:
        """None: revision records come with ``poll``'s reports (kept for ``Diagnosis``'s callers)."""
        return self._take(self._revisions)

    def flush(self) -> Future:
        """Finish whatever is open; the reports arrive through ``poll``/``ready``."""
        self._send("flush", ())
        return self.call(_nothing)

    def call(self, fn: Callable[[Reconciler], object]) -> Future:
        """Run ``fn(reconciler)`` in the child after everything sent before it
        (``fn`` must pickle: a module-level function or a class instance)."""
        fut: Future = Future()
        with self._lock:
            self._next += 1
            key = self._next
            self._calls[key] = fut
        try:
            self._send("call", (fn,), key)
        except BaseException:
            with self._lock:
                self._calls.pop(key, None)
            raise
        return fut

    async def run(self, fn: Callable[[Reconciler], object]):
        return await asyncio.wrap_future(self.call(fn))

    def reset(self, state, keep_faults: bool = True, halls_right: bool = False, keep_open: bool = False) -> Future:
        return self.call(_Reset(state, keep_faults, halls_right, keep_open))

    def set_expecting(self, expecting: bool) -> Future:
        return self.call(_Expecting(bool(expecting)))

    def adopt(self, rec: Reconciler, carry: Callable[[Reconciler, Reconciler], None] | None = None) -> None:
        """From now on the child diagnoses with ``rec`` (after ``carry(old, rec)`` there)."""
        known(rec.geometry)
        self._send("adopt", (rec, carry))

    def ready(self) -> list:
        return self._take(self._reports)

    @property
    def idle(self) -> bool:
        with self._lock:
            return self._done == self._sent

    def close(self, timeout: float = WAIT) -> Reconciler:
        """Let the child finish what it was given; the reconciler as it left
        it (from the last checkpoint if it does not answer in ``timeout``)."""
        rec = None
        try:
            rec = self.call(_itself).result(timeout)
        except Exception as e:
            log.warning("the diagnosis process did not hand its reconciler back (%s); the last checkpoint is kept", e)
        with self._lock:
            self._closing = True
            self._out.append(dumps((None, "close", None, b"")))
            self._wake.notify()
            proc, ckpt = self._proc, self._ckpt
        self._writer.join(timeout=10)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self._reader.join(timeout=10)
        for c in (self._w, self._r):
            c.close()
        return rec if rec is not None else loads(ckpt)

    # -- inside -----------------------------------------------------------------------------

    def _spawn(self):
        proc = subprocess.Popen([sys.executable, "-m", "coindrel.reconcile.child", str(self.nice)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=_child_env())
        w = Connection(os.dup(proc.stdin.fileno()), readable=False)
        r = Connection(os.dup(proc.stdout.fileno()), writable=False)
        proc.stdin.close()
        proc.stdout.close()
        return proc, w, r

    def _start_msg(self) -> bytes:
        return dumps((None, "start", None, self._ckpt))

    def _send(self, kind, args: tuple, key=None) -> None:
        if self._error is not None:
            err, self._error = self._error, None
            raise err
        for fn in args:
            if callable(fn) and getattr(fn, "__module__", None) == "__main__":
                raise TypeError(f"{fn!r} is defined in __main__, which the diagnosis process cannot import; "
                                "define it in a module")
        payload = dumps(args)  # a call that does not pickle fails here, at its caller
        with self._lock:
            seq = self._sent + 1
            data = dumps((seq, kind, key, payload))  # under the lock: numbered in the order sent
            self._sent = seq
            self._unacked.append((seq, data))
            self._out.append(data)
            self._wake.notify()

    def _write(self) -> None:
        last = None
        while True:
            with self._lock:
                while not self._out:
                    self._wake.wait()
                batch, w = list(self._out), self._w
                self._out.clear()
            if last is not None and w is not last:
                last.close()  # the dead child's pipe
            last = w
            try:
                for data in batch:
                    w.send_bytes(data)
            except (OSError, ValueError):
                pass  # the child died: the reader starts another and gives it all this again
            if self._closing and not self._out:
                return

    def _read(self) -> None:
        r = self._r
        while True:
            try:
                data = r.recv_bytes()
            except (EOFError, OSError):
                if self._closing:
                    return
                r = self._restart(r)
                if r is None:
                    return
                continue
            self._answer(loads(data))

    def _restart(self, dead: Connection):
        proc = self._proc
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if self._restarts_left <= 0:
            self._error = DiagnosisDied(f"the diagnosis process died {self._restarts} times from the same "
                                        f"checkpoint (last exit status {proc.returncode}); the table must restart")
            with self._lock:
                calls, self._calls = list(self._calls.values()), {}
            for fut in calls:
                fut.set_exception(self._error)
            return None
        self._restarts_left -= 1
        self.restarts += 1
        log.warning("the diagnosis process ended (exit status %s); it is started again and given what it had in "
                    "hand", proc.returncode)
        time.sleep(0.1 * (self._restarts - self._restarts_left - 1))  # a child that keeps dying is not spun
        new, w, r = self._spawn()
        with self._lock:
            self._proc, self._w, self._r = new, w, r
            self._out = deque([self._start_msg(), *(data for _, data in self._unacked)])
            self._wake.notify()
        dead.close()
        return r

    def _answer(self, answer) -> None:
        upto, reports, revisions, results, errors, belief, busy, ckpt = answer
        done = []
        with self._lock:
            if upto is not None:
                self._done = upto
            if ckpt is not None:
                self._ckpt = ckpt
                self._restarts_left = self._restarts
                while self._unacked and self._unacked[0][0] <= upto:
                    self._unacked.popleft()
            self._reports.extend(reports)
            self._revisions.extend(revisions)
            if belief is not None:
                self.belief = belief
            self.busy = busy
            for key, value in results:
                done.append((self._calls.pop(key, None), value, None))
            for key, err in errors:
                fut = self._calls.pop(key, None) if key is not None else None
                if fut is None:
                    self._error = err
                else:
                    done.append((fut, None, err))
        for fut, value, err in done:
            if fut is None:
                continue  # answered before the child died: given again, already taken
            if err is None:
                fut.set_result(value)
            else:
                fut.set_exception(err)

    def _take(self, q: deque) -> list:
        with self._lock:
            out = list(q)
            q.clear()
        return out


class _Reset:
    def __init__(self, state, keep_faults, halls_right, keep_open=False):
        self.args = (state, keep_faults, halls_right, keep_open)

    def __call__(self, rec):
        rec.reset(*self.args)


class _Expecting:
    def __init__(self, flag: bool):
        self.flag = flag

    def __call__(self, rec):
        rec.expecting = self.flag


def _nothing(rec) -> None:
    return None


def _itself(rec):
    return rec


__all__ = ["DiagnosisDied", "ProcessDiagnosis"]
