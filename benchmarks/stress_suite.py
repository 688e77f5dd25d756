"""The whole test suite on a machine whose cores are all busy.

No test may depend on the machine's speed (a test waits for events, on a
fake clock or the lockstep hub; real processes and ptys only have ceilings
that bound a hang). This proves it: it runs the suite once on the machine as
it is, then ``--runs`` times in a row with a CPU burner per core (pure Python
busy loops, or ``stress-ng --cpu`` when it is installed), and prints each
run's wall time and the ratio to the unloaded run. Any failed run fails the
script (exit 1) and its tail is printed.

Run: ``python benchmarks/stress_suite.py`` (about 3 runs x 2-4 minutes on 2
cores). ``--runs N``, ``--burners N`` (default: one per core), ``--no-baseline``
to skip the unloaded run, and anything after ``--`` goes to pytest (default
``-n 2 -q -p no:cacheprovider``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

BURN = "while True: pass"


def start_burners(n: int) -> list[subprocess.Popen]:
    if shutil.which("stress-ng"):
        return [subprocess.Popen(["stress-ng", "--cpu", str(n), "--quiet"], start_new_session=True)]
    return [subprocess.Popen([sys.executable, "-c", BURN], start_new_session=True) for _ in range(n)]


def stop_burners(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def run_suite(pytest_args: list[str], log: str) -> tuple[int, float]:
    t0 = time.monotonic()
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "pytest", *pytest_args], stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait()
        finally:
            if proc.poll() is None:  # interrupted: take the suite (and its xdist workers) down with us
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait()
    return rc, time.monotonic() - t0


def _stop(signum, frame):
    raise SystemExit(f"stopped by signal {signum}")


def summary_line(log: str) -> str:
    with open(log) as f:
        lines = [ln.strip() for ln in f if ln.strip()]
    tail = [ln for ln in lines if (" passed" in ln or " failed" in ln or " error" in ln) and " in " in ln]
    return tail[-1] if tail else (lines[-1] if lines else "(no output)")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="loaded runs in a row (default 3)")
    ap.add_argument("--burners", type=int, default=os.cpu_count() or 2, help="CPU burners (default: one per core)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the run without load")
    ap.add_argument("--logs", default="/tmp", help="where each run's pytest output goes")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)  # a kill still stops the burners and the suite
    pytest_args = extra or ["-n", "2", "-q", "-p", "no:cacheprovider"]
    print(f"cores {os.cpu_count()}, load average at start {os.getloadavg()[0]:.1f}; pytest {' '.join(pytest_args)}",
          flush=True)
    base = None
    failed = 0
    if not args.no_baseline:
        log = os.path.join(args.logs, "stress_suite_base.log")
        rc, base = run_suite(pytest_args, log)
        print(f"no load:          {base:7.1f} s  rc={rc}  {summary_line(log)}", flush=True)
        failed += rc != 0
    for i in range(1, args.runs + 1):
        log = os.path.join(args.logs, f"stress_suite_load{i}.log")
        burners = start_burners(args.burners)
        try:
            rc, took = run_suite(pytest_args, log)
            load = os.getloadavg()[0]
        finally:
            stop_burners(burners)
        ratio = f"  x{took / base:.2f}" if base else ""
        print(f"load run {i} ({args.burners} burners, load avg {load:.1f}): {took:7.1f} s{ratio}  rc={rc}  "
              f"{summary_line(log)}", flush=True)
        if rc != 0:
            failed += 1
            with open(log) as f:
                print("".join(f.readlines()[-40:]), flush=True)
    print("PASS: every run passed" if not failed else f"FAIL: {failed} run(s) failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
