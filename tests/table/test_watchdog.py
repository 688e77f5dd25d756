"""The watchdog feeder's timing, driven by a fake clock (no real waiting),
and once on a real event loop against a real socket."""

from __future__ import annotations

import asyncio
import socket

import pytest

from coindrel.table.notify import Notifier, WatchdogFeeder

PERIOD = 10.0


class FakeTime:
    """``sleep`` advances the clock by what was asked, plus whatever
    ``delays`` holds for that sleep (a loop held up by other work)."""

    def __init__(self, delays: dict[int, float] | None = None):
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.delays = delays or {}

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds + self.delays.get(len(self.sleeps), 0.0)
        self.sleeps.append(seconds)
        await asyncio.sleep(0)


class Pings:
    def __init__(self, fake: FakeTime):
        self.fake = fake
        self.times: list[float] = []

    def watchdog(self) -> bool:
        self.times.append(self.fake.now - 1000.0)
        return True


def run(feeder: WatchdogFeeder, ticks: int) -> None:
    async def main():
        task = asyncio.create_task(feeder.run())
        while feeder.pings + feeder.withheld < ticks:
            await asyncio.sleep(0)
        task.cancel()

    asyncio.run(main())


def feeder_with(fake: FakeTime, **kw) -> tuple[WatchdogFeeder, Pings]:
    pings = Pings(fake)
    return WatchdogFeeder(pings, PERIOD, clock=fake.clock, sleep=fake.sleep, **kw), pings


def test_pings_keep_a_fixed_cadence():
    fake = FakeTime()
    feeder, pings = feeder_with(fake)
    run(feeder, 6)
    assert pings.times == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]
    assert feeder.late == 0 and feeder.max_lag == 0.0


def test_small_delays_do_not_add_up():
    fake = FakeTime(delays={k: 0.25 for k in range(100)})  # every wake-up is a little late
    feeder, pings = feeder_with(fake)
    run(feeder, 6)
    assert pings.times == [0.0, 10.25, 20.25, 30.25, 40.25, 50.25]
    assert feeder.late == 0 and feeder.max_lag == pytest.approx(0.25)


def test_a_held_up_loop_pings_at_once_then_restarts_the_cadence():
    lags = []
    fake = FakeTime(delays={2: 17.0})  # the third sleep ends 17 s late
    feeder, pings = feeder_with(fake, on_late=lags.append)
    run(feeder, 6)
    assert pings.times == [0.0, 10.0, 20.0, 47.0, 57.0, 67.0]  # one late ping, no burst after it
    assert feeder.late == 1 and lags == [17.0]


def test_an_unhealthy_daemon_gets_no_pings():
    fake = FakeTime()
    healthy = iter([True, True, False, False, True])
    feeder, pings = feeder_with(fake, healthy=lambda: next(healthy))
    run(feeder, 5)
    assert pings.times == [0.0, 10.0, 40.0] and feeder.withheld == 2


def test_on_a_real_loop_against_a_real_socket(tmp_path):
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.setblocking(False)

    async def main():
        feeder = WatchdogFeeder(Notifier(env={"NOTIFY_SOCKET": path}), 0.005)
        feeder.start()
        loop = asyncio.get_running_loop()
        got = [await asyncio.wait_for(loop.sock_recv(sock, 100), 60) for _ in range(3)]
        feeder.stop()
        return got

    try:
        assert asyncio.run(main()) == [b"WATCHDOG=1"] * 3
    finally:
        sock.close()
