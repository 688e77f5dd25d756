"""The Keypad: key edges and encoder steps to menu actions, timed by the clock passed in."""

import asyncio
import threading

import pytest

from coindrel.io import ACTIONS, Action, Keypad, queue_sink


def names(actions):
    return [(a.name, a.t, a.repeat) for a in actions]


@pytest.fixture
def pad():
    out = []
    return Keypad(out.append, clock=lambda: 0.0, hold_time=0.8, repeat_delay=0.5, repeat_every=0.15), out


def test_select_acts_on_release_when_short(pad):
    k, out = pad
    k.press("select", 1.0)
    assert out == []
    k.release("select", 1.3)
    assert names(out) == [("select", 1.3, False)]


def test_select_held_becomes_hold_select_at_the_first_poll_and_release_is_silent(pad):
    k, out = pad
    k.press("select", 1.0)
    assert k.next_deadline() == pytest.approx(1.8)
    k.poll(1.7)
    assert out == []
    k.poll(1.85)
    k.poll(3.0)  # once only
    k.release("select", 3.2)
    assert names(out) == [("hold-select", 1.85, False)]


def test_hold_without_any_poll_is_still_a_hold(pad):
    k, out = pad
    k.press("back", 0.0)
    k.release("back", 2.0)
    assert names(out) == [("hold-back", 2.0, False)]


def test_up_and_down_act_on_press_and_repeat_while_held(pad):
    k, out = pad
    k.press("down", 0.0)
    k.poll(0.4)
    k.poll(0.5)
    k.poll(0.65)
    k.poll(5.0)  # a late poll: one repeat, not a burst
    assert k.next_deadline() == pytest.approx(5.15)
    k.release("down", 5.1)
    k.poll(6.0)
    k.press("up", 7.0)
    k.release("up", 7.1)
    assert names(out) == [("next", 0.0, False), ("next", 0.5, True), ("next", 0.65, True), ("next", 5.0, True),
                          ("prev", 7.0, False)]
    assert k.next_deadline() is None


def test_bounces_and_stray_releases_are_ignored(pad):
    k, out = pad
    k.release("select", 0.0)
    k.press("select", 0.1)
    k.press("select", 0.11)
    k.release("select", 0.2)
    k.release("select", 0.21)
    assert names(out) == [("select", 0.2, False)]


def test_encoder_steps_and_fed_actions(pad):
    k, out = pad
    k.step(True, 1.0)
    k.step(False, 2.0)
    k.feed("hold-select", 3.0)
    assert names(out) == [("next", 1.0, False), ("prev", 2.0, False), ("hold-select", 3.0, False)]
    with pytest.raises(ValueError, match="unknown action"):
        k.feed("jump")
    with pytest.raises(ValueError, match="unknown key"):
        k.press("left")


def test_time_comes_from_the_clock_when_not_given():
    t = [5.0]
    out = []
    k = Keypad(out.append, clock=lambda: t[0])
    k.press("select")
    t[0] = 5.2
    k.release("select")
    assert out == [Action("select", 5.2)]


def test_queue_sink_hands_actions_from_other_threads_to_the_loop_in_order():
    async def main():
        loop = asyncio.get_running_loop()
        queue = asyncio.Queue()
        k = Keypad(queue_sink(loop, queue), clock=lambda: 0.0)

        def gpio_thread():  # what gpiozero's callback threads do
            for i in range(50):
                k.step(i % 2 == 0, float(i))

        th = threading.Thread(target=gpio_thread)
        th.start()
        got = [await asyncio.wait_for(queue.get(), 60) for _ in range(50)]
        th.join()
        return got

    got = asyncio.run(main())
    assert [a.t for a in got] == [float(i) for i in range(50)]
    assert [a.name for a in got] == ["next" if i % 2 == 0 else "prev" for i in range(50)]
    assert set(ACTIONS) >= {a.name for a in got}
