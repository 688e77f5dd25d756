# Hall sensing: 38 linear hall sensors through three CD74HC4067 analog muxes
# sharing four select lines, into ADC0..ADC2. HallScanner reads them (pins and
# ADCs passed in); Halls classifies each reading as L, R, mid or none with
# calibrated bands and hysteresis, filters over consecutive scans, and emits
# changes. Pure apart from the objects it is given; nothing runs at import.
from array import array

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
        plan = []
        prev = gray(15)
        for step in range(16):
            ch = gray(step)
            changed = ch ^ prev
            line = 0
            while changed > 1:
                changed >>= 1
                line += 1
            reads = tuple((adcs[h[0]], slot) for slot, h in enumerate(halls) if h[1] == ch)
            plan.append((select_pins[line], (ch >> line) & 1, reads))
            prev = ch
        self.plan = tuple(plan)
        for i in range(4):
            select_pins[i].value((prev >> i) & 1)

    def scan(self, raw):
        # One full scan into raw[slot] (12-bit counts).
        for pin, level, reads in self.plan:
            pin.value(level)
            for adc, slot in reads:
                raw[slot] = adc.read_u16() >> 4


class Halls:
    def __init__(self, switches, diff, scans=2):
        n = len(switches)
        self.n = n
        self.switches = switches
        self.diff = diff
        self.scans = scans
        self.rep = bytearray(n)  # reported class
        self.cand = bytearray(n)  # candidate class
        self.cnt = bytearray(n)  # consecutive scans of the candidate
        self.leaving = bytearray(n)  # 1 while the reading is away from the reported class
        self.bad = bytearray(n)  # 1 while at a rail (reported once)
        self.cand_t = array("i", bytes(4 * n))
        self.left_t = array("i", bytes(4 * n))
        self.left_raw = array("H", bytes(2 * n))
        # per slot, for L, R, none: entering band lo/hi, staying band lo/hi
        self.enter = array("h", bytes(12 * n))
        self.stay = array("h", bytes(12 * n))
        self.primed = False

    def calibrate(self, refs, hyst):
        # refs[slot] = (l, r, none, band)
        for i in range(self.n):
            ref = refs[i]
            band = ref[3]
            for k in range(3):
                j = 6 * i + 2 * k
                self.enter[j] = ref[k] - band
                self.enter[j + 1] = ref[k] + band
                self.stay[j] = ref[k] - band - hyst
                self.stay[j + 1] = ref[k] + band + hyst

    def classify(self, i, raw, cur):
        base = 6 * i
        if cur != MID:
            k = 2 if cur == NONE else cur
            j = base + 2 * k
            if self.stay[j] <= raw <= self.stay[j + 1]:
                return cur
        best = MID
        dist = 0x7FFF
        for k in range(3):
            j = base + 2 * k
            lo = self.enter[j]
            hi = self.enter[j + 1]
            if lo <= raw <= hi:
                d = raw - ((lo + hi) >> 1)
                if d < 0:
                    d = -d
                if d < dist:  # overlapping bands (a poor calibration): the nearest wins
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
        horizon = None
        for i in range(self.n):
            v = raw[i]
            if v < RAIL_LO or v > RAIL_HI:
                if not self.bad[i]:
                    self.bad[i] = 1
                    emit(t, EV_ERROR, E_HALL_RANGE, self.switches[i], v)
            elif self.bad[i]:
                self.bad[i] = 0
            rep = self.rep[i]
            c = self.classify(i, v, rep)
            if c == rep:
                self.cnt[i] = 0
                self.leaving[i] = 0
                continue
            if not self.leaving[i]:
                self.leaving[i] = 1
                self.left_t[i] = t
                self.left_raw[i] = v
            if self.cnt[i] and c == self.cand[i]:
                self.cnt[i] += 1
            else:
                self.cand[i] = c
                self.cnt[i] = 1
                self.cand_t[i] = t
            if self.cnt[i] >= self.scans:
                sw = self.switches[i]
                if (rep == L and c == R) or (rep == R and c == L):
                    # A flip always passes mid: say so even when mid was too
                    # brief to be confirmed on its own.
                    emit(self.left_t[i], EV_HALL, sw, MID, self.left_raw[i])
                emit(self.cand_t[i] if c != MID else self.left_t[i], EV_HALL, sw, c, v)
                self.rep[i] = c
                self.cnt[i] = 0
                self.leaving[i] = 0
            elif horizon is None or self.diff(self.left_t[i], horizon) < 0:
                horizon = self.left_t[i]
        return horizon
