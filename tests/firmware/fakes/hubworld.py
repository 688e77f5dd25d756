# The whole hub (app.build with fake machine/rp2) in a simulated world, for
# the MicroPython firmware tests and bench_firmware.py: PIO-sampled beams
# through the simulated 74HC165 chain, halls through simulated muxes, commands
# in and frames out through a fake USB port, each main-loop pass costing its
# estimated RP2040 time (picotime).
import gc
import os
import time
from array import array

import faketime
import machine
import picotime
import rp2
from coindrel_hub import app, chanmap, proto
from hubframes import FakeIO, command
from mptest import eq

L_RAW, R_RAW, MID_RAW, NONE_RAW = 2980, 2330, 2650, 2048
# The first pass primes every filter in plain Python and is timed cold: long
# enough for it and the boot frames that follow it one per pass.
BOOT_US = 300000


class _OneWord:
    # The state machine as the IRQ handler sees it, holding one pushed word.
    def __init__(self):
        self.w = None

    def rx_fifo(self):
        return 0 if self.w is None else 1

    def get(self):
        w = self.w
        self.w = None
        return w


class MapWith:
    # chanmap with some values replaced (a build that wires outputs to the hub)
    def __init__(self, **changes):
        for k in dir(chanmap):
            if not k.startswith("_"):
                setattr(self, k, getattr(chanmap, k))
        for k, v in changes.items():
            setattr(self, k, v)


class World:
    def __init__(self, cal_path="cal.json", cm=chanmap, ring=256):
        # A smaller replay ring than the Pico's: this script's own compiled
        # code fragments the 192 KiB heap (mp_memory.py builds the real one).
        machine.clear()
        gc.collect()  # the test script's own compilation leaves garbage on this small heap
        faketime.set_us(1000)
        self.hall = {}  # switch id -> raw reading
        for m, ch, sw in chanmap.HALLS:
            self.hall[sw] = L_RAW
        where = {}
        for m, ch, sw in chanmap.HALLS:
            where[(m, ch)] = sw
        sel = chanmap.SELECT_PINS
        world = self

        def reader(m):
            def read():
                ch = sum(machine.level(sel[i]) << i for i in range(4))
                sw = where.get((m, ch))
                return world.hall[sw] if sw is not None else 0
            return read

        for m, p in enumerate(chanmap.ADC_PINS):
            machine.set_adc(p, reader(m))
        self.chain = rp2.HC165Chain(chanmap.LOAD_PIN, chanmap.CLOCK_PIN, chanmap.DATA_PIN)
        self.io = FakeIO()
        self.cm = cm
        # time.ticks_diff/ticks_add are C calls as on the Pico; the unix port's
        # wrap is later than the rp2's 2**30 us, which these tests never reach
        # (mp_clock tests the wrap with the fake clock's own).
        self.hub, self.stop = app.build(machine, rp2, None, os, cm, io=self.io, cal_path=cal_path,
                                        ticks_us=faketime.ticks_us, ticks_diff=time.ticks_diff,
                                        ticks_add=time.ticks_add, ring=ring)
        self.sm = self.hub.sampler.sm
        self.irq = self.sm.handler  # the firmware's hard IRQ handler
        self.sm.handler = self._record
        from collections import deque

        self.pushed = deque((), 256, 1)  # raises rather than drop a push
        self.pio_ns = faketime.now_ns
        self.t_ns = faketime.now_ns
        self.clamp = True  # cap a pass the host slowed (picotime.clamp)
        self.seq = 100
        self._fast_halls()
        self.costs = array("H")  # each pass's estimated cost (us), once given room
        self.ncost = 0
        self.stat = [[0, 0, 0], [0, 0, 0]]  # idle passes, scan passes: count, total us, slowest us

    def _fast_halls(self):
        # The mux walk timed as a Pico runs it: the select lines and ADC reads
        # the scanner makes are C calls here as there (abs(level) and a deque
        # of this scan's readings per ADC, refilled before each pass that
        # scans), so only the firmware's own work is timed and scaled; the
        # ADC's 2 us conversions are added per reading. Which sensor sits on
        # which channel is tested with the pin-level fakes (mp_halls).
        sc = self.hub.scanner
        if sc is None:
            self.dq = None
            return
        from collections import deque

        nadc = len(sc.adcs)
        self.dq = [deque((), 64) for _ in range(nadc)]
        order = []  # (adc, switch) per read, in the scanner's order
        j = 0
        for step in range(16):
            while j < sc.counts[step]:
                slot = sc.slots[j]
                m, ch, sw = self.cm.HALLS[slot]
                order.append((m, sw))
                j += 1
        self.order = order
        sc.sets = tuple(abs for _ in range(16))
        sc.reads = tuple(self.dq[m].popleft for m, sw in order)

    def _fill(self):
        for m, sw in self.order:
            self.dq[m].append(self.hall[sw] << 4)

    def beam(self, beam_id, broken):
        bit = chanmap.BIT_BEAM.index(bytes([beam_id]))
        reg = 2 - bit // 8
        if broken:
            self.chain.inputs[reg] |= 1 << (bit % 8)
        else:
            self.chain.inputs[reg] &= ~(1 << (bit % 8))

    def run(self, us):
        # The main loop as a Pico runs it: each pass takes its estimated RP2040
        # cost (picotime), while the PIO goes on sampling. The PIO is simulated
        # ahead in batches on its own clock (never past `end`, so a test's
        # change between runs meets it at the right time) and what it pushed
        # reaches the IRQ handler when the hub's clock gets there: passes run
        # back to back, as warm as on the Pico, rather than after thousands of
        # simulated PIO instructions.
        # Scenario time (when a test's changes happen) moves by exactly `us`;
        # the hub's clock may already be past it by the pass that straddles it.
        self.t_ns += int(us * 1000)
        end_ns = self.t_ns
        hub = self.hub
        step = hub.step
        while faketime.now_ns < end_ns:
            if gc.mem_free() < 32768:
                gc.collect()  # the simulation's garbage, not the firmware's: never inside a timed pass
            now = faketime.now_ns
            if self.pio_ns <= now:
                self._pio(min(now + 500000000, end_ns))
            self._deliver(now)
            scans = hub.scans
            dq = self.dq
            if dq is not None and not dq[0] and time.ticks_diff(faketime.now_us & 0x3FFFFFFF, hub.next_scan) >= 0:
                self._fill()  # this pass scans: the readings as they are now
            c = picotime.measure(step)
            scanned = hub.scans != scans
            if scanned:
                c += picotime.ADC_CONVERSION_US * len(self.order)
            if self.clamp:
                c = picotime.clamp(scanned, c)
            st = self.stat[1 if scanned else 0]
            ci = int(c)
            st[0] += 1
            st[1] += ci
            if ci > st[2]:
                st[2] = ci
            k = self.ncost
            if k < len(self.costs):
                self.costs[k] = int(c) if c < 65535 else 65535
                self.ncost = k + 1
            faketime.advance(max(c, 20))
            machine.wdt_check()
        self._pio(end_ns)  # what the PIO saw up to now reaches the hub's next pass

    def _pio(self, until_ns):
        # Run the PIO from its own time to until_ns, keeping what it pushes.
        if until_ns <= self.pio_ns:
            return
        hub_ns = faketime.now_ns
        faketime.set_ns(self.pio_ns)
        self.sm.run_us((until_ns - self.pio_ns) / 1000)
        self.pio_ns = faketime.now_ns
        faketime.set_ns(hub_ns)

    def _record(self, sm):
        while sm.rx_fifo():
            self.pushed.append((faketime.now_ns, sm.get()))

    def _deliver(self, now_ns):
        p = self.pushed
        if not p or p[0][0] > now_ns:
            return
        hub_ns = faketime.now_ns
        one = _OneWord()
        while p and p[0][0] <= now_ns:
            t, w = p.popleft()
            faketime.set_ns(t)
            one.w = w
            self.irq(one)
        faketime.set_ns(hub_ns)

    def send(self, typ, body=b""):
        self.seq += 1
        self.io.inbox += command(typ, self.seq, body)
        return self.seq

    def frames(self):
        return self.io.take()


def t_order(frames):
    ts = [f[2]["t"] for f in frames if "t" in f[2]]
    assert ts == sorted(ts), ts


def seq_run(frames, first=None):
    seqs = [f[1] for f in frames]
    if first is not None:
        eq(seqs[0], first, "first seq")
    eq(seqs, list(range(seqs[0], seqs[0] + len(seqs))), "consecutive sequence numbers")


def scan_rate(w):
    # Full hall scans per second over one heartbeat, as the hub reports it.
    w.run(BOOT_US)
    w.frames()
    w.run(600000)
    hb = [x[2] for x in w.frames() if x[0] == "heartbeat"]
    return hb[-1]["hall_hz"]


def scan_rate_ok(hz):
    # 250 Hz nominal; a cold pass after the simulation may cost a scan or two
    return 230 <= hz <= 260


def burn(us):
    # Work a Pico would spend `us` microseconds on: the reference loop itself.
    n = int(us / picotime.PICO_REF_US)
    ms = time.ticks_ms
    end = ms() + 1000000
    count = 0
    while ms() < end:
        count += 1
        if count >= n:
            break


def coins(w, beams, us=3000):
    for b in beams:
        w.beam(b, True)
        w.run(us)
        w.beam(b, False)
        w.run(us)


def resume_body(boot, after=None):
    if after is None:
        return boot + bytes([0, 0, 0, 0, 0])
    return boot + bytes([1]) + bytes([after & 255, (after >> 8) & 255, (after >> 16) & 255, after >> 24])


def resumed(w, cap_us=2000000):
    # Frames until a resume's answer and all the replays it announces have
    # come: the hub may spread a replay over passes, and on a loaded machine
    # the costed clock makes passes dearer, so a fixed window could cut one
    # answer short and leave its tail to the next (the test's own race).
    got = []
    spent = 0
    while spent < cap_us:
        w.run(10000)
        spent += 10000
        got += [x for x in w.frames() if x[0] != "heartbeat"]
        ans = [x for x in got if x[0] == "resumed"]
        if ans and sum(1 for x in got if x[0] == "replay") >= ans[0][2]["replayed"]:
            w.run(10000)  # anything that would wrongly follow has room to show
            return got + [x for x in w.frames() if x[0] != "heartbeat"]
    return got
