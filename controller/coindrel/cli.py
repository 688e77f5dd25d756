"""``coindrel`` command line: one subcommand per module in ``coindrel.commands``.

Each command module defines ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int`` (optionally ``NAME`` and ``DESCRIPTION``). ``COMMANDS``
below lists them with their one-line help, so ``coindrel --help`` imports no
command module and ``coindrel show ...`` imports only ``commands.show``: a
command pays only for what it uses (on a Pi every import costs ten times what
it costs here). tests/test_cli.py keeps this table equal to the modules.

Every error coindrel raises on purpose is a ``CoindrelError``; the command
prints its message and exits 2. A file or folder the system refuses
(``OSError``) gets the same treatment: a message naming the path, never a
traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from . import __version__
from .errors import CoindrelError

# name -> (module in coindrel.commands, one-line help: the module's HELP)
COMMANDS: dict[str, tuple[str, str]] = {
    "calibrate": ("calibrate", "guided hall calibration: flip each switch both ways, store the bands on the hub"),
    "club": ("club", "run a club's live scoreboard and results server (club serve), or make its admin password hash"),
    "ctl": ("ctl", "control the running table: status, start a match, press a button (its local unix socket)"),
    "engine": ("engine", "answer rules-engine cases (conformance vectors) from stdin, one JSON line each"),
    "health": ("health", "the board's health from an observation log: persistent faults, incidents, learned timing"),
    "hint": ("hint", "the best entry for the player to move (look-ahead), with every alternative ranked"),
    "history": ("history", "list finished matches, or show one match's turns"),
    "hub": ("hub", "the sensor hub: deploy its firmware, watch its events, calibrate its hall sensors"),
    "lesson": ("lesson", "list the lessons (How to Play > Learn by playing), or walk through one in the terminal"),
    "play": ("play", "play a match in the terminal: two people keying entries, or computer players (--bots)"),
    "reconcile": ("reconcile", "reconcile an observation log: one JSON line per drop (verdict, diagnosis, believed board)"),
    "run": ("run", "run the table: read the board, run matches on the OLED, save everything (the systemd service)"),
    "selftest": ("selftest", "guided check of every beam and hall sensor: good, dead, chattering or out of band"),
    "show": ("show", "draw a board state (rules.md section 9 text form) in the terminal or as a PNG"),
    "sim": ("sim", "run the table against the virtual board: emulated OLED, simulated players, optional faults"),
    "virtual-board": ("virtual_board", "run a simulated board and sensor hub (virtual time, or served live on a pty or socket)"),
}


def command_module(name: str):
    return importlib.import_module(f"coindrel.commands.{COMMANDS[name][0]}")


def _chosen(argv: list[str]) -> str | None:
    """The subcommand named on the line (the top level has no option taking a value)."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it (COLUMNS,
    then the terminal, then 80): argparse would import shutil for this, which
    costs every command's start more than argparse itself."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


_LONG_WORD = 200


def _short(message: str) -> str:
    """A message with every word thousands of characters long (a pasted
    blob, a 5,000-digit number) cut to its start and its length: the reader
    needs to see which argument it was, not a screenful of it."""
    import re

    def cut(m) -> str:
        word = m.group(0)
        core = word.lstrip("'\"")
        lead, core = word[:len(word) - len(core)], core.rstrip("'\",:;")
        return f"{lead}{core[:60]}... ({len(core):,} characters){word[len(lead) + len(core):]}"

    return re.sub(r"\S{%d,}" % _LONG_WORD, cut, message)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        super().error(_short(message))


def build_parser(argv: list[str] | None = None, *, load: str | tuple[str, ...] | None = None) -> argparse.ArgumentParser:
    """The whole parser. Only the command chosen in ``argv`` (or those named
    in ``load``) is imported to add its arguments; with neither, every one is."""
    parser = _Parser(
        prog="coindrel",
        formatter_class=_Formatter,
        description="Coindrel Table: a self-scoring, self-checking controller for a physical Coindrel board.",
    )
    parser.add_argument("--version", action="version", version=f"coindrel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if load == "all" or (load is None and argv is None):
        wanted = set(COMMANDS)
    elif load is not None:
        wanted = {load} if isinstance(load, str) else set(load)
    else:
        wanted = {_chosen(argv)}
    for name, (_, help_) in COMMANDS.items():
        if name not in wanted:
            sub.add_parser(name, help=help_, formatter_class=_Formatter)
            continue
        module = command_module(name)
        p = sub.add_parser(name, help=help_, description=getattr(module, "DESCRIPTION", module.HELP),
                           formatter_class=_Formatter)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def _os_message(e: OSError) -> str:
    what = e.strerror or str(e)
    path = e.filename
    if path is None:
        return what
    fix = {
        2: "check the path; the folder it names must exist",
        13: "choose a place this user may write, or fix its permissions",
        20: "a part of the path is a file, not a folder",
        21: "give a file's path, not a folder's",
        28: "free some space",
        30: "the file system is read-only; choose another place",
    }.get(e.errno)
    return f"{path}: {what}" + (f" ({fix})" if fix else "")


def _joined_negative_values(argv: list[str]) -> list[str]:
    """``--values -5,1,2`` as ``--values=-5,1,2``: argparse takes a word that
    starts with '-' and is not one plain number for an option, and said
    "expected one argument"."""
    out: list[str] = []
    for word in argv:
        if (out and out[-1].startswith("--") and "=" not in out[-1] and len(word) > 1 and word[0] == "-"
                and word[1].isdigit() and all(c.isdigit() or c in ",.- " for c in word[1:])):
            out[-1] = f"{out[-1]}={word}"
        else:
            out.append(word)
    return out


def _deepest(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The (sub)command parser the line chose: its usage is the one to show."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if name is None or name not in subs[0].choices:
            return parser
        parser = subs[0].choices[name]


def main(argv: list[str] | None = None) -> int:
    argv = _joined_negative_values(sys.argv[1:] if argv is None else list(argv))
    parser = build_parser(argv)
    args, extras = parser.parse_known_args(argv)
    if extras:  # said by the command's own parser, with its usage (the top level's told nothing)
        _deepest(parser, args).error(f"unrecognized arguments: {' '.join(extras)}")
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except CoindrelError as e:
        print(_short(f"coindrel {args.command}: {_os_message(e) if isinstance(e, OSError) else e}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as e:  # a path the system refused, wherever a command met it
        print(_short(f"coindrel {args.command}: {_os_message(e)}"), file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
