"""The tracker without any I/O: sequence numbers, board time across resets,
frames held before a hello, snapshots filling in what was missed."""

from __future__ import annotations

from coindrel.events import EntryEvent, StatusEvent, SwitchEvent
from coindrel.hub import protocol as p
from coindrel.hub.channelmap import load_channel_map
from coindrel.hub.tracker import Tracker

CM = load_channel_map()


def hello(boot=1, t=1_000_000, req=0, **kw):
    d = dict(req=req, proto=1, boot_id=boot, t_us=t, map_hash=CM.map_hash, beam_hz=10000, hall_hz=250,
             heartbeat_ms=500, calibrated=True, entry_leds=False, dropper=False, n_beams=24, n_halls=38,
             firmware="t", board_id="b")
    d.update(kw)
    return p.Hello(**d)


def fed(tr, frames, now=0.0):
    out = []
    for seq, msg in frames:
        out += tr.feed(p.Frame(seq, msg), now)
    return out


def started():
    tr = Tracker(CM)
    tr.connection_started()
    fed(tr, [(0, hello())])
    return tr


def test_duplicate_dropped_gap_reported_backwards_distrusted():
    tr = started()
    out = fed(tr, [(1, p.Beam(2, 0, True)), (1, p.Beam(2, 0, True)), (5, p.Beam(3, 1, True))])
    assert [type(e).__name__ for e in out] == ["EntryEvent", "StatusEvent", "EntryEvent"]
    assert out[1].state == "lost" and out[1].count == 3 and tr.need_snapshot
    assert tr.stats.duplicates == 1
    out = fed(tr, [(2, p.Beam(4, 2, True)), (6, p.Beam(5, 2, True))])
    assert [e.state for e in out] == ["resync"] and tr.awaiting_hello and tr.need_hello
    assert tr.stats.stale == 1


def test_seq_wraps_without_a_gap():
    tr = Tracker(CM)
    tr.connection_started()
    fed(tr, [(65534, hello())])
    out = fed(tr, [(65535, p.Beam(2, 0, True)), (0, p.Beam(3, 1, True))])
    assert [type(e) for e in out] == [EntryEvent, EntryEvent]


def test_reset_offsets_board_time_to_keep_it_going_forward():
    tr = started()
    fed(tr, [(1, p.Beam(90_000_000, 0, True))], now=100.0)
    out = fed(tr, [(0, hello(boot=2, t=400_000))], now=103.5)
    assert out[0].state == "resync" and "restarted" in out[0].detail
    after = fed(tr, [(1, p.Beam(900_000, 5, True))], now=104.0)
    assert after[0].t == 90.0 + 3.5 + 0.5  # 3.5 s of Pi time passed, then 0.5 s on the new hub clock
    assert tr.stats.resets == 1


def test_frames_before_a_new_boot_hello_kept_when_they_lead_up_to_it():
    tr = Tracker(CM)
    tr.connection_started()
    out = fed(tr, [(7, p.Beam(5, 0, True)), (1, p.Beam(1_000, 1, True)), (2, p.Hall(2_000, 0, "mid", 1)), (3, hello(req=9))])
    assert [type(e).__name__ for e in out] == ["EntryEvent", "SwitchEvent"]
    assert tr.stats.dropped_pending == 1
    assert [f.msg for f in tr.replies] and tr.replies[0].msg.req == 9


def test_same_boot_reconnect_keeps_only_what_is_new():
    tr = started()
    fed(tr, [(1, p.Beam(10, 0, True)), (2, p.Beam(20, 0, False))])
    tr.connection_started()
    out = fed(tr, [(2, p.Beam(20, 0, False)), (3, p.Beam(30, 6, True)), (6, hello(req=4))])
    kinds = [(type(e).__name__, getattr(e, "state", None)) for e in out]
    assert kinds == [("EntryEvent", None), ("StatusEvent", "lost")]
    assert out[1].count == 2 and "while the link was down" in out[1].detail


def test_refusals_say_why_and_what_to_do():
    tr = Tracker(CM)
    tr.connection_started()
    out = fed(tr, [(0, hello(map_hash=b"\x01" * 8))])
    assert out[0].state == "error" and "coindrel hub deploy" in out[0].detail and tr.refused
    out = fed(tr, [(0, p.ForeignHello(0, 9, b""))])
    assert "protocol 9" in out[0].detail


# -- replay from the hub (resume) ----------------------------------------------

def resumed_at(tr, seq, num, flags=0, replayed=0, oldest=p.NOTHING, oldest_t=0, req=0):
    return fed(tr, [(seq, p.Resumed(req, 1_000_500, num, flags, replayed, oldest, oldest_t, 0))])


def test_frame_numbers_follow_the_resumed_answer_and_positions_name_events():
    tr = started()
    assert tr.resume_request(None) == p.Resume(1, None)
    resumed_at(tr, 1, 70_001)
    out = fed(tr, [(2, p.Beam(1_500_000, 3, True)), (3, p.Hall(1_600_000, 12, "mid", 2600))])
    assert [tr.position_of(e) for e in out] == [p.HubPosition(1, 70_002), p.HubPosition(1, 70_003)]
    assert tr.position_of(EntryEvent(1.5, 3)) is None  # an equal event it did not emit has no position
    assert tr.resume_request(p.HubPosition(9, 5)) == p.Resume(1, 70_003)  # what it has beats what it was told


def test_replays_fill_in_and_repeats_are_dropped():
    tr = started()
    tr.replay_gaps = True
    resumed_at(tr, 1, 100)
    fed(tr, [(2, p.Beam(1_100_000, 0, True))])  # number 101
    out = fed(tr, [(6, p.Beam(1_500_000, 1, True))])  # frames 102..104 missing: a gap
    # nothing is said lost yet: the hub's ring is asked for them (a "lost" here flagged the drop
    # the replay then filled: a newcomer's stalled sims)
    assert out == [] and tr.resume_wanted and tr.hold_live and tr.gap_unsaid == 3
    assert tr.holding == 1  # the live event after the gap waits for its replay
    tr.resume_request(None)  # asks after 101
    resumed_at(tr, 7, 106, replayed=2)
    assert tr.holding == 0 and tr.stats.held_for_replay == 1  # the replay brings it
    out = fed(tr, [(8, p.Replay(103, p.Beam(1_300_000, 2, True))), (9, p.Replay(105, p.Beam(1_500_000, 1, True))),
                   (10, p.Beam(1_600_000, 4, True))])  # then live again: number 109
    assert out == [EntryEvent(1.3, 2), EntryEvent(1.5, 1), EntryEvent(1.6, 4)]
    assert tr.position_of(out[2]) == p.HubPosition(1, 109)
    assert tr.position_of(out[0]) == p.HubPosition(1, 103)
    assert tr.stats.replayed == 2 and tr.stats.repeated == 0
    out = fed(tr, [(11, p.Replay(105, p.Beam(1_500_000, 1, True)))])
    assert out == [] and tr.stats.repeated == 1


def test_a_gap_the_ring_cannot_fill_is_said_lost_once_the_hub_answers():
    tr = started()
    resumed_at(tr, 1, 100)
    fed(tr, [(2, p.Beam(1_100_000, 0, True))])  # number 101
    assert fed(tr, [(6, p.Beam(1_500_000, 1, True))]) == []  # 102..104 missing, asked for
    tr.resume_request(None)
    out = resumed_at(tr, 7, 106, flags=2, oldest=105, oldest_t=1_500_000)  # the ring has lost them
    assert [e.state for e in out] == ["lost"] and "replay ring" in out[0].detail and tr.gap_unsaid == 0
    # a hub without a ring answers the resume with an ack: the gap is lost after all, said before what was held
    tr = started()
    resumed_at(tr, 1, 100)
    fed(tr, [(2, p.Beam(1_100_000, 0, True))])
    fed(tr, [(5, p.Beam(1_500_000, 1, True))])
    out = tr.release_held(0.0)
    assert [type(e).__name__ for e in out] == ["StatusEvent", "EntryEvent"]
    assert out[0].state == "lost" and out[0].count == 2 and "no replay ring" in out[0].detail


def test_a_gap_before_any_numbered_event_is_asked_for_from_just_before_it():
    tr = started()
    resumed_at(tr, 1, 100)  # frame 1 is number 100; no event yet
    assert fed(tr, [(4, p.Beam(1_500_000, 1, True))]) == []  # 101, 102 missing
    assert tr.resume_request(None) == p.Resume(1, 100)  # not "nothing": the gap may hold events


def test_what_the_ring_no_longer_has_is_a_loss_with_its_time():
    tr = started()
    resumed_at(tr, 1, 10, flags=2, replayed=0, oldest=40, oldest_t=3_000_000)
    out = fed(tr, [])
    loss = tr.losses[-1]
    assert loss.until_t == 3.0 and "replay ring" in loss.reason
    tr2 = started()
    out = resumed_at(tr2, 1, 10, flags=3, oldest=p.NOTHING)
    assert out[0].state == "lost" and "restarted" in out[0].detail and tr2.losses[-1].until_t is None


def resuming(after):
    """A tracker as the link keeps it: every hello is followed by a resume after ``after``."""
    tr = Tracker(CM)
    tr.resumes = True
    tr.connection_started()
    fed(tr, [(0, hello())])
    tr.resume_request(p.HubPosition(1, after) if after is not None else None)
    return tr


def test_live_events_before_the_resumed_answer_come_once_through_the_replay():
    # The daemon's journal ends at frame 50; frames 51..52 fell while it was down,
    # 53 is live and reaches the Pi before the hub has answered the resume.
    tr = resuming(50)
    assert fed(tr, [(1, p.Beam(1_530_000, 3, True))]) == [] and tr.holding == 1
    resumed_at(tr, 2, 54, replayed=3)
    out = fed(tr, [(3, p.Replay(51, p.Beam(1_510_000, 1, True))), (4, p.Replay(52, p.Beam(1_520_000, 2, True))),
                   (5, p.Replay(53, p.Beam(1_530_000, 3, True))), (6, p.Beam(1_600_000, 4, True))])
    assert out == [EntryEvent(1.51, 1), EntryEvent(1.52, 2), EntryEvent(1.53, 3), EntryEvent(1.6, 4)]
    assert [tr.position_of(e).num for e in out] == [51, 52, 53, 58]
    assert tr.stats.held_for_replay == 1 and tr.holding == 0


def test_with_nothing_to_replay_the_held_events_are_news():
    tr = resuming(None)  # a fresh start: mode 0, the hub replays nothing
    fed(tr, [(1, p.Beam(1_530_000, 3, True))])
    out = resumed_at(tr, 2, 90)
    assert out == [EntryEvent(1.53, 3)] and tr.position_of(out[0]) == p.HubPosition(1, 89)


def test_a_hub_without_replay_gets_its_held_events_back():
    tr = resuming(50)
    fed(tr, [(1, p.Beam(1_530_000, 3, True))])
    assert tr.release_held(0.0) == [EntryEvent(1.53, 3)] and not tr.hold_live


def test_a_hello_written_at_boot_and_read_later_does_not_push_board_time_ahead():
    # After an unplug the hub boots and writes its hello (t=0.0004 s) while nobody has the
    # port open; the Pi opens it 3 s later and reads that hello then. Its answer to the
    # snapshot asked after the hello is fresh: the offset comes from it. (Once it came from
    # the hello, and board time ran 3 s ahead of the Pi's after every such reboot.)
    tr = started()
    fed(tr, [(1, p.Beam(19_500_000, 0, True))], now=19.5)
    out = fed(tr, [(0, hello(boot=2, t=400))], now=28.0)
    assert out[0].state == "resync"
    assert tr.board_t == 19.5, "board time waits for the fresh answer"
    halls = tuple(p.HallState(h.switch, "L", 2980) for h in CM.halls)
    fed(tr, [(1, p.Heartbeat(100_000, 250, 0, 0, 0, 0)), (2, p.Snapshot(7, 3_000_400, 0, halls))], now=28.05)
    assert abs(tr.board_t - 28.05) < 1e-6  # the hub's clock at the answer is the Pi's then
    after = fed(tr, [(3, p.Beam(4_000_400, 5, True))], now=29.05)
    assert abs(after[0].t - 29.05) < 1e-6  # not 32.05 (28.0 + 4.0)


def test_an_event_before_the_fresh_answer_keeps_the_hellos_offset():
    # an event of the new boot already out must not be followed by earlier board times
    tr = started()
    fed(tr, [(1, p.Beam(19_500_000, 0, True))], now=19.5)
    fed(tr, [(0, hello(boot=2, t=400))], now=28.0)
    first = fed(tr, [(1, p.Beam(500_000, 5, True))], now=28.0)
    halls = tuple(p.HallState(h.switch, "L", 2980) for h in CM.halls)
    fed(tr, [(2, p.Snapshot(7, 3_000_400, 0, halls))], now=28.05)
    later = fed(tr, [(3, p.Beam(3_100_000, 6, True))], now=28.1)
    assert first[0].t < later[0].t and abs(later[0].t - first[0].t - 2.6) < 1e-6


def test_a_restarted_daemon_continues_board_time_from_its_journal_when_the_hub_rebooted_too():
    """The journal's last event was at board time 51.7 s from boot 7. The
    daemon was killed, the hub rebooted meanwhile: its clock began again. A
    new link that did not know the journal put the new boot's frames at 0.4 s,
    before the journal's events, and a drop the kill left open waited for
    that clock to catch up (the table stuck in "falling")."""
    tr = Tracker(CM)
    tr.continue_from(p.HubPosition(7, 296), 51.7387, now=500.0)
    tr.connection_started()
    out = fed(tr, [(0, hello(boot=8, t=400_000))], now=500.0)
    assert out[0].state == "resync" and "restarted" in out[0].detail and tr.stats.resets == 1
    after = fed(tr, [(1, p.Beam(900_000, 5, True))], now=500.5)
    assert after[0].t >= 51.7387 and abs(after[0].t - (51.7387 + 0.5)) < 1e-3


def test_a_restarted_daemon_keeps_the_offset_its_journal_gave_the_same_boot():
    """An earlier process saw a hub reset and moved boot 8's clock by 40 s;
    the journal keeps that offset with each event's position. After a kill,
    boot 8's frames must land on the same axis, not 40 s back."""
    tr = Tracker(CM)
    tr.continue_from(p.HubPosition(8, 50, offset_us=40_000_000), 45.0, now=10.0)
    tr.connection_started()
    out = fed(tr, [(0, hello(boot=8, t=6_000_000))], now=10.0)
    assert not any(isinstance(e, StatusEvent) and e.state == "resync" for e in out)
    fed(tr, [(1, p.Resumed(0, 6_000_100, 51, 0, 0, p.NOTHING, 0, 0))], now=10.0)
    after = fed(tr, [(2, p.Beam(6_500_000, 5, True))], now=10.5)
    assert after[0].t == 46.5
    assert tr.position_of(after[0]).offset_us == 40_000_000  # the journal keeps it with the event


def test_a_link_that_heard_the_hub_itself_ignores_a_late_continuation():
    tr = started()
    fed(tr, [(1, p.Beam(2_000_000, 0, True))])
    tr.continue_from(p.HubPosition(9, 1), 500.0, now=0.0)
    assert tr.boot == 1 and tr.board_t == 2.0
