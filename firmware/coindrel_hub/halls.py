# Hall sensing: 38 linear hall sensors through three CD74HC4067 analog muxes
# sharing four select lines, into ADC0..ADC2. HallScanner reads them (pins and
# ADCs passed in); Halls classifies each reading as L, R, mid or none with
# calibrated bands and hysteresis, filters over consecutive scans, and emits
# changes. Pure apart from the objects it is given; nothing runs at import.
from array import array

import micropython
from micropython import const

from .ring import EV_ERROR, EV_HALL

L = const(0)
R = const(1)
MID = const(2)
NONE = const(3)
E_HALL_RANGE = const(3)
RAIL_LO = const(16)  # readings this close to a rail mean a broken or shorted sensor
RAIL_HI = const(4079)
_CLASS = (L, R, NONE)  # the three calibrated references, in calibration order


def gray(i):
    return i ^ (i >> 1)


class HallScanner:
    # Walks the 16 mux channels in Gray-code order, so exactly one select line
    # changes per step, and reads every ADC whose mux has a sensor there.
    def __init__(self, select_pins, adcs, halls):
        # halls: ((mux, channel, switch), ...) in slot order
        self.n = len(halls)
        self.switches = bytes(h[2] for h in halls)
        self.pins = select_pins
        self.adcs = adcs
        # Flat, prebound plan (a bound method made in the loop would allocate):
        # per step the select line's value method, its level, how many reads.
        sets = []
        levels = bytearray(16)
        counts = bytearray(16)
        reads = []
        slots = bytearray(self.n)
        prev = gray(15)
        for step in range(16):
            ch = gray(step)
            changed = ch ^ prev
            line = 0
            while changed > 1:
                changed >>= 1
                line += 1
            sets.append(select_pins[line].value)
            levels[step] = (ch >> line) & 1
            for slot, h in enumerate(halls):
                if h[1] == ch:
                    slots[len(reads)] = slot
                    reads.append(adcs[h[0]].read_u16)
            counts[step] = len(reads)
            prev = ch
        self.sets = tuple(sets)
        self.levels = levels
        self.counts = counts
        self.reads = tuple(reads)
        self.slots = slots
        for i in range(4):
            select_pins[i].value((prev >> i) & 1)

    @micropython.native
    def scan(self, raw):
        # One full scan into raw[slot] (12-bit counts).
        sets = self.sets
        levels = self.levels
        counts = self.counts
        reads = self.reads
        slots = self.slots
        j = 0
        for step in range(16):
            sets[step](levels[step])
            end = counts[step]
            while j < end:
                raw[slots[j]] = reads[j]() >> 4
                j += 1


class Halls:
    def __init__(self, switches, diff, scans=2, period=1 << 30):
        n = len(switches)
        self.n = n
        self.switches = switches
        self.diff = diff
        self.period = period
        self.scans = scans
        self.rep = bytearray(n)  # reported class
        self.cand = bytearray(n)  # candidate class
        self.cnt = bytearray(n)  # consecutive scans of the candidate
        self.leaving = bytearray(n)  # 1 while the reading is away from the reported class
        self.bad = bytearray(n)  # 1 while at a rail (reported once)
        self.cand_t = array("i", bytes(4 * n))
        self.left_t = array("i", bytes(4 * n))
        self.left_raw = array("H", bytes(2 * n))
        # per slot: the L, R and none references, and the band half-width
        self.ref = array("H", bytes(6 * n))
        self.band = array("H", bytes(2 * n))
        self.hyst = 0
        # events found by one pass: (t, kind, switch, pos, raw), emitted afterwards
        self.out = array("i", bytes(4 * 5 * 3 * n))
        self.primed = False

    def calibrate(self, refs, hyst):
        # refs[slot] = (l, r, none, band)
        for i in range(self.n):
            ref = refs[i]
            for k in range(3):
                self.ref[3 * i + k] = ref[k]
            self.band[i] = ref[3]
        self.hyst = hyst

    def classify(self, i, raw, cur):
        band = self.band[i]
        if cur != MID:
            k = 2 if cur == NONE else cur
            d = raw - self.ref[3 * i + k]
            if -band - self.hyst <= d <= band + self.hyst:
                return cur
        best = MID
        dist = 0x7FFF
        for k in range(3):
            d = raw - self.ref[3 * i + k]
            if d < 0:
                d = -d
            if d <= band and d < dist:  # overlapping bands (a poor calibration): the nearest wins
                dist = d
                best = _CLASS[k]
        return best

    def update(self, raw, t, emit):
        # One scan taken at ticks t. Returns the earliest time a hall event not
        # yet emitted can carry, or None when no switch is on its way anywhere
        # (then the next event comes from a later scan).
        if not self.primed:
            for i in range(self.n):
                self.rep[i] = self.classify(i, raw[i], MID)
            self.primed = True
            return None
        h = self._pass(raw, t)
        n = self.out[0]
        if n:
            o = self.out
            for j in range(5, 5 + 5 * n, 5):
                emit(o[j], o[j + 1], o[j + 2], o[j + 3], o[j + 4])
        return None if h < 0 else h

    @micropython.viper
    def _pass(self, raw_a, t: int) -> int:
        # The per-sensor work of update(), allocation-free: classification,
        # the scan filter, the flip's mid. Events go to self.out (count in
        # out[0]); returns the horizon ticks, or -1 for none.
        raw = ptr16(raw_a)
        rep = ptr8(self.rep)
        cand = ptr8(self.cand)
        cnt = ptr8(self.cnt)
        leaving = ptr8(self.leaving)
        bad = ptr8(self.bad)
        cand_t = ptr32(self.cand_t)
        left_t = ptr32(self.left_t)
        left_raw = ptr16(self.left_raw)
        ref = ptr16(self.ref)
        bands = ptr16(self.band)
        sw = ptr8(self.switches)
        out = ptr32(self.out)
        n = int(self.n)
        hyst = int(self.hyst)
        scans = int(self.scans)
        period = int(self.period)
        mask = period - 1
        half = period >> 1
        ev_hall = int(EV_HALL)
        ev_error = int(EV_ERROR)
        m = 0
        o = 5
        horizon = -1
        for i in range(n):
            v = raw[i]
            if v < RAIL_LO or v > RAIL_HI:
                if not bad[i]:
                    bad[i] = 1
                    out[o] = t
                    out[o + 1] = ev_error
                    out[o + 2] = E_HALL_RANGE
                    out[o + 3] = sw[i]
                    out[o + 4] = v
                    o += 5
                    m += 1
            elif bad[i]:
                bad[i] = 0
            cur = rep[i]
            band = bands[i]
            # classify (as classify() above)
            c = MID
            if cur != MID:
                k = 2 if cur == NONE else cur
                d = v - ref[3 * i + k]
                if d < 0:
                    d = 0 - d
                if d <= band + hyst:
                    c = cur
            if c == MID:
                dist = 0x7FFF
                for k in range(3):
                    d = v - ref[3 * i + k]
                    if d < 0:
                        d = 0 - d
                    if d <= band and d < dist:
                        dist = d
                        c = NONE if k == 2 else k
            if c == cur:
                cnt[i] = 0
                leaving[i] = 0
                continue
            if not leaving[i]:
                leaving[i] = 1
                left_t[i] = t
                left_raw[i] = v
            if cnt[i] and c == cand[i]:
                cnt[i] = cnt[i] + 1
            else:
                cand[i] = c
                cnt[i] = 1
                cand_t[i] = t
            if cnt[i] >= scans:
                if (cur == L and c == R) or (cur == R and c == L):
                    # A flip always passes mid: say so even when mid was too
                    # brief to be confirmed on its own.
                    out[o] = left_t[i]
                    out[o + 1] = ev_hall
                    out[o + 2] = sw[i]
                    out[o + 3] = MID
                    out[o + 4] = left_raw[i]
                    o += 5
                    m += 1
                out[o] = cand_t[i] if c != MID else left_t[i]
                out[o + 1] = ev_hall
                out[o + 2] = sw[i]
                out[o + 3] = c
                out[o + 4] = v
                o += 5
                m += 1
                rep[i] = c
                cnt[i] = 0
                leaving[i] = 0
            elif horizon < 0:
                horizon = int(left_t[i])
            else:
                d = (int(left_t[i]) - horizon) & mask
                if d >= half:
                    horizon = int(left_t[i])
        out[0] = m
        return horizon
