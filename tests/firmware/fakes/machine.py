# Fake machine module for running the hub firmware under the unix MicroPython.
# Pin levels live in one table; simulated devices (the 74HC165 chain, the hall
# muxes) listen to pin changes and drive the pins and ADCs the firmware reads.
# Each call the firmware makes is timed and charged as the real call's cost
# (picotime), so the simulated chips behind a pin cost the firmware nothing.
import picotime
from picobase import Mem, PinBase, ResetCalled, Timer, disable_irq, enable_irq, freq, idle  # noqa: F401

_us = picotime._us
_diff = picotime._diff
_hw = picotime.hw
_levels = {}
_listeners = {}
_adc = {}
resets = 0


def level(pin):
    return _levels.get(pin, 0)


def set_level(pin, v):
    v = 1 if v else 0
    if _levels.get(pin) != v:
        _levels[pin] = v
        for f in _listeners.get(pin, ()):
            f(v)


def listen(pin, fn):
    _listeners.setdefault(pin, []).append(fn)


def set_adc(pin, fn):
    _adc[pin] = fn


def clear():
    global _wdt
    _wdt = None
    _levels.clear()
    _listeners.clear()
    _adc.clear()


class Pin(PinBase):
    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        if value is not None:
            set_level(id, value)

    def init(self, mode=-1, pull=-1, value=None):
        if value is not None:
            set_level(self.id, value)

    def value(self, v=None):
        t0 = _us()
        if v is None:
            r = level(self.id)
        else:
            r = set_level(self.id, v)
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += 30  # picotime.PIN_US
        h[2] += 1
        return r

    def on(self):
        set_level(self.id, 1)

    def off(self):
        set_level(self.id, 0)


class ADC:
    def __init__(self, pin):
        self.pin = pin if isinstance(pin, int) else pin.id

    def read_u16(self):
        t0 = _us()
        v = _adc.get(self.pin, 0)
        v = v() if callable(v) else v
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += 50  # picotime.ADC_US
        h[2] += 1
        return (v << 4) | (v >> 8)  # 12-bit reading scaled to 16 bits as the rp2 port does


class _Mem(Mem):
    def __getitem__(self, a):
        t0 = _us()
        v = self.d.get(a, 0)
        h = _hw
        h[0] += _diff(_us(), t0)
        h[1] += 10  # picotime.MEM_US
        h[2] += 1
        return v


mem32 = _Mem()


def unique_id():
    return b"\xe6\x61\x4c\x31\x1b\x7e\x6d\x2a"


def reset():
    global resets
    resets += 1
    raise ResetCalled()


class WDT:
    # The watchdog: not fed within `timeout` ms of the fake clock, it resets
    # the hub (machine.reset). The harness calls check() after every pass.
    last = None

    def __init__(self, id=0, timeout=5000):
        import faketime

        global _wdt
        self._ft = faketime
        self.timeout_us = timeout * 1000
        self.fed = faketime.now_us
        _wdt = self

    def feed(self):
        self.fed = self._ft.now_us


_wdt = None


def wdt_check():
    w = _wdt
    if w is not None and w._ft.now_us - w.fed > w.timeout_us:
        reset()
