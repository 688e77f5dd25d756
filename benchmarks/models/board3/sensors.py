"""board3's sensors and the hub that reads them (firmware/PROTOCOL.md section 5,
hardware/calibration.md, hardware/magnets.md), modelled from the physics.

Halls: a disc magnet on the rocker's L arm over a linear hall sensor; the
field falls with the cube of the gap, so the reading is not linear in the
rocker's angle. Each sensor has its own offsets, its own noise, and the
calibration measured some time ago (a few counts off). The hub scans every
4 ms with a loop that jitters, classifies with band and hysteresis, needs two
scans in a row, and stamps a change with the scan that first showed it.

Beams: a coin breaks the beam for as long as it takes to pass; its ragged
edge and a bounce make the beam flicker; the hub samples at 10 kHz and counts
a change only when it held five samples (0.5 ms).
"""

from __future__ import annotations

import bisect
import math
import random

L, R, MID, NONE = "L", "R", "mid", "none"
SCAN_US = 4000
SAMPLE_US = 100
BEAM_FILTER = 5
HALL_FILTER = 2


class Hall:
    """One sensor: reading(theta, t) for the rocker at angle theta (0 seated L, 1 seated R)."""

    def __init__(self, rng: random.Random, present: bool = True):
        self.none = 2048 + rng.gauss(0, 12)
        self.amp = rng.uniform(820, 1020) if present else 0.0  # L reading above none
        self.k = rng.uniform(1.42, 1.56)  # gap at R over gap at L
        self.noise = rng.uniform(2.5, 8.0)
        self.seat = rng.uniform(6, 22)  # how differently the rocker seats each time (counts)
        l_true, r_true = self.ideal(0.0), self.ideal(1.0)
        err = lambda: rng.gauss(0, 6)  # noqa: E731 - calibration done some days ago
        self.ref = {L: l_true + err(), R: r_true + err(), NONE: self.none + err()}
        if not present:
            self.ref = {L: 2980.0, R: 2330.0, NONE: self.none + err()}  # the switch taken out: default refs
        gaps = [abs(self.ref[L] - self.ref[R]), abs(self.ref[R] - self.ref[NONE]), abs(self.ref[L] - self.ref[NONE])]
        self.band = max(40.0, min(400.0, 0.35 * min(gaps)))
        # fault transforms (set by faults): t from which each applies
        self.drift = None  # (t0, counts per second, cap): the sensor's zero wandering
        self.fade = None  # (t0, share per second, cap): the magnet creeping off the arm
        self.frozen_at = None
        self.inverted_at = None
        self.faults = {}  # fault id -> kind, for tagging events

    def ideal(self, theta: float) -> float:
        return self.none + self.amp / (1.0 + (self.k - 1.0) * theta) ** 3

    def reading(self, theta: float, t: float) -> float:
        field = self.amp / (1.0 + (self.k - 1.0) * theta) ** 3
        if self.fade is not None and t > self.fade[0]:
            field *= 1.0 - min(self.fade[2], self.fade[1] * (t - self.fade[0]))
        off = 0.0
        if self.drift is not None and t > self.drift[0]:
            t0, rate, cap = self.drift
            off = max(-cap, min(cap, rate * (t - t0)))
        return self.none + field + off


def classify(hall: Hall, raw: float, cur: str, hyst: float) -> str:
    if cur != MID:
        if abs(raw - hall.ref[cur]) <= hall.band + hyst:
            return cur
    best, dist = MID, 1e9
    for c in (L, R, NONE):
        d = abs(raw - hall.ref[c])
        if d <= hall.band and d < dist:
            best, dist = c, d
    return best


class Scanner:
    """The hub's hall scan: a grid of scan times (4 ms, jittering loop)."""

    def __init__(self, rng: random.Random):
        self.phase = rng.randrange(SCAN_US)
        self.seed = rng.randrange(1 << 30)
        self.hyst = max(20.0, min(200.0, 2 * 2.5 * rng.uniform(3.0, 6.0)))

    def time_of(self, k: int) -> int:
        h = (k * 2654435761 + self.seed) & 0xFFFFFFFF
        jitter = (h % 300) if h % 23 else 300 + h % 1500  # now and then a slow pass (a USB write)
        return self.phase + k * SCAN_US + jitter

    def first_scan(self, t_us: int) -> int:
        return max(0, (t_us - self.phase) // SCAN_US - 1)


class Track:
    """A rocker's angle over time: knots (t seconds, theta), linear between.
    Between knots at rest the reading is the seated one plus a per-rest offset."""

    def __init__(self, theta: float):
        self.ts = [0.0]
        self.th = [theta]
        self.windows = []  # (t0, t1) where the angle moves

    def move(self, knots: list) -> None:
        for t, th in knots:
            if t < self.ts[-1]:
                t = self.ts[-1]
            self.ts.append(t)
            self.th.append(th)
        self.windows.append((knots[0][0], knots[-1][0]))

    def at(self, t: float) -> float:
        i = bisect.bisect_right(self.ts, t) - 1
        if i < 0:
            return self.th[0]
        if i + 1 >= len(self.ts):
            return self.th[-1]
        t0, t1 = self.ts[i], self.ts[i + 1]
        if t1 <= t0:
            return self.th[i + 1]
        return self.th[i] + (self.th[i + 1] - self.th[i]) * (t - t0) / (t1 - t0)


def hall_events(label: str, hall: Hall, track: Track, scanner: Scanner, rng: random.Random, t_end: float,
                extra_windows=()) -> list:
    """The hub's events for one sensor: (t, label, pos, raw, tags)."""
    windows = sorted([(a - 0.012, b + 0.05) for a, b in track.windows] + list(extra_windows))
    merged = []
    for a, b in windows:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out = []
    rep = classify(hall, hall.ideal(track.at(0.0)), MID, scanner.hyst)
    rest_off = 0.0
    for a, b in merged:
        a = max(a, 0.0)
        b = min(b, t_end)
        k = scanner.first_scan(int(a * 1e6))
        cand, cnt, leaving, left_t, left_raw, cand_t = None, 0, False, 0, 0, 0
        rest_off = rng.uniform(-hall.seat, hall.seat)
        frozen_raw = None
        steps = 0
        while True:
            steps += 1
            assert steps < 10_000_000
            tu = scanner.time_of(k)
            k += 1
            t = tu / 1e6
            if t > b and not leaving:
                break
            if t > t_end:
                break
            theta = track.at(t)
            if hall.inverted_at is not None and t >= hall.inverted_at:
                theta = 1.0 - theta
            seat_w = 1.0 - min(1.0, 4 * min(theta, 1 - theta))  # the seat offset only where it rests
            v = hall.reading(theta, t) + rest_off * seat_w + rng.gauss(0, hall.noise)
            if hall.frozen_at is not None and t >= hall.frozen_at:
                if frozen_raw is None:
                    frozen_raw = hall.frozen_raw
                v = frozen_raw
            v = max(0, min(4095, int(round(v))))
            c = classify(hall, v, rep, scanner.hyst)
            if c == rep:
                cnt, leaving = 0, False
                continue
            if not leaving:
                leaving, left_t, left_raw = True, tu, v
            if cnt and c == cand:
                cnt += 1
            else:
                cand, cnt, cand_t = c, 1, tu
            if cnt >= HALL_FILTER:
                tags = tuple(hall.faults)
                if {rep, c} == {L, R}:
                    out.append((left_t / 1e6, label, MID, left_raw, tags))
                out.append(((cand_t if c != MID else left_t) / 1e6, label, c, v, tags))
                rep, cnt, leaving = c, 0, False
    return out


def beam_events(pulses: list, rng: random.Random) -> list:
    """pulses: (t0, t1, tags) intervals the beam is broken, possibly flickering;
    the hub's filtered 'broken' edges: (t, tags)."""
    out = []
    samples = []
    for a, b, tags in sorted(pulses):
        samples.append((int(math.ceil(a * 1e6 / SAMPLE_US)), int(math.ceil(b * 1e6 / SAMPLE_US)), tags))
    # Walk the sample indices where something is broken, counting held runs.
    merged = []
    for a, b, tags in samples:
        if b <= a:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
            merged[-1][2] = merged[-1][2] + tuple(tags)
        else:
            merged.append([a, b, tuple(tags)])
    reported = False  # the hub's reported state: broken
    clear_since = None
    for a, b, tags in merged:
        # clear from the previous interval's end to a: counts if it held
        if reported and clear_since is not None and a - clear_since >= BEAM_FILTER:
            reported = False
        if not reported and b - a >= BEAM_FILTER:
            out.append((a * SAMPLE_US / 1e6, tags))
            reported = True
        clear_since = b
    return out
