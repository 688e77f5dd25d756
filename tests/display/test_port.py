"""The Display port: never fails the match, comes back after I2C errors,
dims, sleeps and shifts against burn-in, all on an injected clock."""

import logging

import pytest
from PIL import Image

from coindrel.config import Section
from coindrel.display import Display, open_display, render
from coindrel.display.port import DIM, OFF, ON, ORBIT

from .fakes import FakeI2CBus, SSD1306Panel
from .samples import SAMPLES


class Clock:
    def __init__(self, t=0.0):
        self.t = t

    def __call__(self):
        return self.t


def make(**settings):
    panel = SSD1306Panel()
    bus = FakeI2CBus(panel)
    clock = Clock()
    data = {"driver": "ssd1306", "idle_after": 100, "idle_contrast": 5, "sleep_after": 1000, "shift_every": 0,
            "retry_every": 2, "retry_max": 16}
    data.update(settings)
    display = open_display(Section("display", data), clock=clock, bus=bus)
    return display, panel, bus, clock


def shifted(img: Image.Image, dx: int, dy: int) -> Image.Image:
    out = Image.new("1", img.size)
    out.paste(img, (dx, dy))
    return out


def test_i2c_error_never_reaches_the_match_and_the_panel_comes_back(caplog):
    display, panel, bus, clock = make()
    assert display.show(SAMPLES["match"], 1.0)
    bus.fail = True
    with caplog.at_level(logging.WARNING, logger="coindrel.display"):
        assert display.show(SAMPLES["match_hit"], 2.0) is False  # no exception
        assert display.show(SAMPLES["match_last_drop"], 2.5) is False
    assert not display.healthy and display.failures == 1
    assert "not answering" in display.problem and "wiring" in display.problem
    assert sum("not answering" in r.message for r in caplog.records) == 1  # said once, not per frame
    bus.fail = False
    inits = panel.inits
    assert display.tick(3.9) is False and panel.inits == inits  # not before the retry is due
    assert display.tick(4.0) is True
    assert panel.inits == inits + 1 and panel.nops >= 1  # probed, then re-initialised
    # ...and shows the newest frame, not the one that failed.
    assert panel.image().tobytes() == render(SAMPLES["match_last_drop"]).tobytes()
    assert display.healthy and display.problem is None


def test_retries_back_off_up_to_the_limit_and_build_one_device_when_it_answers():
    display, panel, bus, clock = make()
    display.show(SAMPLES["match"], 0.0)
    built = display.opener.built
    bus.fail = True
    display.show(SAMPLES["match_hit"], 10.0)
    waits, t = [], 10.0
    for _ in range(6):
        nxt = display.next_deadline(t)
        waits.append(round(nxt - t, 6))
        t = nxt
        assert display.tick(t) is False
    assert waits == [2, 4, 8, 16, 16, 16]
    bus.fail = False
    assert display.tick(display.next_deadline(t))
    assert display.opener.built == built + 1  # six retries, one new luma device: when the panel answered


def test_panel_missing_at_startup_is_picked_up_later():
    panel = SSD1306Panel()
    bus = FakeI2CBus(panel)
    bus.fail = True
    display = open_display(Section("display", {"retry_every": 1, "shift_every": 0}), clock=Clock(), bus=bus)
    assert not display.healthy and display.failures == 0
    assert display.show(SAMPLES["reveal"], 0.5) is False
    bus.fail = False
    assert display.show(SAMPLES["reveal"], 1.0)
    assert panel.image().tobytes() == render(SAMPLES["reveal"]).tobytes()


def test_unchanged_frames_are_not_sent_again():
    display, panel, bus, clock = make()
    display.show(SAMPLES["match"], 0.0)
    writes = bus.writes
    for t in (0.1, 0.2, 0.3):
        assert display.show(SAMPLES["match"], t)
    assert bus.writes == writes
    display.show(SAMPLES["match_hit"], 0.4)
    assert bus.writes > writes


def test_dims_after_idle_then_sleeps_and_wakes_on_activity():
    display, panel, bus, clock = make()
    display.show(SAMPLES["setup_menu"], 0.0)
    assert panel.contrast == 207 and panel.on
    display.tick(99.0)
    assert display.mode(99.0) == ON and panel.contrast == 207
    assert display.next_deadline(99.0) == 100.0
    display.tick(100.0)
    assert display.mode(100.0) == DIM and panel.contrast == 5
    display.show(SAMPLES["setup_menu"], 500.0)  # same kind of screen: not activity
    assert panel.contrast == 5
    display.tick(1000.0)
    assert display.mode(1000.0) == OFF and not panel.on
    display.wake(1001.0)
    assert panel.on and panel.contrast == 207
    assert panel.image().tobytes() == render(SAMPLES["setup_menu"]).tobytes()


def test_a_new_kind_of_screen_counts_as_activity():
    display, panel, bus, clock = make()
    display.show(SAMPLES["setup_menu"], 0.0)
    display.tick(150.0)
    assert panel.contrast == 5
    display.show(SAMPLES["rules"], 151.0)
    assert panel.contrast == 207


def test_frames_shown_while_asleep_appear_on_waking():
    display, panel, bus, clock = make()
    display.show(SAMPLES["match"], 0.0)
    display.tick(1000.0)
    assert not panel.on
    display.show(SAMPLES["match_hit"], 1000.5)  # same kind: stays asleep
    assert not panel.on
    display.wake(1001.0)
    assert panel.on and panel.image().tobytes() == render(SAMPLES["match_hit"]).tobytes()


def test_pixel_shift_orbits_one_pixel_without_cutting_anything_off():
    display, panel, bus, clock = make(shift_every=60, idle_after=0, sleep_after=0)
    view = SAMPLES["match_last_drop"]
    frame = render(view)
    seen = []
    for i in range(5):
        t = i * 60.0
        display.show(view, t)
        dx, dy = display.offset(t)
        seen.append((dx, dy))
        img = panel.image()
        assert img.tobytes() == shifted(frame, dx, dy).tobytes()
        assert img.histogram()[255] == frame.histogram()[255]  # every lit pixel still on the panel
    assert seen == list(ORBIT) + [ORBIT[0]]
    assert display.next_deadline(61.0) == 120.0


def test_render_errors_are_logged_and_the_last_frame_stays(caplog):
    display, panel, bus, clock = make()
    display.show(SAMPLES["match"], 0.0)
    with caplog.at_level(logging.ERROR, logger="coindrel.display"):
        assert display.show(object(), 1.0) is False
    assert display.render_errors == 1 and display.healthy
    assert "could not draw" in caplog.text
    assert panel.image().tobytes() == render(SAMPLES["match"]).tobytes()


def test_time_comes_from_the_injected_clock_when_not_given():
    display, panel, bus, clock = make()
    clock.t = 0.0
    display.show(SAMPLES["match"])
    clock.t = 100.0
    display.tick()
    assert panel.contrast == 5
    clock.t = 101.0
    display.wake()
    assert panel.contrast == 207


def test_close_keeps_the_last_frame_on_the_panel_with_persist():
    display, panel, bus, clock = make()
    display.show(SAMPLES["match_won"], 0.0)
    commands = len(panel.commands)
    display.close()
    assert panel.commands[commands:] == []  # no display-off, no clear
    assert display.show(SAMPLES["match"], 1.0) is False  # closed: quietly does nothing


def test_close_without_persist_switches_the_panel_off():
    display, panel, bus, clock = make(persist=False)
    display.show(SAMPLES["match"], 0.0)
    display.close()
    assert not panel.on


def test_periodic_refresh_reinitialises_a_silently_reset_panel():
    display, panel, bus, clock = make(refresh_every=600, idle_after=0, sleep_after=0)
    display.show(SAMPLES["match"], 0.0)
    panel.ram[:] = bytes(len(panel.ram))  # the controller lost its memory (a brown-out)
    panel.on = False
    display.tick(599.0)
    assert not panel.on
    display.tick(600.0)
    assert panel.on and panel.image().tobytes() == render(SAMPLES["match"]).tobytes()


class Failing:
    """A panel whose every frame fails with ``error`` (and its opener)."""

    size, mode, persist = (128, 64), "1", True

    def __init__(self, error: Exception):
        self.error, self.calls = error, 0

    def contrast(self, level):
        pass

    def show(self):
        pass

    def hide(self):
        pass

    def display(self, image):
        self.calls += 1
        raise self.error

    def open(self):
        return self

    def close(self):
        pass


def test_a_failing_device_of_any_kind_is_contained():
    display = Display(Failing(AssertionError("driver bug")), (128, 64), clock=Clock(), retry_every=1, retry_max=1)
    assert display.show(SAMPLES["match"], 0.0) is False
    assert not display.healthy and "AssertionError" in display.problem


@pytest.mark.parametrize("name", ["match", "rules", "lesson", "hub_lost"])
def test_larger_panel_through_the_port(name):
    display = open_display(Section("display", {"driver": "dummy", "width": 256, "height": 64, "shift_every": 0}),
                           clock=Clock())
    display.show(SAMPLES[name], 0.0)
    assert display.device.image.tobytes() == render(SAMPLES[name], (256, 64)).tobytes()


def test_a_view_that_will_not_draw_is_logged_once_not_every_frame(caplog):
    display, panel, bus, clock = make()
    bad = object()
    with caplog.at_level(logging.ERROR, logger="coindrel.display"):
        for t in range(5):
            assert display.show(bad, float(t)) is False
    assert display.render_errors == 1 and caplog.text.count("could not draw") == 1
    assert display.show(SAMPLES["match"], 6.0)


def test_async_calls_run_on_one_worker_thread_in_order():
    import asyncio
    import threading

    display = open_display(Section("display", {"driver": "dummy", "shift_every": 0}), clock=Clock())
    threads = set()
    real_show = display.show

    def show(view, now=None):
        threads.add(threading.current_thread().name)
        return real_show(view, now)

    display.show = show

    async def main():
        results = await asyncio.gather(*(display.show_async(SAMPLES[n], float(i))
                                         for i, n in enumerate(("match", "reveal", "rules"))))
        await display.tick_async(10.0)
        await display.wake_async(11.0)
        return results

    assert asyncio.run(main()) == [True, True, True]
    assert display.device.image.tobytes() == render(SAMPLES["rules"]).tobytes()  # the last one asked for
    assert len(threads) == 1 and threads.pop().startswith("coindrel-display")
    display.close()


def test_a_frame_is_never_written_while_another_is_on_its_way():
    """The daemon draws new screens on the worker thread while its loop
    thread ticks and wakes the panel. Two frames written at once interleave
    on the bus (or in the terminal an emulator draws in) and leave rows of
    the older screen lit among the new one's: ghost rows. The second caller
    waits for the first frame to finish, then the panel shows the newest."""
    import threading

    CEILING = 60.0  # only a hang reaches it
    worker = {}
    inside, go = threading.Event(), threading.Event()

    class SlowBus(FakeI2CBus):
        def write_i2c_block_data(self, addr, mode, data):
            if mode != 0x00 and threading.current_thread() is worker.get("thread") and not go.is_set():
                inside.set()  # half a frame is on the panel
                assert go.wait(CEILING)
            super().write_i2c_block_data(addr, mode, data)

    panel = SSD1306Panel()
    clock = Clock()
    display = open_display(Section("display", {"driver": "ssd1306", "shift_every": 0, "idle_after": 100,
                                               "sleep_after": 1000}), clock=clock, bus=SlowBus(panel))
    assert display.show(SAMPLES["match"], 1.0)

    contended = threading.Event()

    class Probe:  # the port's lock, telling the test when a second caller waits for it
        def __init__(self, lock):
            self.lock = lock

        def __enter__(self):
            if not self.lock.acquire(blocking=False):
                contended.set()
                self.lock.acquire()
            return self

        def __exit__(self, *exc):
            self.lock.release()

    display._lock = Probe(display._lock)
    results, second_done = {}, threading.Event()

    def draw_new_screen():
        results["show"] = display.show(SAMPLES["reveal"], 2.0)

    def wake():
        results["wake"] = display.wake(2.5)
        second_done.set()

    worker["thread"] = threading.Thread(target=draw_new_screen)
    worker["thread"].start()
    assert inside.wait(CEILING)
    other = threading.Thread(target=wake)
    other.start()
    for _ in range(int(CEILING * 100)):  # the second caller either waits (right) or writes over the frame (wrong)
        if contended.wait(0.01) or second_done.is_set():
            break
    assert contended.is_set() and not second_done.is_set(), "a second frame was written into the first"
    go.set()
    worker["thread"].join(CEILING)
    other.join(CEILING)
    assert results == {"show": True, "wake": True}
    assert panel.image().tobytes() == render(SAMPLES["reveal"]).tobytes()
    display.close()


def test_an_emulator_in_a_terminal_with_no_size_says_so_without_a_traceback(caplog):
    """Found by a newcomer: a pty with no window size (and $COLUMNS set) made
    asciiblock fail in PIL's resize; the log said 'check its wiring, power and
    address' and printed a whole traceback."""

    display = Display(Failing(ValueError("height and width must be > 0")), (128, 64), clock=Clock(),
                      where="asciiblock display")
    with caplog.at_level(logging.INFO, logger="coindrel.display"):
        assert display.show(SAMPLES["match"], 0.0) is False
    assert "terminal has no size" in display.problem and "--display text" in display.problem
    assert "wiring" not in display.problem
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors and all(r.exc_info is None for r in errors)
