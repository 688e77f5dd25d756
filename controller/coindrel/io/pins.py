"""Pin names as config gives them, and the check that no pin is used twice.

Config pins are BCM numbers (17) or gpiozero names ("GPIO17", "BCM17",
"BOARD11", "J8:11"); numbers and GPIO/BCM names are compared as the same
pin. Physical-header names are compared as written.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..config import ConfigError

_BCM = re.compile(r"^(?:GPIO|BCM)?([0-9]{1,6})$", re.IGNORECASE)  # int() refuses 4301 digits


def pin_key(pin) -> str:
    """One spelling per pin, for comparing: 17, "17", "GPIO17", "BCM17" -> "GPIO17"."""
    if isinstance(pin, int):
        return f"GPIO{pin}"
    m = _BCM.match(str(pin).strip())
    return f"GPIO{int(m.group(1))}" if m else str(pin).strip().upper()


def check_pins(*tables: dict) -> None:
    """Each table maps pin -> who uses it ("[inputs] select"); a pin in two
    places is an error naming both."""
    seen: dict[str, str] = {}
    for table in tables:
        for pin, who in table.items():
            if pin is None:
                continue
            k = pin_key(pin)
            if k in seen and seen[k] != who:
                raise ConfigError(f"{who} and {seen[k]} both use {k}; give each its own pin")
            seen[k] = who


def pin_table(section: str, pins: Iterable[tuple[str, object]]) -> dict:
    """{pin: "[section] key"} for the pins that are set, checking them among
    themselves on the way."""
    table: dict = {}
    for key, pin in pins:
        if pin is None:
            continue
        check_pins(table, {pin: f"[{section}] {key}"})
        table[pin] = f"[{section}] {key}"
    return table


def gpio_error(where: str, pin, error: BaseException) -> ConfigError:
    """gpiozero refused a pin: say which key, which pin, why, and what to do."""
    kind = type(error).__name__
    text = str(error) or kind
    if "default pin factory" in text:
        hint = ("there is no GPIO on this machine: use backend = \"null\" / kind = \"none\", or simulate with "
                "GPIOZERO_PIN_FACTORY=mock GPIOZERO_MOCK_PIN_CLASS=mockpwmpin")
    elif "PWM" in kind or "PWM" in text:
        hint = "this needs a PWM-capable pin (with the mock factory, set GPIOZERO_MOCK_PIN_CLASS=mockpwmpin)"
    elif "in use" in text:
        hint = "another device already has it; give each its own pin"
    else:
        hint = "check the pin number (BCM numbering, e.g. 17 for GPIO17)"
    return ConfigError(f"{where}: cannot use GPIO pin {pin!r} ({text}); {hint}")


def need_gpiozero(where: str):
    """gpiozero, or a ConfigError saying how to get it (or do without)."""
    try:
        import gpiozero
    except ImportError as e:
        raise ConfigError(f"{where} needs gpiozero ({e}); pip install gpiozero, or leave it out of the config") from None
    return gpiozero
