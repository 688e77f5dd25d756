# The hub's main loop: drain beam changes through the glitch filter, scan the
# halls when due, release events in time order, answer the Pi's commands,
# write frames while the USB link has room. Everything it touches is passed
# in (app.py wires the real hardware; tests wire fakes); nothing runs at import.
from array import array

import micropython

from . import proto
from .replay import Replay
from .ring import EV_BEAM, EV_ERROR, EV_HALL, EV_LOST, EventQueue, Stage

_WRITE_BUDGET = 16  # frames per pass, so a burst never starves the scans
_STALL_US = 20000  # a write that took longer hit the USB TX timeout: the host is not reading
_BACKOFF_US = 200000  # then no write for this long (events wait in the queue and the ring)


def beam_name(b):
    return "entry %d" % (b + 1) if b < 8 else "exit %d" % (b - 7)


class Info:
    # What the hub says about itself in its hello.
    def __init__(self, firmware, board_id, boot_id, map_hash, beam_hz, hall_hz, heartbeat_ms, n_beams, labels):
        self.firmware = firmware
        self.board_id = board_id
        self.boot_id = boot_id  # 4 bytes
        self.map_hash = map_hash  # 8 bytes
        self.beam_hz = beam_hz
        self.hall_hz = hall_hz
        self.heartbeat_ms = heartbeat_ms
        self.n_beams = n_beams
        self.labels = labels


class Hub:
    def __init__(self, io, clock, info, cal, *, sampler=None, beams=None, scanner=None, halls=None,
                 outputs=None, cal_path=None, reset=None, ticks_add=None, queue=128, collect=None, feed=None,
                 ring=None):
        self.io = io
        self.clock = clock
        self.diff = clock.diff
        self.add = ticks_add or (lambda t, d: (t + d) % clock.period)
        self.info = info
        self.cal = cal
        self.cal_path = cal_path
        self.sampler = sampler
        self.beams = beams
        self.scanner = scanner
        self.halls = halls
        self.outputs = outputs
        self.reset = reset
        self.collect = collect  # gc.collect: run when idle, so collections stay short and predictable
        self.feed = feed  # the watchdog's feed(): a pass that never ends resets the hub
        self.w = proto.Writer(self._out)
        self.tail = None  # the rest of a frame the port took only part of: sent before anything else
        self.reader = proto.Reader()
        self.stage = Stage(self.diff)
        self.fnum = 0  # frame numbers: every frame of this boot, from 0 (seq is the low 16 bits)
        self.queue = EventQueue(queue, self._alloc)
        self.ring = ring if ring is not None else Replay()
        self.replay_at = 0  # slot and count of events still to send again after a resume
        self.replay_left = 0
        self.undelivered = 0  # events released while no host read them (sent again only on resume)
        self.stalls = 0
        self.hold_until = None  # ticks before which nothing is written (after a stall)
        self.saves = 0
        self.last_beam = 0
        self.quiet_save = None  # a calibration save waiting for the beams to be quiet: (seq, deadline)
        n = halls.n if halls else 0
        self.n_halls = n
        self.raw = array("H", bytes(2 * n))
        self.sent_pos = bytearray(len(info.labels))
        self.sent_beams = 0
        self.beams_primed = False
        self.halls_primed = False
        self.control = [("hello", 0)]  # the boot hello: seq 0, req 0
        self.cmds = []
        self.last_hi = 0
        self.last_lo = 0
        self.reordered = 0
        now = clock.update()
        self.horizon = now
        self.hall_h = now
        self.hall_hold = False
        self.scan_us = 1000000 // info.hall_hz
        self.next_scan = now
        self.hb_us = info.heartbeat_ms * 1000
        self.next_hb = self.add(now, self.hb_us)
        self.raw_us = 0
        self.next_raw = now
        self.scans = 0
        self.hall_hz = 0
        self.loop_max = 0
        self.reported_bad = 0
        self.reported_text = 0
        self.errors = 0
        # bound once: a bound method made in the loop would allocate every pass
        self._put = self._stage_put
        self._rel = self._release
        self._feed = self._feed_beam
        self.apply_calibration()

    def apply_calibration(self):
        c = self.cal
        if self.halls:
            self.halls.calibrate(c.refs_by_slot(), c.hyst)
            self.halls.scans = c.hall_filter
        if self.beams:
            self.beams.set_samples(c.beam_filter)

    # -- the loop ---------------------------------------------------------
    @micropython.native
    def step(self):
        # Every check is done here before any call: on a Pico a Python call
        # costs 10-20 us, and an idle pass should cost next to nothing.
        now = self.clock.update()  # read before draining: a change recorded later is later than now
        diff = self.diff
        horizon = now
        sampler = self.sampler
        if sampler:
            lost = sampler.take_lost()
            if lost:
                self._stage_put(now, EV_LOST, lost, 0, 0)
                sampler.resync()  # the PIO pushes its next sample whatever it is
            st = sampler.st
            if st[0] != st[1]:
                sampler.drain(self._feed)
            beams = self.beams
            if beams.pending or beams.stable:
                beams.poll(now, self._put)
            if beams.pending:
                horizon = beams.horizon(now)
            if not self.beams_primed and beams.primed:
                self.beams_primed = True
                self.sent_beams = beams.beams_broken()
        if self.scanner and diff(now, self.next_scan) >= 0:
            self._scan(now)
        if self.hall_hold and diff(self.hall_h, horizon) < 0:
            horizon = self.hall_h
        if self.stage.n:
            self.stage.release(horizon, self._rel)
        self.horizon = horizon
        data = self.io.read()
        if data:
            self.reader.feed(data, self.cmds)
            while self.cmds:
                typ, seq, body = self.cmds.pop(0)
                self.command(typ, seq, body)
        if self.outputs:
            self.outputs.poll(now)
        self._write(now)
        if self.quiet_save is not None:
            self._try_save(now)
        d = diff(self.clock.ticks_us(), now)
        if d > self.loop_max:
            self.loop_max = d
        if self.feed is not None:
            self.feed()

    def _scan(self, now):
        self.scanner.scan(self.raw)
        h = self.halls.update(self.raw, now, self._put)
        self.hall_hold = h is not None
        if h is not None:
            self.hall_h = h
        self.scans += 1
        self.next_scan = self.add(self.next_scan, self.scan_us)
        if self.diff(now, self.next_scan) > self.scan_us:
            self.next_scan = self.add(now, self.scan_us)  # fell behind: do not try to catch up
        if not self.halls_primed:
            self.halls_primed = True
            for i in range(self.n_halls):
                self.sent_pos[self.halls.switches[i]] = self.halls.rep[i]

    def _alloc(self):
        n = self.fnum
        self.fnum = n + 1
        return n

    def _out(self, data):
        # One frame line to the port. What the port did not take is kept and
        # sent before anything else, so a frame is never split by another.
        io = self.io
        t0 = self.clock.ticks_us()
        n = io.write(data)
        short = n is not None and n < len(data)
        if short:
            self.tail = memoryview(data)[n:]
        # Part of a frame taken, or a slow write: the TX timeout ran out.
        if short or self.diff(self.clock.ticks_us(), t0) > _STALL_US:
            self.stalls += 1
            self.hold_until = self.add(self.clock.ticks_us(), _BACKOFF_US)

    def _feed_beam(self, t, w):
        self.beams.feed(t, w, self._put)

    def _stage_put(self, t, kind, a, b, c):
        self.stage.put(t, kind, a, b, c, self._rel)

    def _release(self, t, kind, a, b, c):
        hi, lo = self.clock.extend(t)
        if hi < self.last_hi or (hi == self.last_hi and lo < self.last_lo):
            self.reordered += 1  # cannot happen while the stage holds; never send time backwards
            hi, lo = self.last_hi, self.last_lo
        self.last_hi, self.last_lo = hi, lo
        if kind == EV_BEAM:
            self.last_beam = t
            if b:
                self.sent_beams |= 1 << a
            else:
                self.sent_beams &= ~(1 << a)
        elif kind == EV_HALL:
            self.sent_pos[a] = b
        n = self.queue.put(kind, a, b, c, hi, lo)
        self.ring.put(n, kind, a, b, c, hi, lo)

    def internal_error(self, e):
        # An exception escaped a pass: say so (at most a few times) and go on.
        self.errors += 1
        if self.errors <= 5 or self.errors % 1000 == 0:
            self.control.append(("err", proto.E_INTERNAL, min(self.errors, 0xFFFF), "%s: %s" % (type(e).__name__, e)))

    # -- commands ---------------------------------------------------------
    def command(self, typ, seq, body):
        c = self.control
        try:
            if typ == proto.HELLO_REQ:
                c.append(("hello", seq))
                self.raw_us = 0  # a new connection: whoever asked for a raw stream is gone
            elif typ == proto.SNAPSHOT_REQ:
                c.append(("snap", seq))
            elif typ == proto.CAL_GET:
                c.append(("cal", seq))
            elif typ == proto.CAL_SET:
                self._cal_set(seq, body)
            elif typ == proto.RAW_STREAM:
                ms = proto.decode_u16(body)
                self.raw_us = ms * 1000
                c.append(("ack", seq, typ, proto.OK, "raw stream every %d ms" % ms if ms else "raw stream off"))
            elif typ == proto.OUTPUTS:
                self._outputs(seq, body)
            elif typ == proto.RESUME:
                boot, mode, after = proto.decode_resume(body)
                c.append(("resumed", seq, boot, mode, after))
            elif typ == proto.RESET:
                c.append(("ack", seq, typ, proto.OK, "resetting"))
                c.append(("reset",))
            else:
                c.append(("ack", seq, typ, proto.UNKNOWN_COMMAND, "unknown command 0x%02x" % typ))
        except ValueError as e:
            c.append(("ack", seq, typ, proto.BAD_REQUEST, str(e)))

    def _cal_set(self, seq, body):
        save, hyst, bf, hf, items = proto.decode_cal_set(body)
        self.cal.set(hyst, bf, hf, items)
        self.apply_calibration()
        if save and self.cal_path:
            # Flash is written with interrupts off: beam changes then would be
            # stamped late. Wait (up to 2 s) until no beam is on its way.
            self.quiet_save = (seq, self.add(self.clock.last, 2000000))
            return
        self.control.append(("ack", seq, proto.CAL_SET, proto.OK, "applied, not saved"))

    def _beams_quiet(self, now):
        b = self.beams
        if b is None:
            return True
        return not b.pending and not self.stage.n and self.diff(now, self.last_beam) > 100000 \
            and self.sampler.st[0] == self.sampler.st[1]

    def _try_save(self, now):
        seq, deadline = self.quiet_save
        late = self.diff(now, deadline) >= 0
        if not late and not self._beams_quiet(now):
            return
        self.quiet_save = None
        try:
            self.cal.save(self.cal_path)
        except OSError as e:
            self.control.append(("ack", seq, proto.CAL_SET, proto.FAILED, "saving to flash failed: %s" % e))
            return
        self.saves += 1
        self.control.append(("ack", seq, proto.CAL_SET, proto.OK,
                             "saved (beams were busy for 2 s: changes during the write may be stamped late)" if late else "saved"))

    def _outputs(self, seq, body):
        leds, drop, pulse = proto.decode_outputs(body)
        o = self.outputs
        status, text = proto.OK, ""
        if leds and (o is None or o.leds is None):
            status, text = proto.NOT_WIRED, "entry LEDs are not wired to the hub"
        elif o is not None and o.leds is not None:
            o.set_leds(leds)
        if drop != 0xFF:
            if drop > 7:
                raise ValueError("drop entry %d is not 0..7" % drop)
            if o is None or o.drop_pins is None:
                status, text = proto.NOT_WIRED, "the coin dropper is not wired to the hub"
            else:
                o.drop(drop, pulse, self.clock.last)
        self.control.append(("ack", seq, proto.OUTPUTS, status, text))

    # -- writing ----------------------------------------------------------
    def _write(self, now):
        q = self.queue
        io = self.io
        if self.tail is None and not q.count and not q.dropped and not self.control and not self.replay_left \
                and self.diff(now, self.next_hb) < 0 and not (self.raw_us and self.diff(now, self.next_raw) >= 0):
            return  # nothing to send: no poll of the port, no allocation
        if not io.host():
            # Nobody has the port open: what would be written vanishes. Events
            # stay in the replay ring for the Pi's resume; only count them.
            self.undelivered += q.clear()
            self.tail = None
            self.replay_left = 0
            if self.control:
                self.control = [x for x in self.control if x[0] == "reset"]
            if self.diff(now, self.next_hb) >= 0:
                self.next_hb = self.add(now, self.hb_us)
                if self.collect is not None:
                    self.collect()
            return
        if self.hold_until is not None:
            if self.diff(now, self.hold_until) < 0:
                return
            self.hold_until = None
        if self.tail is not None:
            if not io.can_write():
                return
            t, self.tail = self.tail, None
            self._out(t)
            if self.tail is not None:
                return
        w = self.w
        budget = _WRITE_BUDGET
        while self.replay_left and budget and io.can_write() and self.tail is None and self.hold_until is None:
            self._replay_one()
            budget -= 1
        while q.count and budget and io.can_write() and self.tail is None and self.hold_until is None:
            j = q.first()
            r = q.rec
            kind, a, b, c, hi, lo = r[j], r[j + 1], r[j + 2], r[j + 3], r[j + 4], r[j + 5]
            w.seq = r[j + 6] & 0xFFFF
            q.pop()
            self._event(kind, a, b, c, hi, lo)
            budget -= 1
        if q.count or self.replay_left or not budget or self.tail is not None or self.hold_until is not None \
                or not io.can_write():
            return
        hi, lo = self.clock.extend(self.horizon)
        if hi < self.last_hi or (hi == self.last_hi and lo < self.last_lo):
            hi, lo = self.last_hi, self.last_lo
        if q.dropped:
            q.flush_lost(hi, lo)
            return
        if self.control:
            item = self.control.pop(0)
            if item[0] != "reset":
                w.seq = self._alloc() & 0xFFFF
            self._control(item, hi, lo)
        elif self.diff(now, self.next_hb) >= 0:
            w.seq = self._alloc() & 0xFFFF
            self._heartbeat(now, hi, lo)
        elif self.raw_us and self.diff(now, self.next_raw) >= 0:
            self.next_raw = self.add(now, self.raw_us)
            w.seq = self._alloc() & 0xFFFF
            self.w.raw(hi, lo, self.halls.switches, self.raw, self.n_halls)

    def _event(self, kind, a, b, c, hi, lo):
        w = self.w
        if kind == EV_BEAM:
            w.beam(hi, lo, a, b, c)
        elif kind == EV_HALL:
            w.hall(hi, lo, a, b, c)
        elif kind == EV_LOST:
            w.lost(hi, lo, a, b)
        elif kind == EV_ERROR:
            w.error(hi, lo, a, b, self._error_text(a, b, c))

    def _replay_one(self):
        g = self.ring
        i = self.replay_at
        self.replay_at = (i + 1) % g.cap
        self.replay_left -= 1
        self.w.seq = self._alloc() & 0xFFFF
        num, c, lo, hi, kind, a, b = g.get(i)
        self.w.replay_num = num
        self._event(kind, a, b, c, hi, lo)

    def _resumed(self, req, boot, mode, after, hi, lo):
        g = self.ring
        flags = 0
        if mode == 0:
            first, n = g.head, 0
        else:
            if boot != self.info.boot_id:
                flags |= 1  # the events it had were another boot's: this boot's from the start
                after = -1
            first, n, gone = g.after(after)
            if gone:
                flags |= 2
        if g.count:
            oldest, _c, olo, ohi, _k, _a, _b = g.get(g.oldest())
        else:
            oldest, ohi, olo = 0xFFFFFFFF, 0, 0
        num = self.fnum - 1  # this frame's own number (allocated just before)
        self.w.resumed(req, hi, lo, num, flags, n, oldest, ohi, olo, self.undelivered)
        self.replay_at = first
        self.replay_left = n

    def _heartbeat(self, now, hi, lo):
        self.hall_hz = self.scans * 1000 // self.info.heartbeat_ms
        self.scans = 0
        self.next_hb = self.add(self.next_hb, self.hb_us)
        if self.diff(now, self.next_hb) > 0:
            self.next_hb = self.add(now, self.hb_us)
        r = self.reader
        if r.bad > self.reported_bad:
            self.reported_bad = r.bad
            self.control.append(("err", proto.E_BAD_FRAME, min(r.bad, 0xFFFF), "%d damaged frames from the Pi so far" % r.bad))
        if r.text > self.reported_text:
            self.reported_text = r.text
            self.control.append(("err", proto.E_TEXT_INPUT, min(r.text, 0xFFFF),
                                 "text on the link ignored: this port speaks the Coindrel hub protocol; Ctrl-C stops it for the REPL"))
        self.w.heartbeat(hi, lo, self.hall_hz, self.loop_max, self.queue.peak, self.queue.lost_total, r.bad)
        self.loop_max = 0
        self.queue.peak = self.queue.count
        if self.collect is not None:
            self.collect()

    def _control(self, item, hi, lo):
        kind = item[0]
        w = self.w
        if kind == "hello":
            i = self.info
            flags = (1 if self.cal.complete else 0) | (2 if self.outputs and self.outputs.leds else 0) \
                | (4 if self.outputs and self.outputs.drop_pins else 0)
            w.hello(item[1], i.boot_id, hi, lo, i.map_hash, i.beam_hz, i.hall_hz, i.heartbeat_ms, flags,
                    i.n_beams, self.n_halls, i.firmware, i.board_id)
        elif kind == "snap":
            sw = self.halls.switches if self.halls else b""
            pos = bytearray(self.n_halls)
            for k in range(self.n_halls):
                pos[k] = self.sent_pos[sw[k]]
            w.snapshot(item[1], hi, lo, self.sent_beams, sw, pos, self.raw, self.n_halls)
        elif kind == "cal":
            c = self.cal
            w.calibration(item[1], 1 if c.saved else 0, c.hyst, c.beam_filter, c.hall_filter, c.items())
        elif kind == "ack":
            w.ack(item[1], item[2], item[3], item[4])
        elif kind == "err":
            w.error(hi, lo, item[1], item[2], item[3])
        elif kind == "resumed":
            self._resumed(item[1], item[2], item[3], item[4], hi, lo)
        elif kind == "reset" and self.reset:
            self.reset()

    def _error_text(self, code, arg, extra):
        if code == proto.E_BEAM_BLOCKED:
            return "%s beam broken for over %d s: something is in it, or it is misaligned" % (
                beam_name(arg), self.beams.blocked_us // 1000000 if self.beams else 0)
        if code == proto.E_HALL_RANGE:
            return "%s hall reads %d, at a supply rail: sensor unplugged, miswired or shorted" % (self.info.labels[arg], extra)
        return ""
