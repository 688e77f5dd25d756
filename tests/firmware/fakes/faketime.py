# A controllable microsecond clock with the rp2's 2**30 ticks period.
PERIOD = 1 << 30
now_us = 0.0


def ticks_us():
    return int(now_us) & (PERIOD - 1)


def ticks_diff(a, b):
    d = (a - b) & (PERIOD - 1)
    return d - PERIOD if d >= PERIOD // 2 else d


def ticks_add(a, d):
    return (a + d) & (PERIOD - 1)


def advance(us):
    global now_us
    now_us += us


def set_us(us):
    global now_us
    now_us = us
