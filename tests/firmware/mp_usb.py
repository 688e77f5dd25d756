# MicroPython: the hub against USB as it behaves (no host, a slow host, the
# TX timeout), the watchdog, the replay ring and resume, calibration saves.
import machine
from coindrel_hub import chanmap, proto
from hubworld import BOOT_US, World, burn, coins, resume_body, resumed, t_order
from mptest import eq, run


def test_link_full_holds_events_in_order_then_reports_overflow_and_the_ring_has_them():
    w = World()
    w.hub.queue.cap = 6  # a small queue to overflow
    w.run(BOOT_US)
    w.frames()
    w.io.writable = False
    coins(w, [8 + i for i in range(5)])
    w.io.writable = True
    w.run(30000)
    f = [x for x in w.frames() if x[0] != "heartbeat"]
    kinds = [x[0] for x in f]
    eq(kinds[:6], ["beam"] * 6, "the oldest kept")
    eq(kinds[6], "lost", "then what was lost")
    eq(f[6][2]["count"], 4, "four events")
    t_order(f)
    seqs = [x[1] for x in f]
    assert seqs == sorted(seqs), seqs
    eq(seqs[6] - seqs[5], 5, "lost comes next, after the four numbers it stands for")
    req = w.send(proto.RESUME, resume_body(w.hub.info.boot_id, seqs[5]))
    g = resumed(w)
    eq(g[0][0], "resumed", "answer")
    r = g[0][2]
    eq((r["req"], r["flags"], r["replayed"]), (req, 0, 4), "four to replay")
    eq(r["num"], g[0][1], "the answer's own frame number")
    rep = [x for x in g if x[0] == "replay"]
    eq([(x[2]["inner"], x[2]["beam"], x[2]["broken"]) for x in rep],
       [("beam", 11, 1), ("beam", 11, 0), ("beam", 12, 1), ("beam", 12, 0)], "the dropped events, again")
    eq([x[2]["num"] for x in rep], [seqs[5] + 1 + k for k in range(4)], "with their own numbers")


def test_host_away_writes_nothing_keeps_events_and_replays_them():
    w = World()
    w.run(BOOT_US)
    got = w.frames()
    last = got[-1][1]
    w.io.dtr = False  # the Pi closed the port
    coins(w, [3, 19])
    w.run(600000)
    eq(w.frames(), [], "nothing written into the void")
    eq(w.io.vanished, 0, "not even heartbeats")
    assert w.hub.undelivered == 4, w.hub.undelivered
    w.io.dtr = True
    w.send(proto.HELLO_REQ, b"\x01")
    w.send(proto.RESUME, resume_body(w.hub.info.boot_id, last))
    f = resumed(w)
    eq([x[0] for x in f][:2], ["hello", "resumed"], "answers")
    eq(f[1][2]["undelivered"], 4, "says what it could not deliver")
    rep = [(x[2]["beam"], x[2]["broken"]) for x in f if x[0] == "replay"]
    eq(rep, [(3, 1), (3, 0), (19, 1), (19, 0)], "every event while away")


def test_resume_beyond_the_ring_says_what_is_gone():
    w = World(ring=8)
    w.run(BOOT_US)
    last = w.frames()[-1][1]
    coins(w, [8, 9, 10, 11, 12, 13])  # 12 events into a ring of 8
    w.run(20000)
    w.frames()
    w.send(proto.RESUME, resume_body(w.hub.info.boot_id, last))
    f = [x for x in resumed(w) if x[0] in ("resumed", "replay")]
    r = f[0][2]
    eq((r["flags"] & 2, r["replayed"]), (2, 8), "the newest 8, and a flag for the rest")
    eq(r["oldest"], f[1][2]["num"], "the oldest it still has")
    eq(r["oldest_t"], f[1][2]["t"], "and its time")
    w.send(proto.RESUME, resume_body(b"\x00\x01\x02\x03", 5))  # a boot this hub never had
    f = [x for x in resumed(w) if x[0] in ("resumed", "replay")]
    eq((f[0][2]["flags"], f[0][2]["replayed"]), (3, 8), "another boot: all it has, and what is gone")
    w.send(proto.RESUME, resume_body(w.hub.info.boot_id))
    f = [x for x in resumed(w) if x[0] in ("resumed", "replay")]
    eq((len(f), f[0][2]["replayed"], f[0][2]["flags"]), (1, 0, 0), "from now: nothing replayed")


def test_a_slow_host_gets_whole_frames_and_the_loop_backs_off():
    w = World()
    w.run(BOOT_US)
    w.frames()
    w.io.room = 10  # the host reads 10 bytes and stops
    coins(w, [3, 4, 5])
    scans = w.hub.scans
    w.run(1000000)
    assert w.hub.stalls >= 1 and w.io.partial >= 1, (w.hub.stalls, w.io.partial)
    assert w.hub.scans - scans > 100, "scans go on between stalls"
    for _ in range(40):
        w.io.room += 7  # the host reads a little at a time
        w.run(10000)
    w.io.room = None
    w.run(600000)
    f = [x for x in w.frames() if x[0] != "heartbeat"]  # every line decodes: no frame was split
    eq([(x[2]["beam"], x[2]["broken"]) for x in f if x[0] == "beam"],
       [(3, 1), (3, 0), (4, 1), (4, 0), (5, 1), (5, 0)], "all events, whole")


def test_watchdog_resets_a_hung_main_loop():
    w = World()
    w.run(BOOT_US)
    eq(machine.resets, 0, "fed while running")
    upd = w.hub.halls.update

    def hang(raw, t, emit):
        burn(4000000)  # a pass that takes 4 s
        return upd(raw, t, emit)

    w.hub.halls.update = hang
    w.clamp = False  # this pass is meant to be slow: no cap for host noise
    try:
        w.run(30000)
    except machine.ResetCalled:
        pass
    eq(machine.resets, 1, "the watchdog reset the hub")


def test_calibration_save_waits_for_quiet_beams():
    w = World()
    w.run(BOOT_US)
    w.frames()
    items = b"".join(bytes([sw]) + bytes([3000 & 255, 3000 >> 8, 2300 & 255, 2300 >> 8, 2040 & 255, 2040 >> 8, 150, 0])
                     for m, ch, sw in chanmap.HALLS)
    req = None
    for k in range(8):  # coins for 400 ms; the save is asked for during the second
        w.beam(5, True)
        w.run(20000)
        w.beam(5, False)
        if k == 1:
            req = w.send(proto.CAL_SET, bytes([1, 30, 0, 4, 3, len(chanmap.HALLS)]) + items)
        w.run(30000)
    eq(w.hub.saves, 0, "not while coins fall")
    w.run(300000)
    f = [x for x in w.frames() if x[0] in ("ack", "beam")]
    eq(w.hub.saves, 1, "saved once quiet")
    eq(f[-1][0], "ack", "after the last beam event")
    eq((f[-1][2]["req"], f[-1][2]["text"]), (req, "saved"), "ack")


def test_a_new_connection_stops_the_raw_stream():
    w = World()
    w.run(BOOT_US)
    w.send(proto.RAW_STREAM, bytes([20, 0]))
    w.run(100000)
    assert [x for x in w.frames() if x[0] == "raw"], "streaming"
    w.send(proto.HELLO_REQ, b"\x01")
    w.run(30000)
    w.frames()
    w.run(100000)
    eq([x for x in w.frames() if x[0] == "raw"], [], "stopped by the new connection's hello")



run(globals())
