"""The output port on MockFactory/MockPWMPin: buzzer tones, entry LEDs,
solenoid and servo droppers, all stepped with made-up times."""

import asyncio
import logging

import pytest
from gpiozero.tones import Tone

from coindrel.config import ConfigError, Section
from coindrel.display import DisplayConfig
from coindrel.io import InputsConfig, OutputsConfig, build_outputs, check_all_pins, parse_melody

LEDS = [5, 6, 13, 19, 26, 16, 20, 21]
SOLENOIDS = [4, 17, 27, 22, 10, 9, 11, 7]


def outputs(factory, clock=None, **data):
    return build_outputs(Section("outputs", data, "coindrel.toml"), pin_factory=factory,
                         **({"clock": clock} if clock else {}))


def freq(pin):
    return None if pin.frequency is None or pin.state == 0 else round(pin.frequency, 1)


def hz(note):
    return round(Tone(note=note).frequency, 1)


# -- buzzer ------------------------------------------------------------------------


def test_tonal_buzzer_plays_a_sound_note_by_note(factory):
    out = outputs(factory, buzzer={"pin": 12, "sounds": {"test": "C6:0.1 C6:0.1 -:0.05 E6:0.2"}})
    pin = factory.pin(12)
    assert out.buzzer.play("test", 10.0)
    heard = []
    for t in (10.0, 10.05, 10.085, 10.1, 10.19, 10.2, 10.22, 10.25, 10.3, 10.44, 10.45, 11.0):
        out.tick(t)
        heard.append(freq(pin))
    c6, e6 = hz("C6"), hz("E6")
    # Two C6s with a gap between them (not one long note), a rest, E6, then quiet.
    assert heard == [c6, c6, None, c6, c6, None, None, e6, e6, e6, None, None]
    assert out.buzzer.playing is None and out.next_deadline() is None
    out.close()


def test_notes_outside_the_buzzers_range_move_by_octaves(factory):
    out = outputs(factory, buzzer={"pin": 12, "mid_tone": "A6", "octaves": 1})
    out.buzzer.play("C4:0.1 C9:0.1", 0.0)
    out.tick(0.0)
    assert freq(factory.pin(12)) == hz("C6")  # A5..A7 is the range: C4 -> C6
    out.tick(0.1)
    assert freq(factory.pin(12)) == hz("C7")  # C9 -> C7
    out.close()


def test_a_new_sound_cuts_off_the_last_and_unknown_names_are_refused_quietly(factory, caplog):
    out = outputs(factory, buzzer={"pin": 12})
    out.buzzer.play("match-won", 0.0)
    out.tick(0.0)
    out.buzzer.play("click", 0.1)
    out.tick(0.1)
    assert freq(factory.pin(12)) == hz("A6")
    out.tick(0.2)
    assert freq(factory.pin(12)) is None and out.next_deadline() is None  # nothing of match-won left
    with caplog.at_level(logging.WARNING, logger="coindrel.io"):
        assert out.buzzer.play("fanfare", 1.0) is False
    assert "no sound called 'fanfare'" in caplog.text
    out.close()


def test_muted_buzzer_stays_silent(factory):
    out = outputs(factory, buzzer={"pin": 12, "muted": True})
    assert out.buzzer.play("start", 0.0)
    out.tick(0.0)
    assert freq(factory.pin(12)) is None
    out.buzzer.muted = False
    out.buzzer.play("start", 1.0)
    out.tick(1.0)
    assert freq(factory.pin(12)) == hz("C6")
    out.close()


def test_active_buzzer_beeps_on_and_off(factory):
    out = outputs(factory, buzzer={"kind": "active", "pin": 12, "sounds": {"two": "A6:0.1 A6:0.1"}})
    pin = factory.pin(12)
    out.buzzer.play("two", 0.0)
    states = []
    for t in (0.0, 0.09, 0.1, 0.15, 0.2):
        out.tick(t)
        states.append(bool(pin.state))
    assert states == [True, False, True, True, False]
    out.close()


def test_every_default_sound_parses_and_plays(factory):
    out = outputs(factory, buzzer={"pin": 12})
    for name in out.buzzer.sounds:
        assert out.buzzer.play(name, 0.0)
        for _ in range(100):
            nxt = out.next_deadline()
            if nxt is None:
                break
            out.tick(nxt)
        assert freq(factory.pin(12)) is None, name
    out.close()


@pytest.mark.parametrize("text,words", [("C6", "NOTE:seconds"), ("H6:0.1", "letter A-G"), ("C6:0", "more than 0"),
                                        ("C6:9", "at most"), ("", "melody")])
def test_bad_melodies_are_config_errors_naming_the_sound(text, words):
    with pytest.raises(ConfigError) as e:
        OutputsConfig.from_section(Section("outputs", {"buzzer": {"pin": 12, "sounds": {"score": text}}}, "c.toml"))
    assert "[outputs.buzzer.sounds] score" in str(e.value) and words in str(e.value)


def test_parse_melody():
    assert parse_melody("C#6:0.1 -:.05 Eb6:0.2") == (("C#6", 0.1), (None, 0.05), ("Eb6", 0.2))


# -- LEDs --------------------------------------------------------------------------


def lit(factory, pins=LEDS):
    return [bool(factory.pin(p).state) for p in pins]


def test_entry_leds_show_blink_and_flash(factory):
    out = outputs(factory, leds={"pins": LEDS})
    out.leds.show([0, 7])
    assert lit(factory) == [True] + [False] * 6 + [True]
    out.leds.blink(4, 10.0, period=0.5)
    seen = []
    for t in (10.0, 10.25, 10.5, 10.75):
        out.tick(t)
        seen.append(lit(factory)[4])
    assert seen == [True, False, True, False]
    out.leds.set(4, False)  # anything else asked of the LED stops the blink
    out.tick(20.0)
    assert lit(factory)[4] is False and out.leds.blinking == set()
    out.leds.flash(2, 30.0, 0.3)
    assert lit(factory)[2]
    out.tick(30.3)
    assert not lit(factory)[2]
    out.close()


def test_blink_a_number_of_times(factory):
    out = outputs(factory, leds={"pins": LEDS})
    out.leds.blink(1, 0.0, period=0.2, times=2)
    changes = []
    while out.next_deadline() is not None:
        t = out.next_deadline()
        out.tick(t)
        changes.append((round(t, 2), lit(factory)[1]))
    assert changes == [(0.1, False), (0.2, True), (0.3, False)]
    out.close()


def test_active_low_leds(factory):
    out = outputs(factory, leds={"pins": LEDS, "active_high": False})
    out.leds.show([3])
    assert [bool(factory.pin(p).state) for p in LEDS] == [True, True, True, False, True, True, True, True]
    out.close()


def test_leds_without_pins_keep_state_for_the_simulator(factory):
    out = outputs(factory)
    out.leds.show([2])
    assert out.leds.state[2] and out.leds.devices is None


# -- dropper -----------------------------------------------------------------------


def test_solenoid_dropper_pulses_and_queues(factory):
    out = outputs(factory, dropper={"kind": "solenoid", "pins": SOLENOIDS, "pulse": 0.05, "recovery": 0.3})
    first = out.dropper.drop(2, 5.0)
    second = out.dropper.drop(6, 5.01)  # asked while the first is under way: it follows
    assert first == 5.0 and second == pytest.approx(5.35)
    out.tick(5.0)
    assert lit(factory, SOLENOIDS) == [False, False, True] + [False] * 5
    out.tick(5.05)
    assert not any(lit(factory, SOLENOIDS))
    out.tick(5.35)
    assert lit(factory, SOLENOIDS)[6]
    assert out.dropper.busy(5.5) and not out.dropper.busy(5.71)
    out.close()


def test_closing_mid_pulse_switches_the_solenoid_off(factory):
    out = outputs(factory, dropper={"kind": "solenoid", "pins": SOLENOIDS})
    out.dropper.drop(0, 0.0)
    out.tick(0.0)
    assert lit(factory, SOLENOIDS)[0]
    out.close()
    assert not factory.pin(SOLENOIDS[0]).state


def angle(servo_pin, min_angle=-90, max_angle=90, min_pw=0.001, max_pw=0.002):
    if servo_pin.frequency is None:
        return None
    pw = servo_pin.state / servo_pin.frequency
    return round(min_angle + (pw - min_pw) / (max_pw - min_pw) * (max_angle - min_angle), 1)


def test_servo_dropper_swings_releases_returns_and_detaches(factory):
    angles = [-70, -50, -30, -10, 10, 30, 50, 70]
    out = outputs(factory, dropper={"kind": "servo", "pin": 18, "angles": angles, "move_time": 0.5,
                                    "home_angle": 0, "gate": "solenoid", "gate_pin": 23, "gate_pulse": 0.1})
    servo, gate = factory.pin(18), factory.pin(23)
    assert angle(servo) == 0.0
    release = out.dropper.drop(5, 1.0)
    assert release == 1.5
    out.tick(1.0)
    assert angle(servo) == 30.0 and not gate.state
    out.tick(1.5)
    assert gate.state
    out.tick(1.6)
    assert not gate.state and angle(servo) == 0.0  # gate shut, swinging home
    out.tick(2.1)
    assert angle(servo) is None  # detached: no hum, no jitter
    assert out.dropper.drops == [(5, 1.5)]
    out.close()


def test_servo_gate_servo(factory):
    out = outputs(factory, dropper={"kind": "servo", "pin": 18, "angles": [0] * 8, "move_time": 0.2,
                                    "gate": "servo", "gate_pin": 23, "gate_open": 60, "gate_closed": 0,
                                    "gate_time": 0.3, "detach": False})
    out.dropper.drop(0, 0.0)
    out.tick(0.2)
    assert angle(factory.pin(23)) == 60.0
    out.tick(0.5)
    assert angle(factory.pin(23)) == 0.0
    out.close()


def test_no_dropper_means_tell_the_player(factory):
    out = outputs(factory)
    assert out.dropper.drop(3, 0.0) is None and not out.dropper.available


@pytest.mark.parametrize("data,key,words", [
    ({"kind": "solenoid"}, "pins", "is required"),
    ({"kind": "solenoid", "pins": [1, 2, 3]}, "pins", "8 items"),
    ({"kind": "solenoid", "pins": SOLENOIDS[:7] + [4]}, "pins", "both use GPIO4"),
    ({"kind": "servo", "pin": 18}, "angles", "is required"),
    ({"kind": "servo", "pin": 18, "angles": [0] * 7 + [120]}, "angles", "entry 8"),
    ({"kind": "servo", "pin": 18, "angles": [0] * 8, "gate": "solenoid"}, "gate_pin", "is required"),
    ({"kind": "servo", "pin": 18, "angles": [0] * 8, "min_pulse_width": 0.002, "max_pulse_width": 0.001},
     "max_pulse_width", "longer"),
    ({"kind": "catapult"}, "kind", '"servo"'),
    ({"pins": SOLENOIDS}, "kind", "would be ignored"),
])
def test_bad_dropper_sections(data, key, words):
    with pytest.raises(ConfigError) as e:
        OutputsConfig.from_section(Section("outputs", {"dropper": data}, "c.toml"))
    assert "[outputs.dropper]" in str(e.value) and key in str(e.value) and words in str(e.value)


def test_bad_led_sections():
    with pytest.raises(ConfigError, match=r"\[outputs.leds\] pins: lists 3 pins"):
        OutputsConfig.from_section(Section("outputs", {"leds": {"pins": [1, 2, 3]}}, "c.toml"))


# -- the port as a whole -------------------------------------------------------------


def test_pins_used_twice_across_sections_name_both_places():
    outputs_cfg = OutputsConfig.from_section(Section("outputs", {"buzzer": {"pin": 12}, "leds": {"pins": LEDS}}))
    inputs_cfg = InputsConfig.from_section(Section("inputs", {"select": 13, "down": 6 + 20}))
    with pytest.raises(ConfigError) as e:
        check_all_pins(inputs_cfg, outputs_cfg)
    assert "[inputs] select" in str(e.value) and "[outputs.leds] pins (entry 3)" in str(e.value)
    display_cfg = DisplayConfig.from_section(Section("display", {}))
    with pytest.raises(ConfigError, match="I2C bus 1"):
        check_all_pins(display_cfg, InputsConfig.from_section(Section("inputs", {"select": 2, "down": 6})))
    check_all_pins(display_cfg, InputsConfig.from_section(Section("inputs", {"select": 27, "down": 26})),
                   OutputsConfig.from_section(Section("outputs", {"buzzer": {"pin": 12}})))
    with pytest.raises(ConfigError, match="both use"):
        OutputsConfig.from_section(Section("outputs", {"buzzer": {"pin": 5}, "leds": {"pins": LEDS}}))


def test_a_failing_step_does_not_stop_the_others(factory, caplog):
    out = outputs(factory, dropper={"kind": "solenoid", "pins": SOLENOIDS})
    out.timeline.at(0.0, lambda: 1 / 0)
    out.dropper.drop(1, 0.0)
    with caplog.at_level(logging.ERROR, logger="coindrel.io"):
        out.tick(0.0)
        out.tick(0.05)
    assert out.timeline.errors == 1 and not factory.pin(SOLENOIDS[1]).state
    out.close()


def test_serve_runs_steps_on_time_on_the_loop(factory, clock):
    out = outputs(factory, clock=clock, dropper={"kind": "solenoid", "pins": SOLENOIDS, "pulse": 0.05})

    async def main():
        task = asyncio.create_task(out.serve())
        await asyncio.sleep(0)
        out.dropper.drop(4, 0.0)  # wakes serve: the step is due now
        for _ in range(5):
            await asyncio.sleep(0)
        on = bool(factory.pin(SOLENOIDS[4]).state)
        clock.t = 0.05  # time passes; serve is waiting for the 0.05 deadline...
        out.poke()  # ...which our fake clock reached without real waiting
        for _ in range(5):
            await asyncio.sleep(0)
        off = not factory.pin(SOLENOIDS[4]).state
        out.close()
        await asyncio.wait_for(task, 60)  # closing ends serve at once; this only bounds a hang
        return on, off

    assert asyncio.run(main()) == (True, True)


EXAMPLE = """
[display]
driver = "ssd1306"
address = 0x3C

[inputs]
encoder_a = 17
encoder_b = 18
select = 27
back = 22

[outputs.buzzer]
kind = "tonal"
pin = 12

[outputs.leds]
pins = [5, 6, 13, 19, 26, 16, 20, 21]

[outputs.dropper]
kind = "solenoid"
pins = [4, 23, 24, 25, 8, 7, 9, 10]
pulse = 0.05
"""


def test_the_documented_example_builds_on_gpiozeros_default_factory(factory):
    import tomllib

    from gpiozero import Device

    from coindrel.io import build_inputs

    data = tomllib.loads(EXAMPLE)
    display_cfg = DisplayConfig.from_section(Section("display", data["display"]))
    inputs_cfg = InputsConfig.from_section(Section("inputs", data["inputs"]))
    outputs_cfg = OutputsConfig.from_section(Section("outputs", data["outputs"]))
    check_all_pins(display_cfg, inputs_cfg, outputs_cfg)
    saved = Device.pin_factory
    Device.pin_factory = factory  # what the daemon gets when gpiozero picks its factory
    try:
        got = []
        inputs = build_inputs(inputs_cfg, got.append, clock=lambda: 0.0)  # a press never lasts a hold, however slow
        out = build_outputs(outputs_cfg)
        factory.pin(27).drive_low()
        factory.pin(27).drive_high()
        out.leds.show([4])
        assert [a.name for a in got] == ["select"] and factory.pin(26).state
        inputs.close()
        out.close()
    finally:
        Device.pin_factory = saved
