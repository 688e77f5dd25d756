"""How long a command takes to start, against a bare ``python -c pass``
measured in the same run (the machine is shared: only differences and
ratios taken side by side mean anything).

For each command: the median wall time of N runs, interleaved with the
bare interpreter's runs, as the difference and the ratio to bare; and what
``-X importtime`` says the command's own imports cost (the sum of the
top-level modules it loads beyond what bare Python loads). Targets
(issue 15): ``coindrel --help``, ``coindrel show BOARD`` and ``coindrel
engine`` at most 50 ms over bare, ``import coindrel.engine`` at most 20 ms.

Run: ``python benchmarks/bench_startup.py`` (about 30 s; ``--runs N``).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

BOARD = "lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL"
PY = sys.executable
# As installed: byte code cached (pip compiles it at install time). A shell
# that sets PYTHONDONTWRITEBYTECODE would have every run compile every module.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def coindrel_command() -> list[str]:
    script = shutil.which("coindrel", path=os.path.dirname(PY)) or shutil.which("coindrel")
    return [script] if script else [PY, "-m", "coindrel"]


def commands() -> dict[str, list[str]]:
    c = coindrel_command()
    return {
        "python -c pass": [PY, "-c", "pass"],
        "coindrel --help": [*c, "--help"],
        f"coindrel show BOARD": [*c, "show", BOARD],
        "coindrel engine (no cases)": [*c, "engine"],
        "python -c 'import coindrel.engine'": [PY, "-c", "import coindrel.engine"],
        # the reference: what every command paid before the lazy command table
        "every command module imported": [PY, "-c", "from coindrel.cli import build_parser; build_parser(load='all')"],
    }


def wall(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and the child's CPU seconds (user + system) of one run."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode})")
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime


def import_ms(argv: list[str], runs: int = 5) -> tuple[float, set[str]]:
    """Median over ``runs`` of the total self time of every module -X
    importtime reports, and their names."""
    totals, names = [], set()
    for _ in range(runs):
        total, names = _import_once(argv)
        totals.append(total)
    return statistics.median(totals), names


def _import_once(argv: list[str]) -> tuple[float, set[str]]:
    env = dict(ENV, PYTHONPROFILEIMPORTTIME="1")
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=env)
    total, names = 0.0, set()
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cumulative, name = (p.strip() for p in line[len("import time:"):].split("|"))
        total += int(self_us)
        names.add(name.strip())
    return total / 1000, names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    cmds = commands()
    times: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    for k, argv in cmds.items():  # warm the file cache and the .pyc files
        wall(argv)
    for _ in range(args.runs):  # interleaved: load changes hit every command alike
        for k, argv in cmds.items():
            w, c = wall(argv)
            times[k].append(w)
            cpus[k].append(c)
    bare_ms, bare_names = import_ms(cmds["python -c pass"])
    bare = statistics.median(times["python -c pass"])
    bare_cpu = min(cpus["python -c pass"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, load {load:.1f}; "
          f"median wall and least CPU of {args.runs} interleaved runs each")
    print(f"{'command':38} {'wall ms':>8} {'over bare':>10} {'x bare':>7} {'CPU over':>9} {'imports ms':>11} {'modules':>8}")
    for k, argv in cmds.items():
        med = statistics.median(times[k])
        imp, names = import_ms(argv)
        extra = imp - bare_ms if k != "python -c pass" else imp
        print(f"{k:38} {med * 1000:8.1f} {(med - bare) * 1000:+10.1f} {med / bare:7.2f} "
              f"{(min(cpus[k]) - bare_cpu) * 1000:+9.1f} {extra:+11.1f} {len(names - bare_names):8d}")
    print("(over bare: wall-time difference; CPU over: least user+system time beyond bare python's, what a loaded")
    print(" machine changes least; imports: -X importtime self times beyond bare python's)")


if __name__ == "__main__":
    main()
