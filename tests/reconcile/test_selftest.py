"""The guided self-test of every sensor."""

import asyncio

from coindrel.engine import standard_geometry
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.reconcile.selftest import CHATTER, DEAD, GOOD, OUT_OF_BAND, UNTESTED, SelfTest, run

G = standard_geometry()


def small():
    return SelfTest(G, entries=[0, 1], exits=[3], halls=["R2S2"], timeout=5.0)


def test_steps_and_a_good_board():
    t = small()
    assert t.start(0.0).text == "Drop a coin in entry 1."
    assert t.feed(EntryEvent(1.0, 0)).label == "entry 2"
    assert t.feed(EntryEvent(3.0, 1)).label == "R2S2"
    t.feed(SwitchEvent(5.0, "R2S2", "mid"))
    t.feed(SwitchEvent(5.3, "R2S2", "L"))
    t.feed(SwitchEvent(6.0, "R2S2", "mid"))
    t.feed(SwitchEvent(6.3, "R2S2", "R"))
    assert t.tick(7.5).label == "exit 4"
    assert t.feed(ExitEvent(9.0, 3)) is None
    assert t.done and t.report().ok


def test_dead_chattering_and_out_of_band():
    t = small()
    t.start(0.0)
    assert t.tick(6.0).label == "entry 2"  # nothing for entry 1: dead
    t.feed(EntryEvent(7.0, 1))
    t.feed(EntryEvent(7.03, 1))  # one coin counted twice
    t.feed(SwitchEvent(8.0, "R2S2", "mid"))  # and it stays there
    t.tick(9.5)
    t.feed(ExitEvent(10.0, 3))
    r = t.report()
    status = {f.sensor: f.status for f in r.findings}
    assert status == {"Entry 1": DEAD, "Entry 2": CHATTER, "R2S2": OUT_OF_BAND, "Exit 4": GOOD}
    assert "2 of 4" not in r.text() and "1 of 4 sensors good." in r.text()
    assert "Entry 1: dead" in r.text()


def test_a_hall_the_wrong_way_round():
    t = SelfTest(G, entries=[], exits=[], halls=["R1S1"])
    t.start(0.0)
    for tt, pos in [(1.0, "mid"), (1.2, "R"), (2.0, "mid"), (2.2, "L")]:  # pushed L then R, read R then L
        t.feed(SwitchEvent(tt, "R1S1", pos))
    t.tick(4.0)
    f = t.report().findings[0]
    assert f.status == OUT_OF_BAND and "wrong way round" in f.detail


def test_a_coin_on_its_way_down_tests_what_it_meets():
    t = SelfTest(G, entries=[0], exits=[0], halls=["R1S1"])
    t.start(0.0)
    for ev in [EntryEvent(1.0, 0), SwitchEvent(1.05, "R1S1", "mid"), SwitchEvent(1.07, "R1S1", "R"),
               SwitchEvent(3.0, "R1S1", "mid"), SwitchEvent(3.02, "R1S1", "L"), ExitEvent(3.4, 0)]:
        t.feed(ev)
    assert t.done and t.report().ok


def test_skip_leaves_a_sensor_untested():
    t = small()
    t.start(0.0)
    assert t.skip(1.0).label == "entry 2"
    assert t.report().findings[0].status == UNTESTED
    assert t.report().to_json()["ok"] is False


class FakeClock:
    """Time moves only while the procedure sleeps on it (no real waiting)."""

    def __init__(self):
        self.t = 0.0

    def monotonic(self):
        return self.t

    async def sleep(self, seconds):
        await asyncio.sleep(0)  # a sleep cancelled at once (an event came first) takes no time
        self.t += seconds


class FakeSource:
    def __init__(self, events):
        self.clock = FakeClock()
        self._events = events

    def board_time(self):
        return 0.0

    async def ready(self, timeout=None):
        return True

    async def events(self):
        for ev in self._events:
            yield ev
        await asyncio.Event().wait()  # nobody does anything more


def test_run_drives_the_test_from_a_source():
    src = FakeSource([EntryEvent(1.0, 0), EntryEvent(2.0, 1)])
    said, when = [], []

    def say(step):
        said.append(step)
        when.append(src.clock.t)

    report = asyncio.run(run(src, SelfTest(G, entries=[0, 1], exits=[3], halls=[], timeout=3.0), say, poll=0.25))
    assert [s.label for s in said] == ["entry 1", "entry 2", "exit 4"]
    status = {f.sensor: f.status for f in report.findings}
    assert status == {"Entry 1": GOOD, "Entry 2": GOOD, "Exit 4": DEAD}
    # exit 4 was given up on once its 3 s had passed on the source's clock, a poll or so after
    assert 3.0 < src.clock.t - when[-1] <= 3.0 + 2 * 0.25 + 1e-9


def test_typed_skip_while_running():
    src = FakeSource([])
    commands = asyncio.Queue()
    commands.put_nowait("s")
    commands.put_nowait("q")
    report = asyncio.run(run(src, SelfTest(G, entries=[0, 1], exits=[], halls=[], timeout=100.0), lambda s: None,
                             commands=commands))
    assert [f.status for f in report.findings] == [UNTESTED, UNTESTED]
    assert src.clock.t < 100.0
