"""Firmware cost per scan and per frame, measured under MicroPython.

    python benchmarks/bench_firmware.py            # the unix MicroPython here, Pico-sized heap, fake pins
    python benchmarks/bench_firmware.py --port /dev/ttyACM0   # on a real Pico (mpremote mounts firmware/)

Figures: one hall scan's classification and filtering of all 38 sensors, a
full scan through the (fake or real) muxes and ADCs, the beam glitch filter
per recorded change, encoding one event frame (CRC + base64), and one idle
pass of the hub's main loop. The hub must scan 38 halls at >= 200 Hz (5 ms per
scan); the beam sampler is the PIO, so the CPU cost there is per change only.
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
from array import array
from coindrel_hub import chanmap
from coindrel_hub.beams import BeamFilter
from coindrel_hub.halls import Halls, HallScanner
from coindrel_hub.proto import Writer

ON_PICO = sys.platform == "rp2"
if ON_PICO:
    import machine
else:
    import machine  # the fake one, from tests/firmware/fakes

def timeit(name, fn, n, per="call"):
    gc.collect()
    t0 = time.ticks_us()
    for _ in range(n):
        fn()
    dt = time.ticks_diff(time.ticks_us(), t0)
    print("%-44s %9.1f us per %s" % (name, dt / n, per))
    return dt / n

n = len(chanmap.HALLS)
switches = bytes(h[2] for h in chanmap.HALLS)
halls = Halls(switches, time.ticks_diff, 2)
halls.calibrate([(2980, 2330, 2048, 120)] * n, 40)
steady = array("H", [2980] * n)
halls.update(steady, 0, lambda *a: None)
t = [0]
def steady_scan():
    t[0] += 4000
    halls.update(steady, t[0], lambda *a: None)
per = timeit("classify + filter, 38 halls, nothing moving", steady_scan, 2000, "scan")
moving = [array("H", [2980] * n), array("H", [2650] * n), array("H", [2330] * n)]
k = [0]
def moving_scan():
    t[0] += 4000
    k[0] = (k[0] + 1) % 3
    halls.update(moving[k[0]], t[0], lambda *a: None)
timeit("classify + filter, all 38 flipping", moving_scan, 600, "scan")

if ON_PICO:
    pins = [machine.Pin(p, machine.Pin.OUT) for p in chanmap.SELECT_PINS]
    adcs = [machine.ADC(p) for p in chanmap.ADC_PINS]
else:
    for p in chanmap.ADC_PINS:
        machine.set_adc(p, 2980)
    pins = [machine.Pin(p, machine.Pin.OUT) for p in chanmap.SELECT_PINS]
    adcs = [machine.ADC(p) for p in chanmap.ADC_PINS]
scanner = HallScanner(pins, adcs, chanmap.HALLS)
raw = array("H", bytes(2 * n))
io = timeit("mux walk + 38 ADC reads" + ("" if ON_PICO else " (fake pins/ADC)"), lambda: scanner.scan(raw), 1000, "scan")
print("%-44s %9.0f scans/s possible (need >= 200)" % ("=> hall scanning alone", 1e6 / (per + io)))

bf = BeamFilter(chanmap.BIT_BEAM, time.ticks_diff, 100, 5)
ev = []
bf.feed(0, 0, lambda *a: None)
bt = [0]
def beam_pair():
    bt[0] += 4000
    bf.feed(bt[0], 1 << 5, lambda *a: None)
    bf.feed(bt[0] + 3000, 0, lambda *a: None)
timeit("beam filter: one coin (2 changes + confirms)", beam_pair, 2000, "coin")
timeit("beam filter: poll with nothing pending", lambda: bf.poll(bt[0] + 10000, lambda *a: None), 5000, "pass")

w = Writer(lambda b: None)
timeit("encode one beam frame (CRC-16 + base64)", lambda: w.beam(0, 123456, 3, 1, 0), 2000, "frame")
timeit("encode one hall frame", lambda: w.hall(0, 123456, 3, 2, 2650), 2000, "frame")
print("heap free after: %d bytes" % gc.mem_free())
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", default=None, help="run on a Pico through mpremote instead of the local MicroPython")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bench.py"
        script.write_text(SCRIPT)
        if a.port:
            mpremote = shutil.which("mpremote") or str(Path(sys.executable).with_name("mpremote"))
            cmd = [mpremote, "connect", a.port, "mount", str(ROOT / "firmware"), "run", str(script)]
            print("on the Pico at " + a.port)
            return subprocess.run(cmd).returncode
        mp = shutil.which("micropython") or str(Path(sys.executable).with_name("micropython"))
        env = dict(os.environ)
        env["MICROPYPATH"] = os.pathsep.join([".frozen", str(ROOT / "tests" / "firmware" / "fakes"), str(ROOT / "firmware")])
        ver = subprocess.run([mp, "-c", "import sys; print(sys.implementation._machine)"], capture_output=True, text=True, env=env)
        print("unix MicroPython (" + ver.stdout.strip() + "), -X heapsize=192k; a Pico at 125 MHz is roughly 20-50x slower")
        return subprocess.run([mp, "-X", "heapsize=192k", str(script)], env=env).returncode


if __name__ == "__main__":
    raise SystemExit(main())
