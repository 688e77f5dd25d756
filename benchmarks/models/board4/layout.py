"""The standard board as rules.md section 2 describes it, and each switch's
hall sensor as hardware/magnets.md and calibration.md describe one.

Written from the specs alone (no engine code): lanes, spans, inlets, where a
coin leaving an outlet lands, and how a rocker's angle becomes a 12-bit
reading and a class (``L``, ``R``, ``mid``, ``none``).
"""

from __future__ import annotations

L, R = 0, 1
ROWS, LANES, ENTRIES = 5, 16, 8
HOLE_SWITCHES = ((1, 1), (1, 5), (3, 2), (3, 4))


class Spot:
    """One switch place: row, index, left lane, inlet side, label."""

    __slots__ = ("row", "j", "lane", "inlet", "label", "n")

    def __init__(self, row: int, j: int, n: int):
        self.row, self.j, self.n = row, j, n
        self.lane = 2 * j + (row % 2)
        if (row, j) == (1, 3):
            self.inlet = R
        elif (row, j) == (3, 3):
            self.inlet = L
        else:
            self.inlet = L if j < (4 if row % 2 == 0 else 3) else R
        self.label = f"R{row + 1}S{j + 1}"

    def outlet_lane(self, side: int) -> int:
        return self.lane + side


def spots() -> list[Spot]:
    out = []
    for row in range(ROWS):
        for j in range(8 if row % 2 == 0 else 7):
            out.append(Spot(row, j, len(out)))
    return out


SPOTS = spots()
BY_LABEL = {s.label: s for s in SPOTS}
_COVER = {}
for _s in SPOTS:
    _COVER[(_s.row, _s.lane)] = _s
    _COVER[(_s.row, _s.lane + 1)] = _s


def below(row: int, lane: int):
    """Where a coin falling down ``lane`` from ``row`` lands: (spot, rows
    fallen) or (None, rows fallen to the exit)."""
    for r in range(row + 1, ROWS):
        s = _COVER.get((r, lane))
        if s is not None:
            return s, r - row
    return None, ROWS - row


def entry_spot(entry: int) -> Spot:
    return _COVER[(0, 2 * entry)]


def text_rows(pads: list[int], coins: list[bool], holes: set) -> list[str]:
    rows = []
    for s in SPOTS:
        if s.row == len(rows):
            rows.append("")
        if s.n in holes:
            ch = "o"
        else:
            ch = "LR"[pads[s.n]]
            if coins[s.n]:
                ch = ch.lower()
        rows[s.row] += ch
    return rows


class Hall:
    """A linear hall sensor under the rocker's L arm.

    ``theta`` is the rocker's angle, 0 seated L, 1 seated R. The field falls
    off faster than linearly as the magnet lifts, so the reading is not a
    straight line between the two references; calibration (calibration.md)
    gives band and hysteresis from the references and the noise.
    """

    __slots__ = ("l", "r", "none", "band", "hyst", "noise", "curve")

    def __init__(self, rng):
        self.l = int(rng.gauss(2980, 60))
        self.r = int(rng.gauss(2330, 60))
        self.none = int(rng.gauss(2048, 12))
        self.noise = rng.uniform(2.0, 9.0)
        self.curve = rng.uniform(1.3, 2.1)
        gap = min(abs(self.l - self.r), abs(self.r - self.none), abs(self.l - self.none))
        self.band = max(40, min(400, int(0.35 * gap)))
        self.hyst = max(20, min(200, int(2 * self.noise * 2.5)))

    def raw(self, theta: float) -> float:
        theta = min(1.0, max(0.0, theta))
        return self.r + (self.l - self.r) * (1.0 - theta) ** self.curve

    def classify(self, raw: float, now: str) -> str:
        ref = {"L": self.l, "R": self.r, "none": self.none}
        if now in ref and abs(raw - ref[now]) <= self.band + self.hyst:
            return now
        for k, v in ref.items():
            if abs(raw - v) <= self.band:
                return k
        return "mid"
