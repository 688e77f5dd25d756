"""The hub's hall classification: ADC counts to ``L``, ``R``, ``mid`` or ``none``.

It follows the hub protocol's calibration format (``coindrel.hub.protocol``
``HallCal`` and ``Calibration``) and the firmware's algorithm
(firmware/coindrel_hub/halls.py), so the virtual hub reports exactly what a
real hub would for the same readings:

- each switch has a stored calibration: its readings seated left (``l``),
  seated right (``r``) and with no magnet (``none``), and ``band``, the
  half-width of each of those three bands, in counts;
- a reading within ``band`` of a calibrated value is in that band (the
  nearest centre wins if bands overlap); the class being reported is kept
  while the reading stays within ``band + hyst``; anything else is ``mid``;
- a change counts after ``filter`` equal scans in a row (``hall_filter``) and
  is stamped with the scan where the new class began (``mid`` with the scan
  where the reading first left the old class);
- a confirmed change straight from ``L`` to ``R`` (or back) reports ``mid``
  first, at the moment the reading left: a flip always passes mid, even when
  mid was too brief to be confirmed on its own.

``stable`` answers whether every reading in a range keeps the held class,
which lets the simulation skip scanning a rocker at rest whose noise can
never change the report.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import EngineError

L_, R_, MID, NONE = "L", "R", "mid", "none"
_BANDS = (L_, R_, NONE)


@dataclass(frozen=True)
class Calibration:
    """One switch's stored calibration (counts), as ``HallCal`` carries it."""

    left: int
    right: int
    none: int
    band: int

    def to_json(self) -> dict:
        return {"L": self.left, "R": self.right, "none": self.none, "band": self.band}

    def centre(self, pos: str) -> int:
        return self.left if pos == L_ else self.right if pos == R_ else self.none

    def check(self, where: str, hyst: int) -> None:
        """Refuse a calibration whose bands overlap: a reading would be two things."""
        if self.band <= 0:
            raise EngineError(f"{where}: band {self.band} must be more than 0 counts")
        for a, b in ((L_, R_), (L_, NONE), (R_, NONE)):
            gap = abs(self.centre(a) - self.centre(b))
            if gap <= 2 * self.band + hyst:
                raise EngineError(
                    f"{where}: the {a} and {b} readings ({self.centre(a)}, {self.centre(b)}) are only {gap} counts apart; "
                    f"bands of {self.band} plus hysteresis {hyst} overlap. Recalibrate or narrow the band"
                )


@dataclass(frozen=True)
class HallRules:
    """The hub-wide settings of ``Calibration``: hysteresis and the scan filter."""

    hyst: int = 40  # the firmware's defaults (coindrel_hub/calib.py)
    filter: int = 2


def zone(cal: Calibration, rules: HallRules, held: str, raw: int) -> str:
    """The class of one reading, given the class currently reported."""
    if held != MID and abs(raw - cal.centre(held)) <= cal.band + rules.hyst:
        return held
    best, dist = MID, None
    for pos in _BANDS:
        d = abs(raw - cal.centre(pos))
        if d <= cal.band and (dist is None or d < dist):
            best, dist = pos, d
    return best


def stable(cal: Calibration, rules: HallRules, held: str, lo: float, hi: float) -> bool:
    """True when every reading in ``[lo, hi]`` classifies as ``held``."""
    if held != MID:
        c, h = cal.centre(held), cal.band + rules.hyst
        return c - h <= lo and hi <= c + h
    for pos in _BANDS:
        c = cal.centre(pos)
        if lo <= c + cal.band and hi >= c - cal.band:
            return False
    return True


class Classifier:
    """One channel's running classification, as the firmware keeps it."""

    __slots__ = ("cal", "rules", "held", "cand", "count", "leaving", "cand_t", "left_t", "left_raw")

    def __init__(self, cal: Calibration, rules: HallRules, first: str):
        self.cal = cal
        self.rules = rules
        self.held = first  # the class reported
        self.cand = first
        self.count = 0
        self.leaving = False  # the reading is away from the reported class
        self.cand_t = self.left_t = 0.0
        self.left_raw = 0

    def update(self, raw: int, t: float) -> list[tuple[float, str, int]] | None:
        """Feed one scan's reading at time ``t``; returns the changes to report,
        ``(t, pos, raw)`` each, once the filter agrees."""
        z = zone(self.cal, self.rules, self.held, raw)
        if z == self.held:
            self.count = 0
            self.leaving = False
            return None
        if not self.leaving:
            self.leaving = True
            self.left_t, self.left_raw = t, raw
        if self.count and z == self.cand:
            self.count += 1
        else:
            self.cand, self.count, self.cand_t = z, 1, t
        if self.count < self.rules.filter:
            return None
        out = []
        if (self.held, z) in ((L_, R_), (R_, L_)):
            out.append((self.left_t, MID, self.left_raw))
        out.append((self.cand_t if z != MID else self.left_t, z, raw))
        self.held, self.count, self.leaving = z, 0, False
        return out

    @property
    def settled(self) -> bool:
        return not self.leaving


def initial(cal: Calibration, rules: HallRules, raw: int) -> str:
    """A channel's class at boot, from its first reading."""
    return zone(cal, rules, MID, raw)
