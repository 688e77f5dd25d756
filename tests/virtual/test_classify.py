"""The virtual hub classifies hall readings and filters beams exactly as the
firmware does: the same readings through both give the same events, the
same classes and the same timestamps (the firmware modules are pure Python
apart from ``micropython.const`` and the viper/native decorators, so they
load here with a stand-in; viper's pointers are plain indexing here)."""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import pytest

from coindrel.engine import EngineError
from coindrel.virtual.classify import Calibration, Classifier, HallRules, initial, stable, zone
from coindrel.virtual.rand import Stream

FIRMWARE = Path(__file__).parents[2] / "firmware"
POS = ("L", "R", "mid", "none")


@pytest.fixture(scope="module")
def firmware():
    if not (FIRMWARE / "coindrel_hub" / "halls.py").exists():
        pytest.skip("firmware/coindrel_hub is not in this checkout")
    saved = {k: sys.modules.get(k) for k in ("micropython",)}
    sys.modules["micropython"] = types.SimpleNamespace(const=lambda x: x, native=lambda f: f, viper=lambda f: f)
    sys.path.insert(0, str(FIRMWARE))
    try:
        halls = importlib.import_module("coindrel_hub.halls")
        beams = importlib.import_module("coindrel_hub.beams")
        for mod in (halls, beams):
            for name in ("ptr8", "ptr16", "ptr32"):
                setattr(mod, name, lambda buf: buf)
        yield types.SimpleNamespace(halls=halls, beams=beams)
    finally:
        sys.path.remove(str(FIRMWARE))
        for k in [k for k in sys.modules if k == "coindrel_hub" or k.startswith("coindrel_hub.")]:
            del sys.modules[k]
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


CALS = [Calibration(2980, 2330, 2048, 90), Calibration(3050, 2290, 2070, 70), Calibration(2900, 2400, 2040, 120)]


def walk(seed: int, cal: Calibration, n: int) -> list[int]:
    """Readings of a rocker that rests, flips (fast and slow), wobbles, is
    removed, drifts near band edges, and now and then hits a rail."""
    s = Stream(seed, "walk")
    out, v = [], cal.left
    target = cal.left
    for _ in range(n):
        if s.chance(0.04):
            target = s.choice([cal.left, cal.right, cal.none, (cal.left + cal.right) // 2,
                               cal.left + cal.band + 20, cal.right - cal.band - 10, 5, 4090])
        step = s.uniform(0.2, 1.0)
        v = v + (target - v) * step
        out.append(max(0, min(4095, int(v + s.uniform(-15, 15)))))
    return out


def test_hall_classification_is_the_firmwares(firmware):
    h = firmware.halls
    rules = HallRules(hyst=40, filter=2)
    for filt in (1, 2, 3):
        rules = HallRules(hyst=40, filter=filt)
        fw = h.Halls(bytes(range(len(CALS))), lambda a, b: a - b, scans=filt)
        fw.calibrate([(c.left, c.right, c.none, c.band) for c in CALS], rules.hyst)
        series = [walk(7 + i + 10 * filt, c, 3000) for i, c in enumerate(CALS)]
        fw_events = []

        def emit(t, kind, a, b, c):
            if kind == h.EV_HALL:
                fw_events.append((t, a, POS[b], c))

        mine_events = []
        ours = []
        for k in range(3000):
            t = 1000 + 4000 * k
            raw = [series[i][k] for i in range(len(CALS))]
            fw.update(raw, t, emit)
            if k == 0:
                ours = [Classifier(c, rules, initial(c, rules, raw[i])) for i, c in enumerate(CALS)]
                assert [o.held for o in ours] == [POS[x] for x in fw.rep]
                continue
            for i, o in enumerate(ours):
                for when, pos, value in o.update(raw[i], t) or ():
                    mine_events.append((when, i, pos, value))
        assert len(fw_events) > 100
        assert sorted(mine_events) == sorted(fw_events)
        assert [o.held for o in ours] == [POS[x] for x in fw.rep]


def test_beam_filter_is_the_firmwares(firmware):
    """Edges through the virtual hub's filter and through the firmware's
    BeamFilter (fed the 10 kHz samples those edges make) give the same events."""
    from coindrel.virtual import BoardConfig, Collect, VirtualBoard

    b = firmware.beams
    board = VirtualBoard(BoardConfig(seed=1, start="LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"), outputs=[out := Collect()])
    hub = board.hub
    s = Stream(3, "edges")
    t, edges, level = 0.010013, [], False  # edges fall between samples (a tie is a matter of float rounding)
    while t < 3.0:
        t += s.choice([0.00005, 0.0002, 0.0004, 0.0007, 0.003, 0.02])
        level = not level
        edges.append((t, level))
    for when, broken in edges:
        board.sched.at(when, hub.beam, "entry", 2, broken)
    board.run_until(3.5)
    mine = [("B", round(e.t * 1e6)) for e in out.events] + [("C", round(c[0] * 1e6), round(c[3] * 1e6)) for c in out.clears]

    bit_beam = bytes([2] + [255] * 23)
    f = b.BeamFilter(bit_beam, lambda a, c: a - c, 100, hub.beam_filter)
    theirs = []

    def emit(t, kind, beam, broken, dur):
        theirs.append(("B", t) if broken else ("C", t, dur))

    f.feed(0, 0, emit)  # the first sample primes it
    word, k = 0, 0
    edge_i = 0
    for k in range(1, 35000):
        tk = k * 100
        while edge_i < len(edges) and round(edges[edge_i][0] * 1e6) <= tk:
            word = 1 if edges[edge_i][1] else 0
            edge_i += 1
        f.poll(tk, emit)
        if word != f.raw:
            f.feed(tk, word, emit)
    assert len(theirs) > 50
    assert sorted(mine) == sorted(theirs)


def test_zone_keeps_the_held_band_and_takes_the_nearest():
    c, r = Calibration(3000, 2300, 2048, 100), HallRules(hyst=40)
    assert zone(c, r, "mid", 3000) == "L" and zone(c, r, "mid", 2899) == "mid"
    assert zone(c, r, "L", 2870) == "L" and zone(c, r, "L", 2859) == "mid"
    assert zone(c, r, "mid", 2048) == "none"
    overlap = Calibration(3000, 2900, 2048, 100)  # a poor calibration: bands overlap
    assert zone(overlap, r, "mid", 2960) == "L" and zone(overlap, r, "mid", 2940) == "R"


def test_stable_is_exact():
    c, r = Calibration(3000, 2300, 2048, 100), HallRules(hyst=40)
    for held in ("L", "R", "mid", "none"):
        for lo in range(1900, 3200, 7):
            for width in (0, 5, 19, 40):
                hi = lo + width
                brute = all(zone(c, r, held, v) == held for v in range(lo, hi + 1))
                assert stable(c, r, held, lo, hi) == brute, (held, lo, hi)


def test_a_flip_too_fast_to_confirm_mid_still_reports_mid_first():
    c, r = Calibration(3000, 2300, 2048, 100), HallRules(hyst=40, filter=2)
    k = Classifier(c, r, "L")
    assert k.update(2650, 1.0) is None  # mid, once
    assert k.update(2310, 2.0) is None  # R, once
    assert k.update(2300, 3.0) == [(1.0, "mid", 2650), (2.0, "R", 2300)]
    assert k.update(2640, 4.0) is None and k.update(2650, 5.0) == [(4.0, "mid", 2650)]


def test_calibration_checks():
    with pytest.raises(EngineError, match="apart"):
        Calibration(2400, 2330, 2048, 60).check("R1S1", 40)
    with pytest.raises(EngineError, match="band 0"):
        Calibration(2980, 2330, 2048, 0).check("R1S1", 40)
    Calibration(2980, 2330, 2048, 80).check("R1S1", 40)
    assert Calibration(1, 2, 3, 4).to_json() == {"L": 1, "R": 2, "none": 3, "band": 4}
