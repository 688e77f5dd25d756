"""What the table flow asks the outside world to do.

The flow is pure: it never touches a buzzer, a LED, the dropper or the
reconciler. It appends ``Effect``s, and the daemon carries them out in order.

Each effect is its own frozen dataclass (``Sound("score")``, ``Led(3,
"blink")``, ``Belief(board)``...), told apart by its ``kind`` (a ``Kind``,
a ``str`` enum, so ``Sound("x").kind == "sound"``). Every effect also reads
as ``kind, name, entry, data`` for code that handles them all alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar


class Kind(str, Enum):
    SOUND = "sound"
    LED = "led"
    LEDS_OFF = "leds-off"
    DROP = "drop"
    BELIEF = "belief"
    EXPECT = "expect"
    NEW_MATCH = "new-match"
    END_MATCH = "end-match"
    REOPEN_MATCH = "reopen-match"
    WAKE = "wake"
    HANDS = "hands"

    def __str__(self) -> str:
        return self.value


SOUND, LED, LEDS_OFF, DROP, BELIEF, EXPECT, NEW_MATCH, END_MATCH, REOPEN_MATCH, WAKE, HANDS = Kind


class Effect:
    kind: ClassVar[Kind]
    name: str = ""
    entry: int | None = None

    @property
    def data(self) -> Any:
        return None


@dataclass(frozen=True)
class Sound(Effect):
    """A sound from ``coindrel.io.sounds``, by its name."""

    kind: ClassVar[Kind] = Kind.SOUND
    name: str


@dataclass(frozen=True)
class Led(Effect):
    """One entry's LED: ``name`` is "on", "blink" or "off"."""

    kind: ClassVar[Kind] = Kind.LED
    entry: int
    name: str


@dataclass(frozen=True)
class LedsOff(Effect):
    kind: ClassVar[Kind] = Kind.LEDS_OFF


@dataclass(frozen=True)
class Drop(Effect):
    """Fire the dropper over ``entry`` (``name`` "blink": the clock chose it,
    as its LED would show on a table without a dropper)."""

    kind: ClassVar[Kind] = Kind.DROP
    entry: int
    name: str = ""


@dataclass(frozen=True)
class Belief(Effect):
    """The board the reconciler must now believe."""

    kind: ClassVar[Kind] = Kind.BELIEF
    board: Any  # an engine BoardState
    halls_right: bool = False  # the players vouched for the board as its hall sensors read it
    by_hand: frozenset = frozenset()  # pads people were asked to put a coin on or take one off
    unput: frozenset = frozenset()  # rockers a put-back left where their halls read them ("Not yet" held past)

    @property
    def data(self):
        return self.board


@dataclass(frozen=True)
class Hands(Effect):
    """People's hands are on the board as the table asked (``on``: putting it
    back after an undo) or done: the rockers they push over are no evidence of
    a fault, so the faults believed before them are kept as they were.
    ``steps``: with ``on``, what they were asked to do, in the list's order, as
    plain data (``restore.as_asked``): a coin that goes in before they are done
    meets the board as far as they got."""

    kind: ClassVar[Kind] = Kind.HANDS
    on: bool
    steps: tuple = ()

    @property
    def data(self):
        return self.on


@dataclass(frozen=True)
class Expect(Effect):
    """Whether a drop can come now (the reconciler's expecting flag)."""

    kind: ClassVar[Kind] = Kind.EXPECT
    on: bool

    @property
    def data(self):
        return self.on


@dataclass(frozen=True)
class NewMatch(Effect):
    """A match began: journal it from its first line."""

    kind: ClassVar[Kind] = Kind.NEW_MATCH
    match: Any  # an engine Match

    @property
    def data(self):
        return self.match


@dataclass(frozen=True)
class EndMatch(Effect):
    """``match`` ended: ``name`` is "finished" or "abandoned" (the flow may
    have let go of it by the time the daemon journals its end)."""

    kind: ClassVar[Kind] = Kind.END_MATCH
    name: str
    match: Any = None

    @property
    def data(self):
        return self.match


@dataclass(frozen=True)
class ReopenMatch(Effect):
    """``match`` was filed as finished, and the players undo or correct its
    last drop: its journal comes back from the history and takes what follows."""

    kind: ClassVar[Kind] = Kind.REOPEN_MATCH
    match: Any = None

    @property
    def data(self):
        return self.match


@dataclass(frozen=True)
class Wake(Effect):
    """A person did something: full brightness."""

    kind: ClassVar[Kind] = Kind.WAKE
