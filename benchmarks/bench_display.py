"""Render time per frame, per screen kind and panel size, and the cost of
getting a frame onto a panel (luma's SSD1306 driver over a bus that only
counts bytes, so the figure is the Python work, not the wire).

    PYTHONPATH=controller python benchmarks/bench_display.py [--frames N]

Uses the same sample views as the golden-image tests (tests/display/samples.py).
A 400 kHz I2C bus adds about 25 ms per full 128x64 frame on top of these.
"""

from __future__ import annotations

import argparse
import warnings
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "controller"))
sys.path.insert(0, str(ROOT / "tests"))

from coindrel.config import Section  # noqa: E402
from coindrel.display import open_display, render  # noqa: E402
from coindrel.display.text import font  # noqa: E402
from display.samples import SAMPLES  # noqa: E402  (tests/display/samples.py)

SIZES = ((128, 64), (256, 64), (128, 128))
warnings.filterwarnings("ignore", message="Image.Image.getdata is deprecated")  # luma.oled on Pillow 13


def timed(fn, frames: int) -> tuple[float, float]:
    fn()  # warm caches (fonts, wrapped text) as a running table has them
    times = []
    for _ in range(frames):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.mean(times), times[int(len(times) * 0.95) - 1]


class CountingBus:
    def __init__(self):
        self.bytes = 0

    def write_i2c_block_data(self, addr, mode, data):
        self.bytes += len(data)

    def close(self):
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=50, help="frames timed per case (default 50)")
    args = ap.parse_args()
    font(10), font(16)

    print(f"render(view, size): ms per frame, mean / p95 over {args.frames} frames")
    print(f"{'view':24}" + "".join(f"{w}x{h:<12}" for w, h in SIZES))
    worst = 0.0
    all_means = []
    for name, view in SAMPLES.items():
        cells = []
        for size in SIZES:
            mean, p95 = timed(lambda: render(view, size), args.frames)
            worst = max(worst, p95)
            all_means.append(mean)
            cells.append(f"{mean:5.2f} / {p95:5.2f}  ")
        print(f"{name:24}" + "".join(cells))
    print(f"\nall views, all sizes: mean {statistics.mean(all_means):.2f} ms, worst p95 {worst:.2f} ms")

    # A frame to the panel: render + pixel shift + luma's SSD1306 packing + bus writes.
    bus = CountingBus()
    clock = [0.0]
    display = open_display(Section("display", {"driver": "ssd1306", "shift_every": 1}), bus=bus, clock=lambda: clock[0])
    views = [SAMPLES["match"], SAMPLES["match_hit"]]
    i = [0]

    def frame():
        i[0] += 1
        clock[0] += 0.5
        display.show(views[i[0] % 2], clock[0])

    before = bus.bytes
    mean, p95 = timed(frame, args.frames)
    per_frame = (bus.bytes - before) / (args.frames + 1)
    print(f"\nDisplay.show to luma ssd1306 (new frame each time): {mean:.2f} ms mean, {p95:.2f} ms p95, "
          f"{per_frame:.0f} bytes per frame")
    same = SAMPLES["match"]
    display.show(same, clock[0])
    mean, p95 = timed(lambda: display.show(same, clock[0]), args.frames)
    print(f"Display.show, unchanged view (nothing sent): {mean:.3f} ms mean")
    display.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
