# Fake rp2 module: asm_pio builds a symbolic program (checked like the real
# assembler: at most 32 instructions, labels resolved, delays in range) and
# StateMachine runs it instruction by instruction, driving fake machine pins
# and advancing faketime by the cycles it takes. Enough PIO for the hub's
# 74HC165 reader: set, in, jmp (always, x--, x!=y), mov, push, irq, side-set.
import faketime
import machine
from picobase import FDEBUG, PIO, StateMachineBase  # noqa: F401

MASK = 0xFFFFFFFF


class _Instr:
    def __init__(self, op, a=None, b=None):
        self.op = op
        self.a = a
        self.b = b
        self.side_v = None
        self.delay = 0

    def side(self, v):
        self.side_v = v
        return self

    def __getitem__(self, d):
        if not 0 <= d <= 31:
            raise ValueError("delay %d out of range" % d)
        self.delay = d
        return self


class _Src:
    def __init__(self, name, inv=False):
        self.name = name
        self.inv = inv


class Program:
    def __init__(self, opts):
        self.opts = opts
        self.instrs = []
        self.labels = {}
        self.wrap_target = 0
        self.wrap = None

    def names(self):
        prog = self

        def add(i):
            prog.instrs.append(i)
            return i

        def label(name):
            prog.labels[name] = len(prog.instrs)

        def wrap_target():
            prog.wrap_target = len(prog.instrs)

        def wrap():
            prog.wrap = len(prog.instrs) - 1

        return {
            "wrap_target": wrap_target, "wrap": wrap, "label": label,
            "set": lambda d, v: add(_Instr("set", d, v)),
            "in_": lambda s, n: add(_Instr("in", s, n)),
            "jmp": lambda c, l=None: add(_Instr("jmp", c if l is not None else None, l if l is not None else c)),
            "mov": lambda d, s: add(_Instr("mov", d, s)),
            "push": lambda b="block": add(_Instr("push", b)),
            "irq": lambda i: add(_Instr("irq", i)),
            "rel": lambda i: i,
            "invert": lambda s: _Src(s.name, True),
            "pins": _Src("pins"), "x": _Src("x"), "y": _Src("y"), "isr": _Src("isr"), "null": _Src("null"),
            "x_dec": "x_dec", "x_not_y": "x_not_y", "block": "block", "noblock": "noblock",
        }

    def finish(self):
        if len(self.instrs) > 32:
            raise ValueError("PIO program too long: %d instructions" % len(self.instrs))
        for i in self.instrs:
            if i.op == "jmp" and i.b not in self.labels:
                raise ValueError("unknown label %r" % i.b)
        if self.wrap is None:
            self.wrap = len(self.instrs) - 1
        # As the real assembler: side-set is optional (costing a bit, and
        # leaving the pin alone where not given) unless every instruction sets it.
        sides = sum(1 for i in self.instrs if i.side_v is not None)
        self.sideset_opt = "sideset_init" in self.opts and sides != len(self.instrs)
        max_delay = 31 >> ((1 + self.sideset_opt) if "sideset_init" in self.opts else 0)
        for i in self.instrs:
            if i.delay > max_delay:
                raise ValueError("delay %d too large (max %d with this side-set)" % (i.delay, max_delay))


def asm_pio(**opts):
    def dec(f):
        prog = Program(opts)
        g = f.__globals__
        old = dict(g)
        g.update(prog.names())
        try:
            f()
        finally:
            g.clear()
            g.update(old)
        prog.finish()
        return prog

    return dec


class StateMachine(StateMachineBase):
    def __init__(self, id, prog, freq=125000000, set_base=None, sideset_base=None, in_base=None, **kw):
        self.id = id
        self.prog = prog
        self.freq = freq
        self.cycle_ns = 1000000000 // freq
        self.set_pin = set_base.id if set_base is not None else None
        self.side_pin = sideset_base.id if sideset_base is not None else None
        self.in_pin = in_base.id if in_base is not None else None
        o = prog.opts
        if self.set_pin is not None and "set_init" in o:
            machine.set_level(self.set_pin, o["set_init"] == PIO.OUT_HIGH)
        if self.side_pin is not None and "sideset_init" in o:
            machine.set_level(self.side_pin, o["sideset_init"] == PIO.OUT_HIGH)
        self.fifo_cap = 8 if o.get("fifo_join") == PIO.JOIN_RX else 4
        self.x = self.y = self.isr = 0
        self.pc = 0
        self.fifo = []
        self.handler = None
        self.running = False
        self.stalls = 0
        self.cycles = 0

    def exec(self, text):
        instr = eval(text, self.prog.names())
        self.prog.instrs.pop()  # eval appended it to the program: take it back out
        self._run(instr, immediate=True)

    def _val(self, s):
        v = {"x": self.x, "y": self.y, "isr": self.isr, "null": 0}[s.name]
        return (~v) & MASK if s.inv else v

    def _run(self, i, immediate=False):
        # -> True if the program counter moved on by itself (not a jump or stall)
        if i.side_v is not None and self.side_pin is not None:
            machine.set_level(self.side_pin, i.side_v)
        elif immediate and not self.prog.sideset_opt and self.side_pin is not None:
            machine.set_level(self.side_pin, 0)  # an exec'd instruction carries side-set 0
        op = i.op
        if op == "set":
            if i.a.name == "pins":
                machine.set_level(self.set_pin, i.b & 1)
            elif i.a.name == "x":
                self.x = i.b
            else:
                self.y = i.b
        elif op == "in":
            v = machine.level(self.in_pin) & ((1 << i.b) - 1)
            self.isr = ((self.isr << i.b) | v) & MASK
        elif op == "mov":
            v = self._val(i.b)
            setattr(self, i.a.name, v)
        elif op == "push":
            if len(self.fifo) >= self.fifo_cap:
                if i.a == "block":
                    self.stalls += 1
                    machine.mem32.d[FDEBUG] = machine.mem32.d.get(FDEBUG, 0) | (1 << self.id)
                    return None
            else:
                self.fifo.append(self.isr)
            self.isr = 0
        elif op == "irq":
            if self.handler is not None:
                self.handler(self)
        elif op == "jmp":
            take = True
            if i.a == "x_dec":
                take = self.x != 0
                self.x = (self.x - 1) & MASK
            elif i.a == "x_not_y":
                take = self.x != self.y
            if take and not immediate:
                self.pc = self.prog.labels[i.b]
                return False
        return True

    def step(self):
        i = self.prog.instrs[self.pc]
        moved = self._run(i)
        cycles = 1 + i.delay
        if moved is None:
            cycles = 1
        elif moved:
            self.pc = self.prog.wrap_target if self.pc == self.prog.wrap else self.pc + 1
        self.cycles += cycles
        faketime.advance_ns(cycles * self.cycle_ns)

    def run_us(self, us):
        # Run the program for `us` microseconds of simulated time.
        end = faketime.now_us + us
        while faketime.now_us < end:
            self.step()


class HC165Chain:
    # A chain of 74HC165s: register 1's QH drives the data pin. inputs[r] is
    # register r+1's eight input levels (bit 0 = input A). The shift register
    # is one int (bit 0 = QH) so simulating it never allocates.
    def __init__(self, load, clock, data, registers=3):
        self.load = load
        self.data = data
        self.n = 8 * registers
        self.inputs = [0] * registers
        self.shift = 0
        machine.listen(load, self._on_load)
        machine.listen(clock, self._on_clock)
        self._load_now()

    def _load_now(self):
        # QH first: register 1 input H, G, ..., A, then register 2 input H, ...
        v = 0
        k = 0
        for r in self.inputs:
            for b in range(7, -1, -1):
                v |= ((r >> b) & 1) << k
                k += 1
        self.shift = v
        machine.set_level(self.data, v & 1)

    def _on_load(self, v):
        if v == 0:
            self._load_now()

    def _on_clock(self, v):
        if v == 1 and machine.level(self.load) == 1:
            self.shift >>= 1
            machine.set_level(self.data, self.shift & 1)
