"""HubSide: the hub's half of the protocol, as the virtual board and test
doubles use it, checked with the controller's own decoder."""

from __future__ import annotations

import pytest

from coindrel.hub import protocol as p
from coindrel.hub.channelmap import load_channel_map
from coindrel.hub.hubside import HubSide

CM = load_channel_map()


def decode_all(data: bytes):
    return [f for f in p.Decoder("hub").feed(data) if isinstance(f, p.Frame)]


def test_boot_then_answers_with_matching_req():
    hub = HubSide(CM, clock_us=lambda: 5_000, boot_id=0xAB)
    frames = decode_all(hub.boot())
    assert frames[0].seq == 0 and frames[0].msg.req == 0 and frames[0].msg.boot_id == 0xAB
    asks = p.encode(p.HelloReq(), 7) + p.encode(p.SnapshotReq(), 8) + p.encode(p.CalGet(), 9) + p.encode(p.Reset(), 10)
    answers = decode_all(hub.feed(asks))
    assert [(type(f.msg).__name__, f.msg.req, f.seq) for f in answers] == [
        ("Hello", 7, 1), ("Snapshot", 8, 2), ("Calibration", 9, 3), ("Ack", 10, 4)]
    assert len(answers[1].msg.halls) == 38 and answers[1].msg.halls[0] == p.HallState(0, "L", 2980)


def test_state_follows_events_and_time_may_not_go_back():
    hub = HubSide(CM, clock_us=lambda: 0)
    hub.coin(1_000, 9, 4_000)
    hub.hall(6_000, 2, "R", 2333)
    snap = decode_all(hub.snapshot(1))[0].msg
    assert snap.beams == 0 and p.HallState(2, "R", 2333) in snap.halls
    with pytest.raises(ValueError, match="time order"):
        hub.hall(5_999, 2, "L", 2980)


def test_outputs_and_calibration_checked_like_the_firmware():
    hub = HubSide(CM, clock_us=lambda: 0)
    ack = decode_all(hub.feed(p.encode(p.Outputs(1, p.NO_DROP, 0), 3)))[0].msg
    assert ack.status == p.NOT_WIRED
    bad = p.CalSet(True, 40, 5, 2, (p.HallCal(99, 1, 2, 3, 4),))
    ack = decode_all(hub.feed(p.encode(bad, 4)))[0].msg
    assert ack.status == p.BAD_REQUEST and "99" in ack.text
    good = p.CalSet(True, 30, 4, 3, (p.HallCal(0, 3000, 2300, 2050, 100),))
    assert decode_all(hub.feed(p.encode(good, 5)))[0].msg.status == p.OK
    assert hub.calibration.hyst == 30 and hub.calibration.halls[0].l == 3000


def test_reboot_restarts_seq_with_a_new_boot_id():
    hub = HubSide(CM, clock_us=lambda: 10, boot_id=1)
    hub.boot()
    hub.heartbeat()
    hub.reboot(2)
    f = decode_all(hub.boot())[0]
    assert f.seq == 0 and f.msg.boot_id == 2
