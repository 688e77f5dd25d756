# The real hub firmware (firmware/coindrel_hub: app.build, the Hub and every
# module it uses) in the firmware-in-the-loop sim, under the unix MicroPython.
# The controller side (coindrel.virtual.fwhub) drives it in lockstep over
# stdin/stdout, one line a message:
#   B t beam level     a beam's level (1 broken) from hub time t (us)
#   H t switch raw     a hall sensor reads raw (12-bit) from t on
#   U t hex            bytes from the Pi arrive on the USB serial at t
#   R t                run the main loop until t; answered "O hex" (what the
#                      firmware wrote meanwhile) and "K now"
# The hub's clock moves only here: each main-loop pass costs its estimated
# RP2040 time (bench_firmware.py's figures), so nothing depends on the speed
# of this machine. A reset (the Pi's reset command, the watchdog) ends the
# process with "Z": the board's side starts a new boot.
import gc
import sys
from binascii import hexlify, unhexlify

import machine
import rp2
import simclock
from coindrel_hub import app, chanmap

SCAN_PASS_US = 2000  # a pass that scans the halls (bench_firmware.py: about 2.0 ms)
IDLE_PASS_US = 460  # a pass with nothing due (about 0.46 ms)
SAMPLE_US = 1000000 // chanmap.SAMPLE_HZ
PUSH_US = SAMPLE_US * 52 // 58  # latch to push: 24 bits shifted, compared (beams.py's program)
BIG = 1 << 62


class Port:
    # The USB serial as the sim relays it: bytes in at their time, out as written.
    def __init__(self):
        self.inbox = bytearray()
        self.out = []

    def read(self):
        if not self.inbox:
            return None
        d = bytes(self.inbox[:256])
        self.inbox = self.inbox[256:]
        return d

    def can_write(self):
        return True

    def host(self):
        return True  # the built-in USB serial cannot tell (what vanishes comes back by resume)

    def write(self, data):
        self.out.append(bytes(data))
        return len(data)


class _Os:
    def __init__(self, boot_id):
        self.boot_id = boot_id

    def urandom(self, n):
        return self.boot_id[:n]


def main():
    cal_path, boot_hex, uid_hex = sys.argv[1], sys.argv[2], sys.argv[3]
    machine._uid[0] = unhexlify(uid_hex)
    readings = [[0] * 16 for _ in chanmap.ADC_PINS]
    where = {}
    for m, ch, sw in chanmap.HALLS:
        where[sw] = (m, ch)
    machine.wire(chanmap.SELECT_PINS, chanmap.ADC_PINS, readings)
    bit_of = {}
    for b in range(len(chanmap.BIT_BEAM)):
        if chanmap.BIT_BEAM[b] != 255:
            bit_of[chanmap.BIT_BEAM[b]] = b
    port = Port()
    gc.collect()  # what compiling this script and the firmware left behind, before the heap is divided up
    hub, stop = app.build(machine, rp2, None, _Os(unhexlify(boot_hex)), chanmap, io=port, cal_path=cal_path,
                          ticks_us=simclock.ticks_us, ticks_diff=simclock.ticks_diff, ticks_add=simclock.ticks_add)
    sm = rp2.machines[-1]
    clk = simclock.now
    edges = []
    halls = []
    usb = []
    st = [0, 0, 0, -1, 0, 0]  # edge, hall, usb read positions; sample due; word; word pushed
    broken = 1 if chanmap.BROKEN_LEVEL else 0

    def pio(until):
        while True:
            te = edges[st[0]][0] if st[0] < len(edges) else BIG
            ts = st[3]
            if ts < 0:
                ts = BIG
                if sm.force:
                    ts = st[3] = ((clk[0] + SAMPLE_US - 1) // SAMPLE_US) * SAMPLE_US
            if te <= ts and te <= until:
                _t, beam, level = edges[st[0]]
                st[0] += 1
                bit = 1 << bit_of[beam]
                st[4] = (st[4] | bit) if level == broken else (st[4] & ~bit)
                if st[3] < 0:
                    st[3] = ((te + SAMPLE_US - 1) // SAMPLE_US) * SAMPLE_US
                continue
            if ts <= until:
                st[3] = -1
                w = st[4]
                if (w != st[5] or sm.force) and sm.running and sm.handler is not None:
                    sm.force = False
                    st[5] = w
                    now = clk[0]
                    clk[0] = ts + PUSH_US  # the hard IRQ runs when the PIO pushes
                    sm.fifo.append(w)
                    sm.handler(sm)
                    clk[0] = now
                continue
            return

    def inputs(now):
        i = st[1]
        while i < len(halls) and halls[i][0] <= now:
            _t, sw, raw = halls[i]
            m, ch = where[sw]
            readings[m][ch] = raw
            i += 1
        if i:
            del halls[:i]
        st[1] = 0
        i = st[2]
        while i < len(usb) and usb[i][0] <= now:
            port.inbox += usb[i][1]
            i += 1
        if i:
            del usb[:i]
        st[2] = 0
        if st[0] > 64:
            del edges[:st[0]]
            st[0] = 0

    def run_to(t):
        while clk[0] < t:
            now = clk[0]
            pio(now)
            inputs(now)
            scans = hub.scans
            try:
                hub.step()
            except machine.ResetCalled:
                raise
            except Exception as e:  # noqa: BLE001 - as app.run: report and keep sensing
                hub.internal_error(e)
            clk[0] = now + (SCAN_PASS_US if hub.scans != scans else IDLE_PASS_US)
            if machine.wdt_expired():
                raise machine.ResetCalled()

    out = sys.stdout
    inp = sys.stdin
    while True:
        line = inp.readline()
        if not line:
            return
        parts = line.split()
        op = parts[0]
        if op == "B":
            edges.append((int(parts[1]), int(parts[2]), int(parts[3])))
        elif op == "H":
            halls.append((int(parts[1]), int(parts[2]), int(parts[3])))
        elif op == "U":
            usb.append((int(parts[1]), unhexlify(parts[2])))
        elif op == "R":
            try:
                run_to(int(parts[1]))
            except machine.ResetCalled:
                data = b"".join(port.out)
                out.write("O %s\nZ\n" % hexlify(data).decode() if data else "Z\n")
                out.flush()
                return
            data = b"".join(port.out)
            port.out = []
            if data:
                out.write("O %s\n" % hexlify(data).decode())
            out.write("K %d\n" % clk[0])
            out.flush()
        elif op == "Q":
            stop()
            return


main()
