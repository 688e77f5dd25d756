# The hub's main loop: drain beam changes through the glitch filter, scan the
# halls when due, release events in time order, then answer the Pi's
# commands (commands.py) and write frames while the USB link has room
# (send.py). Everything it touches is passed in (app.py wires the real
# hardware; tests wire fakes); nothing runs at import.
from array import array

import micropython

from . import proto
from .commands import Commands
from .replay import Replay
from .ring import EV_BEAM, EV_HALL, EV_LOST, EventQueue, Stage


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


class Hub(Commands):
    # The loop itself; answering commands (commands.py) and writing frames
    # (send.py) are the bases it is built on.
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
