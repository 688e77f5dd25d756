"""Simple computer players: the baselines for demos, soak runs and benchmarks.

A player looks at a ``Match`` (never changes it) and names an entry. Ties are
broken with the player's own seeded generator so runs repeat exactly.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..engine import BoardState, EngineError, Match, drop
from ..engine.rng import MatchRandom


class Player(ABC):
    name = "player"

    def __init__(self, seed: int = 0):
        self.rng = MatchRandom(seed)

    @abstractmethod
    def choose(self, match: Match) -> int:
        """The entry (0-based) this player drops in for the player to move."""


class RandomPlayer(Player):
    """Drops in a uniformly random entry."""

    name = "random"

    def choose(self, match: Match) -> int:
        return self.rng.randbelow(match.geometry.entry_count)


def points_now(board: BoardState, values, entry: int) -> int:
    return sum(values[x] for x in drop(board, [entry]).exits)


class GreedyPlayer(Player):
    """Takes the entry that scores most on this drop (random among equals)."""

    name = "greedy"

    def choose(self, match: Match) -> int:
        scores = [points_now(match.board, match.values, e) for e in range(match.geometry.entry_count)]
        best = max(scores)
        return self.rng.choice([e for e, s in enumerate(scores) if s == best])


PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer}


def player_by_name(name: str, seed: int = 0) -> Player:
    """A computer player: the baselines above or a solo level (easy, medium, hard)."""
    from .levels import LEVELS  # the levels build on this module

    kinds = {**PLAYERS, **LEVELS}
    try:
        return kinds[name](seed)
    except KeyError:
        raise EngineError(f"unknown computer player {name!r}; choose from {', '.join(kinds)}") from None
