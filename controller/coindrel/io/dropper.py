"""The optional dropper: puts a coin in an entry when the clock runs out.

    [outputs.dropper]
    kind = "solenoid"       # one solenoid per entry, each releasing a coin...
    pins = [4, 17, 27, 22, 10, 9, 11, 0]
    pulse = 0.05            # seconds energised per drop
    recovery = 0.3          # seconds before the next drop may start
    active_high = true

    [outputs.dropper]
    kind = "servo"          # ...or a servo swinging a chute over the entry
    pin = 18
    angles = [-70, -50, -30, -10, 10, 30, 50, 70]   # entry 1..8
    min_angle = -90
    max_angle = 90
    min_pulse_width = 0.0005  # seconds, from the servo's datasheet
    max_pulse_width = 0.0025
    move_time = 0.5         # seconds to swing anywhere
    home_angle = 0          # optional: rest here between drops
    detach = true           # stop pulsing when idle (no hum, no jitter)
    gate = "solenoid"       # what lets the coin go: "solenoid", "servo" or "none"
    gate_pin = 23
    gate_pulse = 0.08       # solenoid gate: seconds energised
    gate_open = 40          # servo gate: angles open and closed...
    gate_closed = 0
    gate_time = 0.3         # ...and seconds held open

``drop(entry, now)`` queues the drop on the timeline and returns the time
the coin is let go; drops asked for while one is under way follow it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from dataclasses import dataclass

from ..config import ConfigError, Section
from .pins import gpio_error, need_gpiozero, pin_table
from .timeline import Timeline

ENTRIES = 8
KINDS = ("none", "solenoid", "servo")
GATES = ("none", "solenoid", "servo")


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


@dataclass(frozen=True)
class DropperConfig:
    kind: str = "none"
    pins: tuple = ()
    pulse: float = 0.05
    recovery: float = 0.3
    active_high: bool = True
    pin: int | str | None = None
    angles: tuple = ()
    min_angle: float = -90.0
    max_angle: float = 90.0
    min_pulse_width: float = 0.001
    max_pulse_width: float = 0.002
    move_time: float = 0.5
    home_angle: float | None = None
    detach: bool = True
    gate: str = "none"
    gate_pin: int | str | None = None
    gate_pulse: float = 0.08
    gate_open: float = 40.0
    gate_closed: float = 0.0
    gate_time: float = 0.3

    def pins_table(self) -> dict:
        if self.kind == "solenoid":
            return pin_table("outputs.dropper", [(f"pins (entry {i + 1})", p) for i, p in enumerate(self.pins)])
        if self.kind == "servo":
            return pin_table("outputs.dropper", [("pin", self.pin), ("gate_pin", self.gate_pin if self.gate != "none" else None)])
        return {}

    @classmethod
    def from_section(cls, s: Section) -> "DropperConfig":
        kind = s.str("kind", "none", choices=KINDS)
        d: dict = {"kind": kind}
        if kind == "none" and set(s.data) - {"kind"}:
            s.fail("kind", f"is \"none\", so {', '.join(sorted(set(s.data) - {'kind'}))} would be ignored; "
                           "set kind = \"solenoid\" or \"servo\", or remove them")
        if kind == "solenoid":
            pins = s.pins("pins", None, length=ENTRIES, what="entry")
            if pins is None:
                s.fail("pins", f"is required for solenoids: {ENTRIES} pins, entry 1 first")
            d["pins"] = tuple(pins)
            d["pulse"] = s.float("pulse", 0.05, lo=0.005, hi=1.0)
            d["recovery"] = s.float("recovery", 0.3, lo=0.0, hi=10.0)
            d["active_high"] = s.bool("active_high", True)
        elif kind == "servo":
            d["pin"] = s.pin("pin", required=True)
            d["min_angle"] = s.float("min_angle", -90.0)
            d["max_angle"] = s.float("max_angle", 90.0)
            lo, hi = sorted((d["min_angle"], d["max_angle"]))
            if lo == hi:
                s.fail("max_angle", "must differ from min_angle")
            angles = s.list("angles", None, length=ENTRIES, item=_number)
            if angles is None:
                s.fail("angles", f"is required for a servo: {ENTRIES} angles in degrees, entry 1 first")
            for i, a in enumerate(angles):
                if not lo <= a <= hi:
                    s.fail("angles", f"entry {i + 1}: {a} is outside min_angle..max_angle ({lo:g}..{hi:g})")
            d["angles"] = tuple(float(a) for a in angles)
            d["min_pulse_width"] = s.float("min_pulse_width", 0.001, lo=0.0001, hi=0.005)
            d["max_pulse_width"] = s.float("max_pulse_width", 0.002, lo=0.0001, hi=0.005)
            if d["max_pulse_width"] <= d["min_pulse_width"]:
                s.fail("max_pulse_width", "must be longer than min_pulse_width")
            d["move_time"] = s.float("move_time", 0.5, lo=0.0, hi=5.0)
            home = s.float("home_angle", None)
            if home is not None and not lo <= home <= hi:
                s.fail("home_angle", f"{home:g} is outside min_angle..max_angle ({lo:g}..{hi:g})")
            d["home_angle"] = home
            d["detach"] = s.bool("detach", True)
            d["gate"] = s.str("gate", "none", choices=GATES)
            if d["gate"] != "none":
                d["gate_pin"] = s.pin("gate_pin", required=True)
            if d["gate"] == "solenoid":
                d["gate_pulse"] = s.float("gate_pulse", 0.08, lo=0.005, hi=1.0)
                d["active_high"] = s.bool("active_high", True)
            elif d["gate"] == "servo":
                d["gate_open"] = s.float("gate_open", 40.0, lo=-180.0, hi=180.0)
                d["gate_closed"] = s.float("gate_closed", 0.0, lo=-180.0, hi=180.0)
                d["gate_time"] = s.float("gate_time", 0.3, lo=0.01, hi=5.0)
        s.check_unknown()
        cfg = cls(**d)
        try:
            cfg.pins_table()
        except ConfigError as e:
            raise ConfigError(f"{s.source}: {e}") from None
        return cfg


class Dropper(ABC):
    """``release_after``: seconds from the start of a drop to the coin being
    let go; ``busy_for``: seconds before the next drop can start."""

    kind = "none"

    def __init__(self, timeline: Timeline):
        self.timeline = timeline
        self.free_at = float("-inf")
        self.drops: list[tuple[int, float]] = []  # (entry, release time), for logs and tests

    @property
    def available(self) -> bool:
        return self.kind != "none"

    def busy(self, now: float) -> bool:
        return now < self.free_at

    def drop(self, entry: int, now: float) -> float | None:
        """Drop a coin in ``entry`` (0-based) as soon as possible; the time the
        coin is released, or None when there is no dropper (tell the player)."""
        if not isinstance(entry, int) or not 0 <= entry < ENTRIES:
            raise ValueError(f"entry {entry!r} is not 0..{ENTRIES - 1}")
        if not self.available:
            return None
        start = max(now, self.free_at)
        release, self.free_at = self._schedule(entry, start)
        self.drops.append((entry, release))
        return release

    @abstractmethod
    def _schedule(self, entry: int, start: float) -> tuple[float, float]:
        """Time the release of a coin into ``entry`` from ``start``: (release, free again)."""

    def close(self) -> None:
        self.timeline.cancel(self)


class NoDropper(Dropper):
    kind = "none"

    def _schedule(self, entry: int, start: float) -> tuple[float, float]:
        raise RuntimeError("there is no dropper: drop() returns None before it gets here")


class SolenoidDropper(Dropper):
    kind = "solenoid"

    def __init__(self, cfg: DropperConfig, solenoids, timeline: Timeline):
        super().__init__(timeline)
        self.cfg = cfg
        self.solenoids = list(solenoids)

    def _schedule(self, entry: int, start: float) -> tuple[float, float]:
        sol = self.solenoids[entry]
        self.timeline.at(start, sol.on, owner=self)
        self.timeline.at(start + self.cfg.pulse, sol.off, owner=self)
        return start, start + self.cfg.pulse + self.cfg.recovery

    def close(self) -> None:
        super().close()
        for sol in self.solenoids:  # a solenoid left on overheats: off first, then let go
            try:
                sol.off()
            finally:
                sol.close()


class ServoDropper(Dropper):
    kind = "servo"

    def __init__(self, cfg: DropperConfig, servo, gate, timeline: Timeline):
        super().__init__(timeline)
        self.cfg = cfg
        self.servo = servo
        self.gate = gate  # None, a solenoid (on/off) or a servo (angle)

    def _angle(self, device, angle) -> None:
        device.angle = angle

    def _schedule(self, entry: int, start: float) -> tuple[float, float]:
        cfg, at = self.cfg, self.timeline.at
        at(start, lambda: self._angle(self.servo, cfg.angles[entry]), owner=self)
        release = start + cfg.move_time
        end = release
        if cfg.gate == "solenoid":
            at(release, self.gate.on, owner=self)
            at(release + cfg.gate_pulse, self.gate.off, owner=self)
            end = release + cfg.gate_pulse
        elif cfg.gate == "servo":
            at(release, lambda: self._angle(self.gate, cfg.gate_open), owner=self)
            at(release + cfg.gate_time, lambda: self._angle(self.gate, cfg.gate_closed), owner=self)
            end = release + cfg.gate_time + cfg.move_time
        if cfg.home_angle is not None:
            at(end, lambda: self._angle(self.servo, cfg.home_angle), owner=self)
            end += cfg.move_time
        if cfg.detach:
            at(end, self._detach, owner=self)
        return release, end

    def _detach(self) -> None:
        self.servo.detach()
        if self.cfg.gate == "servo":
            self.gate.detach()

    def close(self) -> None:
        super().close()
        if self.cfg.gate == "solenoid":
            self.gate.off()
        for dev in (self.gate, self.servo):
            if dev is not None:
                dev.close()


def build_dropper(cfg: DropperConfig, timeline: Timeline, pin_factory=None) -> Dropper:
    if cfg.kind == "none":
        return NoDropper(timeline)
    need_gpiozero("[outputs.dropper]")
    from gpiozero import AngularServo, DigitalOutputDevice
    from gpiozero.exc import GPIOZeroError

    made: list = []

    def make(key, pin, factory):
        try:
            dev = factory()
        except (GPIOZeroError, ValueError, OSError) as e:
            for d in made:
                d.close()
            raise gpio_error(f"[outputs.dropper] {key}", pin, e) from None
        made.append(dev)
        return dev

    if cfg.kind == "solenoid":
        sols = [make(f"pins (entry {i + 1})", p, lambda p=p: DigitalOutputDevice(p, active_high=cfg.active_high,
                                                                                  initial_value=False, pin_factory=pin_factory))
                for i, p in enumerate(cfg.pins)]
        return SolenoidDropper(cfg, sols, timeline)
    servo = make("pin", cfg.pin, lambda: AngularServo(
        cfg.pin, initial_angle=cfg.home_angle, min_angle=cfg.min_angle, max_angle=cfg.max_angle,
        min_pulse_width=cfg.min_pulse_width, max_pulse_width=cfg.max_pulse_width, pin_factory=pin_factory))
    gate = None
    if cfg.gate == "solenoid":
        gate = make("gate_pin", cfg.gate_pin, lambda: DigitalOutputDevice(cfg.gate_pin, active_high=cfg.active_high,
                                                                          initial_value=False, pin_factory=pin_factory))
    elif cfg.gate == "servo":
        lo, hi = min(cfg.gate_open, cfg.gate_closed), max(cfg.gate_open, cfg.gate_closed)
        gate = make("gate_pin", cfg.gate_pin, lambda: AngularServo(
            cfg.gate_pin, initial_angle=cfg.gate_closed, min_angle=min(-90.0, lo), max_angle=max(90.0, hi),
            pin_factory=pin_factory))
    return ServoDropper(cfg, servo, gate, timeline)
