"""The reconciler's fault vocabulary: names, places, sentences, twins."""

import pytest

from coindrel.engine import EntrySensorDead, ExitSensorDead, HallFault, Jam, PadNotHolding, SwitchStuck, standard_geometry
from coindrel.reconcile.faults import (
    PRIOR,
    CoinAdded,
    CoinRemoved,
    EntrySensorChatter,
    ExitSensorChatter,
    JamCleared,
    MovedByHand,
    StrayCoin,
    SwitchUnseated,
    fault_from_key,
    is_persistent,
    key,
    say,
)

G = standard_geometry()
ALL = [SwitchStuck("R3S2"), PadNotHolding("R3S2"), Jam("R3S2", 0), HallFault("R3S2"), SwitchUnseated("R3S2"),
       ExitSensorDead(9), EntrySensorDead(3), ExitSensorChatter(9), EntrySensorChatter(3), CoinAdded("R3S2"),
       CoinRemoved("R3S2"), MovedByHand("R3S2"), StrayCoin(9), JamCleared("R3S2", 1)]


@pytest.mark.parametrize("fault", ALL, ids=lambda f: f.name)
def test_every_fault_has_a_place_a_prior_and_a_sentence(fault):
    assert fault_from_key(*key(fault), G) == fault
    assert fault.name in PRIOR
    text = say(fault)
    assert fault.where.split()[0].lower() in text.lower() and text.endswith(".")


def test_places_read_like_sensing_md():
    assert ExitSensorDead(9).where == "exit 10"
    assert EntrySensorDead(3).where == "entry 4"
    assert Jam("R3S2", 0).where == "R3S2 left outlet"
    assert say(ExitSensorDead(9)) == "Exit 10 did not see a coin the cascade sent there: its beam is dead or misaligned."
    assert say(SwitchStuck("R3S2"), (ExitSensorDead(4),)).endswith("together with exit sensor dead at exit 5.")


def test_persistent_or_once():
    assert is_persistent(SwitchStuck("R1S1")) and is_persistent(ExitSensorChatter(1))
    assert not is_persistent(CoinAdded("R1S1")) and not is_persistent(MovedByHand("R1S1"))


def test_bad_keys_are_refused():
    with pytest.raises(ValueError):
        fault_from_key("exit_sensor_dead", "R3S2", G)
    with pytest.raises(ValueError):
        fault_from_key("entry_sensor_dead", "exit 3", G)
    with pytest.raises(ValueError):
        fault_from_key("gremlins", "R1S1", G)
