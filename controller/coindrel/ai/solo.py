"""Solo play on a board without a dropper: the computer names its entry, a
person drops the coin there, and the entry beam confirms it.

Pure: ``computer_drop(match, player)`` asks the level player for its entry
and returns what the OLED shows; ``ComputerDrop.confirm(entry_seen)`` says
whether the beam saw the coin go where it was asked. A coin that went in
elsewhere is in the board all the same: the match records the entry the
sensors saw (they are the truth of what happened), and the words say so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import EngineError, Match
from .players import Player


@dataclass(frozen=True)
class ComputerDrop:
    player: int  # the computer's side, 1 or 2
    entry: int  # the entry it chose, 0-based
    name: str  # the player's name (a level such as "hard")
    lines: tuple[str, ...]  # OLED lines (at most 21 characters)

    def confirm(self, entry_seen: int) -> tuple[bool, tuple[str, ...]]:
        """(as asked, OLED lines) once the entry beam saw the coin go in."""
        if entry_seen == self.entry:
            return True, (f"Entry {self.entry + 1}: thanks!",)
        return False, (f"That went in entry {entry_seen + 1}", f"(I asked for {self.entry + 1}).", "It counts where", "it went in.")


def computer_drop(match: Match, player: Player) -> ComputerDrop:
    """The computer's drop for the player to move in ``match``."""
    if match.over:
        raise EngineError("the match is over; the computer has no drop to make")
    entry = player.choose(match)
    return ComputerDrop(
        player=match.to_move,
        entry=entry,
        name=player.name,
        lines=("My turn." if not match.last_drop_pending else "My last drop.", "Drop my coin in", f"entry {entry + 1}, please."),
    )
