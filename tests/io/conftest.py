"""gpiozero's MockFactory with PWM-capable pins (buttons, LEDs, buzzers and
servos all on one factory); callbacks fire synchronously in the test's
thread. Time is a fake clock; nothing waits."""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin


class FakeClock:
    def __init__(self, t=0.0):
        self.t = t

    def __call__(self):
        return self.t


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()
    f.close()


@pytest.fixture
def clock():
    return FakeClock()
