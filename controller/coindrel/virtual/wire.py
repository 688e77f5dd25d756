"""The virtual hub's serial side: what goes over the wire, without any I/O.

Board events from the hub model become hub protocol frames, encoded with the
hub codec (``coindrel.hub.protocol``); bytes from the controller are decoded
with the same codec and answered as firmware/PROTOCOL.md says a hub answers.
The transport (``serve``: a pty or a TCP socket) only moves the bytes in
``outbox`` and calls ``receive``.

Link faults act here: garbage bytes on the line, frames that never arrive
(their sequence numbers are used all the same, so the link can tell), and an
unplugged cable (``plugged`` goes False; the transport closes the port).
A hub reset or an unplug cuts the hub's power: it boots with a new boot id,
its clock and sequence numbers start again, and it says ``Hello``.
"""

from __future__ import annotations

from collections import deque

REPLAY_CAPACITY = 1536  # events kept for a resume, as the firmware's replay ring

from ..events import EntryEvent, SwitchEvent
from ..hub import protocol as p
from ..hub.channelmap import load_channel_map
from .classify import Calibration, HallRules
from .rand import Stream, derive

FIRMWARE = "virtual-1"


def power_on_salt() -> int:
    """A salt for a hub hosted by a new process: its boot ids differ from every
    earlier run's, as a real hub's do per power-on (firmware/PROTOCOL.md)."""
    import os

    return int.from_bytes(os.urandom(4), "little") | 1


def beam_id(kind: str, index: int) -> int:
    return index if kind == "entry" else 8 + index


class WireHub:
    def __init__(self, board, channel_map=None, heartbeat: bool = True, capacity: int = 4096, boot_salt: int = 0):
        self.board = board
        # a real Pico draws a new boot id every power-on: a process hosting the hub is one,
        # so it passes a fresh salt (the same seed alone would repeat the last run's ids)
        self.boot_salt = boot_salt
        self.cm = channel_map or load_channel_map()
        if tuple(self.cm.geometry.labels) != tuple(board.geometry.labels) or self.cm.board != board.config.board:
            raise p.ProtocolError(f"the channel map is for board {self.cm.board!r}, the virtual board is {board.config.board!r}")
        self.hub = board.hub
        self.rng = Stream(board.config.seed, "link")
        # what is wired to the hub's outputs is the channel map's to say, as on a real hub
        self.dropper = self.cm.dropper
        self.entry_leds = self.cm.entry_leds
        self.wired_beams = {b.beam for b in self.cm.beams}  # a build may sense less than the board has
        self.wired_halls = sorted(h.switch for h in self.cm.halls)
        self.capacity = capacity
        self.outbox: deque[bytes] = deque()
        self.decoder = p.Decoder("pi")
        self.seq = 0
        self.fnum = 0  # frame number since boot (seq is its low half): events keep theirs in the ring
        self.ring: deque = deque(maxlen=REPLAY_CAPACITY)  # (frame number, message) of the latest events
        self.evicted_num = -1
        self.boots = 0
        self.boot_id = self._boot_id()
        self.boot_time = 0.0
        self.plugged = True
        self.on_plug = None  # the transport's callback: on_plug(plugged: bool)
        self.saved = True
        self.leds = 0
        self.raw_interval = 0.0
        self.raw_token = 0
        self.drop_count = 0
        self.drop_p = 0.0
        self.sent = 0
        self.dropped = 0
        self.dropped_events = 0  # of those, frames that carried a board event
        self.lost = 0  # events the hub's queue could not hold
        self.lost_pending = 0
        self.rx_bad = 0  # damaged frames from the controller since boot
        self.rx_text = 0  # text lines (someone typing at the port)
        self.reported_bad = self.reported_text = 0
        self.sent_pos = {ev.switch: ev.pos for ev in board.hub.snapshot()}  # as the controller was told
        self.sent_beams = 0
        self.last_sent = 0.0
        self.last_us = 0  # the latest hub time said
        self.queued = 0  # frames waiting for the transport
        self.peak = 0  # most frames waiting since the last heartbeat
        self.heartbeat_s = self.cm.heartbeat_ms / 1000.0
        self.heartbeat = heartbeat
        board.sinks.add(self)
        board.faults.link = self
        self._send(self._hello(0))
        if heartbeat:
            board.sched.at(self.heartbeat_s, self._heartbeat, self.boots)

    # -- framing --------------------------------------------------------------

    def _boot_id(self) -> int:
        names = ("boot", self.boots) if not self.boot_salt else ("boot", self.boot_salt, self.boots)
        return derive(self.board.config.seed, *names) & 0xFFFFFFFF

    def t_us(self, t: float | None = None) -> int:
        """Hub time of board time ``t``; by default the hub's horizon (the
        earliest time an event still being confirmed can carry), as the
        firmware stamps what it says between events. Never goes backwards."""
        t = self.hub.horizon() if t is None else t
        us = max(0, round((t - self.boot_time) * 1_000_000))
        if us < self.last_us:
            us = self.last_us
        self.last_us = us
        return us

    def _send(self, msg) -> None:
        if not self.hub.on:
            return
        if len(self.outbox) >= self.capacity:  # nobody reads: the hub's queue is full
            self.lost += 1
            self.lost_pending += 1
            return
        if self.lost_pending:
            n, self.lost_pending = self.lost_pending, 0
            self._frame(p.Lost(self.t_us(), n, "queue"))
        self._frame(msg)

    def _frame(self, msg) -> None:
        line = p.encode(msg, self.seq)
        self.seq = (self.seq + 1) & 0xFFFF
        if isinstance(msg, (p.Beam, p.Hall, p.Error)) and not isinstance(msg, p.Replay):
            if len(self.ring) == self.ring.maxlen:
                self.evicted_num = self.ring[0][0]
            self.ring.append((self.fnum, msg))
        self.fnum += 1
        self.last_sent = self.board.now
        if self.drop_count > 0 or (self.drop_p and self.rng.chance(self.drop_p)):
            self.drop_count = max(0, self.drop_count - 1)
            self.dropped += 1  # lost on the line: its sequence number is gone too
            if isinstance(msg, p.Hall) or (isinstance(msg, p.Beam) and msg.broken):
                self.dropped_events += 1
            return
        self.outbox.append(line)
        self.sent += 1
        self.queued += 1
        self.peak = max(self.peak, self.queued)

    def take(self) -> bytes:
        """Everything waiting to be written, in order."""
        data = b"".join(self.outbox)
        self.outbox.clear()
        self.queued = 0
        return data

    # -- hub output (from the hub model) -------------------------------------------

    def event(self, ev) -> None:
        if isinstance(ev, SwitchEvent):
            s = self.board.geometry.index(ev.switch)
            if s not in self.wired_halls:
                return
            self.sent_pos[ev.switch] = ev.pos
            self._send(p.Hall(self.t_us(ev.t), s, ev.pos, ev.raw if ev.raw is not None else 0))
        else:
            b = beam_id("entry", ev.entry) if isinstance(ev, EntryEvent) else beam_id("exit", ev.exit)
            if b not in self.wired_beams:
                return
            self.sent_beams |= 1 << b
            self._send(p.Beam(self.t_us(ev.t), b, True))

    def clear(self, t: float, kind: str, index: int, duration: float) -> None:
        b = beam_id(kind, index)
        if b not in self.wired_beams:
            return
        self.sent_beams &= ~(1 << b)
        self._send(p.Beam(self.t_us(t), b, False, round(duration * 1_000_000)))

    def error(self, t: float, code: int, arg: int, text: str) -> None:
        self._send(p.Error(self.t_us(t), code, arg, text))

    def down(self, t: float, why: str) -> None:
        self.raw_interval = 0.0  # a restarted hub has forgotten what it was asked
        self.leds = 0
        self.decoder.reset()

    def boot(self, t: float, why: str, snapshot) -> None:
        self.boots += 1
        self.boot_id = self._boot_id()
        self.boot_time = t
        self.seq = 0
        self.fnum = 0
        self.ring.clear()
        self.evicted_num = -1
        self.last_us = 0
        self.lost_pending = 0
        self.rx_bad = self.rx_text = self.reported_bad = self.reported_text = 0
        self.sent_pos = {ev.switch: ev.pos for ev in snapshot}
        self.sent_beams = 0
        for kind, index in self.hub.beams_broken():
            self.sent_beams |= 1 << beam_id(kind, index)
        self._send(self._hello(0))
        if self.heartbeat:
            self.board.sched.at(t + self.heartbeat_s, self._heartbeat, self.boots)

    # -- link faults (from the fault state) ------------------------------------------

    def unplug(self, duration: float) -> None:
        self._plug(False)
        self.board.sched.at(self.board.now + duration, self._plug, True)

    def _plug(self, plugged: bool) -> None:
        self.plugged = plugged
        if not plugged:
            self.outbox.clear()  # what was on its way dies with the cable
            self.queued = 0
        if self.on_plug is not None:
            self.on_plug(plugged)

    def garbage(self, data: bytes) -> None:
        if self.hub.on:
            self.outbox.append(data)

    def drop_next(self, count: int) -> None:
        self.drop_count += count

    def drop_chance(self, chance: float, rng=None) -> None:
        self.drop_p = chance

    # -- messages ------------------------------------------------------------------

    def _hello(self, req: int):
        c = self.board.config
        return p.Hello(req=req, proto=p.PROTOCOL_VERSION, boot_id=self.boot_id, t_us=self.t_us(), map_hash=self.cm.map_hash,
                       beam_hz=c.beam_hz, hall_hz=c.scan_hz, heartbeat_ms=self.cm.heartbeat_ms, calibrated=True,
                       entry_leds=self.entry_leds, dropper=self.dropper, n_beams=len(self.wired_beams),
                       n_halls=len(self.wired_halls), firmware=FIRMWARE, board_id=f"virtual-{c.seed}")

    def _heartbeat(self, boots: int) -> None:
        """Every ``heartbeat_ms`` from boot, as the firmware: what it measured,
        and any damaged frames or text it had from the controller meanwhile."""
        if boots != self.boots or not self.hub.on:
            return  # a heartbeat of an earlier boot, or no power
        if self.rx_bad > self.reported_bad:
            self.reported_bad = self.rx_bad
            self._send(p.Error(self.t_us(), 1, min(self.rx_bad, 0xFFFF), f"{self.rx_bad} damaged frames from the Pi so far"))
        if self.rx_text > self.reported_text:
            self.reported_text = self.rx_text
            self._send(p.Error(self.t_us(), 8, min(self.rx_text, 0xFFFF), "text on the link ignored: this port speaks "
                                                                       "the Coindrel hub protocol; Ctrl-C stops it for the REPL"))
        peak, self.peak = self.peak, self.queued
        self._send(p.Heartbeat(self.t_us(), self.board.config.scan_hz, 900, peak, self.lost, self.rx_bad))
        self.board.sched.at(self.board.now + self.heartbeat_s, self._heartbeat, boots)

    def snapshot_msg(self, req: int):
        h = self.hub
        labels = self.board.geometry.labels
        halls = tuple(p.HallState(s, self.sent_pos[labels[s]], h.last_raw[s]) for s in self.wired_halls)
        return p.Snapshot(req, self.t_us(), self.sent_beams, halls)

    def calibration_msg(self, req: int):
        r = self.hub.rules
        cal = self.hub.cal
        halls = tuple(p.HallCal(s, cal[s].left, cal[s].right, cal[s].none, cal[s].band) for s in self.wired_halls)
        return p.Calibration(req, self.saved, r.hyst, self.hub.beam_filter, r.filter, halls)

    # -- commands from the controller ---------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Bytes from the controller, at the board's current time."""
        if not self.hub.on or not self.plugged:
            return
        for item in self.decoder.feed(data):
            if isinstance(item, p.Frame):
                self._command(item.seq, item.msg)
            elif item.kind == "text":
                self.rx_text += 1
            elif item.kind in ("encoding", "short", "crc"):
                self.rx_bad += 1

    def _command(self, req: int, msg) -> None:
        if isinstance(msg, p.HelloReq):
            self.raw_interval = 0.0  # a new connection: whoever asked for a raw stream is gone
            self.raw_token += 1
            self._send(self._hello(req))
        elif isinstance(msg, p.Resume):
            self._resume(req, msg)
        elif isinstance(msg, p.SnapshotReq):
            self._send(self.snapshot_msg(req))
        elif isinstance(msg, p.CalGet):
            self._send(self.calibration_msg(req))
        elif isinstance(msg, p.CalSet):
            self._calset(req, msg)
        elif isinstance(msg, p.RawStream):
            self.raw_interval = msg.interval_ms / 1000.0
            self.raw_token += 1
            self._send(p.Ack(req, msg.TYPE, p.OK, f"raw stream every {msg.interval_ms} ms" if msg.interval_ms else "raw stream off"))
            if self.raw_interval:
                self.board.sched.at(self.board.now + self.raw_interval, self._raw, self.raw_token)
        elif isinstance(msg, p.Outputs):
            self._outputs(req, msg)
        elif isinstance(msg, p.Reset):
            self._send(p.Ack(req, msg.TYPE, p.OK, "resetting"))
            self.hub.power_off("reset command")
            self.board.sched.at(self.board.now + 0.8, self.hub.boot, "reset command")
        elif isinstance(msg, p.Unknown):
            self._send(p.Ack(req, msg.type_code, p.UNKNOWN_COMMAND, f"unknown command 0x{msg.type_code:02x}"))
        elif isinstance(msg, p.Malformed):
            self._send(p.Ack(req, msg.type_code, p.BAD_REQUEST, msg.reason[:120]))
        else:
            self._send(p.Ack(req, getattr(msg, "TYPE", 0), p.UNKNOWN_COMMAND, f"{msg.NAME} is not a command"))

    def _resume(self, req: int, msg) -> None:
        """Every kept event after the position asked for, again (PROTOCOL.md, Resume)."""
        flags, after = 0, msg.after
        if msg.after is not None and msg.boot_id != self.boot_id:
            flags, after = 1, -1
        todo = [] if after is None else [(n, m) for n, m in self.ring if n > after]
        if after is not None and self.evicted_num > after:
            flags |= 2
        oldest, oldest_t = (self.ring[0][0], self.ring[0][1].t_us) if self.ring else (p.NOTHING, 0)
        if self.lost_pending:
            n, self.lost_pending = self.lost_pending, 0
            self._frame(p.Lost(self.t_us(), n, "queue"))
        self._send(p.Resumed(req, self.t_us(), self.fnum, flags, len(todo), oldest, oldest_t, 0))
        for n, m in todo:
            self._send(p.Replay(n, m))

    def _calset(self, req: int, msg) -> None:
        """Checked as the firmware checks it (coindrel_hub/calib.py): a bad
        request changes nothing; overlapping bands are the controller's call."""
        problem = None
        for name, v, lo, hi in (("hyst", msg.hyst, 0, 1000), ("beam_filter", msg.beam_filter, 1, 100),
                                ("hall_filter", msg.hall_filter, 1, 50)):
            if not lo <= v <= hi:
                problem = f"{name} {v} is not {lo}..{hi}"
        for h in msg.halls:
            if problem:
                break
            if h.switch not in self.wired_halls:
                problem = f"switch {h.switch} has no hall sensor on this hub"
            elif max(h.l, h.r, h.none) > 4095:
                problem = f"switch {h.switch}: reading {max(h.l, h.r, h.none)} is over 4095"
            elif not 1 <= h.band <= 2047:
                problem = f"switch {h.switch}: band {h.band} is not 1..2047"
        if problem:
            self._send(p.Ack(req, msg.TYPE, p.BAD_REQUEST, problem))
            return
        cal = list(self.hub.cal)
        for h in msg.halls:
            cal[h.switch] = Calibration(h.l, h.r, h.none, h.band)
        self.hub.set_calibration(cal, HallRules(hyst=msg.hyst, filter=msg.hall_filter), msg.beam_filter)
        self.saved = bool(msg.save)
        self._send(p.Ack(req, msg.TYPE, p.OK, "saved" if self.saved else "applied, not saved"))

    def _outputs(self, req: int, msg) -> None:
        status, text = p.OK, ""
        if msg.leds and not self.entry_leds:
            status, text = p.NOT_WIRED, "entry LEDs are not wired to the hub"
        elif self.entry_leds:
            self.leds = msg.leds
        if msg.drop != p.NO_DROP:
            if msg.drop > 7:
                self._send(p.Ack(req, msg.TYPE, p.BAD_REQUEST, f"drop entry {msg.drop} is not 0..7"))
                return
            if not self.dropper:
                status, text = p.NOT_WIRED, "the coin dropper is not wired to the hub"
            else:
                # the release opens for pulse_ms; the coin falls into the entry as it closes
                self.board.drop(msg.drop, self.board.now + msg.pulse_ms / 1000.0)
        self._send(p.Ack(req, msg.TYPE, status, text))

    def _raw(self, token: int) -> None:
        if token != self.raw_token or not self.raw_interval or not self.hub.on:
            return
        values = tuple((s, self.hub.read_now(s)) for s in self.wired_halls)
        self._send(p.Raw(self.t_us(), values))
        self.board.sched.at(self.board.now + self.raw_interval, self._raw, token)
