"""``coindrel play``: a match in the terminal on the engine alone.

Two people key in entries (1-8), or computer players take one or both sides
(``--bots``). The board, scores, round, target and status line are redrawn
after every drop. This is the first main job until the daemon exists.
"""

from __future__ import annotations

import select
import sys
import time

from ..ai import player_by_name
from ..boardview import board_text
from ..engine import CLOCK_SETTINGS, EngineError, Match, MatchSetup, Variants, drop
from ..engine.match import exit_names

HELP = "play a match in the terminal: two people keying entries, or computer players (--bots)"

KINDS = ("human", "random", "greedy", "easy", "medium", "hard")


def add_arguments(p) -> None:
    p.add_argument("--players", default="Player 1,Player 2", help="two names, comma-separated")
    p.add_argument("--p1", choices=KINDS, default="human", help="who drops for player 1 (default human): a person, random, greedy, or a solo level easy/medium/hard")
    p.add_argument("--p2", choices=KINDS, default="human", help="who drops for player 2 (default human): a person, random, greedy, or a solo level easy/medium/hard")
    p.add_argument("--bots", action="store_true", help="computer players on both sides (greedy vs random) unless --p1/--p2 say otherwise")
    p.add_argument("--seed", type=int, default=None, help="seed for the match's generator (default: from the time)")
    p.add_argument("--start", help="start board text (default: seeded random pads)")
    p.add_argument("--holes", action="store_true", help="variant: Holes")
    p.add_argument("--halved", action="store_true", help="variant: Halved final round")
    p.add_argument("--shuffled", action="store_true", help="variant: Shuffled exits")
    p.add_argument("--clock", choices=sorted(CLOCK_SETTINGS), help="turn clock for people: 30, 60, 120 or turbo (5 s)")
    p.add_argument("--pace", type=float, default=None, help="seconds to pause after each computer drop (default 0.5 on a terminal, 0 otherwise)")
    p.add_argument("--ascii", action="store_true", help="plain ASCII board")


class Terminal:
    """Reads entries from stdin, with the turn clock enforced where it runs."""

    def __init__(self, out=None, inp=None):
        self.out, self.inp = out or sys.stdout, inp or sys.stdin  # the streams of now, not of the import

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str, timeout: float | None) -> str | None:
        """A line, '' on end of input, None when the clock ran out first."""
        self.out.write(prompt)
        self.out.flush()
        if timeout is not None:
            try:
                ready, _, _ = select.select([self.inp], [], [], max(0.0, timeout))
            except (OSError, ValueError):
                ready = [self.inp]  # not selectable (e.g. a test's StringIO): no clock
            if not ready:
                self.out.write("\n")
                return None
        line = self.inp.readline()
        return line if line else ""


def screen(match: Match, unicode: bool, last=None) -> str:
    names = match.setup.players
    rs, tot = match.round_scores, match.totals
    lines = [
        board_text(match.board, match.values, f"round {match.round}", last, unicode=unicode),
        "",
        f"Round {match.round} of 4   target {match.target}   " + "   ".join(
            f"{names[i]}: {rs[i]} (total {tot[i]})" for i in range(2)
        ),
        f"[{match.status()}]",
    ]
    return "\n".join(lines)


def run(args, terminal: Terminal | None = None, clock=time.monotonic) -> int:
    term = terminal or Terminal()
    names = [n.strip() for n in args.players.split(",")]
    if len(names) != 2 or not all(names):
        raise EngineError("--players takes two names separated by a comma, e.g. --players Ann,Bo")
    kinds = [args.p1, args.p2]
    if args.bots:
        kinds = [k if k != "human" else d for k, d in zip(kinds, ("greedy", "random"))]
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    limit = CLOCK_SETTINGS[args.clock] if args.clock else None
    setup = MatchSetup(
        players=tuple(names),
        variants=Variants(holes=args.holes, halved=args.halved, shuffled=args.shuffled),
        seed=seed,
        clock=limit,
        start=args.start,
    )
    match = Match(setup)
    bots = [None if k == "human" else player_by_name(k, seed + i + 1) for i, k in enumerate(kinds)]
    pace = args.pace if args.pace is not None else (0.5 if sys.stdout.isatty() else 0.0)
    unicode = not args.ascii
    term.say(f"Coindrel: {names[0]} ({kinds[0]}) vs {names[1]} ({kinds[1]}), seed {seed}"
             + (f", variants: {', '.join(setup.variants.names())}" if setup.variants.names() else ""))
    last = None
    while not match.over:
        if match.phase == "reveal":
            term.say(f"\n== Round {match.round}: target {match.target}; exit values "
                     + " ".join(str(v) for v in match.values) + " ==")
            match.reveal_done(clock())
        term.say("\n" + screen(match, unicode, last))
        who = match.to_move - 1
        bot = bots[who]
        if bot is not None:
            entry = bot.choose(match)
            term.say(f"{names[who]} drops in entry {entry + 1}")
            if pace:
                time.sleep(pace)
        else:
            entry = ask_entry(term, match, names[who], clock)
            if entry is None:
                term.say("Match abandoned; nothing more is scored.")
                return 1
            if entry == "undo":
                try:
                    undone = match.undo(clock())
                    term.say(f"Took back {names[undone.player - 1]}'s drop in entry {undone.entry + 1}.")
                except EngineError as e:
                    term.say(str(e))
                last = None
                continue
        last = drop(match.board, [entry])  # kept to mark flips and exits on the next screen
        result = match.record(entry, last.exits, last.board, clock())
        term.say(f"{names[result.player - 1]}: entry {entry + 1} -> {exit_names(result.exits)}: {result.points} points")
    term.say("\n" + screen(match, unicode))
    w = match.winner
    a, b = match.totals
    term.say(f"\nFinal: {names[0]} {a}, {names[1]} {b}. " + ("A draw." if w == "draw" else f"{names[w - 1]} wins."))
    return 0


def ask_entry(term: Terminal, match: Match, name: str, clock):
    """An entry from a person (0-based), "undo", or None to abandon the match."""
    while True:
        timeout = match.remaining(clock())
        forced = match.expire(clock()) if timeout is not None and timeout <= 0 else None
        if forced is not None:
            term.say(f"Time! The clock chose entry {forced + 1} for {name}.")
            return forced
        line = term.ask(f"{name}, entry 1-8 (u = undo, q = quit)" + (f" [{timeout:.0f}s]" if timeout is not None else "") + ": ",
                        timeout)
        if line is None:
            continue  # the clock ran out: the loop above chooses the entry
        text = line.strip().lower()
        if line == "" or text in ("q", "quit"):
            return None
        if text in ("u", "undo"):
            return "undo"
        if text.isascii() and text.isdigit() and len(text) <= 3 and 1 <= int(text) <= match.geometry.entry_count:
            return int(text) - 1
        term.say(f"{text!r} is not an entry: type a number 1-{match.geometry.entry_count}, u to undo or q to quit.")
