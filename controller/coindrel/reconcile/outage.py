"""A source's link news for the open group (mixed into ``Reconciler``).

Only what the link says it could not give back counts as lost. A link that
went down and came back on the same hub boot replays every event from its
ring (firmware/PROTOCOL.md: resume); after a hub restart the snapshot says
every switch that changed meanwhile (a "lost" status with their count, then
their events: hub/sensed.py, table/resync.py). So a drop open when the link
went down waits for it to come back, and is judged at its close on what it
then knows (issue 13: board4 counted a reconnect, and a restart while a coin
lay resting, as lost events)."""

from __future__ import annotations

import math

from ..events import StatusEvent
from ..engine.core import HOLE
from .grouping import Group

# A drop open when the link went down waits for it this long (board time):
# what the hub gives back when it returns (its ring's replay, the snapshot)
# tells what was lost. Longer, it is closed as it is, its events lost.
HOLD_AWAY = 20.0


class LinkOutage:
    """Part of ``reconciler.Reconciler``."""

    # The open group's link outage: the board time the link last went down
    # (None: not while this group was open), whether it came back since and
    # whether the hub restarted meanwhile, and the board time before which
    # the group waits for what the link gives back. (Class defaults: a
    # checkpoint from before they existed has none.)
    _down: float | None = None
    _back: bool = False
    _restarted: bool = False
    _hold: float = -math.inf
    # After a hub restart: when the board was seen again, and when its
    # snapshot came (the changes it lists are no coin's live events).
    _back_at: float | None = None
    _snap_at: float | None = None
    _snap_lost: int = 0  # of the group's ``lost``, the changes the restarted hub's snapshot listed

    def _status(self, ev: StatusEvent) -> None:
        """A source's status event, in time order."""
        group, st = self._group, ev.state
        if group is not None and not self._outage() and ev.t > self._deadline() and not (
                self._cut() and st in ("connected", "resync")):  # the board seen again finishes it
            # The drop ended before the link went: what the live table's
            # poll closes between events, a log's replay closes here, so
            # both reconcile it alike (it lost nothing).
            self._close()
        elif group is not None and not self._outage() and st in ("lost", "disconnected", "resync", "error") \
                and group.accounted(ev.t, self.timing.silence):
            # The link went down in the drop's quiet spell, but no coin of
            # it could still be falling: it is checked as it is (issue 13).
            self._close()
        group = self._group
        if st in ("lost", "resync"):  # events the hub could not give back, or a hub that restarted
            self.unsure = {i for i, c in enumerate(self.worlds[0].codes) if c != HOLE}
            self.asked = frozenset()  # every pad unseen now: none is only a put-back's
        if st in ("connected", "disconnected"):
            self.away = st == "disconnected"
        if group is None:
            if st in ("lost", "resync", "error"):
                self._lost_at = ev.t
            return
        if st == "disconnected":
            self._down, self._back = ev.t, False  # what it lost, the link says when it is back
        elif st == "connected":
            if self._outage():
                self._back = True
                if group.is_drop:
                    # replayed events (their own, earlier times) and the snapshot's
                    # differences come next: the drop waits for them (changes no
                    # coin was seen to cause close as before: ``_cut``)
                    self._hold = max(self._hold, ev.t + self.timing.quiet)
        elif st == "resync" and group.is_drop:
            # events while the hub restarted are unknown, but the snapshot
            # that follows tells every switch that moved meanwhile: judged at
            # the close (``_outage_lost``)
            self._restarted = True
            self._back_at, self._snap_at = ev.t, None
            self._hold = max(self._hold, ev.t + self.timing.quiet)
        elif st == "lost" and ev.count == 0 and self._restarted:
            pass  # the restarted hub's own news that the old boot's events are gone: the resync said it
        else:
            group.lost += max(1, ev.count)
            if self._restarted and self._back_at is not None:
                self._snap_at = ev.t  # the snapshot's switch events follow at this time
                self._snap_lost += max(1, ev.count)

    def _deadline(self) -> float:
        return max(self._group.deadline(self.timing), self._hold, self._settling())

    def _given_back(self) -> bool:
        """The open drop lost events to the link (a hub restart, a ring that
        could not replay them) and the board is seen again: what the link
        gives back has come (or is due by ``_hold``), and what its prediction
        still waits for may have been lost and never come. So a coin going
        in after a quiet spell is the next drop, as after a drop seen whole,
        checked as usual (``Reconciler.feed``; with no coin, it waits the
        patience as before: a coin balancing on an edge may yet fall).
        Issue 13, board5: a hub reset mid-cascade left the group waiting for
        the lost exits, and every drop after it joined it, flagged, for 46 s."""
        group = self._group
        if group is None or not group.is_drop or self.away or (self._down is not None and not self._back):
            return False
        return group.lost > 0 or self._restarted

    def _settled_since_back(self, t: float) -> bool:
        """A coin going in at ``t`` is the next drop, not one of the cut
        group's: the hub restarted and is back, its snapshot in, and since it
        came back no live event of the group came for the longest silence a
        healthy cascade has (``Timing.silence``), so no coin of it can still
        be falling (its last event was no later than that: each event comes
        within that silence of the one before). Its snapshot's switch events
        are the outage's changes, at their arrival, not a falling coin's; the
        quiet spell ``feed`` asks for counted from them kept a drop begun just
        after the hub came back in the cut group, flagged `events_lost`
        (issue 13, board5 case drop_just_after_reset)."""
        back = self._back_at
        if back is None or not self._restarted or self.away:
            return False
        live = self._snap_at if self._snap_at is not None else back
        return self._group.last_t <= live and t - back > self.timing.silence

    def _outage(self) -> bool:
        return self._down is not None or self._restarted

    def _outage_lost(self, group: Group) -> int:
        """Events the open group lost to its link outage, judged at its close:
        none when the link came back on the same boot (the ring gave back its
        events), nor after a restart whose snapshot showed nothing moved
        (``lost`` stayed 0) while every event the prediction expects had
        been seen: then no coin of the drop can have done anything unseen
        (a coin that moves flips the rocker it leaves; an exit is reached
        only through rockers). A link still down at the close lost them."""
        down, restarted = self._down is not None and not self._back, self._restarted
        self._down, self._back, self._restarted, self._hold = None, False, False, -math.inf
        self._back_at = self._snap_at = None
        snap, self._snap_lost = self._snap_lost, 0
        self._snapshot_moved = snap > 0
        if down:
            return 1
        if restarted and not (group.lost == snap and group.complete()):
            return 1
        if snap:
            # The snapshot's changes are moves the prediction expects, and
            # every exit it expects was heard: the drop is checked, if it is
            # exactly what a healthy board does (``_close``; else lost). A
            # rocker the snapshot shows moved was moved by this drop's coins.
            self._snapshot_kept = snap
            return -snap
        return 0

    def _waiting(self, now: float) -> bool:
        """The link is down and the open group waits for what it gives back
        (a drop at most ``HOLD_AWAY``; changes no coin was seen to cause, as
        long as it takes: ``_cut``)."""
        return self.away and self._down is not None and not self._back \
            and (not self._group.is_drop or now - self._down <= HOLD_AWAY)
