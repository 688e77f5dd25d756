"""Guided hall calibration: flip each switch both ways, record the bands,
store them on the hub.

``Calibration`` is a pure procedure: it says what the person should do
(``prompt``), is fed the raw hall readings as they stream in (``feed``) and
moves on by itself once it has seen the rocker rest on one side, then the
other, then the first again. It never reads a clock or a device, so a test
drives it with made-up readings and the ``coindrel calibrate`` command with
the hub's raw stream (``run``).

Per switch it finds the seated reading on each side (the median of a still
stretch), checks that the two sides are far enough apart for the bands to
leave room for ``mid``, that a side reads the same when the rocker comes back
to it, and that the sensor is not so noisy the band would flicker.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ..engine import EngineError

QUIESCENT = 2048  # a linear hall sensor's reading with no magnet near (mid-scale of the 12-bit ADC)


@dataclass(frozen=True)
class Prompt:
    text: str
    switch: str | None
    step: int  # 1-based switch number in this run
    total: int


@dataclass(frozen=True)
class Band:
    """One switch's calibration: seated readings, no-magnet reading, band half-width."""

    switch: str
    left: int
    right: int
    none: int
    band: int
    noise: float  # largest deviation seen at rest (counts)

    def to_json(self) -> dict:
        return {"switch": self.switch, "L": self.left, "R": self.right, "none": self.none, "band": self.band, "noise": round(self.noise, 1)}


@dataclass
class CalibrationResult:
    bands: list = field(default_factory=list)  # Band, in switch order
    problems: list = field(default_factory=list)  # "R3S2: ..." sentences
    skipped: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.skipped

    def text(self) -> str:
        lines = [f"Calibrated {len(self.bands)} switch(es)."]
        lines += [f"  {b.switch}: L {b.left}, R {b.right}, none {b.none}, band ±{b.band} (noise ±{b.noise:.0f})" for b in self.bands]
        lines += [f"Problem: {p}" for p in self.problems]
        if self.skipped:
            lines.append(f"Skipped (not calibrated): {', '.join(self.skipped)}")
        return "\n".join(lines)


class Calibration:
    """The procedure for the switches ``labels`` (those with a hall sensor)."""

    STEPS = ("first", "second", "back")

    def __init__(self, labels, *, still: int = 6, steady: int = 12, min_separation: int = 300, band_fraction: float = 0.25,
                 none: dict | None = None, max_noise_fraction: float = 0.08):
        if not labels:
            raise EngineError("nothing to calibrate: this board has no hall sensors")
        self.labels = list(labels)
        self.still = still  # readings in a row that must agree to count as at rest
        self.steady = steady  # how far they may wander (counts)
        self.min_separation = min_separation
        self.band_fraction = band_fraction
        self.none = dict(none or {})  # switch -> measured no-magnet reading (else QUIESCENT)
        self.max_noise_fraction = max_noise_fraction
        self.result = CalibrationResult()
        self._i = 0
        self._step = 0
        self._seen: list = []  # the current stretch of readings of the current switch
        self._sides: list = []  # (median, noise) per step done

    # -- what the person is told -------------------------------------------------------

    @property
    def done(self) -> bool:
        return self._i >= len(self.labels)

    @property
    def switch(self) -> str | None:
        return None if self.done else self.labels[self._i]

    def prompt(self) -> Prompt | None:
        if self.done:
            return None
        s = self.switch
        text = {
            0: f"Push {s} over to its LEFT side and let go.",
            1: f"Now push {s} over to its RIGHT side and let go.",
            2: f"And back to the LEFT side, please: {s}.",
        }[self._step]
        return Prompt(text, s, self._i + 1, len(self.labels))

    # -- readings ------------------------------------------------------------------------

    def feed(self, raw: dict) -> bool:
        """One scan of raw readings ({label: counts}); True when the prompt changed."""
        if self.done or self.switch not in raw:
            return False
        v = raw[self.switch]
        seen = self._seen
        seen.append(v)
        if len(seen) > self.still:
            del seen[0]
        if len(seen) < self.still or max(seen) - min(seen) > self.steady:
            return False
        rest = statistics.median(seen)
        noise = max(abs(x - rest) for x in seen)
        if self._step == 1 and abs(rest - self._sides[0][0]) < self.min_separation:
            return False  # still on the first side: wait for the rocker to move
        if self._step == 2 and abs(rest - self._sides[1][0]) < self.min_separation:
            return False
        self._sides.append((rest, noise))
        self._seen = []
        self._step += 1
        if self._step == 3:
            self._finish_switch()
        return True

    def skip(self) -> None:
        """The person cannot do this switch now (it stays uncalibrated)."""
        if not self.done:
            self.result.skipped.append(self.switch)
            self._next()

    # -- the numbers -----------------------------------------------------------------------

    def _finish_switch(self) -> None:
        s = self.switch
        (left, n1), (right, n2), (again, n3) = self._sides
        noise = max(n1, n2, n3)
        distance = abs(right - left)
        problems = []
        if distance < self.min_separation:
            problems.append(f"{s}: left ({left:.0f}) and right ({right:.0f}) read almost the same; the magnet is missing, "
                            "too weak or too far from the sensor")
        if abs(again - left) > max(self.steady, distance * 0.1):
            problems.append(f"{s}: the left side read {left:.0f} the first time and {again:.0f} the second; "
                            "the rocker does not seat the same way twice (check its pivot)")
        if distance and noise > self.max_noise_fraction * distance:
            problems.append(f"{s}: the reading at rest wanders ±{noise:.0f} counts, too much for its {distance:.0f}-count "
                            "range; check the sensor's wiring and ground")
        none = int(self.none.get(s, QUIESCENT))
        band = max(int(self.band_fraction * distance), int(3 * noise) + 1)
        for name, v in (("left", left), ("right", right)):
            if abs(none - v) <= band:
                problems.append(f"{s}: the {name} reading ({v:.0f}) is within the band of the no-magnet reading ({none}); "
                                "turn the magnet over or move it closer")
        if 2 * band >= distance > 0:
            band = max(1, distance // 2 - 1)
        self.result.problems.extend(problems)
        self.result.bands.append(Band(s, int(round(left)), int(round(right)), none, band, noise))
        self._next()

    def _next(self) -> None:
        self._i += 1
        self._step = 0
        self._seen = []
        self._sides = []


READY_TIMEOUT = 15.0  # seconds to wait for the hub to answer before giving up


async def _need_ready(source) -> None:
    where = getattr(source, "url", "the board source")
    if await source.ready(1.0):
        return
    import sys

    # the person sees why nothing happens yet (a hub that is not there took 15 silent seconds)
    print(f"waiting up to {READY_TIMEOUT:g} s for the hub on {where} to answer...", file=sys.stderr, flush=True)
    if not await source.ready(READY_TIMEOUT - 1.0):
        raise EngineError(f"no hub answered on {where} within {READY_TIMEOUT:g} s: is it plugged in and running "
                          "the Coindrel firmware (coindrel hub info)? Stop the coindrel service first if it holds the port.")


async def run(source, procedure: Calibration, say, *, interval_ms: int = 20, save: bool = True, geometry=None,
              commands=None) -> CalibrationResult:
    """Drive ``procedure`` from a source's raw stream (``source.raw_stream``),
    tell the person each step (``say(prompt)``), then store the bands on the
    hub (``source.set_calibration``), keeping its hysteresis and filters.
    ``commands`` (an asyncio.Queue of typed words): ``s`` skips the switch,
    ``q`` stops (what was measured so far is still stored)."""
    caps = getattr(source, "capabilities", None)
    if caps is not None and not getattr(caps, "calibration", False):
        raise EngineError("this board source cannot store a calibration (calibration needs the sensor hub)")
    await _need_ready(source)
    current = await source.calibration()
    say(procedure.prompt())
    stream = source.raw_stream(interval_ms)
    try:
        async for _, raw in stream:
            changed = procedure.feed(raw)
            while commands is not None and not commands.empty():
                word = commands.get_nowait()
                if word.startswith("q"):
                    while not procedure.done:
                        procedure.skip()
                elif word.startswith("s"):
                    procedure.skip()
                    changed = True
            if procedure.done:
                break
            if changed:
                say(procedure.prompt())
    finally:
        await stream.aclose()
    result = procedure.result
    if save and result.bands:
        from ..hub import protocol as p

        index = {label: i for i, label in enumerate(geometry.labels)} if geometry is not None else None
        halls = [p.HallCal(index[b.switch] if index else procedure.labels.index(b.switch), b.left, b.right, b.none, b.band)
                 for b in result.bands]
        await source.set_calibration(halls, current.hyst, current.beam_filter, current.hall_filter, save=True)
    return result
