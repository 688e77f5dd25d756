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
        return check(settings)
    return run_service(settings)


def check(settings) -> int:
    """Every key was checked on loading; here, what needs the machine: the
    state directory can really be written."""
    from ..sources import backend, backend_names
    from ..table.sections import check_control_socket, check_state_dir

    check_state_dir(settings.storage.state_dir, f"{settings.source}: [storage] state_dir")
    check_control_socket(settings.control, f"{settings.source}: [control] socket")
    b = settings.board
    print(f"{settings.source}: OK")
    print(f"  board {b.geometry_name}; source {b.source}: {backend(b.source).summary}")
    print(f"  diagnosis in a {'child process' if b.diagnosis == 'process' else 'worker thread'}")
    print(f"  state in {settings.storage.state_dir} (writable)")
    c = settings.control
    print(f"  control socket: {c.socket or 'the service RuntimeDirectory (control.sock)' if c.enabled else 'none'}")
    for name in ("display", "inputs", "outputs"):
        state = ("configured" if name in settings.given else "defaults (no such table in the file)") \
            if settings[name] is not None else "not available (its package is not installed)"
        print(f"  [{name}] {state}")
    print(f"  board sources installed: {', '.join(backend_names())}")
    for line in backend(b.source).probe(b.backend):
        print(f"  note: {line}")
    return 0
