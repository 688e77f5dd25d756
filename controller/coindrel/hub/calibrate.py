"""Hall calibration: from raw readings taken with every rocker L, every rocker
R, and (for the switches taken out) no switch, to the references and bands the
hub classifies with (hardware/calibration.md walks a person through it).

Pure: readings in, a ``CalibrationPlan`` out, with warnings in words for
every sensor that will not classify reliably. The file form (``to_json`` /
``from_json``) is keyed by switch label so a person can read and edit it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ..engine import EngineError
from . import protocol as p
from .channelmap import ChannelMap

NOMINAL_NONE = 2048  # a ratiometric sensor with no field reads half the supply
MIN_BAND, MAX_BAND = 40, 400
MIN_SEPARATION = 150  # L and R closer than this cannot be told apart reliably


class CalibrationError(EngineError):
    """Readings or a calibration file that cannot make a calibration."""


@dataclass
class CalibrationPlan:
    halls: list[p.HallCal]
    hyst: int = 40
    beam_filter: int = 5
    hall_filter: int = 2
    warnings: list[str] = field(default_factory=list)

    def table(self, cm: ChannelMap) -> str:
        rows = [f"{'switch':7} {'L':>5} {'R':>5} {'none':>5} {'band':>5}"]
        for c in self.halls:
            rows.append(f"{cm.label(c.switch):7} {c.l:5d} {c.r:5d} {c.none:5d} {c.band:5d}")
        return "\n".join(rows)


def _centre(samples: list[int]) -> tuple[int, int]:
    """Median and spread (max - min) of one sensor's readings."""
    return int(statistics.median(samples)), max(samples) - min(samples)


def compute(cm: ChannelMap, left: dict[int, list[int]], right: dict[int, list[int]],
            empty: dict[int, list[int]] | None = None, *, hyst: int | None = None,
            beam_filter: int = 5, hall_filter: int = 2) -> CalibrationPlan:
    """References from readings per switch id: all rockers L, all R, and some switches taken out."""
    warnings: list[str] = []
    empty = empty or {}
    nones = {sw: _centre(v)[0] for sw, v in empty.items() if v}
    typical_none = int(statistics.median(nones.values())) if nones else NOMINAL_NONE
    halls, noise = [], []
    for h in cm.halls:
        sw, lab = h.switch, h.label
        if not left.get(sw) or not right.get(sw):
            raise CalibrationError(f"{lab}: no readings with the rocker {'L' if not left.get(sw) else 'R'}; "
                                   "is the hub streaming raw values for every sensor?")
        lv, ls = _centre(left[sw])
        rv, rs = _centre(right[sw])
        nv = nones.get(sw, typical_none)
        noise.append(max(ls, rs))
        sep = min(abs(lv - rv), abs(lv - nv), abs(rv - nv))
        band = max(MIN_BAND, min(MAX_BAND, int(0.35 * sep)))
        if abs(lv - rv) < MIN_SEPARATION:
            warnings.append(f"{lab}: L ({lv}) and R ({rv}) read only {abs(lv - rv)} apart: move the magnet closer "
                            "to the sensor or turn it (hardware/magnets.md)")
        if min(lv, rv) < nv < max(lv, rv):
            warnings.append(f"{lab}: the empty reading ({nv}) lies between L and R, so a flip passes through "
                            "'none': turn the magnet so L and R are on the same side of the empty reading")
        if sep and band < max(ls, rs):
            warnings.append(f"{lab}: readings wander by {max(ls, rs)}, more than the band ({band}): "
                            "check the sensor's wiring and decoupling capacitor")
        for v, what in ((lv, "L"), (rv, "R")):
            if v < 64 or v > 4031:
                warnings.append(f"{lab}: the {what} reading {v} is at a supply rail: sensor unplugged or shorted?")
        halls.append(p.HallCal(sw, lv, rv, nv, band))
    if hyst is None:
        hyst = max(20, min(200, 2 * int(statistics.median(noise)) if noise else 40))
    return CalibrationPlan(halls, hyst, beam_filter, hall_filter, warnings)


def to_json(cal: p.Calibration | CalibrationPlan, cm: ChannelMap) -> dict:
    return {"format": 1, "map": cm.hash_hex, "hyst": cal.hyst, "beam_filter": cal.beam_filter,
            "hall_filter": cal.hall_filter,
            "halls": {cm.label(c.switch): {"l": c.l, "r": c.r, "none": c.none, "band": c.band} for c in cal.halls}}


def from_json(doc: dict, cm: ChannelMap, source: str = "calibration file") -> CalibrationPlan:
    if not isinstance(doc, dict) or doc.get("format") != 1:
        raise CalibrationError(f"{source}: not a calibration file of format 1 (`coindrel hub calibration get` writes one)")
    labels = {h.label: h.switch for h in cm.halls}
    halls = []
    for lab, v in (doc.get("halls") or {}).items():
        key = lab.strip().upper() if isinstance(lab, str) else lab
        if key not in labels:
            raise CalibrationError(f"{source}: {lab!r} has no hall sensor in the channel map")
        try:
            c = p.HallCal(labels[key], int(v["l"]), int(v["r"]), int(v["none"]), int(v["band"]))
        except (KeyError, TypeError, ValueError):
            raise CalibrationError(f"{source}: {lab} needs whole numbers l, r, none and band") from None
        if not all(0 <= x <= 4095 for x in (c.l, c.r, c.none)) or not 1 <= c.band <= 2047:
            raise CalibrationError(f"{source}: {lab}: readings are 0..4095 and band 1..2047")
        halls.append(c)
    try:
        plan = CalibrationPlan(halls, int(doc.get("hyst", 40)), int(doc.get("beam_filter", 5)), int(doc.get("hall_filter", 2)))
    except (TypeError, ValueError):
        raise CalibrationError(f"{source}: hyst, beam_filter and hall_filter must be whole numbers") from None
    for name, v, lo, hi in (("hyst", plan.hyst, 0, 1000), ("beam_filter", plan.beam_filter, 1, 100),
                            ("hall_filter", plan.hall_filter, 1, 50)):
        if not lo <= v <= hi:
            raise CalibrationError(f"{source}: {name} {v} is not {lo}..{hi}")
    return plan
