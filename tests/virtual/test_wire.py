"""The virtual hub speaks the hub protocol with the hub codec: what goes over
the wire is exactly what the hub model observed, commands get the answers
firmware/PROTOCOL.md describes, and link faults damage the line as a real
cable and a restarting hub would."""

from __future__ import annotations

import dataclasses

import pytest

from coindrel.events import EntryEvent, ExitEvent, SwitchEvent
from coindrel.hub import protocol as p
from coindrel.virtual import BoardConfig, Collect, PlayerSpec, Scenario, VirtualBoard, build_board, fault_from_text
from coindrel.virtual.wire import WireHub

from .harness import outputs_map

ALL_L = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


def wired(scn: Scenario, channel_map=None, **kw):
    out = Collect()
    board, _ = build_board(scn, outputs=[out])
    wire = WireHub(board, channel_map, **kw)
    return board, wire, out


def frames(data: bytes):
    dec = p.Decoder("hub")
    items = dec.feed(data)
    return [i for i in items if isinstance(i, p.Frame)], [i for i in items if not isinstance(i, p.Frame)], dec


def board_events(fs, labels):
    """What a link makes of the frames: board events on hub time (seconds since boot)."""
    out = []
    for f in fs:
        m = f.msg
        if isinstance(m, p.Beam) and m.broken:
            out.append(EntryEvent(m.t_us / 1e6, m.beam) if m.beam < 8 else ExitEvent(m.t_us / 1e6, m.beam - 8))
        elif isinstance(m, p.Hall):
            out.append(SwitchEvent(m.t_us / 1e6, labels[m.switch], m.pos, m.raw))
    return out


def same_events(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert type(x) is type(y) and abs(x.t - y.t) < 1e-6
        assert dataclasses.replace(x, t=0) == dataclasses.replace(y, t=0)


def test_the_wire_carries_exactly_what_the_hub_observed():
    scn = Scenario(BoardConfig(seed=4), players=PlayerSpec(one="greedy", two="random", overlap=0.4))
    board, wire, out = wired(scn)
    board.finish()
    fs, problems, dec = frames(wire.take())
    assert problems == [] and dec.stats["malformed"] == 0
    assert [f.seq for f in fs] == list(range(len(fs)))
    assert isinstance(fs[0].msg, p.Hello) and fs[0].msg.req == 0 and fs[0].msg.map_hash == wire.cm.map_hash
    same_events(board_events(fs, board.geometry.labels), out.events)
    clears = [f.msg for f in fs if isinstance(f.msg, p.Beam) and not f.msg.broken]
    assert len(clears) == len(out.clears) and all(5_000 <= c.duration_us <= 40_200 for c in clears)
    # t_us never decreases within a boot
    times = [f.msg.t_us for f in fs if hasattr(f.msg, "t_us")]
    assert times == sorted(times)


def test_heartbeats_every_half_second_from_boot():
    board, wire, _ = wired(Scenario(BoardConfig(seed=1, start=ALL_L), drops=[(0.3, 3)], duration=5.0))
    board.finish()
    fs, _, _ = frames(wire.take())
    beats = [f.msg.t_us for f in fs if isinstance(f.msg, p.Heartbeat)]
    assert beats[:10] == [500_000 * k for k in range(1, 11)]


def ask(board, wire, *msgs, seq0=100):
    data = b"".join(p.encode(m, seq0 + i) for i, m in enumerate(msgs))
    wire.receive(data)
    fs, problems, _ = frames(wire.take())
    return [f.msg for f in fs], problems


def test_commands_are_answered():
    board, wire, _ = wired(Scenario(BoardConfig(seed=2, start=ALL_L)))
    board.run_until(1.0)
    wire.take()
    replies, _ = ask(board, wire, p.HelloReq(), p.SnapshotReq(), p.CalGet())
    hello, snap, cal = replies
    assert isinstance(hello, p.Hello) and hello.req == 100 and not hello.dropper and hello.n_halls == 38 and hello.n_beams == 24
    assert isinstance(snap, p.Snapshot) and snap.req == 101 and snap.beams == 0
    assert [h.pos for h in snap.halls] == ["L"] * 38
    assert isinstance(cal, p.Calibration) and cal.req == 102 and len(cal.halls) == 38
    c0 = board.calibration[0]
    assert (cal.halls[0].l, cal.halls[0].r, cal.halls[0].none, cal.halls[0].band) == (c0.left, c0.right, c0.none, c0.band)
    assert cal.hall_filter == board.config.rules.filter and cal.hyst == board.config.rules.hyst


def test_calibration_set_changes_what_the_hub_reports():
    board, wire, _ = wired(Scenario(BoardConfig(seed=2, start=ALL_L)))
    board.run_until(0.5)
    wire.take()
    c = board.calibration[5]
    # swap R1S6's L and R readings: the rocker (seated L) now reads R
    swapped = p.HallCal(5, c.right, c.left, c.none, c.band)
    replies, _ = ask(board, wire, p.CalSet(save=False, hyst=30, beam_filter=3, hall_filter=2, halls=(swapped,)))
    assert replies == [p.Ack(100, p.CalSet.TYPE, p.OK, "applied, not saved")]
    board.run_until(0.6)
    fs, _, _ = frames(wire.take())
    # the firmware says mid first: to the hub it is a change straight from L to R
    assert [(m.switch, m.pos) for m in (f.msg for f in fs) if isinstance(m, p.Hall)] == [(5, "mid"), (5, "R")]
    replies, _ = ask(board, wire, p.CalGet())
    assert replies[0].saved is False and replies[0].halls[5].l == c.right
    for bad, words in ((p.HallCal(5, 3000, 2300, 2048, 0), "band 0 is not 1..2047"),
                       (p.HallCal(38, 3000, 2300, 2048, 90), "switch 38 has no hall sensor")):
        replies, _ = ask(board, wire, p.CalSet(save=True, hyst=30, beam_filter=3, hall_filter=2, halls=(bad,)))
        assert replies[0].status == p.BAD_REQUEST and words in replies[0].text
    replies, _ = ask(board, wire, p.CalSet(save=True, hyst=3000, beam_filter=3, hall_filter=2, halls=()))
    assert replies[0].status == p.BAD_REQUEST and "hyst 3000 is not 0..1000" in replies[0].text
    replies, _ = ask(board, wire, p.CalGet())
    assert replies[0].halls[5].l == c.right and replies[0].hyst == 30, "a bad request changes nothing"


def test_the_controllers_dropper_drops_a_coin():
    board, wire, out = wired(Scenario(BoardConfig(seed=2, start=ALL_L)), channel_map=outputs_map())
    board.run_until(1.0)
    replies, _ = ask(board, wire, p.Outputs(leds=0b1000, drop=3, pulse_ms=40))
    assert replies[-1] == p.Ack(100, p.Outputs.TYPE, p.OK) and wire.leds == 0b1000
    board.finish()
    drops = [d for d in board.truth.lines if d["kind"] == "drop"]
    assert [(d["entry"], round(d["t"], 3)) for d in drops] == [(4, 1.04)]
    assert [e.entry for e in out.events if isinstance(e, EntryEvent)] == [3]
    replies, _ = ask(board, wire, p.Outputs(leds=0, drop=9))
    assert replies[-1] == p.Ack(100, p.Outputs.TYPE, p.BAD_REQUEST, "drop entry 9 is not 0..7")


def test_a_hub_without_dropper_says_so():
    board, wire, _ = wired(Scenario(BoardConfig(seed=2, start=ALL_L)))  # the reference map wires no outputs
    wire.take()
    replies, _ = ask(board, wire, p.Outputs(leds=0, drop=2), p.Outputs(leds=1, drop=p.NO_DROP))
    assert replies[0] == p.Ack(100, p.Outputs.TYPE, p.NOT_WIRED, "the coin dropper is not wired to the hub")
    assert replies[1] == p.Ack(101, p.Outputs.TYPE, p.NOT_WIRED, "entry LEDs are not wired to the hub")
    assert not [d for d in board.truth.lines if d["kind"] == "drop"]


def test_raw_stream_for_calibration():
    board, wire, _ = wired(Scenario(BoardConfig(seed=2, start=ALL_L)), heartbeat=False)
    wire.take()
    replies, _ = ask(board, wire, p.RawStream(100))
    assert replies == [p.Ack(100, p.RawStream.TYPE, p.OK, "raw stream every 100 ms")]
    board.run_until(1.05)
    raws = [f.msg for f in frames(wire.take())[0] if isinstance(f.msg, p.Raw)]
    assert len(raws) == 10 and all(len(r.values) == 38 for r in raws)
    c = board.calibration[0]
    assert all(abs(r.values[0][1] - c.left) <= c.band for r in raws)
    ask(board, wire, p.RawStream(0))
    board.run_until(2.0)
    assert not [f for f in frames(wire.take())[0] if isinstance(f.msg, p.Raw)]


def test_a_new_connection_stops_the_raw_stream():
    # whoever asked for it is gone (a `coindrel hub raw` killed): the next hello_req is a new client
    board, wire, _ = wired(Scenario(BoardConfig(seed=2, start=ALL_L)), heartbeat=False)
    wire.take()
    ask(board, wire, p.RawStream(100))
    board.run_until(0.55)
    assert [f for f in frames(wire.take())[0] if isinstance(f.msg, p.Raw)]
    ask(board, wire, p.HelloReq(), seq0=200)
    board.run_until(2.0)
    assert not [f for f in frames(wire.take())[0] if isinstance(f.msg, p.Raw)]


def test_reset_command_restarts_the_hub():
    board, wire, out = wired(Scenario(BoardConfig(seed=2, start=ALL_L)))
    board.run_until(3.0)
    wire.take()
    first_boot = wire.boot_id
    replies, _ = ask(board, wire, p.Reset())
    assert replies == [p.Ack(100, p.Reset.TYPE, p.OK, "resetting")]
    board.run_until(5.0)
    fs, _, _ = frames(wire.take())
    assert isinstance(fs[0].msg, p.Hello) and fs[0].seq == 0 and fs[0].msg.req == 0
    assert fs[0].msg.boot_id != first_boot and wire.boots == 1
    assert fs[0].msg.t_us == 0 and out.downs and out.boots


def test_damaged_frames_and_text_are_counted_and_reported_at_the_heartbeat():
    board, wire, _ = wired(Scenario(BoardConfig(seed=2, start=ALL_L)))
    wire.take()
    good = p.encode(p.SnapshotReq(), 7)
    damaged = good[:5] + (b"A" if good[5:6] != b"A" else b"B") + good[6:]
    wire.receive(damaged + b"hello hub\n" + damaged + p.encode(p.HelloReq(), 8))
    msgs = [f.msg for f in frames(wire.take())[0]]
    assert len(msgs) == 1 and isinstance(msgs[0], p.Hello) and msgs[0].req == 8  # the good frame is answered at once
    board.run_until(0.5)
    msgs = [f.msg for f in frames(wire.take())[0]]
    assert [(m.code_name, m.arg) for m in msgs if isinstance(m, p.Error)] == [("bad_frame", 2), ("text_input", 1)]
    assert isinstance(msgs[-1], p.Heartbeat) and msgs[-1].rx_bad == 2
    board.run_until(1.0)
    assert not [f for f in frames(wire.take())[0] if isinstance(f.msg, p.Error)], "each count is reported once"


def test_unknown_and_malformed_commands_get_a_refusal():
    from coindrel.hub.framing import encode_frame

    board, wire, _ = wired(Scenario(BoardConfig(seed=2, start=ALL_L)))
    wire.take()
    wire.receive(encode_frame(bytes([0x3E, 9, 0])) + encode_frame(bytes([p.Outputs.TYPE, 10, 0, 1])))
    unknown, malformed = [f.msg for f in frames(wire.take())[0]]
    assert unknown == p.Ack(9, 0x3E, p.UNKNOWN_COMMAND, "unknown command 0x3e")
    assert malformed.req == 10 and malformed.status == p.BAD_REQUEST


def fault_run(*specs, seed=6, **kw):
    scn = Scenario(BoardConfig(seed=seed), players=PlayerSpec(drops=60, think=(0.5, 1.2)))
    g = scn.config.geometry
    scn = dataclasses.replace(scn, faults=[fault_from_text(s, g) for s in specs])
    board, wire, out = wired(scn, **kw)
    plugs = []
    wire.on_plug = plugs.append
    chunks = []
    while board.busy():
        board.run_until(board.now + 0.25)
        chunks.append(wire.take())
    return board, wire, out, b"".join(chunks), plugs


def test_dropped_frames_leave_gaps_in_the_sequence():
    board, wire, _, data, _ = fault_run("dropped_frames,t=10,count=3", "dropped_frames,t=30,until=50,chance=0.3,persistent")
    fs, problems, _ = frames(data)
    seqs = [f.seq for f in fs]
    gaps = sum(b - a - 1 for a, b in zip(seqs, seqs[1:]))
    assert gaps == wire.dropped and wire.dropped >= 3 + 5
    assert not problems


def test_garbage_on_the_line_is_noise_the_decoder_skips():
    board, wire, out, data, _ = fault_run("garbage,t=5,bytes=64", "garbage,t=20,until=40,every=2,bytes=12,persistent")
    fs, problems, dec = frames(data)
    assert problems and dec.stats["bytes_in"] == len(data)
    clean, _, _, clean_data, _ = fault_run()
    # every frame the healthy run sent still arrives (garbage only sits between frames)
    assert [f.msg for f in fs] == [f.msg for f in frames(clean_data)[0]]


def test_hub_reset_mid_match():
    board, wire, out, data, _ = fault_run("hub_reset,t=20.5,boot=0.8")
    fs, _, _ = frames(data)
    hellos = [i for i, f in enumerate(fs) if isinstance(f.msg, p.Hello)]
    assert len(hellos) == 2
    second = fs[hellos[1]]
    assert second.seq == 0 and second.msg.t_us == 0 and second.msg.boot_id != fs[0].msg.boot_id
    # after the restart, hub time counts from the boot
    after = [f.msg.t_us for f in fs[hellos[1]:] if hasattr(f.msg, "t_us")]
    assert after == sorted(after) and max(after) < (board.now - 21.3 + 0.01) * 1e6


def test_unplug_and_replug():
    board, wire, out, data, plugs = fault_run("unplug,t=15,duration=2")
    assert plugs == [False, True]
    fs, _, _ = frames(data)
    assert sum(isinstance(f.msg, p.Hello) for f in fs) == 2
    # nothing the hub saw while unplugged (no power) reaches the wire
    assert not [e for e in out.events if 15.0 <= e.t < 17.0]


def test_a_full_queue_loses_events_and_says_how_many():
    scn = Scenario(BoardConfig(seed=8), players=PlayerSpec(drops=30, think=(0.5, 1.0)))
    board, wire, out = wired(scn, capacity=20)
    board.finish()
    fs, _, _ = frames(wire.take())
    assert len(fs) == 20 and wire.lost > 0
    wire._send(p.Heartbeat(0, 250, 0, 0, 0, 0))  # the queue has room again: the hub owns up first
    msgs = [f.msg for f in frames(wire.take())[0]]
    assert isinstance(msgs[0], p.Lost) and msgs[0].count == wire.lost and msgs[0].where == "queue"
    assert isinstance(msgs[1], p.Heartbeat)


def test_only_what_the_channel_map_wires_goes_over_the_wire():
    import json

    from coindrel.hub.channelmap import PACKAGE_MAP, ChannelMap

    doc = json.loads(PACKAGE_MAP.read_text())
    doc["beams"] = [b for b in doc["beams"] if b["beam"] != "exit 12"]  # a build without exit 12's beam
    doc["halls"] = [h for h in doc["halls"] if h["switch"] != "R1S4"]
    cm = ChannelMap(doc, "partial map")
    board, wire, out = wired(Scenario(BoardConfig(seed=1, start=ALL_L), drops=[(0.5, 3), (2.0, 3)]), channel_map=cm)
    board.finish()
    fs, _, _ = frames(wire.take())
    assert fs[0].msg.n_beams == 23 and fs[0].msg.n_halls == 37
    assert any(isinstance(e, ExitEvent) and e.exit == 11 for e in out.events)  # the hub model saw it...
    assert not [f for f in fs if isinstance(f.msg, p.Beam) and f.msg.beam == 19]  # ...the wire does not carry it
    assert not [f for f in fs if isinstance(f.msg, p.Hall) and f.msg.switch == 3]
    snap = ask(board, wire, p.SnapshotReq())[0][0]
    assert 3 not in [h.switch for h in snap.halls] and len(snap.halls) == 37


def test_channel_map_must_describe_this_board():
    board = VirtualBoard(BoardConfig(board="mirrored", start=ALL_L))
    with pytest.raises(p.ProtocolError, match="channel map"):
        WireHub(board)
