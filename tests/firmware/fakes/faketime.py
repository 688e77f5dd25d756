# A controllable microsecond clock with the rp2's 2**30 ticks period. Each
# call is charged as the C call it stands for (picotime).
import picotime

_us = picotime._us
_diff = picotime._diff
_hw = picotime.hw
_leak = picotime.leak
PERIOD = 1 << 30
now_us = 0.0


def ticks_us():
    t0 = _us()
    r = int(now_us) & 0x3FFFFFFF
    h = _hw
    h[0] += _diff(_us(), t0) + _leak[0]
    h[1] += 1.5  # picotime.TICKS_US
    return r


def ticks_diff(a, b):
    t0 = _us()
    d = (a - b) & 0x3FFFFFFF
    if d >= 0x20000000:
        d -= 0x40000000
    h = _hw
    h[0] += _diff(_us(), t0) + _leak[0]
    h[1] += 1.5
    return d


def ticks_add(a, d):
    t0 = _us()
    r = (a + d) & 0x3FFFFFFF
    h = _hw
    h[0] += _diff(_us(), t0) + _leak[0]
    h[1] += 1.5
    return r


def advance(us):
    global now_us
    now_us += us


def set_us(us):
    global now_us
    now_us = us
