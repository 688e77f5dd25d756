"""The beam PIO program checked against parts we did not write.

MicroPython's own assembler (``rp2.asm_pio``, the rp2 port's modules/rp2.py)
is not published on any package registry, so the firmware's program is
written out as pioasm source by a recorder that keeps asm_pio's rules
(side-set count from ``sideset_init``, side-set optional when not every
instruction sets it, ``wrap_target``/``wrap``), assembled by Adafruit's
independent assembler (``adafruit-circuitpython-pioasm``), and executed by
an independent emulator (``rp2040-pio-emulator``, ``pioemu``) against a
74HC165 chain modelled here from its datasheet (parallel load while SH/LD
is low, shift on CLK's rising edge while it is high, QH = input H, each
register's serial input from the next one's QH, the last one's tied low).

What it checks: the program pushes only when a beam changed, the first
pass after the firmware's priming ``exec`` always pushes, every beam of the
channel map lands on the bit the firmware decodes it from, both paths of a
pass take ``CYCLES_PER_SAMPLE`` cycles, and the clock line idles low.

The emulator does not implement ``irq``: the test executes that one
instruction itself (its only effect here is the CPU interrupt, recorded)."""

# (no "from __future__ import annotations": pioemu reads input_source's annotation at run time)

import importlib
import os
import sys
import types
from pathlib import Path

import pytest

if os.environ.get("CI"):  # in CI a missing tool fails the run rather than skipping the check
    import adafruit_pioasm as pioasm
    import pioemu
else:
    pioemu = pytest.importorskip("pioemu", reason="pip install rp2040-pio-emulator (in the test extras)")
    pioasm = pytest.importorskip("adafruit_pioasm", reason="pip install adafruit-circuitpython-pioasm (in the test extras)")

from coindrel.hub.channelmap import load_channel_map  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
DATA, LOAD, CLK = 0, 1, 2  # emulator pins: pioemu reads IN from GPIO 0 whatever the in_base


# -- the firmware's program, as MicroPython's asm_pio would see it ---------------------------

class _Ins:
    def __init__(self, rec, text):
        self.rec, self.text, self.side_v, self.delay = rec, text, None, 0
        rec.instrs.append(self)

    def side(self, v):
        self.side_v = v
        self.rec.sides += 1
        return self

    def __getitem__(self, d):
        self.delay = d
        return self


class _Sym(str):
    pass


class Recorder:
    """A stand-in ``rp2`` whose ``asm_pio`` writes pioasm source."""

    class PIO:
        IN_LOW, IN_HIGH, OUT_LOW, OUT_HIGH = 0, 1, 2, 3
        SHIFT_LEFT, SHIFT_RIGHT = 0, 1
        JOIN_NONE, JOIN_TX, JOIN_RX = 0, 1, 2

    def __init__(self):
        self.lines: list = []
        self.instrs: list[_Ins] = []
        self.sides = 0
        self.opts: dict = {}

    def names(self):
        lines = self.lines

        def add(text):
            ins = _Ins(self, text)
            lines.append(ins)
            return ins

        def src(s):
            return str(s)

        return {
            "wrap_target": lambda: lines.append(".wrap_target"),
            "wrap": lambda: lines.append(".wrap"),
            "label": lambda name: lines.append(f"{name}:"),
            "set": lambda d, v: add(f"set {d}, {v}"),
            "in_": lambda s, n: add(f"in {s}, {n}"),
            "jmp": lambda c, lab=None: add(f"jmp {c}, {lab}" if lab is not None else f"jmp {c}"),
            "mov": lambda d, s: add(f"mov {d}, {src(s)}"),
            "push": lambda b="block": add(f"push {b}"),
            "irq": lambda i: add(f"irq {i}"),
            "rel": lambda i: _Sym(f"{i} rel"),
            "invert": lambda s: _Sym(f"~{s}"),
            "pins": _Sym("pins"), "x": _Sym("x"), "y": _Sym("y"), "isr": _Sym("isr"), "null": _Sym("null"),
            "x_dec": _Sym("x--"), "x_not_y": _Sym("x!=y"), "block": _Sym("block"), "noblock": _Sym("noblock"),
        }

    def asm_pio(self, **opts):
        self.opts = opts

        def dec(f):
            g = f.__globals__
            old = dict(g)
            g.update(self.names())
            try:
                f()
            finally:
                g.clear()
                g.update(old)
            return self

        return dec

    def source(self) -> str:
        # As asm_pio: one side-set pin per sideset_init pin, optional (an
        # enable bit) unless every instruction sets it.
        n = len(self.opts["sideset_init"]) if isinstance(self.opts.get("sideset_init"), tuple) else 1
        opt = self.sides != len(self.instrs)
        out = [f".side_set {n}" + (" opt" if opt else "")]
        for ln in self.lines:
            if isinstance(ln, str):
                out.append(ln)
            else:
                out.append(ln.text + (f" side {ln.side_v}" if ln.side_v is not None else "")
                           + (f" [{ln.delay}]" if ln.delay else ""))
        return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def beams():
    saved = sys.modules.get("micropython")
    sys.modules["micropython"] = types.SimpleNamespace(const=lambda x: x, native=lambda f: f, viper=lambda f: f)
    sys.path.insert(0, str(FIRMWARE))
    try:
        yield importlib.import_module("coindrel_hub.beams")
    finally:
        sys.path.remove(str(FIRMWARE))
        for k in [k for k in sys.modules if k == "coindrel_hub" or k.startswith("coindrel_hub.")]:
            del sys.modules[k]
        if saved is None:
            sys.modules.pop("micropython", None)
        else:
            sys.modules["micropython"] = saved


@pytest.fixture(scope="module")
def program(beams):
    rec = Recorder()
    beams.pio_program(rec)
    prog = pioasm.Program(rec.source())
    return types.SimpleNamespace(rec=rec, text=rec.source(), ops=list(prog.assembled), kw=prog.pio_kwargs)


# -- a 74HC165 chain, from its datasheet ------------------------------------------------------

class HC165Chain:
    def __init__(self, registers=3):
        self.inputs = [0] * registers  # inputs[r]: register r+1's A..H as bits 0..7
        self.reg = [0] * registers  # each register's shift stage, bit 7 = QH
        self.load = 1
        self.clk = 0

    def pins(self, out_pins: int) -> int:
        """The outputs the PIO drives now in; QH of register 1 out (on DATA)."""
        load = (out_pins >> LOAD) & 1
        clk = (out_pins >> CLK) & 1
        if not load:
            self.reg = list(self.inputs)  # asynchronous parallel load
        elif clk and not self.clk:
            n = len(self.reg)
            ser = [(self.reg[i + 1] >> 7) & 1 if i + 1 < n else 0 for i in range(n)]
            self.reg = [((self.reg[i] << 1) | ser[i]) & 0xFF for i in range(n)]
        self.load, self.clk = load, clk
        return (self.reg[0] >> 7) & 1


class Run:
    """The program on pioemu, its RX FIFO drained as the IRQ handler drains it."""

    def __init__(self, program, chain, y=0):
        self.p, self.chain = program, chain
        self.ops = program.ops
        self.kw = program.kw
        self.pushes: list[tuple[int, int]] = []  # (clock, word)
        self.irqs: list[int] = []
        self.latches: list[int] = []  # clocks at which SH/LD went low
        self.clk_high_cycles = 0
        self.cycles = 0
        self._load = 1
        self.state = pioemu.State(pin_directions=(1 << LOAD) | (1 << CLK), pin_values=1 << LOAD, y_register=y)

    def _input(self, state: pioemu.State) -> int:
        v = state.pin_values
        load = (v >> LOAD) & 1
        if self._load and not load:
            self.latches.append(state.clock)
        self._load = load
        return self.chain.pins(v) << DATA

    def exec(self, text: str) -> None:
        """``StateMachine.exec``: one instruction, assembled the same way."""
        op = pioasm.Program(".side_set 1\n" + text + " side 0\n").assembled[0]
        start = self.state.clock
        gen = pioemu.emulate([op], stop_when=lambda _op, s: s.clock > start, initial_state=self.state,
                             input_source=self._input, shift_isr_right=False, set_base=LOAD, set_count=1,
                             side_set_base=CLK, side_set_count=1)
        for _before, after in gen:
            self.state = after
        self.state = _replace(self.state, program_counter=0)

    def run(self, cycles: int) -> None:
        end = self.state.clock + cycles
        wrap_target = self.kw.get("wrap_target", 0)
        wrap = self.kw.get("wrap", len(self.ops) - 1)
        while self.state.clock < end:
            was = self.state.clock

            def stop(op, s):
                return s.clock >= end or (op >> 13) == 0b110  # irq: not emulated by pioemu
            gen = pioemu.emulate(self.ops, stop_when=stop, initial_state=self.state, input_source=self._input,
                                 shift_isr_right=False, set_base=LOAD, set_count=1, side_set_base=CLK,
                                 side_set_count=1, wrap_target=wrap_target, wrap_top=wrap)
            for before, after in gen:
                self.clk_high_cycles += (after.clock - before.clock) * ((after.pin_values >> CLK) & 1)
                if len(after.receive_fifo) > len(before.receive_fifo):
                    self.pushes.append((after.clock, after.receive_fifo[-1]))
                self.state = _replace(after, receive_fifo=type(after.receive_fifo)())  # the IRQ handler takes it
            s = self.state
            if s.clock < end and (self.ops[s.program_counter] >> 13) == 0b110:
                op = self.ops[s.program_counter]
                self.irqs.append(s.clock)
                side = (op >> 12) & 1
                delay = (op >> 8) & 0xF
                pins = (s.pin_values & ~(1 << CLK)) | (side << CLK)
                pc = wrap_target if s.program_counter == wrap else s.program_counter + 1
                self.state = _replace(s, program_counter=pc, clock=s.clock + 1 + delay, pin_values=pins)
            elif self.state.clock == was:
                raise AssertionError(f"pioemu cannot run {self.ops[s.program_counter]:#06x} at {s.program_counter}")


def _replace(state, **kw):
    from dataclasses import replace

    return replace(state, **kw)


def primed(program, chain):
    r = Run(program, chain)
    r.exec("mov y, ~null")  # what app.build does before sm.active(1)
    return r


# -- the checks ---------------------------------------------------------------------------------

def test_the_program_is_what_asm_pio_would_make(program, beams):
    assert len(program.ops) <= 32
    assert program.rec.sides == len(program.rec.instrs), "every instruction sets the clock (side-set not optional)"
    assert program.kw.get("sideset_pin_count") == 1 and not program.kw.get("sideset_enable")
    assert program.rec.opts["in_shiftdir"] == Recorder.PIO.SHIFT_LEFT
    assert program.rec.opts["fifo_join"] == Recorder.PIO.JOIN_RX


def test_first_pass_after_priming_pushes_even_when_nothing_is_broken(program, beams):
    chain = HC165Chain()
    r = primed(program, chain)
    r.run(10 * beams.CYCLES_PER_SAMPLE)
    assert [w for _c, w in r.pushes] == [0], "one push, of the all-clear word, in the first pass"
    assert r.irqs and r.irqs[0] > r.pushes[0][0] - 1

    unprimed = Run(program, HC165Chain())  # Y = 0 at reset: an all-clear board would never say so
    unprimed.run(10 * beams.CYCLES_PER_SAMPLE)
    assert unprimed.pushes == []


def test_pushes_only_on_change(program, beams):
    chain = HC165Chain()
    chain.inputs = [0x01, 0x00, 0x80]
    r = primed(program, chain)
    n = beams.CYCLES_PER_SAMPLE
    r.run(20 * n)
    assert len(r.pushes) == 1 and len(r.irqs) == 1
    chain.inputs[1] = 0x10
    r.run(20 * n)
    assert len(r.pushes) == 2 and len(r.irqs) == 2
    chain.inputs[1] = 0x00
    r.run(20 * n)
    words = [w for _c, w in r.pushes]
    assert len(words) == 3 and words[0] == words[2] != words[1]
    assert bin(words[0] ^ words[1]).count("1") == 1


def test_every_beam_lands_on_the_bit_the_firmware_decodes(program, beams):
    cm = load_channel_map(ROOT / "hardware" / "channel_map.json")
    letters = "ABCDEFGH"
    n = beams.CYCLES_PER_SAMPLE
    seen = {}
    for c in cm.beams:
        chain = HC165Chain(cm.hub["beams"]["registers"])
        r = primed(program, chain)
        r.run(2 * n)  # the all-clear word first
        reg, inp = c.register, c.input  # the wiring, as the builder solders it
        chain.inputs[reg - 1] |= 1 << letters.index(inp)
        r.run(3 * n)
        assert len(r.pushes) == 2, c
        word = r.pushes[-1][1]
        assert word & (word - 1) == 0 and word, f"{c}: one bit set, not {word:#x}"
        bit = word.bit_length() - 1
        assert bit == c.bit, f"beam {c.beam}: register {reg} input {inp} arrives as bit {bit}, the map says {c.bit}"
        seen[bit] = c.beam
    assert len(seen) == len(cm.beams)


def test_both_paths_take_cycles_per_sample(program, beams):
    chain = HC165Chain()
    r = primed(program, chain)
    n = beams.CYCLES_PER_SAMPLE
    r.run(3 * n)
    for k in range(6):
        chain.inputs[0] ^= 1 << k  # a change every other pass: both paths, back to back
        r.run(n)
        r.run(n)
    gaps = {b - a for a, b in zip(r.latches, r.latches[1:])}
    assert gaps == {n}, f"passes took {sorted(gaps)} cycles, CYCLES_PER_SAMPLE is {n}"
    assert len(r.pushes) == 1 + 6


def test_clock_idles_low_and_rises_once_per_bit(program, beams):
    chain = HC165Chain()
    r = primed(program, chain)
    n = beams.CYCLES_PER_SAMPLE
    r.run(10 * n)
    assert (r.state.pin_values >> CLK) & 1 == 0
    passes = len(r.latches)
    assert r.clk_high_cycles in range(24 * (passes - 1), 24 * (passes + 1) + 1)
