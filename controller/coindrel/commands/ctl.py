"""``coindrel ctl``: talk to the running table over its control socket."""

from __future__ import annotations

import json

from ..engine import EngineError
from ..nesting import loads_json

HELP = "control the running table: status, start a match, press a button (its local unix socket)"
DESCRIPTION = (
    "Talks to `coindrel run` (or `coindrel sim --control PATH`) over its unix socket, by default "
    "$RUNTIME_DIRECTORY/control.sock or /run/coindrel/control.sock (the coindrel group may use it). "
    "`status --json` prints phase, players, round, scores, totals, turn, drops so far, link state and "
    "persistent faults; `new-match --players A,B` starts a match as the menu does; `press select` presses "
    "a button (select, back, left, right, hold)."
)
TIMEOUT = 10.0  # seconds to wait for the table's answer


def add_arguments(p) -> None:
    p.add_argument("--socket", help="the control socket (default $COINDREL_CONTROL, or the service's)")
    sub = p.add_subparsers(dest="ctl", metavar="ACTION", required=True)
    s = sub.add_parser("status", help="the table's state")
    s.add_argument("--json", action="store_true", help="print it as JSON")
    n = sub.add_parser("new-match", help="start a match as the menu's Start match does")
    n.add_argument("--players", required=True, help="two names separated by a comma, e.g. Ann,Bo")
    n.add_argument("--clock", choices=("30", "60", "120", "turbo", "off"), help="turn clock (default: the table's)")
    for v in ("holes", "halved", "shuffled"):
        n.add_argument(f"--{v}", action="store_true")
    n.add_argument("--pads-clear", action="store_true",
                   help="every coin is off the pads (answers the table's 'take every coin off the pads' as "
                        "pressing there does)")
    b = sub.add_parser("press", help="press one of the table's buttons")
    b.add_argument("button", choices=("select", "back", "left", "right", "hold"))


def socket_path(given: str | None):
    import os
    from pathlib import Path

    from ..table.control import default_socket_path

    if given:
        return Path(given)
    env = os.environ.get("COINDREL_CONTROL")
    return Path(env) if env else default_socket_path()


def request(path, req: dict, timeout: float = TIMEOUT) -> dict:
    """Send one request and read its answer."""
    import socket

    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        try:
            s.connect(str(path))
        except FileNotFoundError:
            raise EngineError(f"no control socket at {path}: is the table running (systemctl status coindrel)? "
                              "Give the path with --socket") from None
        except PermissionError:
            raise EngineError(f"not allowed to use {path}: add yourself to the coindrel group "
                              "(sudo usermod -aG coindrel $USER, then log in again)") from None
        except (ConnectionRefusedError, OSError) as e:
            import os
            import stat

            try:
                mode = os.stat(path).st_mode
            except OSError:
                mode = None
            if mode is not None and not stat.S_ISSOCK(mode):
                what = "a folder" if stat.S_ISDIR(mode) else "a file"
                raise EngineError(f"{path} is {what}, not the table's control socket; give the socket with --socket "
                                  "(the service's is /run/coindrel/control.sock)") from None
            raise EngineError(f"cannot reach the table at {path}: {e.strerror or e} (a socket left by a table "
                              "that stopped? is it running: systemctl status coindrel)") from None
        s.sendall(json.dumps(req).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        raise EngineError(f"the table at {path} did not answer within {timeout:.0f} s") from None
    finally:
        s.close()
    try:
        return loads_json(data)
    except ValueError:
        raise EngineError(f"the table at {path} gave no answer (it may have stopped)") from None


def human(st: dict) -> str:
    link = "hub connected" if st["link"]["up"] else f"hub not connected ({st['link']['detail'] or 'waiting'})"
    if st.get("round") is None:
        lines = [f"At the {st['mode']} screen; {link}"]
    else:
        a, b = st["players"]
        lines = [f"Round {st['round']}: {a} {st['totals'][0]}, {b} {st['totals'][1]} "
                 f"(this round {st['scores'][0]}-{st['scores'][1]}), {st['drops']} drops; "
                 + (f"match over, {'a draw' if st['winner'] == 'draw' else str(st['winner']) + ' wins'}" if st["over"]
                    else f"{st['to_move']} to drop"
                    + (f" into entry {st['forced_entry']} (the clock ran out and chose it)" if st.get("forced_entry") else "")),
                 f"Screen {st['mode']}; {link}"]
    disk = st.get("disk")
    if disk and disk.get("full"):  # first and whole (the panel's words are cut to fit; the score may hold a drop unsaved)
        lines.insert(0, f"{disk['text']} (checked {disk['checks']} times in {disk['waiting_for']:g} s)")
    elif st.get("message"):
        lines.append(f"{st['message']['title']}: {st['message']['text']}")
    if st.get("note"):
        lines.append(f"Note on screen: {st['note']['title']}: {st['note']['text']} ({st['note']['press']})")
    a = st.get("asking")
    if a:
        what = {True: "the board did not do what the engine predicted", None: "the players count its coins",
                False: "the board did what the engine predicted, but the table flags it"}[a.get("board_mismatch")]
        if a.get("screen") == "restore":
            lines.append(f"Waiting for the board to be put back (drop {a.get('drop')} was undone):")
        elif a.get("screen") == "check-pads":
            lines.append(f"Waiting for the pads to be checked (after drop {a.get('drop')}):")
        elif a.get("screen") == "before start":
            lines.append(f"Waiting before the match starts ({a.get('title', '').lower()}):")
        else:
            lines.append(f"Waiting for an answer about drop {a.get('drop')} ({what}):")
        lines += [f"  {x}" for x in (*a.get("facts", ()), *a.get("findings", ()))]
        if a.get("pages"):
            marked = f"; select now chooses \"{a['marked']}\"" if a.get("marked") else ""
            lines.append(f"  page {a.get('page')} of {a['pages']}{marked}")
            if a.get("page_text"):
                lines.append(f"  on the panel now: {a['page_text']}")
        lines.append(f"  {a.get('answer')}")
    lesson = st.get("lesson")
    if lesson:
        step = f", step {lesson['step']} of {lesson['steps']}" if lesson.get("step") else ""
        lines.append(f"Lesson {lesson['lesson']}{step}: {lesson.get('title') or ''}")
        lines.append("  " + " ".join(lesson.get("lines") or ()))
        lines.append("  coindrel ctl press select: next; ctl press hold: replay the step; ctl press back: a step back")
    menu = st.get("menu")
    if menu and not a:
        lines.append(f"{menu['title']}: " + ", ".join(f"[{x}]" if x == menu.get("marked") else x for x in menu["items"]))
        lines.append(f"  {menu.get('press')}")
    for f in st.get("faults") or []:
        lines.append(f"Fault{_how_sure(f)}: {f.get('say') or f}")
    return "\n".join(lines)


def _how_sure(f: dict) -> str:
    """" (90%, drops 11-21)": how sure the table is and which drops showed it,
    as the health report says it (a builder deciding what to open first)."""
    bits = []
    if isinstance(f.get("confidence"), (int, float)):
        bits.append(f"{f['confidence']:.0%}")
    first, last = f.get("first_drop"), f.get("last_drop")
    if isinstance(first, int):
        bits.append(f"drop {first}" if last in (None, first) else f"drops {first}-{last}")
    return f" ({', '.join(bits)})" if bits else ""


def run(args) -> int:
    path = socket_path(args.socket)
    if args.ctl == "status":
        req = {"cmd": "status"}
    elif args.ctl == "press":
        req = {"cmd": "press", "button": args.button}
    else:
        players = [p.strip() for p in args.players.split(",")]
        if len(players) != 2 or not all(players):
            raise EngineError("--players takes two names separated by a comma, e.g. --players Ann,Bo")
        req = {"cmd": "new-match", "players": players,
               "variants": [v for v in ("holes", "halved", "shuffled") if getattr(args, v)]}
        if args.clock:
            req["clock"] = args.clock
        if args.pads_clear:
            req["pads_clear"] = True
    answer = request(path, req)
    if not answer.get("ok"):
        import sys

        print(f"coindrel ctl: {answer.get('error', 'the table refused the request')}", file=sys.stderr)
        return 2  # as every error (README: errors exit 2)
    st = answer.get("status", {})
    if getattr(args, "json", False):
        print(json.dumps(st, indent=2, ensure_ascii=False))
    else:
        print(human(st))
    return 0
