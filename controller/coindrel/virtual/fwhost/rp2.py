# The rp2 module as the firmware-in-the-loop sim gives it: the beam state
# machine as what its PIO program does (checked instruction by instruction
# in tests/firmware): the 74HC165 chain sampled every CYCLES_PER_SAMPLE
# cycles, a word pushed (and the IRQ raised) only when it changed, and the
# next one pushed whatever it is after the priming exec. host.py runs it.
from picobase import PIO, StateMachineBase  # noqa: F401


def asm_pio(**opts):
    def dec(f):
        return f  # the program's effect is StateMachine's; its code is checked by the tests
    return dec


machines = []


class StateMachine(StateMachineBase):
    def __init__(self, id, prog, freq=125000000, **kw):
        self.freq = freq
        self.handler = None
        self.running = False
        self.force = False  # the next sample is pushed whatever it is
        self.fifo = []
        machines.append(self)

    def exec(self, text):
        if text.replace(" ", "") == "mov(y,invert(null))":
            self.force = True
