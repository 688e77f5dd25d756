"""The three solo levels: a computer opponent for one person at the table.

Each level is a ``Player``: ``choose(match)`` looks at the match (never
changes it) and names an entry, breaking ties with its own seeded generator
so a solo match replays exactly. The levels differ in how far they look:

- ``easy``: takes the drop that scores most now, but about one drop in three
  is a careless random one. Beats a random player; loses most matches to a
  steady greedy player. For someone who has just learnt the game.
- ``medium``: weighs points now against the opponent's best reply (two
  drops), with the target and last-drop rule. Won all 1,000 matches
  against greedy play.
- ``hard``: looks four drops ahead, scoring the coins left resting for
  whoever moves at the horizon; beats ``medium`` nearly always.

Win rates over 1,000 matches per pairing (``python benchmarks/bench_ai.py``;
each side plays first in half of the matches, every match from its own
seeded random board; mean margin in match points):

| level  | vs random        | vs greedy        | vs the level below          |
|--------|------------------|------------------|-----------------------------|
| easy   | 99.9% (+141)     | 14.8% (-58)      | -                           |
| medium | 100.0% (+166)    | 100.0% (+124)    | 100.0% vs easy (+136)       |
| hard   | 100.0% (+161)    | 100.0% (+116)    | 97.9% vs medium (+43)       |

Looking four drops ahead takes 3.5 ms on average (9 ms at worst) on the
development machine (Python 3.11, x86_64); two drops 0.6 ms.
"""

from __future__ import annotations

from ..engine import EngineError, Match
from .players import Player
from .search import Position, Searcher


class LevelPlayer(Player):
    """A computer opponent at one solo level (see the module's table)."""

    name = "level"
    title = ""
    blurb = ""
    depth = 1
    threat = 0.0
    slip = 0.0  # chance of a careless random drop

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self.searcher = Searcher(self.depth, self.threat)

    def choose(self, match: Match) -> int:
        if self.slip and self.rng.random() < self.slip:
            return self.rng.randbelow(match.geometry.entry_count)
        return self.rng.choice(self.searcher.best(Position.from_match(match)))


class EasyPlayer(LevelPlayer):
    name, title = "easy", "Easy"
    blurb = "grabs points, slips"
    depth, slip = 1, 0.3


class MediumPlayer(LevelPlayer):
    name, title = "medium", "Medium"
    blurb = "watches your reply"
    depth = 2


class HardPlayer(LevelPlayer):
    name, title = "hard", "Hard"
    blurb = "thinks 4 drops ahead"
    depth, threat = 4, 0.75


LEVELS = {p.name: p for p in (EasyPlayer, MediumPlayer, HardPlayer)}


def level_player(name: str, seed: int = 0) -> LevelPlayer:
    """The solo opponent for level ``name`` (easy, medium or hard)."""
    try:
        return LEVELS[name](seed)
    except KeyError:
        raise EngineError(f"unknown solo level {name!r}; choose from {', '.join(LEVELS)}") from None
