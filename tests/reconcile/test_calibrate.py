"""The guided hall calibration, driven by made-up raw readings and by a fake hub source."""

import asyncio
from dataclasses import dataclass

import pytest

from coindrel.engine import EngineError, standard_geometry
from coindrel.reconcile.calibrate import QUIESCENT, Calibration, run

G = standard_geometry()


def settle(cal, label, value, n=8, wobble=3):
    changed = False
    for i in range(n):
        changed |= cal.feed({label: value + (wobble if i % 2 else -wobble)})
    return changed


def test_left_right_left_gives_a_band():
    cal = Calibration(["R1S1", "R1S2"])
    assert cal.prompt().text == "Push R1S1 over to its LEFT side and let go."
    assert settle(cal, "R1S1", 3300)
    assert "RIGHT" in cal.prompt().text
    settle(cal, "R1S1", 3300)  # not moved yet: nothing happens
    assert "RIGHT" in cal.prompt().text
    for v in range(3300, 2500, -100):  # the rocker travelling
        cal.feed({"R1S1": v})
    assert settle(cal, "R1S1", 2500)
    assert "back to the LEFT" in cal.prompt().text
    assert settle(cal, "R1S1", 3298)
    assert cal.prompt().switch == "R1S2" and cal.prompt().step == 2
    (band,) = cal.result.bands
    assert (band.switch, band.left, band.right, band.none) == ("R1S1", 3300, 2500, QUIESCENT)
    assert band.band == 200  # a quarter of the 800-count range
    assert not cal.result.problems


def test_a_weak_magnet_and_a_loose_pivot_are_named():
    cal = Calibration(["R2S2"], min_separation=100)
    settle(cal, "R2S2", 2150)
    settle(cal, "R2S2", 2040)
    settle(cal, "R2S2", 2265)
    text = " ".join(cal.result.problems)
    assert "right reading (2040) is within the band of the no-magnet reading (2048)" in text
    assert "does not seat the same way twice" in text
    assert cal.done


def test_noisy_sensor():
    cal = Calibration(["R3S3"], steady=200)
    settle(cal, "R3S3", 3300, wobble=90)
    settle(cal, "R3S3", 2500, wobble=90)
    settle(cal, "R3S3", 3300, wobble=90)
    assert any("wanders" in p for p in cal.result.problems)


def test_skip_and_nothing_to_calibrate():
    cal = Calibration(["R1S1", "R1S2"])
    cal.skip()
    assert cal.switch == "R1S2"
    cal.skip()
    assert cal.done and cal.result.skipped == ["R1S1", "R1S2"] and not cal.result.ok
    with pytest.raises(EngineError, match="no hall sensors"):
        Calibration([])


@dataclass
class Caps:
    calibration: bool = True


@dataclass
class CurrentCal:
    hyst: int = 40
    beam_filter: int = 3
    hall_filter: int = 2


class FakeHub:
    """Streams the raw readings of a person following the prompts."""

    def __init__(self, script):
        self.capabilities = Caps()
        self.script = script  # list of {label: raw}
        self.stored = None

    async def ready(self, timeout=None):
        return True

    async def calibration(self):
        return CurrentCal()

    async def raw_stream(self, interval_ms):
        for i, raw in enumerate(self.script):
            yield (i * interval_ms / 1000, raw)

    async def set_calibration(self, halls, hyst, beam_filter, hall_filter, save=True):
        self.stored = (list(halls), hyst, beam_filter, hall_filter, save)
        return "saved"


def test_run_stores_the_bands_on_the_hub():
    script = [{"R1S1": 3300}] * 8 + [{"R1S1": 2500}] * 8 + [{"R1S1": 3300}] * 8 + [{"R1S1": 3300}] * 5
    hub = FakeHub(script)
    said = []
    result = asyncio.run(run(hub, Calibration(["R1S1"]), said.append, geometry=G))
    assert [p.text.split()[0] for p in said] == ["Push", "Now", "And"]
    assert result.ok
    halls, hyst, bf, hf, save = hub.stored
    assert (halls[0].switch, halls[0].l, halls[0].r, halls[0].none, halls[0].band) == (0, 3300, 2500, QUIESCENT, 200)
    assert (hyst, bf, hf, save) == (40, 3, 2, True)


def test_run_refuses_a_source_that_cannot_store_it():
    hub = FakeHub([])
    hub.capabilities = Caps(calibration=False)
    with pytest.raises(EngineError, match="sensor hub"):
        asyncio.run(run(hub, Calibration(["R1S1"]), print))


def test_skip_and_quit_typed_while_running():
    script = [{"R1S1": 3300}] * 4 + [{"R1S1": 3300}] * 30
    hub = FakeHub(script)
    commands = asyncio.Queue()
    commands.put_nowait("s")  # skip R1S1
    commands.put_nowait("q")  # and stop
    result = asyncio.run(run(hub, Calibration(["R1S1", "R1S2"]), lambda p: None, commands=commands))
    assert result.skipped == ["R1S1", "R1S2"] and hub.stored is None
