# Beam sensing: 24 break-beams through a chain of 74HC165 shift registers.
# A PIO state machine latches and shifts the chain at a fixed rate (10 kHz by
# default) and pushes a sample word only when it differs from the last one;
# the hard IRQ handler only stamps and records it (no allocation); the main
# loop runs the glitch filter on the recorded changes. Pins and the state
# machine are passed in; nothing runs at import.
from array import array

from micropython import const

from .ring import EV_BEAM, EV_ERROR

E_BEAM_BLOCKED = const(4)
CYCLES_PER_SAMPLE = const(58)  # PIO cycles of one pass of the program below


def pio_program(rp2):
    # The 74HC165 chain reader. set pin = SH/LD (load), side-set = CLK, in pin = QH.
    # One pass: latch, shift 24 bits (first bit = register 1 input H), compare
    # with the last word pushed (kept in Y); push and raise IRQ only on change.
    # Both paths take 58 cycles, so the sample rate is the SM clock / 58.
    @rp2.asm_pio(set_init=rp2.PIO.OUT_HIGH, sideset_init=rp2.PIO.OUT_LOW,
                 in_shiftdir=rp2.PIO.SHIFT_LEFT, fifo_join=rp2.PIO.JOIN_RX)
    def hc165():
        # Every instruction sets the clock (side-set): were one left out, the
        # assembler would make side-set optional and the clock would stay high.
        wrap_target()  # noqa: F821 - names injected by asm_pio
        label("top")  # noqa: F821
        set(pins, 0).side(0)[1]  # noqa: F821 - SH/LD low: latch the inputs
        set(pins, 1).side(0)  # noqa: F821 - shift mode; QH shows register 1 input H
        set(x, 23).side(0)  # noqa: F821
        label("bit")  # noqa: F821
        in_(pins, 1).side(0)  # noqa: F821
        jmp(x_dec, "bit").side(1)  # noqa: F821 - CLK rising edge: next bit to QH
        mov(x, isr).side(0)  # noqa: F821
        jmp(x_not_y, "changed").side(0)  # noqa: F821
        mov(isr, null).side(0)[3]  # noqa: F821 - unchanged: drop it (padded to match the other path)
        wrap()  # noqa: F821
        label("changed")  # noqa: F821
        mov(y, x).side(0)  # noqa: F821
        push(block).side(0)  # noqa: F821 - block: if the CPU stalls, sampling pauses rather than lying
        irq(rel(0)).side(0)  # noqa: F821
        jmp("top").side(0)  # noqa: F821

    return hc165


class BeamSampler:
    # The hard-IRQ side: records (ticks, word) pairs in a preallocated ring.
    def __init__(self, ticks_us, capacity=256, stalled=None):
        self.size = 2 * capacity
        self.rec = array("i", bytes(4 * self.size))
        self.st = array("i", [0, 0, 0])  # head, tail, lost
        self._ticks = ticks_us
        self.stalled = stalled  # () -> True once after the PIO stalled on a full FIFO
        self.sm = None

    def irq(self, sm):
        # Hard IRQ handler: no allocation, no floats, nothing but recording.
        st = self.st
        rec = self.rec
        while sm.rx_fifo():
            w = sm.get()
            h = st[0]
            n = h + 2
            if n >= self.size:
                n = 0
            if n == st[1]:
                st[2] += 1
            else:
                rec[h] = self._ticks()
                rec[h + 1] = w
                st[0] = n

    def take_lost(self):
        n = self.st[2]
        if n:
            self.st[2] -= n
        if self.stalled is not None and self.stalled():
            n += 1
        return n

    def resync(self):
        # Make the PIO push its next sample even if unchanged (Y := ~0 never
        # equals a 24-bit word), so the filter catches up after a loss.
        if self.sm is not None:
            self.sm.exec("mov(y, invert(null))")

    def drain(self, feed):
        st = self.st
        rec = self.rec
        t = st[1]
        while t != st[0]:
            feed(rec[t], rec[t + 1])
            t += 2
            if t >= self.size:
                t = 0
            st[1] = t


class BeamFilter:
    # The glitch filter: a beam changes state only when the new level holds
    # for `samples` consecutive samples (hold_us = samples * sample period).
    # Reports each change with the time it began: broken -> (EV_BEAM, beam, 1, 0),
    # clear -> (EV_BEAM, beam, 0, how long it was broken). A beam broken for
    # longer than blocked_us is reported once as an error.
    def __init__(self, bit_beam, diff, sample_us, samples, invert=0, blocked_us=3000000):
        self.bit_beam = bit_beam
        self.nbits = len(bit_beam)
        mask = 0
        for b in range(self.nbits):
            if bit_beam[b] != 255:
                mask |= 1 << b
        self.mask = mask
        self.invert = invert & mask
        self.diff = diff
        self.sample_us = sample_us
        self.set_samples(samples)
        self.blocked_us = blocked_us
        self.raw = 0
        self.stable = 0
        self.pending = 0
        self.blocked = 0
        self.start = array("i", bytes(4 * self.nbits))
        self.broke = array("i", bytes(4 * self.nbits))
        # time a beam has been broken before broke[b], moved on every 2**28 us
        # so a ticks difference never reaches the 2**29 us where it turns negative
        self.held = array("i", bytes(4 * self.nbits))
        self.primed = False
        self.glitches = 0

    def set_samples(self, samples):
        self.samples = samples
        # Half a sample of slack: the IRQ's stamp jitters by a few microseconds.
        self.hold_us = samples * self.sample_us - self.sample_us // 2

    def feed(self, t, w, emit):
        w = (w ^ self.invert) & self.mask
        if not self.primed:
            self.primed = True
            self.raw = self.stable = w
            for b in range(self.nbits):
                if (w >> b) & 1:
                    self.broke[b] = t
            return
        self.poll(t, emit)
        ch = w ^ self.raw
        b = 0
        while ch:
            if ch & 1:
                bit = 1 << b
                if (w ^ self.stable) & bit:
                    self.pending |= bit
                    self.start[b] = t
                else:
                    self.pending &= ~bit
                    self.glitches += 1
            ch >>= 1
            b += 1
        self.raw = w

    def poll(self, now, emit):
        p = self.pending
        b = 0
        while p:
            if p & 1 and self.diff(now, self.start[b]) >= self.hold_us:
                self._flip(b, emit)
            p >>= 1
            b += 1
        s = self.stable
        b = 0
        while s:
            if s & 1:
                d = self.diff(now, self.broke[b])
                if d >= 0x10000000:
                    h = self.held[b] + d
                    self.held[b] = h if h < 0x40000000 else 0x40000000
                    self.broke[b] = now
                    d = 0
                if not (self.blocked >> b) & 1 and self.held[b] + d >= self.blocked_us:
                    self.blocked |= 1 << b
                    emit(now, EV_ERROR, E_BEAM_BLOCKED, self.bit_beam[b], 0)
            s >>= 1
            b += 1

    def _flip(self, b, emit):
        bit = 1 << b
        self.pending &= ~bit
        self.stable ^= bit
        t = self.start[b]
        if self.stable & bit:
            self.broke[b] = t
            self.held[b] = 0
            emit(t, EV_BEAM, self.bit_beam[b], 1, 0)
        else:
            self.blocked &= ~bit
            d = self.held[b] + self.diff(t, self.broke[b])
            emit(t, EV_BEAM, self.bit_beam[b], 0, d if d > 0 else 0)

    def horizon(self, now):
        # Earliest time a beam event not yet emitted can carry.
        h = now
        p = self.pending
        b = 0
        while p:
            if p & 1 and self.diff(self.start[b], h) < 0:
                h = self.start[b]
            p >>= 1
            b += 1
        return h

    def beams_broken(self):
        # Bitmask by beam id of the beams broken now (after filtering).
        m = 0
        s = self.stable
        b = 0
        while s:
            if s & 1:
                m |= 1 << self.bit_beam[b]
            s >>= 1
            b += 1
        return m
