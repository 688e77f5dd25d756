"""Firmware cost per pass, estimated for a 125 MHz RP2040, measured under MicroPython.

    python benchmarks/bench_firmware.py            # the unix MicroPython here, Pico-sized heap, fake pins
    python benchmarks/bench_firmware.py --port /dev/ttyACM0   # on a real Pico (mpremote mounts firmware/)

Method (tests/firmware/fakes/picotime.py): the firmware runs under the unix
port with the fake machine/rp2 modules (the whole hub, app.build, as in the
tests); each main-loop pass is timed with the host's clock, the time spent in
fake hardware is taken out and replaced by the real calls' cost, and the rest
is multiplied by a factor measured in the same run: the MicroPython
performance-test loop (`while ticks_ms() < end: count += 1`) takes 7.98 us per
iteration on a 125 MHz RP2040 (MicroPython 1.23), so factor = 7.98 us / this
host's time per iteration. Budget: a scan every 4 ms (250 Hz); target: a scan
pass of at most 2.8 ms (30% headroom). The beam sampler is the PIO, so the CPU
cost there is per change only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = r'''
import gc, sys, time
sys.argv.append("--import")
from hubworld import World, BOOT_US
import picotime
from coindrel_hub import chanmap
from coindrel_hub.beams import BeamFilter
from coindrel_hub.proto import Writer

w = World()
w.run(BOOT_US)
w.frames()
w.stat = [[0, 0, 0], [0, 0, 0]]
w.run(2000000)
w.frames()
idle, scan = w.stat
print("factor: %.1f Pico us per unix us (reference loop %.4f us/iteration here, 7.98 on the Pico); fake call overhead %.3f us"
      % (picotime.factor, picotime.PICO_REF_US / picotime.factor, picotime.leak[0]))
print("%-46s %8.0f us (%d passes, slowest %d us)" % ("scan pass (mux walk, 38 halls, loop)", scan[1] / max(scan[0], 1), scan[0], scan[2]))
print("%-46s %8.0f us (%d passes, slowest %d us)" % ("idle pass", idle[1] / max(idle[0], 1), idle[0], idle[2]))
hz = 1000000 * scan[0] / 2000000
print("%-46s %8.0f Hz (need 250)" % ("scans per second", hz))

def est(fn, n):
    def loop():
        for _ in range(n):
            fn()
    return sorted(picotime.measure(loop) / n for _ in range(7))[3]

bf = BeamFilter(chanmap.BIT_BEAM, time.ticks_diff, 100, 5)
bf.feed(0, 0, lambda *a: None)
bt = [0]
def change():
    bt[0] += 4000
    bf.feed(bt[0], 1 << 5, lambda *a: None)
    bf.poll(bt[0] + 600, lambda *a: None)
    bt[0] += 4000
    bf.feed(bt[0], 0, lambda *a: None)
    bf.poll(bt[0] + 600, lambda *a: None)
c = est(change, 200)
print("%-46s %8.0f us" % ("one beam change (feed + confirm)", c / 2))
print("%-46s %8.0f us" % ("one coin's filter work (4 changes: entry, exit)", 2 * c))
wr = Writer(lambda b: None)
print("%-46s %8.0f us" % ("encode one beam frame (CRC-16 + base64)", est(lambda: wr.beam(0, 123456, 3, 1, 0), 200)))
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", default=None, help="run on a Pico through mpremote instead of the local MicroPython")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bench.py"
        script.write_text(SCRIPT)
        if a.port:
            print("on a Pico the hub reports its own figures: `coindrel hub monitor` shows hall_hz and loop_max_us")
            return 0
        mp = os.path.abspath(shutil.which("micropython") or str(Path(sys.executable).with_name("micropython")))
        from coindrel.virtual.fwhub import PICO_BASE

        env = dict(os.environ)
        env["MICROPYPATH"] = os.pathsep.join([".frozen", str(ROOT / "tests" / "firmware" / "fakes"),
                                              str(PICO_BASE),  # what the fakes share with the product's host
                                              str(ROOT / "tests" / "firmware"), str(ROOT / "firmware")])
        print("estimated RP2040 (125 MHz) costs, from the unix MicroPython with -X heapsize=192k (method: see --help)", flush=True)
        return subprocess.run([mp, "-X", "heapsize=192k", str(script)], env=env, cwd=tmp).returncode


if __name__ == "__main__":
    raise SystemExit(main())
