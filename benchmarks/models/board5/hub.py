"""The sensor hub as PROTOCOL.md and calibration.md describe it, with this
board's own parts: 38 linear halls read one after another through a
multiplexer (each channel later in the scan), classified against a
calibration measured before the session (band and hysteresis as
calibration.md computes them), ``hall_filter`` consecutive scans before a
change counts, stamped at the first scan that showed it; beams sampled at
10 kHz; the hub's crystal a few tens of ppm off the Pi's.

A channel is rendered after the physics has run: the rocker's angle over
time (0 seated L, 1 seated R) from the motions the physics recorded, plus
what moves a reading without moving a rocker (temperature, a phone, a
fault), scanned only where something moves."""

from __future__ import annotations

import math

BEAM_HZ = 10_000
NONE_REF = 2048


def smooth(u: float) -> float:
    u = 0.0 if u < 0 else 1.0 if u > 1 else u
    return u * u * (3 - 2 * u)


class Hub:
    def __init__(self, rng, n_halls: int):
        self.scan = rng.uniform(0.0012, 0.0024)  # one full scan of the 38 channels
        self.hall_filter = rng.choice((2, 2, 2, 3))
        self.ppm = rng.uniform(-80.0, 80.0)
        self.n = n_halls
        self.channels = [Channel(rng, i, self) for i in range(n_halls)]

    def stamp(self, t: float) -> float:
        """Board time (seconds on the hub's clock) of a true time."""
        return round(t * (1.0 + self.ppm * 1e-6), 6)

    def beam(self, t: float) -> float:
        """A beam change is stamped at the first 0.1 ms sample that showed it."""
        return self.stamp(math.ceil(t * BEAM_HZ - 1e-9) / BEAM_HZ)


class Channel:
    def __init__(self, rng, index: int, hub: Hub):
        self.hub = hub
        self.rng_seed = rng.randrange(1 << 30)
        # Magnet strength and height differ rocker to rocker.
        self.ref_l = NONE_REF + rng.uniform(760.0, 1020.0)
        self.ref_r = NONE_REF + rng.uniform(230.0, 340.0)
        # The mux's settling leaves a bit of the previous channel in each reading: a fixed offset.
        self.offset = rng.uniform(-9.0, 9.0)
        self.noise = 9.0 if rng.random() < 0.04 else rng.uniform(1.5, 4.0)
        # Calibration measured the references earlier (median of a second's readings).
        cal_l = self.ref_l + self.offset + rng.gauss(0, 3)
        cal_r = self.ref_r + self.offset + rng.gauss(0, 3)
        cal_n = NONE_REF + rng.gauss(0, 3)
        self.cal = (cal_l, cal_r, cal_n)
        gap = min(abs(cal_l - cal_r), abs(cal_r - cal_n), abs(cal_l - cal_n))
        self.band = max(40.0, min(400.0, 0.35 * gap))
        self.hyst = max(20.0, min(200.0, 2 * self.noise * 3))
        # Temperature over a session: the field creeps a few counts (within calibration).
        self.temp_rate = rng.uniform(-0.08, 0.08)  # counts per second
        self.phase = index / max(1, hub.n) * hub.scan

    # -- readings ---------------------------------------------------------------

    def classify(self, raw: float, current: str) -> str:
        cl, cr, cn = self.cal
        refs = {"L": cl, "R": cr, "none": cn}
        if current in refs and abs(raw - refs[current]) <= self.band + self.hyst:
            return current
        for name, ref in refs.items():
            if abs(raw - ref) <= self.band:
                return name
        return "mid"


def render(ch: Channel, a0: float, motions: list, extras: list, fault: dict | None, horizon: float, rng) -> list:
    """The hall events of one channel: [(true time, pos, raw)].

    ``motions``: (t0, duration, a_from, a_to) in time order, never
    overlapping (a rocker finishes one move before the next). ``extras``:
    (t0, t1, counts) readings pushed by something other than the rocker.
    ``fault``: {"mode": frozen|drift|inverted|unseated, "t": ..., ...}."""
    hub = ch.hub
    P = hub.scan
    windows = [(t0 - P, t0 + d + 6 * P) for t0, d, _, _ in motions]
    windows += [(t0 - P, t1 + 6 * P) for t0, t1, _ in extras]
    mode = fault["mode"] if fault else None
    tf = fault["t"] if fault else math.inf
    if mode == "drift":
        windows.append((tf, tf + fault["total"] / fault["rate"] + 8 * P))
    elif mode in ("inverted", "unseated"):
        windows.append((tf - P, tf + 0.04 + 8 * P))
    windows.sort()
    merged = []
    for w in windows:
        if merged and w[0] <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], w[1]))
        else:
            merged.append(w)

    def angle(t: float) -> float:
        a = a0
        for t0, d, fa, ta in motions:
            if t < t0:
                break
            a = ta if t >= t0 + d else fa + (ta - fa) * smooth((t - t0) / d)
        if mode == "unseated" and t >= tf:
            # A warped rocker: it does not seat on one side.
            bad = fault["side"]
            w = min(1.0, (t - tf) / 0.03)
            warped = a * 0.66 if bad == 1 else 0.34 + a * 0.66
            a = a + w * (warped - a)
        return a

    def reading(t: float) -> float:
        a = angle(t)
        raw = ch.ref_l + (ch.ref_r - ch.ref_l) * a + ch.offset + ch.temp_rate * t
        for t0, t1, counts in extras:
            if t0 <= t <= t1:
                raw += counts
        if mode == "drift" and t >= tf:
            raw += fault["sign"] * min(fault["total"], fault["rate"] * (t - tf))
        if mode == "inverted" and t >= tf:
            raw = ch.ref_l + ch.ref_r + 2 * ch.offset - raw
        return raw + rng.gauss(0, ch.noise)

    current = ch.classify(reading(-1.0), "mid")
    events = []
    for start, end in merged:
        if mode == "frozen" and start >= tf:
            break  # the channel reads the same value from here on: nothing changes
        end = min(end, horizon, tf if mode == "frozen" else math.inf)
        k = math.ceil((start - ch.phase) / P)
        cand, since, count = None, None, 0
        while True:
            ts = ch.phase + k * P
            if ts > end:
                break
            k += 1
            raw = reading(ts)
            c = ch.classify(raw, current)
            if c == current:
                cand, count = None, 0
                continue
            if c != cand:
                cand, since, first_raw, count = c, ts, raw, 0
            count += 1
            if count >= hub.hall_filter:
                if {current, c} == {"L", "R"}:
                    events.append((since, "mid", int(round(first_raw))))
                    events.append((since + 0.000001, c, int(round(raw))))
                else:
                    events.append((since, c, int(round(first_raw))))
                current, cand, count = c, None, 0
    return [(t, p, max(0, min(4095, r))) for t, p, r in events]


def restart(events: list, t_r: float, boot: float, err: float, heartbeat: float = 0.5) -> tuple[list, dict]:
    """A hub that resets at ``t_r`` (a brown-out as the dropper fires, the
    watchdog): the port goes away, the hub boots for ``boot`` seconds, the
    controller says ``disconnected`` at the last frame it heard, then
    ``connected`` and ``resync`` (board time continuing, ``err`` s off),
    asks for a snapshot and reports every switch that reads differently
    behind a ``lost`` status (PROTOCOL.md section 5; what changed while the
    hub was down is all it can know; beams are gone).

    ``events``: [(board time, order, event)] sorted. Returns the new list
    and what it did (for the truth)."""
    before = [e for e in events if e[0] < t_r]
    back = t_r + boot
    t_snap = back + 0.03
    heard = max([e[0] for e in before] + [math.floor(t_r / heartbeat) * heartbeat])
    known, now = {}, {}
    for t, _, e in events:
        if e["kind"] == "switch":
            if t < t_r:
                known[e["switch"]] = (e["pos"], e["raw"])
            if t <= t_snap:
                now[e["switch"]] = (e["pos"], e["raw"])
    changed = [(label, pos, raw) for label, (pos, raw) in sorted(now.items()) if known.get(label, (None,))[0] != pos]
    out = list(before)
    out.append((heard, 2, {"kind": "status", "state": "disconnected",
                           "detail": "hub on /dev/ttyACM0: the port went away; waiting for it to come back"}))
    out.append((back + err, 2, {"kind": "status", "state": "connected", "detail": "hub on /dev/ttyACM0"}))
    out.append((back + err, 2, {"kind": "status", "state": "resync",
                                "detail": "the hub restarted (a new boot); board time continues"}))
    if changed:
        what = ", ".join(f"{label} {pos}" for label, pos, _ in changed)
        out.append((t_snap + err, 2, {"kind": "status", "state": "lost", "count": len(changed),
                                      "detail": f"changed unseen (the hub's snapshot): {what}"}))
        out += [(t_snap + err, 3, {"kind": "switch", "switch": label, "pos": pos, "raw": raw}) for label, pos, raw in changed]
    out += [(t + err, o, e) for t, o, e in events if t >= back]
    lost = [e for t, _, e in events if t_r <= t < back]
    return out, {"t": t_r, "back": back, "err": err, "lost": len(lost), "changed": len(changed)}
