"""Hypothesis against the decoder and the tracker: nothing they are fed makes
them raise, lose a good frame or invent an event."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from coindrel.events import EntryEvent, ExitEvent, StatusEvent, SwitchEvent
from coindrel.hub import protocol as p
from coindrel.hub.channelmap import load_channel_map
from coindrel.hub.tracker import Tracker

CM = load_channel_map()
t_us = st.integers(0, 2**63)
positions = st.sampled_from(p.POSITIONS)
hub_msgs = st.one_of(
    st.builds(p.Beam, t_us, st.integers(0, 23), st.booleans(), st.integers(0, 2**32 - 1)),
    st.builds(p.Hall, t_us, st.integers(0, 37), positions, st.integers(0, 4095)),
    st.builds(p.Heartbeat, t_us, st.integers(0, 65535), st.integers(0, 2**32 - 1), st.integers(0, 65535),
              st.integers(0, 2**32 - 1), st.integers(0, 65535)),
    st.builds(p.Lost, t_us, st.integers(0, 2**32 - 1), st.sampled_from(p.LOST_WHERE)),
    st.builds(p.Snapshot, st.integers(0, 65535), t_us, st.integers(0, 2**24 - 1),
              st.lists(st.builds(p.HallState, st.integers(0, 37), positions, st.integers(0, 4095)), max_size=38).map(tuple)),
    st.builds(p.Error, t_us, st.integers(0, 255), st.integers(0, 65535), st.text(max_size=40)),
    st.builds(p.Ack, st.integers(0, 65535), st.integers(0, 255), st.integers(0, 255), st.text(max_size=40)),
    st.builds(p.Raw, t_us, st.lists(st.tuples(st.integers(0, 37), st.integers(0, 4095)), max_size=38).map(tuple)),
)
garbage = st.binary(max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.integers(1, 64), min_size=1, max_size=20))
def test_random_bytes_never_raise(data, cuts):
    dec = p.Decoder("hub")
    i = 0
    for c in cuts * (len(data) // max(1, sum(cuts)) + 1):
        if i >= len(data):
            break
        for item in dec.feed(data[i:i + c]):
            assert isinstance(item, (p.Frame, p.Problem))
        i += c


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(hub_msgs, garbage), min_size=1, max_size=15), st.integers(1, 97))
def test_good_frames_survive_any_garbage_between_them(pairs, chunk):
    def text(m):
        return m.text.encode("utf-8")[:255].decode("utf-8", "ignore") if hasattr(m, "text") else None

    stream = b"".join(junk + p.encode(m, i) for i, (m, junk) in enumerate(pairs))
    dec = p.Decoder("hub")
    frames = []
    for i in range(0, len(stream), chunk):
        frames += [f for f in dec.feed(stream[i:i + chunk]) if isinstance(f, p.Frame)]
    assert [f.seq for f in frames] == list(range(len(pairs)))
    for f, (m, _) in zip(frames, pairs):
        if hasattr(m, "text"):
            assert f.msg.text == text(m)
        else:
            assert f.msg == m


@settings(max_examples=300, deadline=None)
@given(hub_msgs, st.data())
def test_any_single_damaged_byte_is_caught(msg, data):
    good = p.encode(msg, 9)
    line = bytearray(good)
    at = data.draw(st.integers(0, len(line) - 2))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != line[at] and b != 10))
    line[at] = new
    items = p.Decoder("hub").feed(bytes(line))
    # Either no frame, or (when the byte only changed base64's unused padding bits) the very same one.
    assert [i for i in items if isinstance(i, p.Frame)] in ([], [p.decode(good)])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 70000), hub_msgs), max_size=40), st.booleans())
def test_tracker_never_raises_and_reports_only_wired_sensors(frames, hello_first):
    tr = Tracker(CM)
    tr.connection_started()
    out = []
    if hello_first:
        out += tr.feed(p.Frame(0, p.Hello(0, 1, 7, 0, CM.map_hash, 1, 1, 500, True, False, False, 24, 38, "f", "b")), 0.0)
    for i, (seq, m) in enumerate(frames):
        out += tr.feed(p.Frame(seq & 0xFFFF, m), float(i))
    for ev in out:
        assert isinstance(ev, (EntryEvent, ExitEvent, SwitchEvent, StatusEvent))
        if isinstance(ev, SwitchEvent):
            assert ev.switch in CM.switches_sensed and ev.pos in p.POSITIONS
    if not hello_first:
        assert not [e for e in out if not isinstance(e, StatusEvent)], "nothing is trusted before a hello"
