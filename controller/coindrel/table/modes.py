"""The flow's modes (screens): one vocabulary, one catalog.

A ``Mode`` names a screen of the table (a ``str`` enum: it travels as text
in status lines, logs and the control socket). A ``Screen`` is that mode's
one object: what each button does there (``act``), what the panel shows
(``view``), what the passing of time does (``tick``), what it asks hands to
do on the board (``asking``), and the facts about it the rest of the flow
reads (a coin now is the drop the table waits for, or out of turn and why).

``screens.SCREENS`` is the catalog: one row per mode, and a test fails
when a mode lacks its row. ``register`` adds a screen from outside the
package (docs/extending.md).
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from ..buttons import Press
    from .flow import TableFlow


class Mode(str, Enum):
    MENU = "menu"
    NAMES = "names"
    RULES = "rules"
    HISTORY = "history"
    LESSONS = "lessons"
    LESSON = "lesson"
    CLUB_REQUEST = "club-request"
    REVEAL = "reveal"
    TURN = "turn"
    PAUSED = "paused"
    MISMATCH = "mismatch"
    CORRECT = "correct"
    RESTORE = "restore"
    CHECK_PADS = "check-pads"
    ROUND_RESULT = "round-result"
    RESULT = "result"

    def __str__(self) -> str:
        return self.value


class Screen:
    """One mode of the flow. Subclasses set ``mode`` and write ``act`` and
    ``view``; the rest has defaults that fit most screens."""

    mode: ClassVar[str]  # a Mode (or a plug-in's own str enum member)
    in_turn: ClassVar[bool] = False  # a coin now is the drop the table waits for
    aside: ClassVar[str] = "no coin was asked for"  # else: why a coin now came out of turn (the mismatch screen says it)
    over_match: ClassVar[bool] = False  # the hub lost shows over it; messages and notes carry the turn clock
    messages: ClassVar[bool] = False  # a message (a question, a hint) shows over it until answered or timed out

    def coin_in(self, name: str) -> str:
        """What the players are told of a coin that went in while this screen
        was up (one not ``in_turn``): it counts as ``name``'s drop."""
        return f"A coin came in out of turn, while {self.aside}: it counts as {name}'s drop."

    def act(self, flow: "TableFlow", press: "Press", now: float) -> None:
        raise NotImplementedError

    def view(self, flow: "TableFlow", now: float):
        raise NotImplementedError

    def tick(self, flow: "TableFlow", now: float, board_now: float | None) -> None:
        """Time passed (the flow calls it once a step)."""

    def asking(self, flow: "TableFlow") -> tuple:
        """What the table waits for people's hands to do on the board (``restore.HandStep``s)."""
        return ()


def catalog(*screens: Screen) -> dict[str, Screen]:
    """The catalog of ``screens``, one row per mode; a mode twice is an error."""
    rows: dict[str, Screen] = {}
    for s in screens:
        register(s, rows)
    return rows


def register(screen: Screen, rows: dict[str, Screen] | None = None) -> Screen:
    """Add ``screen`` to the catalog (the flow's, unless ``rows`` is given)."""
    if rows is None:
        from .screens import SCREENS as rows
    mode = getattr(type(screen), "mode", None)
    if not isinstance(mode, str) or not mode:
        raise TypeError(f"{type(screen).__name__} names no mode")
    if mode in rows:
        raise ValueError(f"mode {str(mode)!r} already has its screen ({type(rows[mode]).__name__})")
    rows[mode] = screen
    return screen
