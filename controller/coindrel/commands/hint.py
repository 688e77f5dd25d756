"""``coindrel hint``: the best entry for the player to move, and why."""

from __future__ import annotations

import json

from ..ai import Position, Searcher, fmt_points, hint
from ..ai.hint import HINT_THREAT
from ..engine import HOLE, ROUNDS, TARGETS, VALUES, BoardState, EngineError, geometry_by_name
from ..engine.rounds import HALVED_FINAL_TARGET
from .show import parse_values

HELP = "the best entry for the player to move (look-ahead), with every alternative ranked"
DESCRIPTION = (
    "Looks ahead from BOARD (rules.md section 9 text form, e.g. 'lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL') "
    "in round N with the given round scores: points now, the opponent's best reply, the target and the "
    "last-drop rule, and the next round after a last drop. When the opponent already has the round's target, "
    "the drop is the last drop of the round."
)


def add_arguments(p) -> None:
    p.add_argument("board", help="board text: five rows joined with '/' (L/R pad side, lowercase = coin resting, o = hole)")
    p.add_argument("--round", type=int, default=1, choices=range(1, ROUNDS + 1), metavar="N", help="the round being played (1-4, default 1)")
    p.add_argument("--scores", default="0,0", metavar="A,B", help="this round's scores of player 1 and player 2 (default 0,0)")
    p.add_argument("--totals", metavar="A,B", help="match totals of player 1 and 2 (default: the round scores, as in round 1)")
    p.add_argument("--to-move", type=int, default=1, choices=(1, 2), help="the player about to drop (default 1)")
    p.add_argument("--depth", type=int, default=2, help="drops to look ahead (default 2: this drop and the best reply)")
    p.add_argument("--values", help="this round's exit values (16 comma-separated numbers) instead of the round's table")
    p.add_argument("--halved", action="store_true", help="variant: Halved final round (round 4's target 40)")
    p.add_argument("--geometry", default="standard", help="board geometry: standard, mirrored or a board file")
    p.add_argument("--json", action="store_true", help="print the hint as JSON")


def _pair(text: str, option: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        raise EngineError(f"{option} {text!r}: give two whole numbers separated by a comma, e.g. {option} 12,7") from None
    if a < 0 or b < 0:
        raise EngineError(f"{option} {text!r}: scores are never negative")
    return a, b


def position_from_args(args) -> Position:
    board = BoardState.parse(args.board, geometry_by_name(args.geometry))
    if not isinstance(args.depth, int) or not 1 <= args.depth <= 8:
        raise EngineError(f"--depth {args.depth}: look 1 to 8 drops ahead (each drop multiplies the work by 8)")
    scores = _pair(args.scores, "--scores")
    totals = _pair(args.totals, "--totals") if args.totals else scores
    values = list(VALUES)
    if args.values:
        values[args.round - 1] = tuple(parse_values(args.values))
    targets = list(TARGETS)
    if args.halved:
        targets[-1] = HALVED_FINAL_TARGET
    return Position(board=board, round=args.round, round_scores=scores, totals=totals, to_move=args.to_move,
                    values=tuple(values), targets=tuple(targets))


def run(args) -> int:
    position = position_from_args(args)
    h = hint(position, depth=args.depth, searcher=Searcher(args.depth, HINT_THREAT))
    if args.json:
        print(json.dumps(h.to_json()))
        return 0
    holes = sum(1 for c in position.board.codes if c == HOLE)
    print(f"Player {position.to_move} to drop, round {position.round} (target {position.target}), "
          f"scores {position.round_scores[0]}-{position.round_scores[1]}"
          + (f", totals {position.totals[0]}-{position.totals[1]}" if position.totals != position.round_scores else "")
          + (", last drop of the round" if position.last_drop else "")
          + (f", {holes} holes" if holes else "") + f"; looking {args.depth} drops ahead")
    print(f"\nHint: {h.short}")
    print(h.text)
    print("\n rank  entry   now  reply (entry)  net   resting  note")
    for rank, a in enumerate(h.alternatives, 1):
        reply = "-" if a.reply is None else f"{fmt_points(a.reply):>5} ({a.reply_entry + 1})"
        net = {"win": "win", "loss": "loss"}.get(a.decided, f"{a.value:+.1f}")
        note = ("ends the match" if a.ends_match else "last drop" if a.ends_round
                else "reaches target" if a.reaches_target else "")
        if a.swallowed:
            note = (note + ", " if note else "") + f"{a.swallowed} in a hole"
        print(f" {rank:>4}  {a.entry + 1:>5}  {fmt_points(a.points):>4}  {reply:<13} {net:>5}  {a.resting:>7}  {note}".rstrip())
    return 0
