# MicroPython: the extended microsecond clock and the event storage.
import faketime
from coindrel_hub.clock import Clock
from coindrel_hub.ring import EV_BEAM, EV_HALL, EV_LOST, EventQueue, Stage
from mptest import eq, run

P = faketime.PERIOD


def full(c, t):
    hi, lo = c.extend(t)
    return hi * P + lo


def test_clock_counts_wraps():
    faketime.set_us(P - 1000)
    c = Clock(faketime.ticks_us, faketime.ticks_diff)
    last = full(c, c.update())
    for _ in range(5000):  # five wraps in steps well under half a period
        faketime.advance(1234567)
        now = c.update()
        t = full(c, now)
        assert t > last, (t, last)
        eq(t, int(faketime.now_us), "extended time is the true time")
        last = t


def test_extend_times_just_before_and_after_an_update_across_a_wrap():
    faketime.set_us(3 * P + 5)
    c = Clock(faketime.ticks_us, faketime.ticks_diff)
    c.epoch = 3
    c.update()
    eq(full(c, (P - 10) % P), 3 * P - 10, "recorded before the wrap, converted after")
    faketime.set_us(4 * P - 5)
    c.update()
    eq(full(c, 3), 4 * P + 3, "recorded after a wrap the clock has not seen yet")


def test_stage_releases_in_time_order_up_to_the_horizon():
    out = []
    s = Stage(faketime.ticks_diff, capacity=8)
    rel = lambda t, k, a, b, c: out.append((t, k, a))
    s.put(300, EV_BEAM, 1, 1, 0, rel)
    s.put(100, EV_HALL, 2, 2, 0, rel)
    s.put(200, EV_BEAM, 3, 1, 0, rel)
    s.release(250, rel)
    eq(out, [(100, EV_HALL, 2), (200, EV_BEAM, 3)], "released")
    s.release(1000, rel)
    eq(out[-1], (300, EV_BEAM, 1), "rest")
    eq(s.n, 0, "empty")


def test_stage_across_the_ticks_wrap():
    out = []
    s = Stage(faketime.ticks_diff, capacity=4)
    rel = lambda t, k, a, b, c: out.append(t)
    s.put(5, EV_BEAM, 0, 1, 0, rel)
    s.put(P - 5, EV_BEAM, 1, 1, 0, rel)
    s.release(10, rel)
    eq(out, [P - 5, 5], "the time before the wrap first")


def test_stage_full_releases_the_earliest_early():
    out = []
    s = Stage(faketime.ticks_diff, capacity=2)
    rel = lambda t, k, a, b, c: out.append(t)
    for t in (30, 10, 20):
        s.put(t, EV_BEAM, 0, 1, 0, rel)
    eq(out, [10], "forced out")
    eq(s.forced, 1, "counted")


def test_queue_reports_drops_where_they_happened():
    q = EventQueue(capacity=4)
    for i in range(6):
        q.put(EV_BEAM, i, 1, 0, 0, i)
    eq(q.count, 4, "full")
    eq(q.dropped, 2, "dropped")
    got = []
    while q.count:
        j = q.first()
        got.append((q.rec[j], q.rec[j + 1]))
        q.pop()
    q.put(EV_BEAM, 9, 1, 0, 0, 9)
    j = q.first()
    eq((q.rec[j], q.rec[j + 1], q.rec[j + 2]), (EV_LOST, 2, 1), "a LOST record precedes the next event")
    q.pop()
    j = q.first()
    eq(q.rec[j + 1], 9, "then the event")
    eq(q.lost_total, 2, "total")
    eq(got, [(EV_BEAM, 0), (EV_BEAM, 1), (EV_BEAM, 2), (EV_BEAM, 3)], "kept the oldest")


def test_queue_flushes_lost_without_a_following_event():
    q = EventQueue(capacity=2)
    for i in range(3):
        q.put(EV_BEAM, i, 1, 0, 0, i)
    q.pop()
    q.flush_lost(0, 50)
    eq(q.count, 2, "lost record added")
    q.pop()
    j = q.first()
    eq((q.rec[j], q.rec[j + 1]), (EV_LOST, 1), "lost")


run(globals())
