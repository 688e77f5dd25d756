# A controllable microsecond clock with the rp2's 2**30 ticks period. Each
# call is charged as the C call it stands for (picotime).
import picotime

_us = picotime._us
_diff = picotime._diff
_hw = picotime.hw
PERIOD = 1 << 30
now_ns = 0  # integer nanoseconds: advancing never allocates a float
now_us = 0


def ticks_us():
    t0 = _us()
    r = now_us & 0x3FFFFFFF
    h = _hw
    h[0] += _diff(_us(), t0)
    h[1] += 15  # picotime.TICKS_US
    h[2] += 1
    return r


def ticks_diff(a, b):
    t0 = _us()
    d = (a - b) & 0x3FFFFFFF
    if d >= 0x20000000:
        d -= 0x40000000
    h = _hw
    h[0] += _diff(_us(), t0)
    h[1] += 15
    h[2] += 1
    return d


def ticks_add(a, d):
    t0 = _us()
    r = (a + d) & 0x3FFFFFFF
    h = _hw
    h[0] += _diff(_us(), t0)
    h[1] += 15
    h[2] += 1
    return r


def advance(us):
    advance_ns(int(us * 1000))


def advance_ns(ns):
    global now_ns, now_us
    now_ns += ns
    now_us = now_ns // 1000


def set_us(us):
    global now_ns, now_us
    now_ns = int(us * 1000)
    now_us = now_ns // 1000


def set_ns(ns):
    global now_ns, now_us
    now_ns = ns
    now_us = ns // 1000
