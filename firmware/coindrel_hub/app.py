# Wires the real Pico to the hub and runs it: the only module that touches
# machine, rp2 and the USB serial port. main.py calls run(); build() is what
# the tests call with fake machine/rp2 modules. Nothing runs at import.
import gc
import sys
import time

import micropython

from . import VERSION
from .beams import CYCLES_PER_SAMPLE, BeamFilter, BeamSampler, pio_program
from .calib import PATH, Calibration
from .clock import Clock
from .halls import Halls, HallScanner
from .hub import Hub, Info
from .outputs import Outputs
from .proto import E_CAL_INVALID
from .replay import Replay

PIO0_FDEBUG = 0x50200008  # RXSTALL is bit 0 for state machine 0 (write 1 to clear)


class UsbIO:
    # The USB serial port as the hub sees it: non-blocking reads, writes only
    # while the host has room (a full buffer is not written into).
    def __init__(self, select, stdin=None, stdout=None, dtr=None):
        self.dtr = dtr
        self.inp = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.rd = select.poll()
        self.rd.register(self.inp, select.POLLIN)
        self.wr = select.poll()
        self.wr.register(self.out, select.POLLOUT)
        self._in = self.inp.buffer if hasattr(self.inp, "buffer") else self.inp
        self._out = self.out.buffer if hasattr(self.out, "buffer") else self.out

    def read(self):
        # Whatever has arrived, up to 256 bytes, without waiting.
        data = None
        while data is None or len(data) < 256:
            ready = False
            for _ in self.rd.ipoll(0):
                ready = True
            if not ready:
                break
            b = self._in.read(1)
            if not b:
                break
            if data is None:
                data = bytearray()
            data += b
        return data

    def can_write(self):
        for _ in self.wr.ipoll(0):
            return True
        return False

    def host(self):
        # Whether a host has the port open (DTR). MicroPython's built-in USB
        # serial does not tell Python, and with no host it reports room and
        # swallows writes; the replay ring and the Pi's resume on every
        # connect make what vanished come back. A port that knows (dtr) says.
        d = self.dtr
        return True if d is None else d()

    def write(self, data):
        # -> bytes taken; the port may take part of a frame after its TX timeout
        n = self._out.write(data)
        return len(data) if n is None else n


def _board_id(machine):
    from binascii import hexlify

    return hexlify(machine.unique_id()).decode()


WDT_MS = 3000  # longer than any pass, a flash write included; the rp2 allows up to 8388


def build(machine, rp2, select, os, cm, io=None, cal_path=PATH, ticks_us=None, ticks_diff=None, ticks_add=None,
          ring=None):
    # -> (hub, stop). cm is the generated channel map module.
    ticks_us = ticks_us or time.ticks_us
    ticks_diff = ticks_diff or time.ticks_diff
    ticks_add = ticks_add or time.ticks_add
    Pin = machine.Pin
    clock = Clock(ticks_us, ticks_diff)
    switches = bytes(h[2] for h in cm.HALLS)
    cal = Calibration(cm.LABELS, switches)
    problem = cal.load(cal_path)

    sampler = BeamSampler(ticks_us)
    n_beams = sum(1 for b in cm.BIT_BEAM if b != 255)
    invert = 0 if cm.BROKEN_LEVEL else (1 << len(cm.BIT_BEAM)) - 1
    beams = BeamFilter(cm.BIT_BEAM, ticks_diff, 1000000 // cm.SAMPLE_HZ, cal.beam_filter, invert)
    sm = rp2.StateMachine(0, pio_program(rp2), freq=cm.SAMPLE_HZ * CYCLES_PER_SAMPLE,
                          set_base=Pin(cm.LOAD_PIN), sideset_base=Pin(cm.CLOCK_PIN), in_base=Pin(cm.DATA_PIN, Pin.IN))
    sampler.sm = sm

    def stalled():
        if machine.mem32[PIO0_FDEBUG] & 1:
            machine.mem32[PIO0_FDEBUG] = 1
            return True
        return False

    sampler.stalled = stalled
    sm.irq(sampler.irq, hard=True)

    scanner = halls = None
    if cm.HALLS:
        select_pins = [Pin(p, Pin.OUT) for p in cm.SELECT_PINS]
        adcs = [machine.ADC(p) for p in cm.ADC_PINS]
        scanner = HallScanner(select_pins, adcs, cm.HALLS)
        halls = Halls(switches, ticks_diff, cal.hall_filter)

    outputs = None
    if cm.ENTRY_LED_PINS or cm.DROPPER_PINS:
        leds = [Pin(p, Pin.OUT) for p in cm.ENTRY_LED_PINS] if cm.ENTRY_LED_PINS else None
        drops = [Pin(p, Pin.OUT) for p in cm.DROPPER_PINS] if cm.DROPPER_PINS else None
        outputs = Outputs(leds, drops, cm.OUTPUT_LEVEL, ticks_diff)

    info = Info(VERSION, _board_id(machine), os.urandom(4), cm.MAP_HASH, cm.SAMPLE_HZ, cm.SCAN_HZ,
                cm.HEARTBEAT_MS, n_beams, cm.LABELS)
    wdt = machine.WDT(timeout=WDT_MS)
    hub = Hub(io or UsbIO(select), clock, info, cal, ring=Replay(ring) if ring else None, sampler=sampler, beams=beams, scanner=scanner,
              halls=halls, outputs=outputs, cal_path=cal_path, reset=machine.reset, ticks_add=ticks_add,
              collect=gc.collect, feed=wdt.feed)
    if problem:
        hub.control.append(("err", E_CAL_INVALID, 0, problem))
    led = Pin(cm.STATUS_LED_PIN, Pin.OUT) if cm.STATUS_LED_PIN is not None else None
    if led:
        led.value(1)
    sm.exec("mov(y, invert(null))")  # the first sample is always pushed: it primes the filter
    sm.active(1)

    def stop():
        # The watchdog cannot be stopped: at the REPL (Ctrl-C, mpremote) a
        # timer feeds it instead, until a reset runs main.py again.
        hub.keepalive = machine.Timer(period=WDT_MS // 3, callback=lambda t: wdt.feed())
        sm.active(0)
        sm.irq(None)
        if outputs:
            outputs.end_pulse()
            outputs.set_leds(0)
        if led:
            led.value(0)

    return hub, stop


def run():
    import machine
    import rp2
    import select
    import os

    from . import chanmap

    micropython.alloc_emergency_exception_buf(128)
    hub, stop = build(machine, rp2, select, os, chanmap)
    try:
        while True:
            try:
                hub.step()
            except KeyboardInterrupt:
                raise
            except Exception as e:  # noqa: BLE001 - report and keep sensing
                hub.internal_error(e)
    finally:
        stop()
