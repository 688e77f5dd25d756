"""Computer players and hints, on the engine alone (no I/O)."""

from .players import GreedyPlayer, Player, RandomPlayer, player_by_name

__all__ = ["GreedyPlayer", "Player", "RandomPlayer", "player_by_name"]
