"""``coindrel reconcile LOG``: what the board did against what it should have."""

from __future__ import annotations

import json
import sys

HELP = "reconcile an observation log: one JSON line per drop (verdict, diagnosis, believed board)"
DESCRIPTION = (
    "Reads an observation log (sensing.md section 3: a header line, then board events) and writes one "
    "JSON line per drop (sensing.md section 4): the entry, what the engine expected, what the sensors "
    "observed, the verdict (ok or mismatch), the ranked diagnosis and the board as believed afterwards. "
    'Events that belong to no drop get a line with "drop": null. On a match\'s export (coindrel history '
    '--events) each line also says the match\'s own drop number ("match_drop"; null: no drop of the match). Lines of the log that cannot be read '
    "(or are of a kind it does not know) are reported on standard error with their line numbers and skipped; a line whose time is out of step "
    "with the lines around it is named once and read at its place in the file. --out must not be the log itself."
)


def add_arguments(p) -> None:
    p.add_argument("log", help="observation log (JSON Lines), or - for standard input")
    p.add_argument("-o", "--out", help="write the drop lines to this file instead of standard output")
    p.add_argument("--health", action="store_true", help="print the board's health report on standard error at the end")
    p.add_argument("--only-mismatches", action="store_true", help="write only the lines whose verdict is mismatch")
    p.add_argument("--no-halls", action="store_true", help="the board has no hall sensors (switch positions unchecked)")
    p.add_argument("--no-exits", action="store_true", help="the board has no exit beams")
    p.add_argument("--no-entries", action="store_true", help="the board has no entry beams (entries are keyed in)")


def sensors_from(args):
    from ..reconcile import Sensors

    if not (args.no_halls or args.no_exits or args.no_entries):
        return None  # as the log's header says
    return Sensors(entries=not args.no_entries, exits=not args.no_exits, halls=not args.no_halls)


def load_named(load, name: str):
    """The log, or an error that names it (the header's problems said only "line 1: ...")."""
    from ..engine import EngineError

    if name == "-":
        try:
            return load(sys.stdin)
        except EngineError as e:
            raise EngineError(f"standard input: {e}") from None
    try:
        return load(name)
    except EngineError as e:
        text = str(e)
        raise EngineError(text if text.startswith(name) else f"{name}: {text}") from None


def run(args) -> int:
    from ..reconcile.offline import MatchNumbers, load, reconcile_log

    from ._paths import not_an_input, output_file, stdin_not_stdout, stdout_not

    if args.out:  # before the log is read and reconciled
        output_file("--out", args.out, stream_ok=True)
        not_an_input("--out", args.out, ("the observation log being reconciled", 0 if args.log == "-" else args.log))
    elif args.log == "-":
        stdin_not_stdout("the drop lines")
    else:
        stdout_not("the observation log", args.log)
    log = load_named(load, args.log)
    for problem in log.problems:
        print(f"coindrel reconcile: {args.log}: {problem}", file=sys.stderr)
    rec, reports = reconcile_log(log, sensors_from(args))
    numbers = MatchNumbers(log.notes)  # a match's export (coindrel history --events): its own drop numbers too
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    try:
        for report in reports:
            if args.only_mismatches and report.verdict == "ok":
                continue
            line = report.to_json()
            out.write(json.dumps(numbers.line(report, line) if numbers else line) + "\n")
        out.flush()
    finally:
        if args.out:
            out.close()
    if args.health:
        print(rec.health().text(), file=sys.stderr)
    return 0
