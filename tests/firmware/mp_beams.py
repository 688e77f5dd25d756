# MicroPython: the beam glitch filter, the IRQ-side sampler, and the PIO
# program running on the fake state machine against a simulated 74HC165 chain.
import faketime
import machine
import rp2
from coindrel_hub.beams import CYCLES_PER_SAMPLE, BeamFilter, BeamSampler, pio_program
from coindrel_hub.ring import EV_BEAM, EV_ERROR
from mptest import eq, run

BIT_BEAM = bytes(list(range(16, 24)) + list(range(8, 16)) + list(range(0, 8)))  # the reference map
SAMPLE_US = 100  # 10 kHz


def make(samples=5, blocked_us=3000000):
    ev = []
    f = BeamFilter(BIT_BEAM, faketime.ticks_diff, SAMPLE_US, samples, blocked_us=blocked_us)
    return f, ev, lambda t, k, a, b, c: ev.append((t, k, a, b, c))


def test_pulse_long_enough_is_reported_with_its_start_and_duration():
    f, ev, emit = make(samples=5)
    f.feed(0, 0, emit)
    f.feed(10000, 1 << 3, emit)  # bit 3 = exit 12 (register 3 input D)
    f.feed(10000 + 3000, 0, emit)
    f.poll(20000, emit)
    eq(ev, [(10000, EV_BEAM, 19, 1, 0), (13000, EV_BEAM, 19, 0, 3000)], "broken then clear")


def test_glitches_shorter_than_the_filter_are_ignored():
    f, ev, emit = make(samples=5)
    f.feed(0, 0, emit)
    f.feed(1000, 1 << 20, emit)
    f.feed(1000 + 4 * SAMPLE_US, 0, emit)  # 4 samples < 5
    f.poll(50000, emit)
    eq(ev, [], "nothing")
    eq(f.glitches, 1, "counted")


def test_every_3ms_coin_is_seen_whatever_the_sampling_phase():
    # The PIO stamps a change at the first sample that shows it: a 3 ms break
    # appears as 29..31 samples of 100 us, far above the 5-sample filter.
    for phase in range(0, SAMPLE_US, 7):
        f, ev, emit = make(samples=5)
        f.feed(0, 0, emit)
        start = 5000 + phase
        t0 = (start + SAMPLE_US - 1) // SAMPLE_US * SAMPLE_US
        t1 = (start + 3000 + SAMPLE_US - 1) // SAMPLE_US * SAMPLE_US
        f.feed(t0, 1 << 9, emit)
        f.feed(t1, 0, emit)
        f.poll(t1 + 10000, emit)
        eq([e[3] for e in ev], [1, 0], "phase %d" % phase)


def test_confirmation_waits_for_the_hold_and_horizon_holds_back():
    f, ev, emit = make(samples=5)
    f.feed(0, 0, emit)
    f.feed(1000, 1, emit)
    f.poll(1300, emit)
    eq(ev, [], "not yet")
    eq(f.horizon(1300), 1000, "an event at 1000 may still come")
    f.poll(1500, emit)
    eq(len(ev), 1, "confirmed")
    eq(f.horizon(1500), 1500, "nothing pending")


def test_blocked_beam_reported_once():
    f, ev, emit = make(samples=2, blocked_us=1000000)
    f.feed(0, 0, emit)
    f.feed(100, 1 << 16, emit)  # entry 1
    f.poll(2000000, emit)
    f.poll(3000000, emit)
    eq([e[1] for e in ev], [EV_BEAM, EV_ERROR], "broken, then blocked once")
    eq(ev[1][2:4], (4, 0), "code 4, entry 1")


def test_inverted_polarity():
    ev = []
    f = BeamFilter(BIT_BEAM, faketime.ticks_diff, SAMPLE_US, 3, invert=0xFFFFFF)
    emit = lambda t, k, a, b, c: ev.append((k, a, b))
    f.feed(0, 0xFFFFFF, emit)  # all high = all clear with active-low receivers
    f.feed(500, 0xFFFFFF & ~(1 << 17), emit)
    f.poll(2000, emit)
    eq(ev, [(EV_BEAM, 1, 1)], "entry 2 broken")


class FakeSM:
    def __init__(self, words):
        self.words = list(words)

    def rx_fifo(self):
        return len(self.words)

    def get(self):
        return self.words.pop(0)

    def exec(self, s):
        self.execd = s


def test_sampler_records_and_counts_overflow():
    faketime.set_us(500)
    s = BeamSampler(faketime.ticks_us, capacity=4)
    s.irq(FakeSM([1, 2, 3, 4, 5]))  # a ring of 4 slots holds 3
    got = []
    s.drain(lambda t, w: got.append((t, w)))
    eq(got, [(500, 1), (500, 2), (500, 3)], "recorded")
    eq(s.take_lost(), 2, "lost")
    eq(s.take_lost(), 0, "taken")
    s.sm = FakeSM([])
    s.resync()
    eq(s.sm.execd, "mov(y, invert(null))", "PIO told to push again")


def setup_pio(hz=10000):
    machine.clear()
    faketime.set_us(0)
    chain = rp2.HC165Chain(17, 18, 16)
    sampler = BeamSampler(faketime.ticks_us)
    sm = rp2.StateMachine(0, pio_program(rp2), freq=hz * CYCLES_PER_SAMPLE,
                          set_base=machine.Pin(17), sideset_base=machine.Pin(18), in_base=machine.Pin(16))
    sm.irq(sampler.irq, hard=True)
    sm.exec("mov(y, invert(null))")
    sm.active(1)
    return chain, sampler, sm


def test_pio_program_assembles_within_limits():
    prog = pio_program(rp2)
    assert len(prog.instrs) <= 32
    cycles = sum(1 + i.delay for i in prog.instrs[:prog.wrap + 1]) + 23 * 2  # the bit loop runs 24 times
    eq(cycles, CYCLES_PER_SAMPLE, "unchanged path")


def test_pio_reads_the_chain_in_channel_map_bit_order():
    chain, sampler, sm = setup_pio()
    chain.inputs = [0b10000001, 0b00000100, 0b01000000]  # r1 A and H, r2 C, r3 G
    sm.run_us(300)
    words = []
    sampler.drain(lambda t, w: words.append(w))
    eq(words, [(1 << 16) | (1 << 23) | (1 << 10) | (1 << 6)], "one word, bit = 8*(3-register)+input")


def test_pio_pushes_only_changes_at_the_sample_rate():
    chain, sampler, sm = setup_pio()
    sm.run_us(1000)
    got = []
    sampler.drain(lambda t, w: got.append((t, w)))
    eq(len(got), 1, "just the first sample")
    chain.inputs[1] = 0b1000  # exit 4 broken
    t_break = faketime.now_us
    sm.run_us(3000)
    chain.inputs[1] = 0
    sm.run_us(1000)
    sampler.drain(lambda t, w: got.append((t, w)))
    eq([w for t, w in got[1:]], [1 << 11, 0], "broken, clear")
    d = got[2][0] - got[1][0]
    assert 2900 <= d <= 3100, d
    # seen at the next latch (<= 100 us), stamped at the push that ends that pass (+ 54 cycles)
    assert 0 <= got[1][0] - t_break <= 200, got[1][0] - t_break


def test_pio_end_to_end_3ms_coin_through_the_filter():
    chain, sampler, sm = setup_pio()
    f, ev, emit = make(samples=5)
    sm.run_us(500)
    sampler.drain(lambda t, w: f.feed(t, w, emit))
    for beam_bit in (16, 3, 23):  # entry 1, exit 12, entry 8
        sm.run_us(137)
        chain.inputs[2 - beam_bit // 8] |= 1 << (beam_bit % 8)
        sm.run_us(3000)
        chain.inputs[2 - beam_bit // 8] = 0
        sm.run_us(700)
        sampler.drain(lambda t, w: f.feed(t, w, emit))
        f.poll(faketime.ticks_us(), emit)
    eq([(e[2], e[3]) for e in ev], [(0, 1), (0, 0), (19, 1), (19, 0), (7, 1), (7, 0)], "every coin, both edges")
    for e in ev[1::2]:
        assert 2900 <= e[4] <= 3100, e


run(globals())
