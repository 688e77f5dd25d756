"""``coindrel`` command line: one subcommand per module in ``coindrel.commands``.

Each command module defines ``NAME`` (optional; default from the module name,
``_`` read as ``-``), ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
Modules must stay light at import: hardware libraries load inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from . import __version__
from .engine import EngineError


def _command_modules():
    from . import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"coindrel.commands.{info.name}")
        yield getattr(module, "NAME", info.name.replace("_", "-")), module


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="coindrel",
        description="Coindrel Table: a self-scoring, self-checking controller for a physical Coindrel board.",
    )
    parser.add_argument("--version", action="version", version=f"coindrel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _command_modules():
        p = sub.add_parser(name, help=module.HELP, description=getattr(module, "DESCRIPTION", module.HELP))
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except EngineError as e:
        print(f"coindrel {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
