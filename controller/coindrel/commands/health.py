"""``coindrel health LOG``: the board's persistent faults, from a session's log."""

from __future__ import annotations

import json
import sys

HELP = "the board's health from an observation log: persistent faults, incidents, learned timing"
DESCRIPTION = (
    "Reconciles the whole observation log and reports what it says about the board: persistent faults "
    "(stuck rockers, dead or chattering beams, faulty hall sensors, jams) with how sure the controller is "
    "and since which drop, one-off incidents (rockers moved by hand, coins added or taken off), the timing "
    "learned from the board's own drops, and what this build cannot check. Exit status 1 when a "
    "persistent fault is likely (confidence 50% or more), so scripts can act on it."
)


def add_arguments(p) -> None:
    p.add_argument("log", help="observation log (JSON Lines), or - for standard input")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.add_argument("--no-halls", action="store_true", help="the board has no hall sensors")
    p.add_argument("--no-exits", action="store_true", help="the board has no exit beams")
    p.add_argument("--no-entries", action="store_true", help="the board has no entry beams")


def run(args) -> int:
    from ..reconcile.offline import load, match_numbers, reconcile_log
    from ._paths import stdin_not_stdout, stdout_not
    from .reconcile import load_named, sensors_from

    if args.log == "-":
        stdin_not_stdout("the report")
    else:
        stdout_not("the observation log", args.log)  # health LOG >> LOG
    log = load_named(load, args.log)
    for problem in log.problems:
        print(f"coindrel health: {args.log}: {problem}", file=sys.stderr)
    rec, reports = reconcile_log(log, sensors_from(args))
    done = list(reports)
    health = rec.health()
    numbers = match_numbers(done, log.notes)  # a match's export (coindrel history --events) numbers its drops
    if numbers is not None:
        health = health.numbered_as_match(numbers, {r.drop: r.ok for r in done if r.drop is not None})
    if args.json:
        print(json.dumps(health.to_json()))
    else:
        print(health.text())
    return 1 if any(f["confidence"] >= 0.5 for f in health.faults) else 0
