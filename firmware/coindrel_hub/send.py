# Writing frames: events in order from the queue, replays after a resume,
# then control frames (hello, snapshot, calibration, acks, errors,
# heartbeats, raw) stamped with the time all events have been sent up to.
# USB as it is: nothing is written while the host is away, a frame the port
# took only part of is finished first, a write that hit the TX timeout holds
# writing back. Nothing runs at import.
from . import proto
from .ring import EV_BEAM, EV_ERROR, EV_HALL, EV_LOST

_WRITE_BUDGET = 16  # frames per pass, so a burst never starves the scans
_STALL_US = 20000  # a write that took longer hit the USB TX timeout: the host is not reading
_BACKOFF_US = 200000  # then no write for this long (events wait in the queue and the ring)


def beam_name(b):
    return "entry %d" % (b + 1) if b < 8 else "exit %d" % (b - 7)


class Sender:
    # Mixed into Hub (hub.py), whose __init__ sets every attribute used here.
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
