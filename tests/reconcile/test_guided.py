"""``coindrel calibrate`` and ``coindrel selftest`` on a fake board source."""

import argparse
import io
import json

from coindrel.events import EntryEvent
from coindrel.reconcile import guided

from .test_calibrate import FakeHub
from .test_selftest import FakeSource


class Caps:
    calibration = True
    halls = ("R1S1",)
    entries = (0,)
    exits = ()


class Hub(FakeHub):
    def __init__(self, script):
        super().__init__(script)
        self.capabilities = Caps()

    async def start(self):
        pass

    async def close(self):
        pass


class Source(FakeSource):
    capabilities = Caps()

    async def start(self):
        pass

    async def snapshot(self, timeout=None):
        from coindrel.sources.base import Snapshot

        return Snapshot(0.0)

    async def close(self):
        pass


def parse(add, argv):
    p = argparse.ArgumentParser()
    add(p)
    return p.parse_args(argv)


def test_calibrate_command(monkeypatch, capsys):
    hub = Hub([{"R1S1": 3300}] * 8 + [{"R1S1": 2500}] * 8 + [{"R1S1": 3300}] * 8)
    monkeypatch.setattr(guided, "open_source", lambda args: hub)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert guided.run_calibrate(parse(guided.add_calibrate_arguments, ["--json"])) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[1/1] Push R1S1 over to its LEFT side and let go."
    d = json.loads(out[-1])
    assert d["ok"] and d["bands"][0] == {"switch": "R1S1", "L": 3300, "R": 2500, "none": 2048, "band": 200, "noise": 0.0}
    assert hub.stored is not None


def test_selftest_command(monkeypatch, capsys):
    src = Source([EntryEvent(1.0, 0)])
    monkeypatch.setattr(guided, "open_source", lambda args: src)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = guided.run_selftest(parse(guided.add_selftest_arguments, ["--timeout", "1"]))
    out = capsys.readouterr().out
    assert code == 1  # R1S1 was never flipped
    assert "[1/2] Drop a coin in entry 1." in out and "R1S1: dead" in out


def test_the_selftest_ends_without_waiting_for_a_key(monkeypatch, capsys):
    """Found by a newcomer: after its last step the self-test stayed on screen
    until Enter was pressed (a read of the terminal kept the loop's executor)."""
    import os
    import threading

    r, w = os.pipe()  # a terminal nobody types on: its read never returns
    silent = os.fdopen(r)
    src = Source([EntryEvent(1.0, 0)])
    monkeypatch.setattr(guided, "open_source", lambda args: src)
    monkeypatch.setattr("sys.stdin", silent)
    codes = []
    t = threading.Thread(target=lambda: codes.append(
        guided.run_selftest(parse(guided.add_selftest_arguments, ["--timeout", "1"]))), daemon=True)
    t.start()
    t.join(30)  # a ceiling only the old hang reaches
    hung = t.is_alive()
    os.close(w)  # (and then the old code ends too)
    t.join(30)
    assert not hung and codes == [1]
    assert "R1S1: dead" in capsys.readouterr().out


def test_the_procedures_restart_the_hub_as_they_let_it_go(monkeypatch, capsys):
    """Found by a newcomer: the table, started again after a self-test, replayed
    the test's coins from the hub's ring into its paused match as 8 turns."""
    from coindrel.hub.protocol import Reset

    class HubSource(Source):
        asked: list = []

        async def _ask(self, msg, timeout=None, wait_connected=None):
            self.asked.append(msg)

    src = HubSource([EntryEvent(1.0, 0)])
    monkeypatch.setattr(guided, "open_source", lambda args: src)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    guided.run_selftest(parse(guided.add_selftest_arguments, ["--timeout", "1"]))
    assert [type(m) for m in src.asked] == [Reset]
    assert "the hub restarts, so that the table does not take" in capsys.readouterr().err
    hub = Hub([{"R1S1": 3300}] * 8 + [{"R1S1": 2500}] * 8 + [{"R1S1": 3300}] * 8)
    asked = []

    async def ask(msg, timeout=None, wait_connected=None):
        asked.append(msg)
        raise TimeoutError("no answer")

    hub._ask = ask
    monkeypatch.setattr(guided, "open_source", lambda args: hub)
    assert guided.run_calibrate(parse(guided.add_calibrate_arguments, ["--json"])) == 0
    assert [type(m) for m in asked] == [Reset] and "the hub did not restart" in capsys.readouterr().err
