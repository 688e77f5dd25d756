"""A full disk: the table waits for room, then goes on by itself.

A journal that cannot save because the disk is full (``DiskFull``) used to
end the daemon; under systemd's Restart=on-failure a restart on a disk still
full ended it again, a restart loop with the panel flickering. Now the table
stays up and waits: the panel and ``coindrel ctl status`` say the disk is
full and what to do, the watchdog is still fed (the daemon is sound, only
the disk is not), and nothing is played unsaved: board events are left to
the hub's replay ring and presses do nothing, so no drop is scored and no
turn clock runs. Every ``PROBE_EVERY`` seconds a probe write in the state
directory (removed at once) asks whether the disk takes writes again.

Once it does, the run ends with ``room_again`` set and ``service.serve``
builds every part again from the configuration and the journal, exactly as
a start does (``ROOM_AGAIN``): the table in memory holds events and verdicts
the journal never got, so only a rebuild from the disk is sure to hold what
the disk holds, and the hub gives back what came after the journal's last
position as after any restart. Doing it in-process rather than by exiting
for systemd to restart also serves a table run by hand, and costs no
StartLimitBurst.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from .journal import FULL, DiskFull, probe_room

log = logging.getLogger("coindrel.table")
PROBE_EVERY = 5.0  # seconds between probe writes while the disk is full


@dataclass
class RoomWait:
    """What the table waits for: ``saved`` (e.g. "drop 3", None outside a
    match) is what is on disk, ``where`` the state directory."""

    saved: str | None
    where: Path
    what: str
    since: float
    next_probe: float
    probes: int = 0
    room: bool = False
    last_error: str = ""
    view: object = None  # the panel's words while the disk is full


NEW = "new"  # ``saved`` of a match whose journal could not be created: it did not start


def lost(saved: str | None) -> str:
    """What the players lose for now: "nothing after drop 3 is saved"."""
    if saved == NEW:
        return "the new match cannot be saved, so it did not start"
    return f"nothing after {saved} is saved" if saved else "nothing more is saved"


def goes_on(saved: str | None) -> str:
    if saved == NEW:
        return "the table goes back to its menu, to start the match again"
    if saved == "the start of the match":
        return "the match goes on from its start"
    return f"the match goes on after {saved}" if saved else "the table goes on"


def panel_text(saved: str | None) -> str:
    """The same in the panel's four lines (tests/table/test_disk_full.py renders each)."""
    if saved == NEW:
        return "The new match did not start. Free disk space, then start it again."
    if saved is None:
        return "Nothing is saved now. Free disk space: the table then goes on by itself."
    upto = "to its start" if saved == "the start of the match" else f"up to {saved}"
    return f"Saved {upto}. Free space on the disk: the match goes on by itself."


class RoomWaitMixin:
    """Part of ``daemon.Table``: the wait for room on a full disk."""

    room_wait: RoomWait | None = None
    # None: the table does not wait but stops, to be started again (a sim: nobody frees space mid-run,
    # and a sim going on would play on unsaved); ``room_restart`` says how
    room_probe_every: float | None = PROBE_EVERY
    room_restart = "start it again with the same state directory"
    room_again: str | None = None  # said once the disk has room: the run ends and the table is built again

    def _saved_so_far(self) -> str | None:
        m, j = self.journalled, self.journal
        if m is not None and j is not None:
            drops = sum(1 for a in m.log[: j.acts] if a.get("do") == "drop")
            return f"drop {drops}" if drops else "the start of the match"
        return None if self.flow.match is None else NEW  # (its journal could not be created)

    def _wait_for_room(self, e: DiskFull, saved: str | None = None) -> None:
        """Stop saving (``failed``) and wait for room; told on the panel, in
        the log, in ``ctl status`` and systemd's status."""
        from ..display import MessageView

        saved = saved if saved is not None else self._saved_so_far()
        j = self.journal
        where = Path(getattr(self.store, "dir", None) or (j.path.parent if j is not None else "."))
        now = self.now()
        if self.room_probe_every is None:
            self.failed = (f"The disk is full: {lost(saved)} ({e.what}). Free space on the disk that holds {where} "
                           f"(`df -h {where}` shows it), then {self.room_restart}: {goes_on(saved)}")
            log.error("%s", self.failed)
            return
        self.room_wait = RoomWait(saved, where, e.what, now, now + self.room_probe_every)
        playing = saved is not None and saved != NEW
        self.failed = (f"The disk is full: {lost(saved)} ({e.what}). Free space on the disk that holds {where} "
                       f"(`df -h {where}` shows it): coindrel checks by itself every {self.room_probe_every:g} s, "
                       f"and once there is room {goes_on(saved)}"
                       + (". Meanwhile no coin is scored: the hub keeps the coins dropped and the table takes "
                          "them up then" if playing else ""))
        log.error("%s", self.failed)
        self.room_wait.view = MessageView("Disk full", panel_text(saved), alert=True)
        # the panel shows it whatever screen was up (loop._wait_for_room_step); the flow holds it for ctl status
        self.flow.ask(self.room_wait.view)
        self._status()

    def room_status(self) -> str:
        """One line for systemd's STATUS= and the log."""
        w = self.room_wait
        return f"Disk full: {lost(w.saved)}; free space in {w.where}, once there is room {goes_on(w.saved)}"

    def room_of(self) -> dict | None:
        """What ``coindrel ctl status`` says of the disk (None: it has room)."""
        w = self.room_wait
        if w is None:
            return None
        return {"full": not w.room, "saved": w.saved, "dir": str(w.where), "what": w.what, "text": self.failed,
                "checks_every": self.room_probe_every, "checks": w.probes, "waiting_for": round(self.now() - w.since, 1)}

    def check_room(self) -> bool:
        """Probe the disk if the time has come; True once it takes writes
        again (the run then ends and the table is built again)."""
        w = self.room_wait
        if w is None or w.room:
            return w is not None
        now = self.now()
        if now < w.next_probe:
            return False
        w.probes += 1
        w.next_probe = now + self.room_probe_every
        err = probe_room(w.where)
        if err is None:
            w.room = True
            self.room_again = f"Disk has room again: {goes_on(w.saved)}"
            log.warning("%s", self.room_again)
            return True
        why = err.strerror or str(err)
        if why != w.last_error and err.errno not in FULL:  # no longer full, yet not writable: say so once
            log.error("%s still takes no writes: %s; the table keeps waiting", w.where, why)
        w.last_error = why
        return False

    def room_in(self) -> float:
        """Seconds until the next probe."""
        return max(0.0, self.room_wait.next_probe - self.now())


__all__ = ["NEW", "PROBE_EVERY", "RoomWait", "RoomWaitMixin", "goes_on", "lost", "panel_text"]
