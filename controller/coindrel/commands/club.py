"""``coindrel club``: the club server, and what it needs."""

from __future__ import annotations

import sys

HELP = "run a club's live scoreboard and results server (club serve), or make its admin password hash"
DESCRIPTION = """Club play: tables publish to an MQTT broker; `coindrel club serve` subscribes to
every table and serves the live scoreboard at /, one table at /table/NAME, /results and /players (with CSV
and JSON exports) and an admin page. See docs/club.md."""


def add_arguments(p) -> None:
    sub = p.add_subparsers(dest="club_command", metavar="ACTION")
    s = sub.add_parser("serve", help="subscribe to the tables and serve the scoreboard")
    s.add_argument("--config", help="the club server's TOML file ([server] table); the options below override it")
    s.add_argument("--broker", help="the broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    s.add_argument("--http", help="address to serve on, HOST:PORT (default 127.0.0.1:8080)")
    s.add_argument("--db", help="the club's SQLite database (default club.sqlite)")
    s.add_argument("--tables", help="the club's tables, comma-separated (messages from others are dropped)")
    s.add_argument("--username", help="the club server's broker user name")
    s.add_argument("--password-file", help="file holding the broker password on its first line")
    s.add_argument("--ca-file", help="CA certificate for an mqtts:// broker")
    s.add_argument("-v", "--verbose", action="store_true", help="log every connection change")
    h = sub.add_parser("hash-password", help="read an admin password (twice) and print its hash for the config")
    h.add_argument("--stdin", action="store_true", help="read the password from the first line of standard input")


def run(args) -> int:
    if args.club_command == "hash-password":
        return _hash(args)
    if args.club_command != "serve":
        print("coindrel club: say what to do: `coindrel club serve --broker mqtt://HOST --tables t1,t2` or "
              "`coindrel club hash-password`", file=sys.stderr)
        return 2
    import asyncio
    import logging

    from ..club.server.config import load_server_settings
    from ..club.server.store import StoreError

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    try:
        _check_installed()
    except ImportError as e:
        print(f"coindrel club: {e}", file=sys.stderr)
        return 2
    settings = load_server_settings(args.config, broker=args.broker, http=args.http, db=args.db, tables=args.tables,
                                    username=args.username, password_file=args.password_file, ca_file=args.ca_file)
    settings.password()  # an unreadable password file is a clear error now, not a retry loop later
    from ..club.server.serve import serve

    try:
        asyncio.run(serve(settings))
    except StoreError as e:
        print(f"coindrel club: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"coindrel club: cannot serve on {settings.http_host}:{settings.http_port}: {e.strerror or e}; "
              "choose another --http address", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


def _check_installed() -> None:
    missing = []
    import importlib.util

    for module in ("aiomqtt", "starlette", "uvicorn", "jinja2", "itsdangerous", "python_multipart"):
        if importlib.util.find_spec(module) is None:
            missing.append(module.replace("_", "-"))
    if missing:
        raise ImportError(f"the club server needs {', '.join(missing)}: pip install 'coindrel-table[club]'")


def _terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):  # closed, or replaced by something that is no file
        return False


def _hash(args) -> int:
    from ..club.server.auth import hash_password

    if args.stdin:
        try:
            password = sys.stdin.readline().rstrip("\r\n")
            password.encode("utf-8")  # a C locale's stdin keeps bad bytes as surrogates, which scrypt refuses
        except UnicodeError:
            print("coindrel club: the password on standard input is not UTF-8 text; nothing printed", file=sys.stderr)
            return 2
    elif not _terminal():
        # getpass then fails in termios (a pipe) or reads the terminal instead of the pipe
        print("coindrel club: standard input is not a terminal, so the password cannot be typed (twice, unseen); "
              "to read it from standard input, add --stdin: e.g. coindrel club hash-password --stdin < pw.txt",
              file=sys.stderr)
        return 2
    else:
        import getpass

        try:
            password = getpass.getpass("Admin password: ")
            again = getpass.getpass("Again: ")
        except EOFError:  # Ctrl-D
            print("\ncoindrel club: no password given; nothing printed", file=sys.stderr)
            return 2
        if again != password:
            print("coindrel club: the two passwords differ; nothing printed", file=sys.stderr)
            return 2
    if len(password) < 8:
        print("coindrel club: use a password of at least 8 characters", file=sys.stderr)
        return 2
    print(f'admin_password_hash = "{hash_password(password)}"')
    return 0
