"""``coindrel show``: draw a board state in the terminal, or as a PNG."""

from __future__ import annotations

from ..boardview import board_text
from ..errors import UsageError
from ..engine import VALUES, EngineError, BoardState, drop, geometry_by_name

HELP = "draw a board state (rules.md section 9 text form) in the terminal or as a PNG"
DESCRIPTION = (
    "Draws BOARD, e.g. 'lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL': entries on top, each switch's pad "
    "([ ], [o] with a resting coin) and lever (--), inlets (v), holes ( ), and the exits with a round's values. "
    "--drop shows the board after dropping coins, with flips (*) and the exits reached (^)."
)


def add_arguments(p) -> None:
    p.add_argument("board", help="board text: five rows joined with '/' (L/R pad side, lowercase = coin resting, o = hole)")
    p.add_argument("--round", type=int, default=1, choices=range(1, 5), metavar="N", help="show round N's exit values (1-4, default 1)")
    p.add_argument("--values", help="comma-separated values for exits 1..16 instead of a round's (e.g. shuffled exits)")
    p.add_argument("--drop", help="entries (1-8, comma-separated for coins together) to drop first; shows what happened")
    p.add_argument("--png", metavar="FILE", help="also write a picture to FILE")
    p.add_argument("--geometry", default="standard", help="board geometry: standard, mirrored or a board file")
    p.add_argument("--ascii", action="store_true", help="plain ASCII (no ● for coins)")


def parse_entries(text: str, count: int = 8) -> list[int]:
    try:
        entries = [int(x) - 1 for x in text.split(",") if x.strip()]
    except ValueError:
        raise EngineError(f"--drop {text!r}: give entry numbers 1..{count}, e.g. --drop 3 or --drop 3,5") from None
    if not entries or any(not 0 <= e < count for e in entries):
        raise EngineError(f"--drop {text!r}: entries are numbered 1..{count}")
    return entries


def parse_board(text: str, geometry) -> BoardState:
    """The board text as the user gave it; a message quotes it so (the
    parser quoted its tidied rows: /etc/passwd came back as 'etc/passwd')."""
    import os

    try:
        return BoardState.parse(text, geometry)
    except EngineError as e:
        board_like = set(text) <= set("LRlroO/ \n")
        if os.path.exists(os.path.expanduser(text)) or (text.startswith(("/", "~", ".")) and not board_like):
            raise EngineError(f"{text!r} is a file name, not a board: give the board itself, five rows of pads "
                              "joined with '/', e.g. 'lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL' (rules.md "
                              "section 9)") from None
        tidied = "/".join(r.strip() for r in text.replace("\n", "/").strip().strip("/").split("/"))
        raise EngineError(str(e).replace(repr(tidied), repr(text))) from None


def parse_values(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 16 or any(v < 0 for v in values):
        raise EngineError(f"--values {text!r}: give 16 whole numbers >= 0 separated by commas")
    return values


def run(args) -> int:
    if args.png:
        check_png_path(args.png)
        from ._paths import not_an_input

        not_an_input("--png", args.png, ("the --geometry board file", args.geometry))
    g = geometry_by_name(args.geometry)
    state = parse_board(args.board, g)
    values = parse_values(args.values) if args.values else VALUES[args.round - 1]
    label = "values" if args.values else f"round {args.round}"
    outcome = None
    if args.drop:
        outcome = drop(state, parse_entries(args.drop, g.entry_count))
        state = outcome.board
    print(board_text(state, values, label, outcome, unicode=not args.ascii))
    print(f"\n{state.text()}")
    if outcome is not None:
        points = sum(values[x] for x in outcome.exits)
        print(f"exits reached: {', '.join(str(x + 1) for x in outcome.exits) or 'none'}; {points} points"
              + (f"; {outcome.swallowed} swallowed by holes" if outcome.swallowed else ""))
    if args.png:
        save_png(args.png, state, values, outcome, title=f"{state.text()}  ({label})")
        print(f"picture written to {args.png}")
    return 0


def check_png_path(path: str) -> None:
    """Say before anything is drawn why ``path`` cannot take a picture."""
    from pathlib import Path  # only with --png: a text drawing loads nothing it does not use

    target = Path(path)
    if target.is_dir():
        raise UsageError(f"--png {path}: that is a folder; give a file name, e.g. {target / 'board.png'}")
    if not target.parent.is_dir():
        raise UsageError(f"--png {path}: the folder {target.parent} does not exist; create it first "
                         f"(mkdir -p {target.parent}) or choose another place")
    from ..limits import made_up

    made = made_up(target.parent)
    if made:
        raise UsageError(f"--png {path}: {made}, where nothing can be stored; choose a folder on a disk (e.g. /tmp)")


def save_png(path: str, state, values, outcome, title: str) -> None:
    from ..boardview import board_image

    image = board_image(state, values, outcome, title=title)
    try:
        image.save(path, format="PNG")
    except OSError as e:
        raise UsageError(f"--png {path}: cannot write it ({e.strerror or e}); choose a place you may write") from None
