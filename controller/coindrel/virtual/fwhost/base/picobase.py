# What every fake Pico under the unix MicroPython shares: the firmware-in-the-
# loop host's machine and rp2 (fwhost/) and the firmware tests' fakes
# (tests/firmware/fakes), which charge each call its RP2040 cost. Each puts
# this directory on MICROPYPATH after its own machine.py and rp2.py.

FDEBUG = 0x50200008  # PIO0 FDEBUG: a stalled state machine sets its bit; write 1 to clear


class PIO:
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2


class StateMachineBase:
    # A state machine's FIFO and IRQ as the firmware sees them; what runs in it
    # is the subclass's.
    def active(self, v=None):
        if v is None:
            return self.running
        self.running = bool(v)

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler

    def rx_fifo(self):
        return len(self.fifo)

    def get(self):
        return self.fifo.pop(0)


class PinBase:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __call__(self, v=None):
        return self.value(v)


class Mem:
    # machine.mem32: registers read back what was written, FDEBUG cleared by 1s.
    def __init__(self):
        self.d = {}

    def __getitem__(self, a):
        return self.d.get(a, 0)

    def __setitem__(self, a, v):
        if a == FDEBUG:
            self.d[a] = self.d.get(a, 0) & ~v
        else:
            self.d[a] = v


class ResetCalled(Exception):
    pass


class Timer:
    def __init__(self, id=-1, period=1000, callback=None, mode=1):
        self.period = period
        self.callback = callback

    def deinit(self):
        self.callback = None


def freq(hz=None):
    return 125000000


def disable_irq():
    return 0


def enable_irq(state=0):
    pass


def idle():
    pass
