"""What a drop did, in the game's words, computed from the engine.

``trace(state, entries)`` runs a drop through the engine's transition table
and counts, per switch, the coins its pad caught, the flips and the resting
coins knocked loose, plus the exits reached and the holes that swallowed
coins. Every switch sees only how many coins arrive at it, so these counts do
not depend on the order coins are processed in (rules.md section 4).

``explain(trace, scoring)`` turns that into short lines (at most 21
characters, one line of a 128x64 OLED with the small font).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Sequence

from ..engine import COIN, HOLE, BoardState, EngineError, topology

WIDTH = 21


def wrap(text: str, width: int = WIDTH) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


@dataclass(frozen=True)
class Trace:
    """A drop's facts, per switch number (counts) and per coin (exits, holes)."""

    entries: tuple[int, ...]
    exits: tuple[int, ...]  # sorted lanes, one per coin
    flips: tuple[int, ...]
    caught: tuple[int, ...]  # coins a pad caught (and kept resting)
    loose: tuple[int, ...]  # resting coins tipped out by a flip
    holes: tuple[int, ...]  # switch numbers of holes that swallowed a coin, sorted
    visited: frozenset[int]  # every switch (or hole) a coin reached
    board: BoardState  # the board afterwards

    @property
    def labels(self) -> tuple[str, ...]:
        return self.board.geometry.labels

    def named(self, counts: Sequence[int]) -> list[str]:
        return [self.labels[s] for s, c in enumerate(counts) if c]

    @property
    def flipped(self) -> list[str]:
        return self.named(self.flips)

    @property
    def rested(self) -> list[str]:
        """Switches whose pad caught a coin that is still resting there."""
        codes = self.board.codes
        return [self.labels[s] for s, c in enumerate(self.caught) if c and codes[s] != HOLE and codes[s] & COIN]

    @property
    def knocked_loose(self) -> list[str]:
        return self.named(self.loose)

    @property
    def swallowed(self) -> int:
        return len(self.holes)


def trace(state: BoardState, entries: Sequence[int]) -> Trace:
    """Run a drop on a copy of ``state`` and record what every switch did."""
    g = state.geometry
    topo = topology(g)
    n = topo.n
    for e in entries:
        if not isinstance(e, int) or isinstance(e, bool) or not 0 <= e < g.entry_count:
            raise EngineError(f"entry {e!r} is not an entry of this board (0..{g.entry_count - 1})")
    board = state.copy()
    codes = board.codes
    flips, caught, loose = [0] * n, [0] * n, [0] * n
    holes, exits, visited = [], [], set()
    stack = [topo.entries[e] for e in entries]
    while stack:
        s = stack.pop()
        if s >= n:
            if s < topo.swallow:
                exits.append(s - n)
            continue  # a jam cannot happen on a fault-free board
        visited.add(s)
        old = codes[s]
        if old == HOLE:
            holes.append(s)
            continue
        new, targets, flipped = topo.table[s][old]
        codes[s] = new
        if flipped:
            flips[s] += 1
            if old & COIN:
                loose[s] += 1
        elif new & COIN and not old & COIN:
            caught[s] += 1
        stack.extend(targets)
    return Trace(tuple(entries), tuple(sorted(exits)), tuple(flips), tuple(caught), tuple(loose),
                 tuple(sorted(holes)), frozenset(visited), board)


@dataclass(frozen=True)
class Scoring:
    """Who drops and the round's scores, for the lines about points.

    ``scores`` None: the lesson does not keep score, only exit values count.
    ``last_drop``: this drop is the round's last drop (the other player
    reached the target)."""

    values: tuple[int, ...]
    player: int = 1
    scores: tuple[int, int] | None = None
    target: int = 10
    last_drop: bool = False
    round: int = 1

    def after(self, points: int) -> tuple[tuple[int, int] | None, bool, bool]:
        """(scores after, reaches the target, ends the round)."""
        if self.scores is None:
            return None, False, False
        s = list(self.scores)
        s[self.player - 1] += points
        if self.last_drop:
            return tuple(s), False, True
        return tuple(s), s[self.player - 1] >= self.target, False


def _listing(head: str, labels: Sequence[str]) -> list[str]:
    # ended like a sentence: the panel runs the lines together ("Flipped: R1S2 Caught on R2S1.")
    return wrap(f"{head} {' '.join(labels)}.")


def explain(tr: Trace, scoring: Scoring) -> list[str]:
    """Short lines saying what the drop did and what it scored."""
    lines: list[str] = []
    rested, flipped, loose = tr.rested, tr.flipped, tr.knocked_loose
    if flipped:
        lines += _listing("Flipped:", flipped)
    if loose:
        lines += _listing("Knocked loose:", loose)
    if rested:
        lines += _listing("Caught on", rested) if len(rested) > 1 else [f"Caught on {rested[0]}."]
    if tr.holes:
        names = sorted({tr.labels[s] for s in tr.holes})
        count = len(tr.holes)
        lines += wrap(f"{count} coin{'s' if count > 1 else ''} fell in a hole ({' '.join(names)}): no points.")
    points = sum(scoring.values[x] for x in tr.exits)
    if not tr.exits:
        if not rested or scoring.scores is not None:
            lines += ["No coin reached an", "exit: no points."]
    elif len(set(tr.exits)) <= 3:
        for x in sorted(set(tr.exits)):
            count, v = tr.exits.count(x), scoring.values[x]
            if count == 1:
                lines.append(f"Exit {x + 1}: {v} point{'' if v == 1 else 's'}")
            else:
                lines.append(f"Exit {x + 1} x{count}: {count * v} points")
        if len(tr.exits) > 1:
            lines.append(f"Total: {points} points")
    else:
        lines += _listing("Exits", [str(x + 1) for x in tr.exits])
        lines.append(f"Total: {points} points")
    lines += score_lines(scoring, points)
    return lines


def score_lines(scoring: Scoring, points: int) -> list[str]:
    after, reaches, ends = scoring.after(points)
    if after is None:
        return []
    me, other = scoring.player, 3 - scoring.player
    lines = [f"Player {me}: {scoring.scores[me - 1]}+{points} = {after[me - 1]}"]
    if reaches:
        lines += [f"Target {scoring.target} reached!", f"Player {other} gets", "one last drop."]
    elif ends:
        lines += ["That was the last", f"drop: round {scoring.round} over", f"({after[0]} to {after[1]})."]
    return lines
