"""Fault specifications: places written as people write them, parameters
checked, and every mistake named with what to do instead."""

from __future__ import annotations

import pytest

from coindrel.engine import EngineError, EntrySensorDead, ExitSensorDead, HallFault, Jam, PadNotHolding, SwitchStuck, standard_geometry
from coindrel.virtual.faults import ALL, PARAMS, engine_fault, fault_from_dict, fault_from_text, numbered

G = standard_geometry()


@pytest.mark.parametrize("text, name, where, fields", [
    ("switch_stuck@R3S2", "switch_stuck", "R3S2", {"switch": G.index("R3S2"), "persistent": True, "t": 0.0}),
    ("switch_stuck@r3s2,t=5,until=9", "switch_stuck", "R3S2", {"t": 5.0, "until": 9.0}),
    ("jam@R3S2 left outlet,t=2", "jam", "R3S2 left outlet", {"side": 0}),
    ("jam@R3S2:right", "jam", "R3S2 right outlet", {"side": 1}),
    ("jam@R5S1 L", "jam", "R5S1 left outlet", {"side": 0}),
    ("exit_sensor_dead@exit 10", "exit_sensor_dead", "exit 10", {"exit": 9}),
    ("exit_sensor_dead@exit10,chance=0.5", "exit_sensor_dead", "exit 10", {"params": {"chance": 0.5}}),
    ("entry_sensor_chatter@entry 4,once,count=3", "entry_sensor_chatter", "entry 4", {"entry": 3, "persistent": False}),
    ("hall_fault@R1S1,mode=inverted", "hall_fault", "R1S1", {}),
    ("hall_fault@R1S1,mode=stuck,value=0", "hall_fault", "R1S1", {}),
    ("moved_by_hand@R2S2,t=3,to=L", "moved_by_hand", "R2S2", {"persistent": False}),
    ("hub_reset,t=30", "hub_reset", "link", {"persistent": False}),
    ("unplug,t=3,duration=1.5", "unplug", "link", {}),
    ("garbage,t=1,bytes=8,every=2,until=9,persistent", "garbage", "link", {"persistent": True}),
    ("dropped_frames,t=1,count=4", "dropped_frames", "link", {"persistent": False}),
])
def test_faults_from_the_command_line(text, name, where, fields):
    f = fault_from_text(text, G)
    assert f.name == name and f.where == where
    for k, v in fields.items():
        if k == "params":
            for pk, pv in v.items():
                assert f.params[pk] == pv
        else:
            assert getattr(f, k) == v


@pytest.mark.parametrize("text, words", [
    ("switch_stick@R3S2", "unknown fault 'switch_stick'; faults are switch_stuck"),
    ("switch_stuck", "needs a place: a switch label such as R3S2"),
    ("switch_stuck@R9S2", "R9S2 is not a switch"),
    ("jam@R3S2", "write a switch and an outlet"),
    ("exit_sensor_dead@exit 17", "there are exits 1..16"),
    ("exit_sensor_dead@entry 3", "an exit such as 'exit 10'"),
    ("hub_reset@R3S2", "link fault; it has no place on the board"),
    ("switch_stuck@R3S2,t=5,until=4", "until 4.0 is not after its start t 5.0"),
    ("switch_stuck@R3S2,t=-1", "out of range; write a number 0 or more"),
    ("switch_stuck@R3S2,speed=3", "switch_stuck has no parameter(s) speed; its parameters: none"),
    ("hall_fault@R3S2,mode=wobbly", "is not inverted, stuck or drift"),
    ("moved_by_hand@R3S2,to=up", "is not L, R or toggle"),
    ("moved_by_hand@R3S2,persistent", "happens once, at t; it cannot be persistent"),
    ("exit_sensor_dead@exit 3,chance=2", "out of range; write a number from 0 to 1"),
    ("switch_stuck@R3S2,t", "'t' is not key=value"),
    ("garbage,persistent", "persistent garbage needs 'every'"),
    ("switch_stuck@R3S2,t=soon", "'soon' is not a number"),
])
def test_mistakes_are_named(text, words):
    with pytest.raises(EngineError) as e:
        fault_from_text(text, G)
    assert words in str(e.value)


def test_scenario_tables_and_defaults():
    f = fault_from_dict({"fault": "switch_unseated", "where": "R2S3", "t": 4, "once": True}, G)
    assert not f.persistent and f.params == {"offset": 0.4} and f.t == 4.0
    assert fault_from_dict({"fault": "pad_not_holding", "where": "R1S1"}, G).persistent
    assert not fault_from_dict({"fault": "coin_added", "where": "R1S1"}, G).persistent
    with pytest.raises(EngineError, match="a fault is a table"):
        fault_from_dict(["switch_stuck"], G)
    with pytest.raises(EngineError, match="persistent must be true or false"):
        fault_from_dict({"fault": "jam", "where": "R1S1 left", "persistent": "yes"}, G)
    assert set(PARAMS) <= set(ALL)


def test_ground_truth_form_and_numbering():
    fs = numbered([fault_from_text("jam@R3S2 left,t=9,until=12", G), fault_from_text("exit_sensor_dead@exit 2,t=1", G)])
    assert [(f.id, f.name) for f in fs] == [(1, "exit_sensor_dead"), (2, "jam")]
    assert fs[1].to_json() == {"fault": "jam", "where": "R3S2 left outlet", "t": 9.0, "persistent": True, "until": 12.0}
    assert fs[1].active(10.0) and not fs[1].active(12.0) and not fs[1].active(8.0)


def test_engine_equivalents():
    assert engine_fault(fault_from_text("switch_stuck@R3S2", G), G) == SwitchStuck("R3S2")
    assert engine_fault(fault_from_text("pad_not_holding@R3S2", G), G) == PadNotHolding("R3S2")
    assert engine_fault(fault_from_text("jam@R3S2:right", G), G) == Jam("R3S2", 1)
    assert engine_fault(fault_from_text("exit_sensor_dead@exit 4", G), G) == ExitSensorDead(3)
    assert engine_fault(fault_from_text("entry_sensor_dead@entry 4", G), G) == EntrySensorDead(3)
    assert engine_fault(fault_from_text("hall_fault@R1S2", G), G) == HallFault("R1S2")
    assert engine_fault(fault_from_text("exit_sensor_dead@exit 4,chance=0.5", G), G) is None  # not a sure thing
    assert engine_fault(fault_from_text("moved_by_hand@R1S2", G), G) is None
