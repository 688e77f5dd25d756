# The Pico's machine module as the firmware-in-the-loop sim gives it to the
# real firmware (run by host.py under the unix MicroPython): pins and ADCs
# driven by the virtual board's physics, the watchdog and reset as on the
# rp2. Levels live in one table; the hall muxes' select lines pick which
# sensor an ADC reads.
import simclock
from picobase import Mem, PinBase, ResetCalled, Timer, disable_irq, enable_irq, freq, idle  # noqa: F401

_levels = {}
_select = {}  # select pin -> its bit in the mux channel
channel = [0]  # the channel the select lines pick now
_adc = {}  # ADC pin -> (mux, readings by channel: a list the host fills)


def wire(select_pins, adc_pins, readings):
    for i, p in enumerate(select_pins):
        _select[p] = i
    for m, p in enumerate(adc_pins):
        _adc[p] = readings[m]


class Pin(PinBase):
    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.bit = _select.get(id)
        if value is not None:
            self.value(value)

    def init(self, mode=-1, pull=-1, value=None):
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return _levels.get(self.id, 0)
        v = 1 if v else 0
        _levels[self.id] = v
        b = self.bit
        if b is not None:
            c = channel[0]
            channel[0] = (c | (1 << b)) if v else (c & ~(1 << b))
        return None

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class ADC:
    def __init__(self, pin):
        pin = pin if isinstance(pin, int) else pin.id
        self.chans = _adc[pin]

    def read_u16(self):
        v = self.chans[channel[0]]
        return (v << 4) | (v >> 8)  # 12 bits scaled to 16, as the rp2 port does


mem32 = Mem()
_wdt = [None]


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout_us = timeout * 1000
        self.fed = simclock.now[0]
        _wdt[0] = self

    def feed(self):
        self.fed = simclock.now[0]


def wdt_expired():
    w = _wdt[0]
    return w is not None and simclock.now[0] - w.fed > w.timeout_us


_uid = [b"\x00" * 8]


def unique_id():
    return _uid[0]


def reset():
    raise ResetCalled()
