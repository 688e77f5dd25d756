"""Computer players, solo levels, look-ahead and hints, on the engine alone (no I/O)."""

from .hint import Alternative, Hint, fmt_points, hint
from .levels import LEVELS, EasyPlayer, HardPlayer, LevelPlayer, MediumPlayer, level_player
from .players import GreedyPlayer, Player, RandomPlayer, player_by_name
from .search import WIN, Line, Position, Searcher, Step
from .solo import ComputerDrop, computer_drop

__all__ = [
    "Alternative",
    "ComputerDrop",
    "EasyPlayer",
    "GreedyPlayer",
    "HardPlayer",
    "Hint",
    "LEVELS",
    "LevelPlayer",
    "Line",
    "MediumPlayer",
    "Player",
    "Position",
    "RandomPlayer",
    "Searcher",
    "Step",
    "WIN",
    "computer_drop",
    "fmt_points",
    "hint",
    "level_player",
    "player_by_name",
]
