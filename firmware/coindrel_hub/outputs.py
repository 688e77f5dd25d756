# Entry LEDs and the coin dropper, where the channel map wires them to the
# hub (the reference build drives them from the Pi instead). Pins passed in.
# A dropper pulse ends in poll(), never with a sleep.


class Outputs:
    def __init__(self, led_pins, dropper_pins, level, diff):
        self.leds = led_pins  # None or 8 pins
        self.drop_pins = dropper_pins  # None or 8 pins (one release per entry)
        self.level = level
        self.diff = diff
        self.pulse_pin = None
        self.pulse_start = 0
        self.pulse_us = 0
        for pins in (led_pins, dropper_pins):
            if pins:
                for p in pins:
                    p.value(1 - level)

    def set_leds(self, mask):
        if self.leds is None:
            return False
        for e in range(8):
            self.leds[e].value(self.level if (mask >> e) & 1 else 1 - self.level)
        return True

    def drop(self, entry, pulse_ms, now):
        if self.drop_pins is None:
            return False
        self.end_pulse()
        self.pulse_pin = self.drop_pins[entry]
        self.pulse_pin.value(self.level)
        self.pulse_start = now
        self.pulse_us = pulse_ms * 1000
        return True

    def end_pulse(self):
        if self.pulse_pin is not None:
            self.pulse_pin.value(1 - self.level)
            self.pulse_pin = None

    def poll(self, now):
        if self.pulse_pin is not None and self.diff(now, self.pulse_start) >= self.pulse_us:
            self.end_pulse()
