# The hub's microsecond clock, extended past the ticks wrap-around.
# time.ticks_us() on rp2 wraps every 2**30 us (17.9 minutes). The clock keeps
# an epoch count (wraps seen) so every event gets a 64-bit time that never
# goes backwards: t_us = epoch * period + ticks. Pure: ticks functions are
# passed in. update() must run at least once per half period (the main loop
# runs it every pass).


class Clock:
    def __init__(self, ticks_us, ticks_diff, period=1 << 30):
        self.ticks_us = ticks_us
        self.diff = ticks_diff
        self.period = period
        self.epoch = 0
        self.last = ticks_us()

    def update(self):
        # -> ticks now; counts a wrap when ticks went down.
        now = self.ticks_us()
        if now < self.last:
            self.epoch += 1
        self.last = now
        return now

    def extend(self, t):
        # (epoch, ticks) of a ticks value within half a period of the last update.
        e = self.epoch
        last = self.last
        d = self.diff(t, last)
        if d < 0 and t > last:
            e -= 1  # before the last update, across a wrap
        elif d > 0 and t < last:
            e += 1  # after the last update, across a wrap not yet counted
        return e, t
