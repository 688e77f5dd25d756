"""The sensor hub as firmware/PROTOCOL.md section 5 describes one, sampling
the physics: beams stamped on a 0.1 ms sample grid, halls classified scan by
scan (this board's own scan period, 2-10 ms, each mux channel a little later
in the scan than the one before) with band, hysteresis and ``hall_filter``
consecutive scans; an L to R change seen in one scan still sent as ``mid``
then the new side. A hub may restart mid-session: the controller's log then
shows it going and coming back (status lines), and board time continues
from the Pi's estimate of the time that passed, a few ms off.

Output: (t, event dict, owner) in time order; ``owner`` is the drop whose
coin caused it (None for a hand, the table, the hub) and is the truth's, not
the log's.
"""

from __future__ import annotations

import math

from .layout import SPOTS, Hall
from .physics import Physics, keyed

BEAM_DT = 1e-4


def _noise(seed: int, n: int, k: int, sigma: float) -> float:
    h = hash((seed, n, k)) * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFF
    u = ((h & 0xFFFF) + (h >> 16 & 0xFFFF) + (h >> 32 & 0xFFFF)) / 65536.0 - 1.5  # roughly normal, sd 0.5
    return 2.0 * sigma * u


class Hub:
    def __init__(self, seed: int, rng=None):
        rng = rng or keyed("b4hub", seed)
        self.seed = seed
        self.period = rng.choice((0.002, 0.003, 0.004, 0.004, 0.005, 0.006, 0.008, 0.01))
        self.phase = rng.uniform(0, self.period)
        self.filter = rng.choice((1, 2, 2, 3))
        self.halls = [Hall(keyed("b4hall", seed, s.n)) for s in SPOTS]
        self.restarts: list[tuple] = []  # (t_down, t_up, clock error)
        self.hb_phase = rng.uniform(0, 0.5)
        self.notes: list[tuple] = []  # (t, owner, what): things a healthy board did that a reader may trip on

    def hall_class(self, n: int, theta: float) -> str:
        h = self.halls[n]
        return h.classify(h.raw(theta), "L" if theta < 0.5 else "R")

    # -- halls ----------------------------------------------------------------
    def _windows(self, rocker, extra) -> list[tuple]:
        p = self.period
        w = [(m.t0 - p, m.t1 + (self.filter + 2) * p) for m in rocker.motions] + list(extra)
        w.sort()
        out: list[list] = []
        for a, b in w:
            if out and a <= out[-1][1]:
                out[-1][1] = max(out[-1][1], b)
            else:
                out.append([a, b])
        return out

    def halls_events(self, phys: Physics, start_theta: list, fault_of) -> list[tuple]:
        out = []
        p = self.period
        for rocker in phys.rockers:
            if rocker.hole:
                continue
            n = rocker.spot.n
            hall = self.halls[n]
            fault = fault_of(n)
            motions = sorted(rocker.motions, key=lambda m: m.t0)
            theta0 = start_theta[n]
            cls = hall.classify(hall.raw(theta0), "L" if theta0 < 0.5 else "R")
            pend, count, first, first_raw = None, 0, 0.0, 0
            left = cls
            mi = -1
            for a, b in self._windows(rocker, fault.windows() if fault else ()):
                k0 = math.ceil((a - self.phase) / p)
                k1 = math.floor((b - self.phase) / p)
                for k in range(k0, k1 + 1):
                    t = self.phase + k * p + n * p / 48.0
                    while mi + 1 < len(motions) and motions[mi + 1].t0 <= t:
                        mi += 1
                    if mi < 0:
                        theta = theta0
                    else:
                        m = motions[mi]
                        theta = m.at(t) if t <= m.t1 else m.b
                    raw = hall.raw(theta) + _noise(self.seed, n, k, hall.noise)
                    if fault:
                        raw = fault.raw(t, raw, theta, hall)
                    got = hall.classify(raw, cls)
                    if got == cls:
                        pend, count = None, 0
                        continue
                    if got != pend:
                        pend, count, first, first_raw = got, 1, t, raw
                    else:
                        count += 1
                    if count >= self.filter:
                        owner = motions[mi].owner if mi >= 0 and first <= motions[mi].t1 + 4 * p else None
                        label = rocker.spot.label
                        if {cls, got} == {"L", "R"}:  # crossed within one scan: still mid, then the side
                            out.append((first, {"kind": "switch", "switch": label, "pos": "mid", "raw": int(first_raw)}, owner))
                        out.append((first, {"kind": "switch", "switch": label, "pos": got, "raw": int(first_raw)}, owner))
                        if got == "mid":
                            left = cls
                        elif cls == "mid" and got == left:  # back to the side it left: a bounce or a rattle, no flip
                            self.notes.append((first, owner, f"{label} {motions[mi].kind if mi >= 0 else 'rest'} blip"))
                        cls, pend, count = got, None, 0
        return out

    # -- beams ------------------------------------------------------------------
    def beam_events(self, phys: Physics, beam_fault) -> list[tuple]:
        """One event per break: two coins in a beam at once (touching, or
        the second in before the first is out by the filter's 0.5 ms) are
        one break, as a real beam sees them."""
        out = []
        clear: dict = {}  # beam -> when it is clear again
        for kind, t, num, owner, cid, through in sorted(phys.beams, key=lambda b: b[1]):
            for tb in beam_fault(kind, num, t, owner, cid):
                end = tb + (through if tb == t else 0.003)
                if tb < clear.get((kind, num), -1.0) + 0.0005:
                    clear[(kind, num)] = max(clear[(kind, num)], end)
                    continue
                clear[(kind, num)] = end
                ts = math.ceil(tb / BEAM_DT) * BEAM_DT
                out.append((ts, {"kind": kind, kind: num + 1}, owner))
        return out

    # -- the link ---------------------------------------------------------------
    def deliver(self, events: list[tuple]) -> list[tuple]:
        """Board time as the controller logs it: events while the hub was down
        never arrive, later ones carry the new boot's offset error. The
        controller stamps "disconnected" with the board time of the last
        frame it heard (an event, or a heartbeat: every 500 ms while the queue
        is empty), and the new boot's "resync" and "connected" with the board
        time it continues from."""
        events.sort(key=lambda e: e[0])
        if not self.restarts:
            return events
        out = []
        for t_down, t_up, err in self.restarts:
            heard = max([t for t, _, _ in events if t <= t_down] + [self.hb_phase + 0.5 * ((t_down - self.hb_phase) // 0.5)])
            out.append((heard, {"kind": "status", "state": "disconnected",
                                "detail": "hub stopped answering (3 heartbeats missed)"}, None))
            out.append((t_up + err, {"kind": "status", "state": "resync", "detail": "hub restarted; board time continues"}, None))
            out.append((t_up + err + 1e-6, {"kind": "status", "state": "connected", "detail": "hub said hello: a new boot"}, None))
        for t, ev, owner in events:
            shift, lost = 0.0, False
            for t_down, t_up, err in self.restarts:
                if t_down <= t <= t_up:
                    lost = True
                elif t > t_up:
                    shift = err
            if not lost:
                out.append((max(0.0, t + shift), ev, owner))
        out.sort(key=lambda e: e[0])
        return out
