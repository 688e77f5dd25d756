# The hub's microsecond clock in the firmware-in-the-loop sim: moved only by
# host.py (each main-loop pass costs its estimated RP2040 time), so what the
# firmware does never depends on how fast this machine is.
now = [0]
PERIOD = 1 << 30


def ticks_us():
    return now[0] & 0x3FFFFFFF


def ticks_diff(a, b):
    d = (a - b) & 0x3FFFFFFF
    if d >= 0x20000000:
        d -= 0x40000000
    return d


def ticks_add(a, d):
    return (a + d) & 0x3FFFFFFF
