# MicroPython: the hall scanner (Gray-code mux walk) and the classifier/filter.
import faketime
import machine
from coindrel_hub import chanmap
from coindrel_hub.halls import L, MID, NONE, R, Halls, HallScanner
from coindrel_hub.ring import EV_ERROR, EV_HALL
from mptest import eq, run

from array import array


def A(values):
    return array("H", values)

REF = (2980, 2330, 2048, 120)


def mux_world(values):
    # values[(mux, channel)] -> 12-bit reading; the ADC on mux m reads the channel the select lines pick.
    machine.clear()
    sel = chanmap.SELECT_PINS
    changes = [0]

    def count(v):
        changes[0] += 1

    for p in sel:
        machine.listen(p, count)

    def reader(m):
        def read():
            ch = sum(machine.level(sel[i]) << i for i in range(4))
            return values.get((m, ch), 2048)
        return read

    for m, p in enumerate(chanmap.ADC_PINS):
        machine.set_adc(p, reader(m))
    pins = [machine.Pin(p, machine.Pin.OUT) for p in sel]
    adcs = [machine.ADC(p) for p in chanmap.ADC_PINS]
    return pins, adcs, changes


def test_scanner_reads_every_sensor_from_its_own_mux_channel():
    values = {}
    for slot, (m, ch, sw) in enumerate(chanmap.HALLS):
        values[(m, ch)] = 1000 + 7 * sw
    pins, adcs, changes = mux_world(values)
    s = HallScanner(pins, adcs, chanmap.HALLS)
    from array import array
    raw = array("H", bytes(2 * s.n))
    changes[0] = 0
    s.scan(raw)
    eq(list(raw), [1000 + 7 * sw for (_m, _c, sw) in chanmap.HALLS], "each slot")
    eq(changes[0], 16, "one select line changes per step")
    changes[0] = 0
    s.scan(raw)
    eq(changes[0], 16, "and from the last channel back to the first")


def make(scans=2, hyst=40):
    h = Halls(bytes([0, 1, 2]), faketime.ticks_diff, scans)
    h.calibrate([REF, REF, REF], hyst)
    ev = []
    return h, ev, lambda t, k, a, b, c: ev.append((t, k, a, b, c))


def test_classify_bands_and_hysteresis():
    h, ev, emit = make()
    eq(h.classify(0, 2990, MID), L, "in L band")
    eq(h.classify(0, 2330, MID), R, "in R band")
    eq(h.classify(0, 2050, MID), NONE, "no magnet")
    eq(h.classify(0, 2700, MID), MID, "between")
    eq(h.classify(0, 2980 - 150, L), L, "L holds with hysteresis")
    eq(h.classify(0, 2980 - 150, MID), MID, "but is not entered there")
    eq(h.classify(0, 2980 - 170, L), MID, "beyond band + hysteresis")


def test_first_scan_primes_silently_then_flip_shows_mid_then_side():
    h, ev, emit = make(scans=2)
    h.update(A([2980, 2330, 2048]), 0, emit)
    eq(ev, [], "no events for the starting positions")
    eq(list(h.rep), [L, R, NONE], "positions")
    h.update(A([2700, 2330, 2048]), 4000, emit)
    eq(h.update(A([2600, 2330, 2048]), 8000, emit), None, "mid confirmed: nothing held")
    h.update(A([2330, 2330, 2048]), 12000, emit)
    h.update(A([2335, 2330, 2048]), 16000, emit)
    eq(ev, [(4000, EV_HALL, 0, MID, 2600), (12000, EV_HALL, 0, R, 2335)], "mid at departure, R at arrival")


def test_fast_flip_still_reports_mid_first():
    h, ev, emit = make(scans=2)
    h.update(A([2980, 2330, 2048]), 0, emit)
    h.update(A([2330, 2330, 2048]), 4000, emit)  # the rocker went across between two scans
    eq(h.update(A([2330, 2330, 2048]), 8000, emit), None, "horizon")
    eq([(e[0], e[3]) for e in ev], [(4000, MID), (4000, R)], "mid then R at the same time")


def test_single_scan_glitch_is_filtered_and_holds_the_horizon():
    h, ev, emit = make(scans=3)
    h.update(A([2980, 2330, 2048]), 0, emit)
    eq(h.update(A([2700, 2330, 2048]), 4000, emit), 4000, "a change may be starting at 4000")
    eq(h.update(A([2980, 2330, 2048]), 8000, emit), None, "back: nothing held")
    eq(ev, [], "no event")


def test_rail_reading_reported_once_as_an_error():
    h, ev, emit = make(scans=2)
    h.update(A([2980, 2330, 2048]), 0, emit)
    for t in (4000, 8000, 12000):
        h.update(A([2980, 4095, 2048]), t, emit)
    errs = [e for e in ev if e[1] == EV_ERROR]
    eq(len(errs), 1, "once")
    eq(errs[0][2:], (3, 1, 4095), "hall_range for switch 1 with the reading")


def test_none_to_side_without_mid():
    h, ev, emit = make(scans=1)
    h.update(A([2048, 2330, 2048]), 0, emit)
    h.update(A([2980, 2330, 2048]), 4000, emit)
    eq([(e[2], e[3]) for e in ev], [(0, L)], "switch put back in")


run(globals())
