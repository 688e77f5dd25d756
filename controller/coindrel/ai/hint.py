"""Think ahead: the best entry for the player to move, and why.

``hint(match)`` (or a ``Position``) looks ahead with ``Searcher`` and returns
a ``Hint``: the best entry, its points now, the opponent's best reply, a
short line for a 128x64 OLED, a few OLED lines, a longer sentence for a
terminal or log, and every entry ranked as ``Alternative``s.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import Match
from .search import WIN, Line, Position, Searcher, position_of

OLED_WIDTH = 21  # characters per line with the small font on 128x64
HINT_DEPTH = 2
HINT_THREAT = 0.75


def fmt_points(p: float | None) -> str:
    """Whole points as whole numbers; an expectation (shuffled exits not yet
    revealed) with one decimal and a tilde."""
    if p is None:
        return "-"
    if float(p).is_integer():
        return str(int(p))
    return f"~{p:.1f}"


@dataclass(frozen=True)
class Alternative:
    """One entry as the hint rates it. Entries are 0-based (people read +1)."""

    entry: int
    points: float  # this drop's points
    reply_entry: int | None  # the opponent's best reply (None: the match ends)
    reply: float | None  # that reply's points
    value: float  # net gain the look-ahead expects (+/- WIN: decides the match)
    resting: int  # coins left resting on pads
    swallowed: int  # coins lost in holes
    reaches_target: bool  # the opponent then takes the round's last drop
    ends_round: bool  # this is the round's last drop
    ends_match: bool

    @property
    def decided(self) -> str | None:
        """'win', 'loss' or None when the look-ahead does not reach the end."""
        if self.value >= WIN / 2:
            return "win"
        if self.value <= -WIN / 2:
            return "loss"
        return None

    def short(self) -> str:
        """One OLED line (at most 21 characters)."""
        head = f"Entry {self.entry + 1}: {fmt_points(self.points)}"
        if self.ends_match:
            tail = ", wins" if self.decided == "win" else ", ends"
        elif self.ends_round:
            tail = ", last"
        else:
            tail = f", reply {fmt_points(self.reply)}"
        line = head + tail
        return line if len(line) <= OLED_WIDTH else head[:OLED_WIDTH]

    def to_json(self) -> dict:
        return {
            "entry": self.entry + 1,
            "points": self.points,
            "reply_entry": None if self.reply_entry is None else self.reply_entry + 1,
            "reply": self.reply,
            "value": round(self.value, 3),
            "resting": self.resting,
            "swallowed": self.swallowed,
            "reaches_target": self.reaches_target,
            "ends_round": self.ends_round,
            "ends_match": self.ends_match,
        }


@dataclass(frozen=True)
class Hint:
    """The best entry for the player to move (0-based ``entry``), and why."""

    entry: int
    points: float
    reply_entry: int | None
    reply: float | None
    short: str  # one OLED line, e.g. "Entry 6: 9, reply 2"
    lines: tuple[str, ...]  # a few OLED lines (<= 21 characters each)
    text: str  # the longer sentence
    alternatives: tuple[Alternative, ...]  # every entry, best first (the hint itself first)
    depth: int
    to_move: int

    @property
    def best(self) -> Alternative:
        return self.alternatives[0]

    def to_json(self) -> dict:
        return {
            "entry": self.entry + 1,
            "points": self.points,
            "reply_entry": None if self.reply_entry is None else self.reply_entry + 1,
            "reply": self.reply,
            "short": self.short,
            "lines": list(self.lines),
            "text": self.text,
            "depth": self.depth,
            "to_move": self.to_move,
            "alternatives": [a.to_json() for a in self.alternatives],
        }


def _alternative(line: Line) -> Alternative:
    step = line.step
    return Alternative(
        entry=line.entry,
        points=line.points,
        reply_entry=line.reply_entry,
        reply=line.reply,
        value=line.value,
        resting=step.resting,
        swallowed=step.swallowed,
        reaches_target=step.reaches_target,
        ends_round=step.ends_round,
        ends_match=step.ends_match,
    )


def _sentence(best: Alternative, alts: tuple[Alternative, ...], position: Position) -> str:
    e, pts = best.entry + 1, fmt_points(best.points)
    words = "point" if best.points == 1 else "points"
    if best.ends_match:
        me = position.to_move - 1
        mine = position.totals[me] + best.points
        theirs = position.totals[1 - me]
        result = (f"you win {fmt_points(mine)} to {fmt_points(theirs)}" if mine > theirs
                  else "a draw" if mine == theirs else f"you lose {fmt_points(mine)} to {fmt_points(theirs)}")
        text = f"Entry {e}: {pts} {words} now, the last drop of the match: {result}."
    elif best.ends_round:
        text = (f"Entry {e}: {pts} {words} now, the last drop of round {position.round}; "
                f"then round {position.round + 1} starts with the opponent's drop (best {fmt_points(best.reply)}).")
    else:
        text = f"Entry {e}: {pts} {words} now, opponent's best reply {fmt_points(best.reply)} (entry {best.reply_entry + 1})."
        if best.reaches_target:
            text += f" It reaches the target of {position.target}: that reply is the last drop of the round."
    if best.decided == "win" and not best.ends_match:
        text += " It wins the match, whatever the replies."
    if best.swallowed:
        text += f" {best.swallowed} coin{'s' if best.swallowed > 1 else ''} fall{'' if best.swallowed > 1 else 's'} in a hole."
    if not best.ends_match:
        text += f" Leaves {best.resting} coin{'' if best.resting == 1 else 's'} resting."
    greedy = max(alts, key=lambda a: (a.points, -alts.index(a)))
    if greedy.points > best.points and greedy.entry != best.entry:
        if greedy.ends_round or greedy.ends_match:
            text += f" Entry {greedy.entry + 1} scores more now ({fmt_points(greedy.points)}) but is worth less over the next drops."
        else:
            text += (f" Entry {greedy.entry + 1} scores more now ({fmt_points(greedy.points)}) "
                     f"but allows a reply of {fmt_points(greedy.reply)}.")
    return text


def _oled_lines(best: Alternative) -> tuple[str, ...]:
    lines = [f"Best: entry {best.entry + 1}", f"{fmt_points(best.points)} points now"]
    if best.ends_match:
        lines.append("Last drop of match")
    elif best.ends_round:
        lines.append("Last drop of round")
    else:
        lines.append(f"Reply: {fmt_points(best.reply)} (entry {best.reply_entry + 1})")
        if best.reaches_target:
            lines.append("Reaches the target")
    return tuple(line[:OLED_WIDTH] for line in lines)


def hint(match_or_position: Match | Position, depth: int = HINT_DEPTH, searcher: Searcher | None = None) -> Hint:
    """The best entry for the player to move in ``match_or_position``.

    Pass a ``Searcher`` kept for the whole match to reuse its caches; its
    ``threat`` weight applies, ``depth`` here wins over its own.
    """
    position = position_of(match_or_position)
    searcher = searcher or Searcher(depth, HINT_THREAT)
    alts = tuple(_alternative(line) for line in searcher.analyse(position, depth))
    best = alts[0]
    return Hint(
        entry=best.entry,
        points=best.points,
        reply_entry=best.reply_entry,
        reply=best.reply,
        short=best.short(),
        lines=_oled_lines(best),
        text=_sentence(best, alts, position),
        alternatives=alts,
        depth=depth,
        to_move=position.to_move,
    )
