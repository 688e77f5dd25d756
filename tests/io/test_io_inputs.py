"""The input port on gpiozero's MockFactory: buttons, encoder, config."""

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from coindrel.config import ConfigError, Section
from coindrel.io import InputsConfig, build_inputs, queue_sink

CONTROLLER = Path(__file__).resolve().parents[2] / "controller"
FULL = {"encoder_a": 17, "encoder_b": 18, "select": 27, "back": 22, "up": 5, "down": 6}


def section(**data):
    return Section("inputs", data, "coindrel.toml")


def build(factory, clock, out, **data):
    return build_inputs(section(**data), out.append, clock=clock, pin_factory=factory)


def press(pin, clock, t):
    clock.t = t
    pin.drive_low()  # buttons to ground with the Pi's pull-ups


def release(pin, clock, t):
    clock.t = t
    pin.drive_high()


CW = [(0, 1), (0, 0), (1, 0), (1, 1)]  # A, B levels for one detent one way...
CCW = [(1, 0), (0, 0), (0, 1), (1, 1)]  # ...and the other


def turn(factory, a, b, steps):
    pa, pb = factory.pin(a), factory.pin(b)
    for la, lb in steps:
        (pa.drive_high if la else pa.drive_low)()
        (pb.drive_high if lb else pb.drive_low)()


def test_buttons_give_menu_actions(factory, clock):
    out = []
    inputs = build(factory, clock, out, **FULL)
    sel, back, up, down = (factory.pin(p) for p in (27, 22, 5, 6))
    press(down, clock, 1.0)
    release(down, clock, 1.1)
    press(up, clock, 2.0)
    release(up, clock, 2.1)
    press(sel, clock, 3.0)
    release(sel, clock, 3.2)
    press(back, clock, 4.0)
    release(back, clock, 4.1)
    press(sel, clock, 5.0)
    inputs.poll(6.0)
    release(sel, clock, 6.5)
    assert [(a.name, a.t) for a in out] == [("next", 1.0), ("prev", 2.0), ("select", 3.2), ("back", 4.1),
                                           ("hold-select", 6.0)]
    inputs.close()


def test_held_down_button_repeats_on_poll(factory, clock):
    out = []
    inputs = build(factory, clock, out, select=27, down=6, repeat_delay=0.4, repeat_every=0.1)
    press(factory.pin(6), clock, 0.0)
    assert inputs.next_deadline() == pytest.approx(0.4)
    for t in (0.4, 0.5, 0.6):
        inputs.poll(t)
    release(factory.pin(6), clock, 0.65)
    assert [(a.name, a.repeat) for a in out] == [("next", False)] + [("next", True)] * 3
    inputs.close()


def test_encoder_turns_and_push(factory, clock):
    out = []
    inputs = build(factory, clock, out, encoder_a=17, encoder_b=18, select=27)
    turn(factory, 17, 18, CW * 3)
    turn(factory, 17, 18, CCW)
    press(factory.pin(27), clock, 1.0)
    release(factory.pin(27), clock, 1.1)
    assert [a.name for a in out] == ["next", "next", "next", "prev", "select"]
    inputs.close()


def test_encoder_reverse_swaps_directions(factory, clock):
    out = []
    inputs = build(factory, clock, out, encoder_a=17, encoder_b=18, select=27, encoder_reverse=True)
    turn(factory, 17, 18, CW + CCW + CCW)
    assert [a.name for a in out] == ["prev", "next", "next"]
    inputs.close()


def test_external_pulls_active_high(factory, clock):
    out = []
    inputs = build(factory, clock, out, select=27, down=6, active_high=True)
    pin = factory.pin(27)
    clock.t = 1.0
    pin.drive_high()
    clock.t = 1.2
    pin.drive_low()
    assert [(a.name, a.t) for a in out] == [("select", 1.2)]
    inputs.close()


def test_actions_reach_an_asyncio_queue_from_gpio_threads(factory):
    async def main():
        loop = asyncio.get_running_loop()
        queue = asyncio.Queue()
        inputs = build_inputs(section(**FULL), queue_sink(loop, queue), pin_factory=factory)
        th = threading.Thread(target=lambda: turn(factory, 17, 18, CW * 2 + CCW))
        th.start()
        got = [await asyncio.wait_for(queue.get(), 60) for _ in range(3)]
        th.join()
        inputs.close()
        return [a.name for a in got]

    assert asyncio.run(main()) == ["next", "next", "prev"]


def test_close_frees_the_pins(factory, clock):
    out = []
    build(factory, clock, out, **FULL).close()
    build(factory, clock, out, **FULL).close()  # same pins again: no "already in use"


def test_null_backend_takes_fed_actions_and_touches_no_pins(factory, clock):
    out = []
    inputs = build_inputs(section(backend="null"), out.append, clock=clock)
    assert inputs.devices == [] and inputs.backend == "null"
    inputs.feed("select", 2.0)
    assert [(a.name, a.t) for a in out] == [("select", 2.0)]
    assert InputsConfig.from_section(section()).backend == "null"  # an empty section: no inputs


@pytest.mark.parametrize("data,key,words", [
    ({"down": 6}, "select", "is required"),
    ({"select": 27}, "down", "a way to move"),
    ({"select": 27, "encoder_a": 17}, "encoder_b", "both"),
    ({"select": 27, "down": 27}, "down", "both use GPIO27"),
    ({"select": 27, "down": 6, "pull_up": True, "active_high": True}, "active_high", "not both"),
    ({"select": 27, "down": 6, "hold": 1}, "unknown key", "hold"),
    ({"select": 40, "down": 6}, "select", "BCM number from 0 to 27"),
    ({"select": 27, "down": 6, "backend": "usb"}, "backend", '"gpio"'),
])
def test_bad_sections_name_the_key(data, key, words):
    with pytest.raises(ConfigError) as e:
        InputsConfig.from_section(section(**data))
    assert "coindrel.toml" in str(e.value) and key in str(e.value) and words in str(e.value)


def test_a_pin_gpiozero_refuses_is_a_clear_error(factory, clock):
    # (a pin off the header is refused by the config check already, before gpiozero sees it)
    with pytest.raises(ConfigError, match=r"\[inputs\] select: \"GPIO99\" is not on the Pi's header; write a BCM number"):
        build(factory, clock, [], select="GPIO99", down=6)
    build(factory, clock, [], select=27, down=6).close()  # nothing was left half-built


def test_importing_the_ports_does_not_import_gpiozero():
    code = ("import sys, coindrel.io, coindrel.display; "
            "from coindrel.config import Section; "
            "coindrel.io.build_inputs(Section('inputs', {}), print); "
            "coindrel.io.build_outputs(Section('outputs', {})); "
            "print('gpiozero' in sys.modules, 'luma.oled' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(CONTROLLER)}).stdout
    assert out.strip() == "False False"


def test_without_gpiozero_the_error_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "gpiozero", None)  # as if it were not installed
    with pytest.raises(ConfigError, match=r"\[inputs\] backend = \"gpio\" needs gpiozero.*pip install gpiozero"):
        build_inputs(section(select=27, down=6), print)
    from coindrel.io import build_outputs

    with pytest.raises(ConfigError, match=r"\[outputs.leds\] needs gpiozero"):
        build_outputs(Section("outputs", {"leds": {"pins": [5, 6, 13, 19, 26, 16, 20, 21]}}))
