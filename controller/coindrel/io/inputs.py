"""The ``[inputs]`` section and the input port: buttons and/or a rotary
encoder with a push button, via gpiozero, turned into menu actions.

    [inputs]
    backend = "gpio"        # or "null": no inputs (actions only from feed())
    encoder_a = 17          # a rotary encoder's A and B pins (both or neither)
    encoder_b = 18
    select = 27             # the encoder's push, or a select button
    back = 22               # optional
    up = 5                  # optional buttons; "up" is prev, "down" is next
    down = 6
    pull_up = true          # buttons to ground with the Pi's pull-ups (default)
    # active_high = true    # instead: external pull resistors, pressed = high
    bounce_time = 0.0       # seconds of software debounce (0: none)
    hold_time = 0.8         # select/back held this long -> hold-select/hold-back
    repeat_delay = 0.5      # up/down held: first repeat after this...
    repeat_every = 0.15     # ...then one every this long
    encoder_reverse = false # swap clockwise and anticlockwise

gpiozero is imported inside the gpio backend only.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable

from ..config import ConfigError, Section
from .actions import Action, Keypad
from .pins import gpio_error, need_gpiozero, pin_table

log = logging.getLogger("coindrel.io")

BACKENDS = ("gpio", "null")
BUTTON_KEYS = ("select", "back", "up", "down")


@dataclass(frozen=True)
class InputsConfig:
    backend: str = "null"
    select: int | str | None = None
    back: int | str | None = None
    up: int | str | None = None
    down: int | str | None = None
    encoder_a: int | str | None = None
    encoder_b: int | str | None = None
    encoder_reverse: bool = False
    pull_up: bool = True
    active_high: bool | None = None  # set: external pull resistors
    bounce_time: float = 0.0
    hold_time: float = 0.8
    repeat_delay: float = 0.5
    repeat_every: float = 0.15

    @property
    def has_encoder(self) -> bool:
        return self.encoder_a is not None

    def pins(self) -> dict:
        if self.backend != "gpio":
            return {}
        return pin_table("inputs", [(k, getattr(self, k)) for k in BUTTON_KEYS + ("encoder_a", "encoder_b")])

    @classmethod
    def from_section(cls, s: Section) -> "InputsConfig":
        d: dict = {"backend": s.str("backend", "gpio" if s.data else "null", choices=BACKENDS)}
        for key in BUTTON_KEYS + ("encoder_a", "encoder_b"):
            d[key] = s.pin(key)
        d["encoder_reverse"] = s.bool("encoder_reverse", False)
        if s.has("active_high"):
            if s.has("pull_up"):
                s.fail("active_high", "give either pull_up (the Pi's own resistors) or active_high (external ones), not both")
            d["active_high"] = s.bool("active_high")
        d["pull_up"] = s.bool("pull_up", True)
        d["bounce_time"] = s.float("bounce_time", 0.0, lo=0.0, hi=1.0)
        d["hold_time"] = s.float("hold_time", 0.8, lo=0.1, hi=10.0)
        d["repeat_delay"] = s.float("repeat_delay", 0.5, lo=0.05, hi=10.0)
        d["repeat_every"] = s.float("repeat_every", 0.15, lo=0.0, hi=10.0)
        s.check_unknown()
        cfg = cls(**d)
        if (cfg.encoder_a is None) != (cfg.encoder_b is None):
            s.fail("encoder_b" if cfg.encoder_b is None else "encoder_a", "an encoder needs both encoder_a and encoder_b")
        if cfg.backend == "gpio":
            if cfg.select is None:
                s.fail("select", "is required with backend = \"gpio\": the pin of the select button (or the encoder's push)")
            if not cfg.has_encoder and cfg.up is None and cfg.down is None:
                s.fail("down", "the menus need a way to move: give encoder_a and encoder_b, or up and/or down buttons")
            try:
                cfg.pins()
            except ConfigError as e:
                raise ConfigError(f"{s.source}: {e}") from None
        return cfg


class Inputs:
    """The input port. Actions go to ``emit``; call ``poll(now)`` when
    ``next_deadline()`` comes (holds and repeats), ``close()`` at the end."""

    def __init__(self, keypad: Keypad, devices=(), backend: str = "null"):
        self.keypad = keypad
        self.devices = list(devices)
        self.backend = backend

    def poll(self, now: float | None = None) -> None:
        self.keypad.poll(now)

    def next_deadline(self) -> float | None:
        return self.keypad.next_deadline()

    def feed(self, name: str, now: float | None = None) -> None:
        self.keypad.feed(name, now)

    def close(self) -> None:
        for dev in reversed(self.devices):
            try:
                dev.close()
            except Exception as e:  # closing at shutdown: report, go on with the rest
                log.warning("closing %r: %s", dev, e)
        self.devices.clear()


def build_inputs(config: InputsConfig | Section, emit: Callable[[Action], None], *,
                 clock: Callable[[], float] = time.monotonic, pin_factory=None) -> Inputs:
    """The input port for ``config`` (an ``InputsConfig`` or the ``[inputs]``
    section). ``pin_factory`` is gpiozero's (None: its default; tests pass a
    MockFactory)."""
    cfg = InputsConfig.from_section(config) if isinstance(config, Section) else config
    keypad = Keypad(emit, clock, hold_time=cfg.hold_time, repeat_delay=cfg.repeat_delay, repeat_every=cfg.repeat_every)
    if cfg.backend == "null":
        return Inputs(keypad, (), "null")
    return Inputs(keypad, _gpio_devices(cfg, keypad, pin_factory), "gpio")


def _gpio_devices(cfg: InputsConfig, keypad: Keypad, pin_factory) -> list:
    need_gpiozero("[inputs] backend = \"gpio\"")
    from gpiozero import Button, RotaryEncoder
    from gpiozero.exc import GPIOZeroError

    devices: list = []
    bounce = cfg.bounce_time or None
    pull = dict(pull_up=None, active_state=cfg.active_high) if cfg.active_high is not None else dict(pull_up=cfg.pull_up)

    def make(key, factory):
        try:
            dev = factory()
        except (GPIOZeroError, ValueError, OSError) as e:
            for d in devices:
                d.close()
            raise gpio_error(f"[inputs] {key}", getattr(cfg, key), e) from None
        devices.append(dev)
        return dev

    for key in BUTTON_KEYS:
        pin = getattr(cfg, key)
        if pin is None:
            continue
        button = make(key, lambda: Button(pin, bounce_time=bounce, pin_factory=pin_factory, **pull))
        # gpiozero calls these from its own thread; the keypad takes the time.
        button.when_pressed = partial(keypad.press, key)
        button.when_released = partial(keypad.release, key)
    if cfg.has_encoder:
        enc = make("encoder_a", lambda: RotaryEncoder(cfg.encoder_a, cfg.encoder_b, bounce_time=bounce, max_steps=0,
                                                      pin_factory=pin_factory))
        cw = not cfg.encoder_reverse
        enc.when_rotated_clockwise = partial(keypad.step, cw)
        enc.when_rotated_counter_clockwise = partial(keypad.step, not cw)
    return devices
