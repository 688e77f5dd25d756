"""The diagnosis child (``python -m coindrel.reconcile.child NICE``), run by
``process.ProcessDiagnosis``: a reconciler fed by the messages on its
stdin, answering on its stdout, and how both sides pickle what crosses.

A Geometry crosses as its constructor's arguments (it caches up to 512
fault topologies beside itself, which a checkpoint must not carry), and
arrives as the receiver's own geometry with those arguments.
"""

from __future__ import annotations

import io
import logging
import os
import pickle
import signal
import sys
from multiprocessing.connection import Connection

from ..engine import Geometry

log = logging.getLogger("coindrel.reconcile")
CHECKPOINT_EVERY = 256  # messages without a checkpoint: the most a restarted child is given again

# -- pickling ---------------------------------------

_GEOMETRIES: dict = {}


def _geometry_key(g: Geometry) -> tuple:
    return (g.name, g.lanes, g.rows, g.entries, g.holes)


def _geometry(key: tuple) -> Geometry:
    g = _GEOMETRIES.get(key)
    if g is None:
        g = _GEOMETRIES[key] = Geometry(*key)
    return g


def known(g: Geometry) -> None:
    """``g`` is this process's geometry with its arguments (what arrives is ``g``)."""
    _GEOMETRIES.setdefault(_geometry_key(g), g)


def _reduce_geometry(g: Geometry):
    known(g)
    return (_geometry, (_geometry_key(g),))


def dumps(obj) -> bytes:
    f = io.BytesIO()
    p = pickle.Pickler(f, pickle.HIGHEST_PROTOCOL)
    p.dispatch_table = {Geometry: _reduce_geometry}
    p.dump(obj)
    return f.getvalue()


loads = pickle.loads


# -- the child ---------------------------------------------------------------------------------------

def main(argv=None) -> None:
    """The child: apply each message in order; after each batch (what had
    arrived meanwhile), one answer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    argv = sys.argv[1:] if argv is None else argv
    if argv and int(argv[0]):
        try:
            os.nice(int(argv[0]))
        except OSError as e:  # a seccomp filter denying setpriority (the unit allows it back): as the parent, then
            log.debug("the diagnosis process keeps the daemon's priority: %s", e)
    out_fd = os.dup(1)
    os.dup2(2, 1)  # stdout is the answers' pipe: anything printed goes to stderr
    conn_in, conn_out = Connection(os.dup(0), writable=False), Connection(out_fd, readable=False)
    rec = None
    since = 0  # messages since the last checkpoint
    while True:
        try:
            batch = [loads(conn_in.recv_bytes())]
            while len(batch) < 256 and conn_in.poll():
                batch.append(loads(conn_in.recv_bytes()))
        except (EOFError, OSError):
            return  # the parent is gone (or closed the pipe): so is the child
        reports, revisions, results, errors = [], [], [], []
        upto, handed = None, False
        for seq, kind, key, payload in batch:  # the envelope is plain: only what it carries may fail to load
            if kind == "close":
                return
            if kind == "start":
                rec, since = loads(payload), 0
                continue
            upto = seq
            since += 1
            try:
                args = loads(payload)
                if kind == "feed":
                    rec.feed(args[0])
                elif kind == "poll":
                    reports += rec.poll(args[0])
                    reports += rec.revisions()  # each revision where it was made, among the reports
                elif kind == "flush":
                    reports += rec.flush()
                    reports += rec.revisions()
                elif kind == "call":
                    results.append((key, args[0](rec)))
                elif kind == "adopt":
                    new, carry = args
                    if carry is not None:
                        carry(rec, new)
                    rec = new
                    handed = True  # no replay may go back past a reconciler given away
            except BaseException as e:  # handed to the loop, not lost in the child
                errors.append((key, e))
        answer = [upto, reports, revisions, results, errors, rec.belief if rec is not None and reports else None,
                  rec.busy if rec is not None else False, None]
        if reports or revisions or results or errors or handed or since >= CHECKPOINT_EVERY:
            answer[-1], since = dumps(rec), 0
        try:
            data = dumps(answer)
        except Exception as e:  # a result that does not pickle: the call fails, the child goes on
            answer[3] = []
            answer[4] = errors + [(key, TypeError(f"the result of {key} cannot cross to the parent: {e}"))
                                  for key, _ in results]
            data = dumps(answer)
        try:
            conn_out.send_bytes(data)
        except OSError:
            return


if __name__ == "__main__":
    from coindrel.reconcile.child import main as child_main  # the module's own name, not __main__'s

    child_main()
