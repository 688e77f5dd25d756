"""Replay from the virtual hub, as from the firmware (PROTOCOL.md, Resume):
a controller that restarts with the last position its journal made durable
gets every later event again, exactly once, with the positions it journals;
what the ring no longer has is reported as a loss."""

from __future__ import annotations

from coindrel.events import StatusEvent
from coindrel.hub import protocol as p
from coindrel.hub.channelmap import load_channel_map
from coindrel.hub.tracker import Tracker
from coindrel.virtual import BoardConfig, PlayerSpec, Scenario, build_board
from coindrel.virtual.wire import WireHub

CM = load_channel_map()


def feed(tr, data):
    out = []
    for item in p.Decoder("hub").feed(data):
        if isinstance(item, p.Frame):
            out += tr.feed(item, 0.0)
    return out


def board_events(evs):
    return [e for e in evs if not isinstance(e, StatusEvent)]


def test_a_restarted_controller_gets_everything_after_its_last_durable_event():
    board, _ = build_board(Scenario(BoardConfig(seed=5), players=PlayerSpec(one="greedy", two="random")))
    wire = WireHub(board)
    first = Tracker(CM)
    first.connection_started()
    wire.receive(p.encode(p.HelloReq(), 1) + p.encode(p.Resume(0, None), 2))
    feed(first, wire.take())
    assert first.anchor is not None
    board.run_until(board.now + 20.0)
    seen = board_events(feed(first, wire.take()))
    assert len(seen) > 20
    durable = seen[len(seen) // 2]  # the journal made half of them durable, then the process died
    pos = first.position_of(durable)
    assert pos is not None and pos.boot_id == wire.boot_id
    # a new process: a new tracker, told the journal's position
    second = Tracker(CM)
    second.connection_started()
    wire.receive(p.encode(p.HelloReq(), 1))
    feed(second, wire.take())
    req = second.resume_request(pos)
    assert req == p.Resume(pos.boot_id, pos.num)
    wire.receive(p.encode(req, 2))
    again = board_events(feed(second, wire.take()))
    assert again == seen[len(seen) // 2 + 1:]  # every later event, once, in order
    assert [second.position_of(e) for e in again] == [first.position_of(e) for e in seen[len(seen) // 2 + 1:]]
    assert not second.losses


def test_what_the_ring_cannot_supply_is_a_loss():
    board, _ = build_board(Scenario(BoardConfig(seed=6), players=PlayerSpec(one="greedy", two="greedy")))
    wire = WireHub(board)
    wire.ring = type(wire.ring)(maxlen=10)
    tr = Tracker(CM)
    tr.connection_started()
    wire.receive(p.encode(p.HelloReq(), 1) + p.encode(p.Resume(0, None), 2))
    feed(tr, wire.take())
    board.run_until(board.now + 10.0)
    seen = board_events(feed(tr, wire.take()))
    pos = tr.position_of(seen[0])
    later = Tracker(CM)
    later.connection_started()
    wire.receive(p.encode(p.HelloReq(), 3))
    feed(later, wire.take())
    wire.receive(p.encode(p.Resume(pos.boot_id, pos.num), 4))
    out = feed(later, wire.take())
    lost = [e for e in out if isinstance(e, StatusEvent) and e.state == "lost"]
    assert lost and "uncertain" in lost[0].detail
    assert later.losses and later.losses[-1].until_t is not None
    assert len(board_events(out)) <= 10
