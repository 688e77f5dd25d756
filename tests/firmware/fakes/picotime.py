# What code run under the unix port would cost on a 125 MHz RP2040.
#
# Method: the firmware's Python work is timed with the unix port's real clock
# and multiplied by a factor measured in the same process: the MicroPython
# performance-test loop (`while ticks_ms() < end: count += 1`) runs 7.98 us per
# iteration on a 125 MHz RP2040 (MicroPython 1.23), so factor = 7.98 / this
# interpreter's time per iteration. Time spent inside the fake hardware (pins,
# ADCs, the simulated chips behind them) is taken out and replaced by what the
# real call costs: PIN_US per Pin.value (a C method call, the second reference
# loop: about 3 us per call in a `p.value(v)` loop) and ADC_US per
# ADC.read_u16 (the same call plus the 2 us conversion at 500 ksps).
# The other fakes are charged the same way: the fake clock's ticks functions
# (C calls on a Pico), a register read, the USB port's poll and write.
# One measurement disturbed by the host (a preemption, another process) is
# clamped to a few times the usual cost of the same kind of pass, so a test
# never depends on how busy this machine is.
import time

PICO_REF_US = 7.98
# Modelled Pico cost of each fake call, in 0.1 us (the fakes charge these).
PIN = 30  # Pin.value
ADC = 50  # ADC.read_u16
TICKS = 15  # time.ticks_us / ticks_diff / ticks_add
MEM = 10  # machine.mem32[...]
USB_POLL = 30  # one poll of the USB port
USB_WRITE = 150  # one frame into the USB CDC buffer
ADC_CONVERSION_US = 2.0  # per reading, 500 ksps (RP2040 datasheet)

# unix us inside fake hardware calls, modelled Pico cost of them in 0.1 us,
# number of calls: small ints only, so the accounting never allocates (an
# allocation would bring the garbage collector into the pass being timed).
hw = [0, 0, 0]
factor = 0.0
leak = [0.0]  # unix us per fake call that its own timing cannot see (the call itself)
_hist = {}


def _ref_once(run_us=40):
    # The reference loop, bounded by ticks_us instead of ticks_ms (the same
    # bytecode and the same kind of C call) so one run is short enough that
    # the host rarely interrupts it.
    us = time.ticks_us
    t0 = us()
    end = t0 + run_us
    count = 0
    while us() < end:
        count += 1
    if not count:
        return _ref_once(run_us)  # the host took the whole run away: again
    return time.ticks_diff(us(), t0) / count


_refs = []
_calls = [0]


def probe(v):
    # Shaped like every fake hardware call (see machine.Pin.value), to measure
    # what such a call costs beyond the time it measures inside itself.
    t0 = _us()
    h = hw
    h[0] += _diff(_us(), t0)
    h[1] += 0
    h[2] += 1
    return v


def _leak():
    f = probe
    best = None
    for _ in range(25):
        h0 = hw[0]
        t0 = _us()
        for _ in range(40):
            f(1)
        dt = _diff(_us(), t0) - (hw[0] - h0)
        best = dt if best is None or dt < best else best
    leak[0] = best / 40
    hw[0] = hw[1] = hw[2] = 0


def calibrate(runs=51):
    # -> Pico us per unix us. The host's speed drifts (another process on the
    # same core slows this one for a while), so the reference is re-measured
    # every few passes and the median of the last 51 short runs is used.
    global factor
    if not factor:
        _leak()
    for _ in range(runs):
        _refs.append(_ref_once())
    while len(_refs) > 51:
        _refs.pop(0)
    s = sorted(_refs)
    factor = PICO_REF_US / s[len(s) // 2]
    return factor


_us = time.ticks_us
_diff = time.ticks_diff


def measure(fn):
    # Runs fn() and returns its estimated Pico cost in us (clamp() it).
    c = _calls
    c[0] += 1
    if not factor:
        calibrate()
    elif c[0] % 8 == 0:
        calibrate(5)
    h = hw
    u0 = h[0]
    p0 = h[1]
    n0 = h[2]
    t0 = _us()
    fn()
    dt = _diff(_us(), t0) - (h[0] - u0) - leak[0] * (h[2] - n0)
    return max(dt, 0) * factor + (h[1] - p0) / 10


FIRST_CAP_US = 20000


def clamp(kind, est):
    # Keep the last 15 estimates of this kind of pass; cap at 3x their median
    # (at FIRST_CAP_US while fewer than 5 are known: the first, cold passes).
    hist = _hist.get(kind)
    if hist is None:
        hist = _hist[kind] = []
    capped = est if est < FIRST_CAP_US else FIRST_CAP_US
    if len(hist) >= 5:
        s = sorted(hist)
        cap = 3 * s[len(s) // 2]
        if est > cap:
            capped = cap
    hist.append(est)
    if len(hist) > 15:
        hist.pop(0)
    return capped
