"""The table's own inputs and outputs, through gpiozero.

Inputs: buttons and/or a rotary encoder with a push button -> one upward
stream of menu ``Action``s (next, prev, select, back, hold-select,
hold-back), delivered to a callback; ``queue_sink(loop, queue)`` makes that
callback feed an asyncio queue from gpiozero's threads.

Outputs: a buzzer playing named sounds, eight entry LEDs, an optional
dropper (a servo with a gate, or one solenoid per entry), all timed on one
timeline that the daemon ticks.

    inputs = build_inputs(cfg_section("inputs"), queue_sink(loop, queue))
    outputs = build_outputs(cfg_section("outputs"))
    check_all_pins(display_config, inputs_config, outputs_config)

``import coindrel.io`` does not import gpiozero: only building a "gpio"
backend (or a real buzzer, LEDs or dropper) does.
"""

from ..config import ConfigError
from .actions import ACTIONS, BACK, HOLD_BACK, HOLD_SELECT, NEXT, PREV, SELECT, Action, Keypad, queue_sink
from .buzzer import Buzzer, BuzzerConfig
from .dropper import Dropper, DropperConfig
from .inputs import Inputs, InputsConfig, build_inputs
from .leds import EntryLeds, LedsConfig
from .outputs import Outputs, OutputsConfig, build_outputs
from .pins import check_pins
from .sounds import SOUNDS, parse_melody
from .timeline import Timeline


def check_all_pins(*configs) -> None:
    """No GPIO pin used twice across the display, inputs and outputs
    (anything with a ``pins()`` method mapping pin -> who uses it)."""
    table: dict = {}
    for cfg in configs:
        if cfg is None:
            continue
        part = cfg.pins()
        check_pins(table, part)
        table.update(part)


__all__ = [
    "ACTIONS", "BACK", "HOLD_BACK", "HOLD_SELECT", "NEXT", "PREV", "SELECT", "SOUNDS", "Action", "Buzzer",
    "BuzzerConfig", "ConfigError", "Dropper", "DropperConfig", "EntryLeds", "Inputs", "InputsConfig", "Keypad",
    "LedsConfig", "Outputs", "OutputsConfig", "Timeline", "build_inputs", "build_outputs", "check_all_pins",
    "check_pins", "parse_melody", "queue_sink",
]
