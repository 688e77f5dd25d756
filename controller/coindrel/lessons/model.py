"""Lessons as data: a lesson is a few steps, each a board set-up, one
instruction, one intended drop, and what that drop teaches.

Everything here is computed when the lesson file is loaded (``loader``) and
checked against the engine there, so a runner never meets a step whose
promised outcome is not what the rules say.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import BoardState
from ..errors import CoindrelError
from .explain import Scoring, Trace, explain, trace

OLED_WIDTH = 21  # characters per line on the 128x64 OLED (small font)
MAX_TEXT_LINES = 5
MAX_AFTER_LINES = 4


class LessonError(CoindrelError, ValueError):
    """A lesson file that cannot be taught: the message names the file, the
    step and the key, and what to write instead."""


@dataclass(frozen=True)
class LessonStep:
    number: int  # 1-based
    title: str
    text: tuple[str, ...]  # the instruction, OLED lines
    board: str  # the set-up (rules.md section 9 text form)
    entry: int  # the intended drop, 0-based
    after: tuple[str, ...]  # the step's point, shown after a drop that went as planned
    scoring: Scoring
    show_hint: bool  # show the look-ahead hint with the instruction
    show_reply: bool  # after the drop, say the opponent's best single drop
    required: tuple[tuple[str, str], ...]  # (switch label, "L" | "R" | "none") the player must set
    coins: tuple[str, ...]  # pads that hold a coin in the set-up (and no others)
    board_after: str  # after the intended drop

    @property
    def state(self) -> BoardState:
        """A fresh copy of the set-up board."""
        return BoardState.parse(self.board)

    def trace(self) -> Trace:
        """The intended drop, traced by the engine."""
        return trace(self.state, [self.entry])

    def explanation(self) -> list[str]:
        return explain(self.trace(), self.scoring)


@dataclass(frozen=True)
class Lesson:
    name: str  # the file name without .toml, e.g. "drop-a-coin"
    title: str
    order: int
    extra: bool  # one of the extras after the five lessons
    summary: str
    holes: bool  # taught on the Holes variant's board
    steps: tuple[LessonStep, ...]
    source: str  # where it was loaded from (for messages)

    def __len__(self) -> int:
        return len(self.steps)
