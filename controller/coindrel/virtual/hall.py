"""The analog side of a switch's hall sensor: magnet position to ADC counts.

A rocker's magnet sits at position ``p``: 0 is the rocker seated with its pad
on the left, 1 seated with its pad on the right. A flip moves ``p`` smoothly
from one end to the other (a cosine ease: a rocker accelerates off its seat
and decelerates into the other). The sensor's output is linear in ``p``
between its two seated readings, plus bounded noise; a removed switch (a
hole) has no magnet and reads the sensor's quiescent value.

Sensor faults change the output, never the rocker: an inverted sensor reads
left as right, a stuck one repeats one value, a drifted one is offset from
the calibration the hub holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .rand import Stream, noise_unit

ADC_MAX = 4095  # 12-bit, as the RP2040's ADC converts


@dataclass(frozen=True)
class SensorCurve:
    """One sensor's true output: the counts it reads with the rocker seated
    left, seated right, and with no magnet near (quiescent)."""

    left: float
    right: float
    none: float

    def at(self, p: float) -> float:
        return self.left + (self.right - self.left) * p


@dataclass(frozen=True)
class HallSpec:
    """How a batch of sensors behaves: nominal seated readings, the spread
    from sensor to sensor and the noise (standard deviation, in counts)."""

    # The firmware's reference magnet placement (hardware/magnets.md): 12-bit counts.
    left: float = 2980.0
    right: float = 2330.0
    none: float = 2048.0
    spread: float = 60.0
    noise: float = 6.0

    def curves(self, seed: int, count: int) -> tuple[SensorCurve, ...]:
        """Each switch's sensor, drawn once per board from the seed."""
        rng = Stream(seed, "hall-curves")
        out = []
        for _ in range(count):
            dl = rng.uniform(-self.spread, self.spread)
            dr = rng.uniform(-self.spread, self.spread)
            dn = rng.uniform(-self.spread / 4, self.spread / 4)
            out.append(SensorCurve(self.left + dl, self.right + dr, self.none + dn))
        return tuple(out)


def ease(u: float) -> float:
    if u <= 0.0:
        return 0.0
    if u >= 1.0:
        return 1.0
    return (1.0 - math.cos(math.pi * u)) * 0.5


class Rocker:
    """Where one rocker's magnet is over time: at rest, or moving between two
    positions over ``[t0, t1]``. ``present`` is False for a removed switch."""

    __slots__ = ("p0", "p1", "t0", "t1", "present")

    def __init__(self, p: float, present: bool = True):
        self.p0 = self.p1 = p
        self.t0 = self.t1 = 0.0
        self.present = present

    def move(self, t0: float, t1: float, to: float) -> None:
        self.p0 = self.at(t0)
        self.p1 = to
        self.t0, self.t1 = t0, t1

    def at(self, t: float) -> float:
        if t >= self.t1:
            return self.p1
        if t <= self.t0:
            return self.p0
        return self.p0 + (self.p1 - self.p0) * ease((t - self.t0) / (self.t1 - self.t0))

    def moving(self, t: float) -> bool:
        return t < self.t1

    @property
    def rest(self) -> float:
        return self.p1


# Sensor fault modes (sensing.md's hall_fault: inverted, stuck reading, drifted calibration)
INVERTED, STUCK, DRIFT = "inverted", "stuck", "drift"
HALL_MODES = (INVERTED, STUCK, DRIFT)


class HallSensor:
    """One sensor: true curve, noise, and any fault currently on it."""

    __slots__ = ("curve", "noise", "seed", "channel", "mode", "value", "offset")

    def __init__(self, curve: SensorCurve, noise: float, seed: int, channel: int):
        self.curve = curve
        self.noise = noise
        self.seed = seed
        self.channel = channel
        self.mode: str | None = None
        self.value = 0.0  # the stuck reading
        self.offset = 0.0  # the drift, in counts

    def clean(self, rocker: Rocker, t: float) -> float:
        """What a healthy sensor outputs without noise."""
        if not rocker.present:
            return self.curve.none
        return self.curve.at(rocker.at(t))

    def read(self, rocker: Rocker, t: float, tick: int) -> int:
        """The ADC reading at scan ``tick`` (time ``t``)."""
        if self.mode == STUCK:
            return int(self.value)
        v = self.clean(rocker, t)
        if self.mode == INVERTED:
            v = self.curve.left + self.curve.right - v
        elif self.mode == DRIFT:
            v += self.offset
        v += self.noise * noise_unit(self.seed, self.channel, tick)
        return min(ADC_MAX, max(0, int(round(v))))

    def bounds(self, rocker: Rocker) -> tuple[float, float]:
        """The range every reading of a rocker at rest falls in (noise is bounded)."""
        if self.mode == STUCK:
            return (float(int(self.value)), float(int(self.value)))
        v = self.clean(rocker, rocker.t1)
        if self.mode == INVERTED:
            v = self.curve.left + self.curve.right - v
        elif self.mode == DRIFT:
            v += self.offset
        span = 3.0 * self.noise + 1.0  # noise_unit is within [-3, 3); +1 for rounding
        return (max(0.0, v - span), min(float(ADC_MAX), v + span))
