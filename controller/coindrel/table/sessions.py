"""One board clock for a match that spans hub sessions.

A hub's time counts from its boot (sensing.md section 2: ``t`` is the board's
monotonic clock), so a match that outlived a hub reset, an unplug or a
restarted controller holds events of several sessions, each starting again
near 0. An observation log is in time order (section 3), so the export
continues the board's clock across sessions: each new session is shifted to
start after the previous one ended, by the wall-clock time that passed between
them (never less than ``SESSION_GAP``, so no drop of one session is joined
to the next), and a ``note`` line marks where each one begins.
"""

from __future__ import annotations

SESSION_GAP = 5.0  # seconds: longer than the reconciler waits for a board to go quiet
SLIP = 1.0  # seconds a hub's time may seem to go back within one boot before it counts as a new one


def _boot(d: dict):
    hub = d.get("hub")
    return hub[0] if isinstance(hub, list) and hub else None


def continued(records) -> list[dict]:
    """The JSON lines of the ``ev`` records (in journal order) on one clock:
    events, with a session note before each session after the first.

    A new session is a new hub boot id, or hub time that went back (a hub
    that kept its boot id across a restart). Events the controller stamped
    itself (status, a resync's readings: no hub position) are placed where
    they were written, never before the event before them. A log without hub
    positions at all (a GPIO board) starts a session where time goes back."""
    out: list[dict] = []
    offset = 0.0
    last_t = last_w = None
    boot = None
    seen_hub = False
    for r in records:
        d = dict(r.data)
        t = d.get("t")
        if not isinstance(t, (int, float)) or isinstance(t, bool):
            out.append(d)
            continue
        b = _boot(d)
        seen_hub = seen_hub or b is not None
        new = False
        if last_t is not None:
            if b is not None:
                new = (boot is not None and b != boot) or t + offset < last_t - SLIP
            elif not seen_hub:
                new = t + offset < last_t - SLIP
        if new:
            wall = (r.w - last_w) if (r.w is not None and last_w is not None) else 0.0
            offset = last_t + max(wall, SESSION_GAP) - t
            out.append({"kind": "note", "note": "hub session", "boot": b, "t": round(t + offset, 6),
                        "offset": round(offset, 6),
                        "say": "The hub started again (a new boot, its clock from 0): board time continues "
                               f"from the previous session, shifted by {offset:.3f} s."})
        if b is not None:
            boot = b
        shifted = t + offset
        if last_t is not None and shifted < last_t:
            shifted = last_t  # kept in the order it was written; its wall time says nothing of the board's
        else:
            last_w = r.w
        d["t"] = round(shifted, 6)
        last_t = d["t"]
        out.append(d)
    return out
