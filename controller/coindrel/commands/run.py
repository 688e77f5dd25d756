"""``coindrel run``: the tabletop daemon (what the systemd unit starts)."""

from __future__ import annotations

import logging

HELP = "run the table: read the board, run matches on the OLED, save everything (the systemd service)"
DESCRIPTION = (
    "Reads the configuration (default /etc/coindrel/coindrel.toml), checks every key before anything "
    "starts, resumes a match the journal holds, and runs until stopped. Under systemd it reports "
    "READY, STATUS (round and score) and feeds the watchdog."
)


def add_arguments(p) -> None:
    p.add_argument("--config", help="configuration file (default /etc/coindrel/coindrel.toml)")
    p.add_argument("--check", action="store_true", help="only check the configuration and say what would run")
    p.add_argument("-v", "--verbose", action="store_true", help="log more")


def run(args) -> int:
    from ..table.service import run_service
    from ..table.settings import load_settings

    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    settings = load_settings(args.config)
    if args.check:
        b = settings.board
        print(f"{settings.source}: OK")
        print(f"  board {b.geometry_name}, source {b.source}; state in {settings.storage.state_dir}")
        for name in ("display", "inputs", "outputs"):
            print(f"  [{name}] {'configured' if settings[name] is not None else 'not configured'}")
        return 0
    return run_service(settings)
