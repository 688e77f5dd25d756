# The replay ring: the last CAPACITY events with their frame numbers, so the
# Pi can ask, after any reconnect or restart, for everything after the last
# event it made durable (the `resume` request, PROTOCOL.md). 1536 events of
# 18 bytes: 27 KiB, in chunks of 128 so it fits a heap that imports have
# fragmented; at 25 events/s (two coins a second through five rows) that is
# just over 60 s of play. Frame numbers count every frame of a boot from 0 (a
# frame's 16-bit seq is its number's low half). Preallocated: put() never
# allocates.
import struct

from micropython import const

CAPACITY = const(1536)
_CHUNK = const(128)
_SIZE = const(18)
_FMT = "<IiiHBBBx"  # frame number, c, ticks, epoch, kind, a, b


class Replay:
    def __init__(self, capacity=CAPACITY):
        self.k = k = min(capacity, _CHUNK)
        self.cap = (capacity + k - 1) // k * k
        self.chunks = [bytearray(k * _SIZE) for _ in range(self.cap // k)]
        self.head = 0  # next slot
        self.count = 0
        self.evicted = 0  # events pushed out, ever
        self.evicted_num = -1  # frame number of the newest event pushed out

    def put(self, num, kind, a, b, c, hi, lo):
        i = self.head
        buf = self.chunks[i // self.k]
        off = (i % self.k) * _SIZE
        if self.count == self.cap:
            self.evicted += 1
            self.evicted_num = struct.unpack_from("<I", buf, off)[0]
        else:
            self.count += 1
        struct.pack_into(_FMT, buf, off, num, c, lo, hi, kind, a, b)
        self.head = (i + 1) % self.cap

    def get(self, i):
        # -> (num, c, lo, hi, kind, a, b) of slot i
        return struct.unpack_from(_FMT, self.chunks[i // self.k], (i % self.k) * _SIZE)

    def num(self, i):
        return struct.unpack_from("<I", self.chunks[i // self.k], (i % self.k) * _SIZE)[0]

    def oldest(self):
        # Slot of the oldest event (valid while count > 0).
        return (self.head - self.count) % self.cap

    def after(self, num):
        # -> (first slot, how many) of the events numbered after `num`, and
        # whether events after it were pushed out before it was asked for.
        n = self.count
        i = self.oldest()
        lo, hi = 0, n  # frame numbers rise through the ring: bisect
        while lo < hi:
            mid = (lo + hi) // 2
            if self.num((i + mid) % self.cap) <= num:
                lo = mid + 1
            else:
                hi = mid
        return (i + lo) % self.cap, n - lo, self.evicted_num > num
