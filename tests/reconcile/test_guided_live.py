"""``coindrel calibrate`` and ``coindrel selftest`` against the virtual board
served on a socket, through the real hub link, with a scripted person doing
what each prompt asks (virtual hands on the virtual board)."""

from __future__ import annotations

import asyncio
import threading

from coindrel.engine import standard_geometry
from coindrel.reconcile.calibrate import Calibration
from coindrel.reconcile.calibrate import run as run_calibration
from coindrel.reconcile.selftest import DEAD, GOOD, SelfTest
from coindrel.reconcile.selftest import run as run_selftest
from coindrel.sources.hub import HubSource
from coindrel.virtual import BoardConfig, Scenario, build_board, fault_from_text
from coindrel.virtual.live import Server
from coindrel.virtual.wire import WireHub

G = standard_geometry()


def serve(faults=(), speed=4.0):
    scn = Scenario(BoardConfig(seed=9))
    scn.faults = [fault_from_text(f, G, i + 1) for i, f in enumerate(faults)]
    board, _ = build_board(scn)
    wire = WireHub(board)
    server = Server(board, wire, "socket://127.0.0.1:0", speed=speed, say=lambda m: None)
    server.ready = threading.Event()
    thread = threading.Thread(target=lambda: asyncio.run(server.run()), daemon=True)
    thread.start()
    assert server.ready.wait(10)
    return board, wire, server, thread


def test_calibration_follows_the_person_and_stores_the_bands_on_the_hub():
    board, wire, server, thread = serve()
    labels = ["R1S1", "R3S4"]
    acted = []

    def say(prompt):
        if prompt is None:
            return
        side = "R" if "RIGHT" in prompt.text else "L"
        acted.append((prompt.switch, side))
        server._call(lambda: board.set_by_hand(prompt.switch, side))

    async def go():
        source = HubSource(server.url)
        await source.start()
        try:
            return await asyncio.wait_for(run_calibration(source, Calibration(labels), say, geometry=G), 60)
        finally:
            await source.close()

    try:
        result = asyncio.run(go())
    finally:
        server.stop()
        thread.join(10)
    assert result.ok, result.text()
    assert acted == [(s, side) for s in labels for side in ("L", "R", "L")]
    truth = board.config.calibration()
    for band in result.bands:
        s = G.index(band.switch)
        assert abs(band.left - truth[s].left) < 30 and abs(band.right - truth[s].right) < 30
        assert wire.hub.cal[s].left == band.left and wire.hub.cal[s].right == band.right  # stored on the hub
    assert wire.saved


def test_selftest_names_the_dead_exit_beam_and_passes_the_rest():
    board, wire, server, thread = serve(faults=["exit_sensor_dead@exit 5"])

    def say(step):
        if step.kind == "entry":
            server._call(lambda: board.drop(step.index))
        elif step.kind == "exit":
            server._call(lambda: board.pass_coin_through("exit", step.index))
        else:
            server._call(lambda: board.set_by_hand(step.label, "L"))
            server._call(lambda: board.sched.at(board.now + 0.6, board.set_by_hand, step.label, "R"))

    async def go():
        source = HubSource(server.url)
        await source.start()
        try:
            await source.link.wait_connected(10)
            test = SelfTest(G, entries=[0, 5], exits=[3, 4], halls=["R1S1", "R3S4"], timeout=3.0)
            return await asyncio.wait_for(run_selftest(source, test, say), 60)
        finally:
            await source.close()

    try:
        report = asyncio.run(go())
    finally:
        server.stop()
        thread.join(10)
    status = {f.sensor: f.status for f in report.findings}
    assert status["Exit 5"] == DEAD, report.text()
    assert all(s == GOOD for sensor, s in status.items() if sensor != "Exit 5"), report.text()


def test_no_hub_answering_is_said_plainly():
    import pytest

    from coindrel.engine import EngineError
    from coindrel.reconcile import calibrate

    class Silent:
        url = "/dev/coindrel-hub"
        capabilities = type("C", (), {"calibration": True})()

        async def ready(self, timeout=None):
            return False

    with pytest.raises(EngineError, match="no hub answered on /dev/coindrel-hub"):
        asyncio.run(calibrate.run(Silent(), Calibration(["R1S1"]), lambda p: None))
