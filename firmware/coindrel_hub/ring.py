# Preallocated event storage for the main loop.
# Stage: events as the filters confirm them, released in time order once no
# earlier event can still appear (a hall change is confirmed a few scans after
# it began, a beam after a few samples, so confirmation order is not time order).
# EventQueue: released events waiting for the USB link; when full it counts
# what it drops and puts a LOST record in the stream where they went missing.
from array import array

from micropython import const

EV_BEAM = const(1)
EV_HALL = const(2)
EV_LOST = const(3)
EV_ERROR = const(4)


class Stage:
    def __init__(self, diff, capacity=32):
        self.diff = diff
        self.cap = capacity
        self.t = array("i", bytes(4 * capacity))
        self.f = array("i", bytes(16 * capacity))  # kind, a, b, c
        self.n = 0
        self.forced = 0  # released early because the stage was full

    def put(self, t, kind, a, b, c, release):
        if self.n == self.cap:
            self.forced += 1
            self._pop_min(release)
        i = self.n
        self.t[i] = t
        j = 4 * i
        f = self.f
        f[j] = kind
        f[j + 1] = a
        f[j + 2] = b
        f[j + 3] = c
        self.n = i + 1

    def release(self, horizon, release):
        # Every staged event with t <= horizon, earliest first.
        while self.n:
            i = self._min()
            if self.diff(horizon, self.t[i]) < 0:
                return
            self._take(i, release)

    def _min(self):
        t = self.t
        best = 0
        for i in range(1, self.n):
            if self.diff(t[i], t[best]) < 0:
                best = i
        return best

    def _pop_min(self, release):
        self._take(self._min(), release)

    def _take(self, i, release):
        j = 4 * i
        f = self.f
        release(self.t[i], f[j], f[j + 1], f[j + 2], f[j + 3])
        last = self.n - 1
        if i != last:
            self.t[i] = self.t[last]
            k = 4 * last
            f[j] = f[k]
            f[j + 1] = f[k + 1]
            f[j + 2] = f[k + 2]
            f[j + 3] = f[k + 3]
        self.n = last


class EventQueue:
    # Records: kind, a, b, c, epoch, ticks, frame number. Every event gets its
    # frame number here, sent or not (alloc() hands them out), so one the
    # queue drops leaves a gap the Pi sees, and the replay ring has it.
    def __init__(self, capacity=256, alloc=None):
        self.cap = capacity
        self.rec = array("i", bytes(28 * capacity))
        self.head = 0
        self.tail = 0
        self.count = 0
        self.peak = 0
        self.dropped = 0  # dropped since the last LOST record
        self.lost_total = 0
        self.n = 0
        self.alloc = alloc or self._next

    def _next(self):
        self.n += 1
        return self.n - 1

    def put(self, kind, a, b, c, hi, lo):
        # -> the event's frame number
        if self.dropped:
            if self.cap - self.count < 2:
                self.dropped += 1
                return self.alloc()
            self._put(EV_LOST, self.dropped, 1, 0, hi, lo, self.alloc())
            self.lost_total += self.dropped
            self.dropped = 0
        elif self.count == self.cap:
            self.dropped = 1
            return self.alloc()
        n = self.alloc()
        self._put(kind, a, b, c, hi, lo, n)
        return n

    def flush_lost(self, hi, lo):
        # Report drops even when no event follows them.
        if self.dropped and self.count < self.cap:
            self._put(EV_LOST, self.dropped, 1, 0, hi, lo, self.alloc())
            self.lost_total += self.dropped
            self.dropped = 0

    def _put(self, kind, a, b, c, hi, lo, num):
        j = 7 * self.head
        r = self.rec
        r[j] = kind
        r[j + 1] = a
        r[j + 2] = b
        r[j + 3] = c
        r[j + 4] = hi
        r[j + 5] = lo
        r[j + 6] = num
        self.head = (self.head + 1) % self.cap
        self.count += 1
        if self.count > self.peak:
            self.peak = self.count

    def first(self):
        # Index into rec of the oldest record (valid while count > 0).
        return 7 * self.tail

    def pop(self):
        self.tail = (self.tail + 1) % self.cap
        self.count -= 1

    def clear(self):
        # -> how many records were thrown away (the host is not there to read them)
        n = self.count
        self.head = self.tail = self.count = 0
        return n
