"""kill -9 with real processes: a served virtual board in one process,
``coindrel run`` in another, a match started with ``coindrel ctl new-match``,
the daemon SIGKILLed at random moments (a share of them while coins fall)
and restarted at once; at the end every drop the journal holds
(``coindrel history current --json``) is compared with the virtual board's
``--truth``.

Used by tests/table/test_kill9.py (short) and benchmarks/bench_kill.py (long).
The board runs on its own schedule of drops whatever the table does, as a
person's hand would. What it measures, per drop of the truth: scored with the
board's exits (exact), scored with other exits and flagged for the players
(mismatch verdict), scored with other exits silently, lost, duplicated; and
whether the table's belief of the rockers matches the board at the end.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from killscore import Result, score_run

START = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
FALL = 0.9  # seconds a drop's coins may still be falling after it starts


SETTLED = 4  # seconds the table's status must stay the same, hub connected, before the run is scored


def _reader(stream, q: queue.Queue, copy: Path) -> None:
    with open(copy, "a") as f:
        for line in iter(stream.readline, ""):
            q.put(line)
            f.write(line)
            f.flush()
    q.put(None)


class KillRig:
    def __init__(self, work: Path, *, drops: int, interval: float = 2.5, first: float = 8.0, seed: int = 1,
                 kills: int = 0, falling_share: float = 0.4, faults: tuple[str, ...] = (),
                 python: str = sys.executable):
        self.work = Path(work)
        self.work.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(seed)
        self.seed, self.n, self.interval, self.first = seed, drops, interval, first
        self.kill_count, self.falling_share, self.faults = kills, falling_share, tuple(faults)
        self.python = python
        self.truth = self.work / "truth.jsonl"
        self.sock = self.work / "control.sock"
        self.state = self.work / "state"
        self.board = self.table = None
        self.board_killed = False
        self.table_log = open(self.work / "table.log", "a")
        self.schedule = [(first + k * interval, self.rng.randrange(8) + 1) for k in range(drops)]
        self.env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.new_matches = 0  # matches the players started after clearing the pads

    # -- processes ---------------------------------------------------------------------------

    def start_board(self, timeout: float = 30.0) -> str:
        # --keyboard: the rig's players take the coins off the pads through the board's stdin ("c")
        cmd = [self.python, "-m", "coindrel", "virtual-board", "--serve", "socket://127.0.0.1:0", "--wait", "--keyboard",
               "--seed", str(self.seed), "--start", START, "--truth", str(self.truth)]
        for t, e in self.schedule:
            cmd += ["--drop", f"{e}@{t:.3f}"]
        for f in self.faults:
            cmd += ["--fault", f]
        # SIGINT stops it (and writes its last truth); a rig started in the
        # background of a shell inherits SIGINT ignored, so it is restored here
        self.board = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True, env=self.env,
                                      preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.board_lines: queue.Queue = queue.Queue()
        threading.Thread(target=_reader, args=(self.board.stdout, self.board_lines, self.work / "board.log"),
                         daemon=True).start()
        self.anchor = None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.board_lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError("the virtual board stopped before serving")
            if "virtual hub on socket://" in line:
                self.url = line.strip().split("virtual hub on ", 1)[1].split()[0]
                break
        else:
            raise RuntimeError("the virtual board did not start serving")
        cfg = self.work / "coindrel.toml"
        cfg.write_text(
            f'[storage]\nstate_dir = "{self.state}"\n[match]\nclock = "off"\nplayers = ["Ann", "Bo"]\n'
            f'[board]\nsource = "hub"\n[board.hub]\nurl = "{self.url}"\n[control]\nsocket = "{self.sock}"\n'
            '[display]\ndriver = "dummy"\n')
        self.config = cfg
        return self.url

    def _board_news(self) -> None:
        while True:
            try:
                line = self.board_lines.get_nowait()
            except queue.Empty:
                return
            if line and "controller connected" in line and self.anchor is None:
                self.anchor = time.monotonic()  # --wait: the board's clock starts at the first bytes

    def start_table(self) -> None:
        self.table = subprocess.Popen([self.python, "-m", "coindrel", "run", "--config", str(self.config)],
                                      stdout=self.table_log, stderr=self.table_log, env=self.env)

    def kill_table(self) -> None:
        self.table.send_signal(signal.SIGKILL)
        self.table.wait()

    def close(self) -> None:
        for p in (self.table, self.board):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.table_log.close()

    # -- talking to the table ----------------------------------------------------------------------

    def ctl(self, *args: str, timeout: float = 10.0) -> tuple[int, str, str]:
        r = subprocess.run([self.python, "-m", "coindrel", "ctl", "--socket", str(self.sock), *args],
                           capture_output=True, text=True, timeout=timeout, env=self.env)
        return r.returncode, r.stdout, r.stderr

    def ask(self, req: dict) -> dict | None:
        """A request over the control socket from this process (quicker than a ctl process)."""
        from coindrel.commands.ctl import request
        from coindrel.engine import EngineError

        try:
            return request(self.sock, req, timeout=5.0)
        except (EngineError, OSError, ValueError):
            return None  # the table is down or starting

    def status(self) -> dict | None:
        a = self.ask({"cmd": "status"})
        return a["status"] if a and a.get("ok") else None

    def wait_for(self, what, timeout: float, step: float = 0.1):
        """Poll a real process (bounded in time): ``what()`` until it is truthy."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._board_news()
            value = what()
            if value:
                return value
            if self.table is not None and self.table.poll() is not None:
                raise RuntimeError(f"coindrel run exited with {self.table.returncode}; see {self.work / 'table.log'}")
            time.sleep(step)
        return None

    def new_match(self, timeout: float = 30.0) -> None:
        def started():
            code, _, err = self.ctl("new-match", "--players", "Ann,Bo", "--clock", "off")
            return code == 0
        if not self.wait_for(started, timeout, 0.2):
            raise RuntimeError(f"coindrel ctl new-match never started a match; see {self.work / 'table.log'}")

    def press_on(self, st: dict | None) -> None:
        """A player at the table: past the screens that wait for a press, and
        a new match as soon as one ends (the board drops on regardless). When
        the table asks for the pads to be cleared before the new match, they
        take the coins off (the board's "c" key) and press, as people do."""
        if not st:
            return
        if st.get("mode") in ("mismatch", "round-result", "result", "restore", "correct", "check-pads"):
            self.ask({"cmd": "press", "button": "select"})
        elif st.get("phase") == "menu":
            asked = (st.get("message") or {}).get("title")
            if asked == "Before we start":
                self.clear_pads()
                self.ask({"cmd": "press", "button": "select"})
                self.new_matches += 1
            else:
                self.ask({"cmd": "new-match", "players": ["Ann", "Bo"], "clock": "off"})

    def clear_pads(self) -> None:
        try:
            self.board.stdin.write("c")
            self.board.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # the board has stopped: nothing left to clear

    def _watch(self, board_t: float) -> None:
        """The players at the table (the journals tell, when scoring, when no match was in progress)."""
        self.press_on(self.status())

    # -- the run -----------------------------------------------------------------------------------

    def kill_times(self) -> list[float]:
        """Board times to kill at: a share while coins fall, the rest anywhere."""
        end = self.schedule[-1][0] + 1.0
        out = []
        for _ in range(self.kill_count):
            if self.rng.random() < self.falling_share:
                t, _ = self.rng.choice(self.schedule)
                out.append(t + self.rng.uniform(0.05, FALL * 0.8))
            else:
                out.append(self.rng.uniform(self.first, end))
        return sorted(out)

    def run(self, settle: float = 20.0) -> Result:
        self.start_board()
        self.start_table()
        self.wait_for(lambda: self.sock.exists(), 30)
        self.new_match()
        self.wait_for(lambda: self.anchor is not None, 10)
        if self.anchor is None:
            self.anchor = time.monotonic()
        res = Result()
        plan = self.kill_times()
        i = 0
        last = self.schedule[-1][0] + FALL
        watched = 0.0
        while True:
            self._board_news()
            board_t = time.monotonic() - self.anchor
            if board_t - watched >= 0.5:
                watched = board_t
                self._watch(board_t)
            if i < len(plan) and board_t >= plan[i]:
                if self.table.poll() is None:
                    self.kill_table()
                    res.kills += 1
                    res.kills_falling += any(t <= plan[i] <= t + FALL for t, _ in self.schedule)
                self.start_table()
                i += 1
                # kills closer together than a restart would only kill a starting process
                while i < len(plan) and plan[i] < board_t + 1.0:
                    i += 1
                continue
            if board_t > last and i >= len(plan):
                break
            if self.table.poll() is not None:
                self.start_table()  # it stopped by itself (a journal it could not save): systemd restarts it
            time.sleep(0.05)
        deadline = time.monotonic() + settle
        st = None
        before, same = None, 0
        # the last drops are reconciled and scored, and the snapshot after a last replug too (its
        # changes close as a group a little later): the same for SETTLED seconds with the hub there
        while time.monotonic() < deadline:
            st = self.status()
            if st and st.get("mode") in ("mismatch", "restore", "correct", "check-pads"):
                self.ask({"cmd": "press", "button": "select"})
                same = 0
            elif st and st.get("link", {}).get("up"):
                now = (st.get("reports"), st.get("drops"), st.get("mode"), st.get("board"))
                same = same + 1 if now == before else 0
                if same >= SETTLED:
                    break
                before = now
            else:
                same = 0
            time.sleep(1.0)
        self.stop_board()  # its truth log is complete once it has stopped
        if self.board_killed:
            res.problems.append("the virtual board did not stop on SIGINT within 30 s and was killed")
        res.problems += self.score(res, st)
        return res

    def stop_board(self) -> None:
        if self.board is not None and self.board.poll() is None:
            self.board.send_signal(signal.SIGINT)
            try:
                self.board.wait(30)
            except subprocess.TimeoutExpired:
                self.board.kill()
                self.board.wait()
                self.board_killed = True  # its truth is complete up to its last line all the same

    def match_refs(self) -> list[str]:
        r = subprocess.run([self.python, "-m", "coindrel", "history", "--json", "--state-dir", str(self.state)],
                           capture_output=True, text=True, env=self.env)
        listed = json.loads(r.stdout) if r.returncode == 0 else []
        refs = [str(m["number"]) for m in sorted(listed, key=lambda m: m["number"] or 0) if m["number"]]
        return refs

    def score(self, res: Result, st: dict | None) -> list[str]:
        return score_run(self, res, st)

__all__ = ["KillRig", "Result"]
