"""What the hub's messages say of the board (part of ``tracker.Tracker``):
beams and halls as board events for the sensors the channel map wires, its
losses and errors as status events, and a snapshot compared with the board
the tracker remembers (a move no event told of comes out behind a ``lost``
status). The stream's bookkeeping (sequence numbers, hellos, board time,
replays) is the tracker's own."""

from __future__ import annotations

from ..events import EntryEvent, ExitEvent, StatusEvent, SwitchEvent
from . import protocol as p
from .text import clean


class SensedMessages:
    """Mixed into ``Tracker``: it provides ``_t`` (board time), ``_status``,
    ``_settle``, the channel map's ids, ``state`` and ``stats``."""

    def _event(self, msg, now: float, out: list) -> None:
        if isinstance(msg, p.Beam):
            t = self._t(msg.t_us, now)
            if msg.beam not in self.beam_ids:
                self.stats.impossible += 1
                out.append(self._status("error", f"the hub reported {p.beam_name(msg.beam)}, which the channel map does not wire; ignored"))
                return
            bit = 1 << msg.beam
            if msg.broken:
                self.state.beams |= bit
                out.append(EntryEvent(t, msg.beam) if msg.beam < 8 else ExitEvent(t, msg.beam - 8))
            else:
                self.state.beams &= ~bit
        elif isinstance(msg, p.Hall):
            t = self._t(msg.t_us, now)
            if msg.switch not in self.hall_ids:
                self.stats.impossible += 1
                out.append(self._status("error", f"the hub reported switch {msg.switch}, which has no hall sensor in the channel map; ignored"))
                return
            self.state.positions[msg.switch] = (msg.pos, msg.raw)
            self.state.raw[msg.switch] = msg.raw
            out.append(SwitchEvent(t, self.cm.label(msg.switch), msg.pos, msg.raw))
        elif isinstance(msg, p.Snapshot):
            if msg.req:
                self._settle(msg.t_us, now, fresh=True)  # an answer: the hub's time as the Pi heard it
            self._snapshot(msg, now, out)
        elif isinstance(msg, p.Heartbeat):
            self._t(msg.t_us, now)
            self.heartbeat = msg
        elif isinstance(msg, p.Lost):
            self._t(msg.t_us, now)
            self.stats.hub_lost += msg.count
            self.need_snapshot = True
            if self.replay_gaps and self.anchor is not None and msg.where == "queue":
                self.resume_wanted = True  # the ring still has what the queue dropped
            where = "its beam sample buffer" if msg.where == "beams" else "its event queue"
            out.append(self._status("lost", f"the hub lost {msg.count} event{'s' if msg.count != 1 else ''} "
                                            f"({where} was full); asking for a snapshot", msg.count))
        elif isinstance(msg, p.Error):
            self._t(msg.t_us, now)
            self.errors.append(msg)
            self.stats.errors += 1
            out.append(self._status("error", f"hub: {clean(msg.text) or msg.code_name} ({msg.code_name})"))
        elif isinstance(msg, p.Raw):
            self._t(msg.t_us, now)
            for sw, raw in msg.values:
                self.state.raw[sw] = raw
            self.raw_frames.append(msg)
        elif isinstance(msg, (p.Calibration, p.Ack)):
            pass  # answers: the link resolves them from `replies`
        elif isinstance(msg, p.Unknown):
            self.stats.unknown += 1
        elif isinstance(msg, p.Malformed):
            self.stats.malformed += 1
            out.append(self._status("error", f"the hub sent a message that does not fit its type ({msg.reason}); ignored"))
        if isinstance(msg, (p.Snapshot, p.Calibration, p.Ack)) and msg.req:
            self.replies.append(p.Frame(self.last_seq or 0, msg))

    def _snapshot(self, msg: p.Snapshot, now: float, out: list) -> None:
        t = self._t(msg.t_us, now)
        first = self.snapshots_seen == 0
        self.snapshots_seen += 1
        self.need_snapshot = False
        self.state.beams = msg.beams
        self.state.t_us = msg.t_us
        unseen = []
        for h in msg.halls:
            if h.switch not in self.hall_ids:
                self.stats.impossible += 1
                continue
            old = self.state.positions.get(h.switch)
            self.state.positions[h.switch] = (h.pos, h.raw)
            self.state.raw[h.switch] = h.raw
            if not first and (old is None or old[0] != h.pos):
                unseen.append(SwitchEvent(t, self.cm.label(h.switch), h.pos, h.raw))
        if unseen:
            # Moves no event told of (a hub that restarted, frames lost): behind a
            # "lost" status at the snapshot's own time, so the reconciler ties them
            # to the loss, however long the link took to come back, and never
            # blames a hall sensor for them (table/resync.py does the same).
            what = ", ".join(f"{e.switch} {e.pos}" for e in unseen)
            out.append(StatusEvent(t, "lost", f"changed unseen (the hub's snapshot): {what}", len(unseen)))
            out.extend(unseen)
