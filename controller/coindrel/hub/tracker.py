"""Frames in, board events out: the hub link's bookkeeping, without I/O.

The tracker checks sequence numbers (duplicates dropped, gaps reported and
answered with a snapshot), maps hub time to board time (microseconds since
the hub booted, kept monotonic across a hub reset by an offset it announces),
turns beam and hall messages into ``coindrel.events`` objects for the sensors
the channel map wires, and remembers what the board looks like so that a
snapshot after a gap or a reconnect yields events for whatever changed
meanwhile (``sensed.py``). Nothing it is fed can make it raise or emit a wrong event: frames
it cannot trust are dropped and counted.
"""

from __future__ import annotations

from collections import OrderedDict, deque

from ..events import SourceEvent, StatusEvent
from . import protocol as p
from .channelmap import ChannelMap
from .hubstate import HubState, TrackerStats, check_hello
from .resume import HubLoss, HubPosition
from .sensed import SensedMessages

MAX_PENDING = 4096  # frames held while waiting for a hello
MAX_ERRORS = 100  # hub error reports kept (the newest); the rest are only counted
MAX_POSITIONS = 8192  # board events whose hub position can still be asked for
MAX_LOSSES = 100
EVENT_TYPES = (p.Beam, p.Hall, p.Lost, p.Error)


class Tracker(SensedMessages):
    """The stream: sequence numbers, hellos, board time, replays from the
    hub's ring; what each message says of the board is ``SensedMessages``."""

    def __init__(self, cm: ChannelMap):
        self.cm = cm
        self.hall_ids = {h.switch for h in cm.halls}
        self.beam_ids = {b.beam for b in cm.beams}
        self.stats = TrackerStats()
        self.state = HubState()
        self.hello: p.Hello | None = None
        self.boot: int | None = None
        self.offset_us = 0
        self.board_us = 0  # latest board time, microseconds
        self.board_at = 0.0  # Pi clock when board_us was last advanced
        self.last_seq: int | None = None
        self.awaiting_hello = True
        self.pending: list[p.Frame] = []
        self.need_snapshot = False
        self.need_hello = False
        self.snapshots_seen = 0
        self.replies: list[p.Frame] = []  # answers to requests (req != 0): the link resolves them
        self.raw_frames: list[p.Raw] = []
        self.errors: deque[p.Error] = deque(maxlen=MAX_ERRORS)
        self.refused: str | None = None
        # replay from the hub (resume): frame numbers of this boot
        self.anchor: tuple[int, int] | None = None  # (frame number, seq) of a frame whose number is known
        self.last_event_num: int | None = None  # the newest event of this boot the Pi has
        self.last_event_t: float | None = None
        self.resume_wanted = False
        # While a resume is asked for, live events wait here (frames: seq, message, Pi time): the
        # replay that answers it carries them again, in order after the ones the Pi missed
        # (PROTOCOL.md, Resume). A live event let through before the answer would have no frame
        # number yet, and its replay would be a duplicate (found by the kill -9 rig).
        self.hold_live = False
        self.resumes = False  # the link resumes after every hello: hold live events from the hello on
        self.asked_after: int | None = None  # the ``after`` of the resume last asked for
        self._live_held: list[tuple] = []
        # Replay a gap in the middle of a connection too (not only on connect):
        # frames the line lost, events the hub's queue dropped.
        self.replay_gaps = True
        # Frames a gap took that the hub's ring is asked for: said "lost" only if it cannot give
        # them back. Said at once, the status flagged a drop the replay then filled (a newcomer's
        # stalled sim: "13 frames ... went missing (while the link was down)" on a healthy drop).
        self.gap_unsaid = 0
        self.gap_after: int | None = None  # the frame before a gap, while no event has a number yet
        self.resume_now = False  # a hello was heard: ask at once (not after a request's timeout)
        self.losses: deque[HubLoss] = deque(maxlen=MAX_LOSSES)
        self._positions: OrderedDict[int, tuple] = OrderedDict()
        self._num: int | None = None  # frame number of the frame being handled
        self._seq_now = 0  # and its seq
        # A rebooted hub's hello may have waited in its USB buffer since boot: the offset it
        # gives runs ahead by that wait. Board time waits for the first answer to a request
        # (fresh) and takes the offset from it. (board_us, board_at, lowest offset); None: settled.
        self._fresh: tuple[int, float, int] | None = None

    # -- hub positions (resume) ---------------------------------------------
    def number_of(self, seq: int) -> int | None:
        if self.anchor is None:
            return None
        num, aseq = self.anchor
        d = (seq - aseq) & 0xFFFF
        return num + d if d < 0x8000 else num - (0x10000 - d)

    def position_of(self, ev) -> HubPosition | None:
        hit = self._positions.get(id(ev))
        return hit[1] if hit is not None and hit[0] is ev else None

    def moved(self, old, new) -> None:
        """``new`` replaces event ``old`` downstream (the same event, its time raised)."""
        hit = self._positions.pop(id(old), None)
        if hit is not None and hit[0] is old:
            self._positions[id(new)] = (new, hit[1])

    def continue_from(self, pos: HubPosition, board_t: float, now: float) -> None:
        """A restarted daemon's link: board time goes on from its journal.
        ``pos`` is the last event the journal holds, ``board_t`` the board time
        of its newest event. A hub of the same boot keeps the clock (and the
        offset) the last process gave it; a hub that restarted meanwhile is a
        reset as if this link had seen it, so its clock continues from
        ``board_t``. Without this, a new boot's frames (its clock began again)
        came before the journal's events: a drop the restart left open waited
        for that clock to catch up, the table stuck in "falling"."""
        if self.boot is not None or self.hello is not None:
            return  # this link has heard the hub itself: it knows better
        self.boot, self.offset_us = pos.boot_id, pos.offset_us
        self.board_us = max(self.board_us, int(round(board_t * 1e6)))
        self.board_at = now

    def resume_request(self, configured: HubPosition | None) -> p.Resume | None:
        """What to ask the hub for after its hello (None: no hello yet)."""
        if self.hello is None:
            return None
        boot = self.hello.boot_id
        if self.last_event_num is not None:
            msg = p.Resume(boot, self.last_event_num)
        elif self.gap_after is not None:
            msg = p.Resume(boot, self.gap_after)  # a gap before any numbered event: from just before it
        elif configured is not None:
            msg = p.Resume(configured.boot_id, configured.num)
        else:
            msg = p.Resume(boot, None)
        self.asked_after = msg.after
        self.resume_now = False
        return msg

    @property
    def holding(self) -> int:
        """Live events held for the answer to a resume."""
        return len(self._live_held)

    def release_held(self, now: float) -> list[SourceEvent]:
        """The hub will not replay (it cannot resume): the live events held
        for its answer are news after all."""
        self.hold_live = False
        held, self._live_held = self._live_held, []
        out: list[SourceEvent] = []
        self._unsaid_gap(out, "the hub keeps no replay ring")
        for seq, msg, _t in held:
            self._num = self.number_of(seq)
            self._message(msg, now, out)
        return out

    # -- time --------------------------------------------------------------
    @property
    def board_t(self) -> float:
        return self.board_us / 1e6

    def _t(self, t_us: int, now: float) -> float:
        if self._fresh is not None:  # the new boot's offset is not settled: board time waits
            before_us, before_at, floor = self._fresh
            self._fresh = (before_us, before_at, max(floor, before_us + 1 - t_us))
            return max(t_us + self.offset_us, 0) / 1e6
        us = t_us + self.offset_us
        if us > self.board_us:
            self.board_us = us
            self.board_at = now
        return max(us, 0) / 1e6

    def _settle(self, t_us: int, now: float, fresh: bool) -> None:
        """The new boot's offset from a fresh frame (stamped ``t_us``, heard at
        ``now``); ``fresh`` False: an event went out first, the hello's stays."""
        pend, self._fresh = self._fresh, None
        if pend is None or not fresh:
            return
        before_us, before_at, floor = pend
        seen = before_us + max(0, int((now - before_at) * 1e6)) - t_us
        self.offset_us = max(min(self.offset_us, seen), floor, before_us + 1 - t_us)

    def _status(self, state: str, detail: str, count: int = 0) -> StatusEvent:
        return StatusEvent(self.board_t, state, detail, count)

    # -- the stream ----------------------------------------------------------
    def connection_started(self) -> None:
        """A new connection: nothing is trusted until the hub says hello."""
        self.awaiting_hello = True
        self.pending.clear()
        self.need_hello = True
        self.refused = None
        self._live_held.clear()  # a new connection resumes after the last event emitted: the replay has them

    def feed(self, frame: p.Frame, now: float) -> list[SourceEvent]:
        """One decoded frame at Pi-clock time ``now`` -> events to publish."""
        self.stats.frames += 1
        msg = frame.msg
        if isinstance(msg, (p.Hello, p.ForeignHello)):
            return self._on_hello(frame, now)
        if self.awaiting_hello:
            if len(self.pending) >= MAX_PENDING:
                self.pending.pop(0)
                self.stats.dropped_pending += 1
            self.pending.append(frame)
            return []
        out: list[SourceEvent] = []
        if not self._sequence(frame.seq, out):
            return out
        self._num = self.number_of(frame.seq)
        self._seq_now = frame.seq
        self._message(msg, now, out)
        return out

    def _sequence(self, seq: int, out: list, why: str = "damaged or dropped on the link") -> bool:
        """Check ``seq`` against the last one; False when the frame must be dropped."""
        if self.last_seq is None:
            self.last_seq = seq
            return True
        expected = (self.last_seq + 1) & 0xFFFF
        if seq == expected:
            self.last_seq = seq
            return True
        if seq == self.last_seq:
            self.stats.duplicates += 1
            return False
        gap = (seq - expected) & 0xFFFF
        if gap < 0x8000:
            self.stats.gaps += 1
            self.stats.missing_frames += gap
            self.need_snapshot = True
            if self.replay_gaps and self.anchor is not None:  # the hub keeps them: ask, hold live ones till then
                self.resume_wanted = True
                self.hold_live = True
                if self.last_event_num is None and self.gap_after is None:
                    self.gap_after = self.number_of(expected) - 1
                self.gap_unsaid += gap  # "lost" only if the answer says the ring no longer has them
                self.last_seq = seq
                return True
            out.append(self._gap_status(gap, why))
            self.last_seq = seq
            return True
        # Backwards: stale data, or a hub that restarted without our hearing its
        # hello. Trust nothing more until it says hello again.
        self.stats.stale += 1
        self.awaiting_hello = True
        self.need_hello = True
        out.append(self._status("resync", f"frame {seq} after {self.last_seq}: the hub's stream went backwards; "
                                          "asking it to say hello again"))
        return False

    def _gap_status(self, gap: int, why: str) -> StatusEvent:
        return self._status("lost", f"{gap} frame{'s' if gap != 1 else ''} from the hub went missing "
                                    f"({why}); asking the hub for a snapshot", gap)

    def _unsaid_gap(self, out: list, why: str) -> None:
        """The frames of gaps the hub was asked for are lost after all (``why``)."""
        gap, self.gap_unsaid, self.gap_after = self.gap_unsaid, 0, None
        if gap:
            out.append(self._gap_status(gap, f"on the link; {why}"))

    def _on_hello(self, frame: p.Frame, now: float) -> list[SourceEvent]:
        msg = frame.msg
        reason = check_hello(msg, self.cm)
        if reason:
            self.refused = reason
            self.pending.clear()
            return [self._status("error", f"hub refused: {reason}")]
        self.refused = None
        self.hello = msg
        if msg.req:
            self.replies.append(frame)
        out: list[SourceEvent] = []
        pending, self.pending = self.pending, []
        if self.boot is None or msg.boot_id != self.boot:
            held = self._same_run(pending, frame.seq)
            if self.boot is not None:
                self.stats.resets += 1
                t_min = min([msg.t_us] + [f.msg.t_us for f in held if hasattr(f.msg, "t_us")])
                elapsed_us = max(0, int((now - self.board_at) * 1e6))
                self.offset_us = max(self.board_us + elapsed_us - msg.t_us, self.board_us + 1 - t_min)
                # an answer (req) is fresh; a hello the hub sent of itself at boot may not be
                self._fresh = None if msg.req else (self.board_us, self.board_at, self.board_us + 1 - t_min)
                out.append(self._status("resync", f"the hub restarted (boot {msg.boot_id:08x}): its clock began again at "
                                                  f"{msg.t_us / 1e6:.3f} s, so board time continues from "
                                                  f"{(msg.t_us + self.offset_us) / 1e6:.3f} s; events while it was "
                                                  "restarting are unknown; re-reading the switch positions"))
            self.boot = msg.boot_id
            self.last_seq = None
            self.anchor = None
            self.last_event_num = None
            self.gap_unsaid, self.gap_after = 0, None  # the old boot's gaps: the "resync" says all of it is unknown
            self.hold_live = False
        else:
            # The same boot after a reconnect: whatever is newer than what we had.
            held = [f for f in pending if self.last_seq is None
                    or 0 < ((f.seq - self.last_seq) & 0xFFFF) < ((frame.seq - self.last_seq) & 0xFFFF)]
            self.stats.dropped_pending += len(pending) - len(held)
            if msg.req:
                self._settle(msg.t_us, now, fresh=True)  # a hello asked for is fresh
        self.awaiting_hello = False
        self.need_hello = False
        self.need_snapshot = True
        if self.resumes:
            self.hold_live = self.resume_now = True  # a resume follows this hello
        for f in held:
            if self._sequence(f.seq, out):
                self._num, self._seq_now = self.number_of(f.seq), f.seq
                self._message(f.msg, now, out)
        self._sequence(frame.seq, out, "while the link was down")
        self._t(msg.t_us, now)
        return out

    def _same_run(self, pending: list[p.Frame], hello_seq: int) -> list[p.Frame]:
        """The frames of a new boot held before its hello: the contiguous run
        of sequence numbers that ends just before the hello's."""
        keep: list[p.Frame] = []
        want = (hello_seq - 1) & 0xFFFF
        for f in reversed(pending):
            if f.seq != want:
                break
            keep.append(f)
            want = (want - 1) & 0xFFFF
        keep.reverse()
        self.stats.dropped_pending += len(pending) - len(keep)
        return keep

    # -- messages ------------------------------------------------------------
    def _message(self, msg, now: float, out: list, replay: bool = False) -> None:
        if isinstance(msg, EVENT_TYPES):
            num = self._num
            if self.hold_live and not replay:
                if len(self._live_held) >= MAX_PENDING:
                    self._live_held.pop(0)
                    self.stats.dropped_pending += 1
                self._live_held.append((self._seq_now, msg, now))
                return
            if num is not None and self.last_event_num is not None and num <= self.last_event_num:
                self.stats.repeated += 1
                return
            n0 = len(out)
            if self._fresh is not None:
                self._settle(0, now, fresh=False)  # an event of the new boot goes out on the hello's offset
            self._event(msg, now, out)
            if num is not None:
                self.last_event_num = num
                pos = HubPosition(self.boot or 0, num, self.offset_us)
                for ev in out[n0:]:
                    if not isinstance(ev, StatusEvent):
                        self._positions[id(ev)] = (ev, pos)
                        self.last_event_t = ev.t
                while len(self._positions) > MAX_POSITIONS:
                    self._positions.popitem(last=False)
            return
        if isinstance(msg, p.Resumed):
            self._resumed(msg, now, out)
        elif isinstance(msg, p.Replay):
            self.stats.replayed += 1
            self._num = msg.num
            self._message(msg.event, now, out, replay=True)
        else:
            self._event(msg, now, out)

    def _resumed(self, msg: p.Resumed, now: float, out: list) -> None:
        self._settle(msg.t_us, now, fresh=True)
        self._t(msg.t_us, now)
        self.anchor = (msg.num, self.last_seq if self.last_seq is not None else msg.num & 0xFFFF)
        self.resume_wanted = False
        self.hold_live = False
        if not msg.gone:
            self.gap_unsaid, self.gap_after = 0, None  # the replays that follow fill every gap
        else:
            self._unsaid_gap([], "")  # the loss below says it, with its time
        if msg.req:
            self.replies.append(p.Frame(self.last_seq or 0, msg))
        if self.asked_after is None and not msg.other_boot:
            out.extend(self.release_held(now))  # nothing is replayed: what was held is news
        else:
            self.stats.held_for_replay += len(self._live_held)  # the replays that follow carry them
            self._live_held.clear()
        if msg.gone:
            until = None if msg.oldest == p.NOTHING else max(0, msg.oldest_t_us + self.offset_us) / 1e6
            why = ("the hub restarted since the last event kept" if msg.other_boot
                   else "the hub's replay ring no longer had them")
            loss = HubLoss(None, self.last_event_t, until, why)
            self.losses.append(loss)
            span = f" before board time {until:.3f} s" if until is not None else ""
            out.append(self._status("lost", f"board events{span} could not be given back ({why}): "
                                            "a drop in that time is uncertain"))
