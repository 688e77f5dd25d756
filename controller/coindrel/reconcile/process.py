"""Diagnosis in a process of its own: ``Diagnosis``'s calls, with the
reconciler in a child process.

A worker thread shares the interpreter lock with the event loop: on a busy
machine the operating system may stop the worker while it holds the lock,
and the loop then waits for the worker's next time slice, however short the
switch interval (measured at load 7 on 2 cores: stalls of 15-40 ms with the
thread, 1-2 ms for the loop alone). A process holds no lock the loop needs;
the loop only pickles events and unpickles reports.

    diag = ProcessDiagnosis(Reconciler(geometry, state, variants))
    diag.feed(event); diag.poll(now); diag.revisions()   # as Diagnosis
    await diag.run(health_faults)   # a picklable callable (a module-level function)
    diag.close()

One child, one pipe each way, in order: events keep their order, and what
the child finishes arrives through a reader thread (blocked in the pipe's
read, not holding the lock). An exception in the child (an event naming an
unknown switch) is raised on the loop's next call, as with ``Diagnosis``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from collections import deque
from concurrent.futures import Future
from typing import Callable

from .reconciler import Reconciler


def _child(conn, rec: Reconciler) -> None:
    """The child: apply each message in order; after each batch (what had
    arrived meanwhile), one answer: how many it applied, the reports,
    revisions and call results they produced, the belief and busy flag."""
    while True:
        try:
            batch = [conn.recv()]
            while len(batch) < 256 and conn.poll():
                batch.append(conn.recv())
        except EOFError:
            return
        reports: list = []
        results: list = []
        errors: list = []
        for msg in batch:
            kind = msg[0]
            if kind == "close":
                return
            try:
                if kind == "feed":
                    rec.feed(msg[1])
                elif kind == "poll":
                    reports += rec.poll(msg[1])
                elif kind == "flush":
                    reports += rec.flush()
                elif kind == "call":
                    results.append((msg[1], msg[2](rec)))
            except BaseException as e:  # handed to the loop, not lost in the child
                errors.append((msg[1] if kind == "call" else None, e))
        conn.send((len(batch), reports, rec.revisions(), results, errors, rec.belief if reports else None, rec.busy))


class _Reset:
    def __init__(self, state, keep_faults, halls_right):
        self.args = (state, keep_faults, halls_right)

    def __call__(self, rec):
        rec.reset(*self.args)


class _Expecting:
    def __init__(self, flag: bool):
        self.flag = flag

    def __call__(self, rec):
        rec.expecting = self.flag


class ProcessDiagnosis:
    def __init__(self, rec: Reconciler, context: str = "spawn"):
        ctx = multiprocessing.get_context(context)
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_child, args=(child, rec), name="coindrel-diagnosis", daemon=True)
        self._proc.start()
        child.close()
        self._lock = threading.Lock()
        self._reports: deque = deque()
        self._revisions: deque = deque()
        self._calls: dict = {}
        self._next = 0
        self._pending = 0
        self._error: BaseException | None = None
        self.belief = rec.belief
        self.busy = rec.busy
        self._out: deque = deque()  # messages for the child: the loop never waits on the pipe
        self._wake = threading.Condition(self._lock)
        self._closing = False
        self._reader = threading.Thread(target=self._read, name="coindrel-diagnosis-reader", daemon=True)
        self._writer = threading.Thread(target=self._write, name="coindrel-diagnosis-writer", daemon=True)
        self._reader.start()
        self._writer.start()

    # -- from the event loop: all return at once -----------------------------------------

    def feed(self, ev) -> None:
        self._send(("feed", ev))

    def poll(self, now: float) -> list:
        self._send(("poll", now))
        return self._take(self._reports)

    def revisions(self) -> list:
        return self._take(self._revisions)

    def flush(self) -> Future:
        """Finish whatever is open; the reports arrive through ``poll``/``ready``."""
        self._send(("flush", None))
        return self.call(_nothing)

    def call(self, fn: Callable[[Reconciler], object]) -> Future:
        """Run ``fn(reconciler)`` in the child after everything sent before it
        (``fn`` must pickle: a module-level function or a class instance)."""
        fut: Future = Future()
        with self._lock:
            self._next += 1
            key = self._next
            self._calls[key] = fut
        self._send(("call", key, fn))
        return fut

    async def run(self, fn: Callable[[Reconciler], object]):
        return await asyncio.wrap_future(self.call(fn))

    def reset(self, state, keep_faults: bool = True, halls_right: bool = False) -> Future:
        return self.call(_Reset(state, keep_faults, halls_right))

    def set_expecting(self, expecting: bool) -> Future:
        return self.call(_Expecting(bool(expecting)))

    def ready(self) -> list:
        return self._take(self._reports)

    @property
    def idle(self) -> bool:
        with self._lock:
            return self._pending == 0

    def close(self) -> None:
        with self._lock:
            self._closing = True
            self._out.append(("close",))
            self._wake.notify()
        self._writer.join(timeout=10)
        self._proc.join(timeout=10)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join()
        self._reader.join(timeout=10)
        self._conn.close()

    # -- inside -----------------------------------------------------------------------------

    def _send(self, msg) -> None:
        if self._error is not None:
            err, self._error = self._error, None
            raise err
        with self._lock:
            self._pending += 1
            self._out.append(msg)
            self._wake.notify()

    def _write(self) -> None:
        while True:
            with self._lock:
                while not self._out:
                    self._wake.wait()
                batch = list(self._out)
                self._out.clear()
            try:
                for msg in batch:
                    self._conn.send(msg)
            except (OSError, ValueError):
                return
            if batch[-1][0] == "close":
                return

    def _read(self) -> None:
        while True:
            try:
                n, reports, revisions, results, errors, belief, busy = self._conn.recv()
            except (EOFError, OSError):
                return
            done = []
            with self._lock:
                self._pending -= n
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
                    continue
                if err is None:
                    fut.set_result(value)
                else:
                    fut.set_exception(err)

    def _take(self, q: deque) -> list:
        with self._lock:
            out = list(q)
            q.clear()
        return out


def _nothing(rec) -> None:
    return None


__all__ = ["ProcessDiagnosis"]
