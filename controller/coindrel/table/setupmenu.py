"""The setup menu and the name editor: choices for the next match.

Pure state: actions in, a view out. The flow decides what "Start match",
"Rules", "History" and the lessons lead to.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..display import MenuItem, MenuView, NameEntryView
from ..engine import Variants
from ..engine.rounds import CLOCK_SETTINGS
from ..buttons import BACK, HOLD_SELECT, NEXT, PREV, SELECT

CLOCKS = ("30", "60", "120", "turbo", "off")
CLOCK_LABELS = {"30": "30 s", "60": "60 s", "120": "120 s", "turbo": "Turbo 5s", "off": "off"}
NAME_CHARS = " ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-."
MAX_NAME = 12

START, CLOCK, HOLES, HALVED, SHUFFLED, OPPONENT, PLAYER1, PLAYER2, RULES, LESSONS, HISTORY = range(11)


@dataclass
class Choices:
    clock: str = "60"
    variants: Variants = field(default_factory=Variants)
    players: tuple[str, str] = ("Player 1", "Player 2")
    opponent: str = "person"  # or a computer level

    @property
    def clock_seconds(self) -> float | None:
        return None if self.clock == "off" else CLOCK_SETTINGS[self.clock]


class SetupMenu:
    def __init__(self, choices: Choices, opponents: tuple[str, ...] = ("person",), lessons: bool = False):
        self.choices = choices
        self.opponents = opponents
        self.lessons = lessons
        self.selected = START

    def items(self) -> list[tuple[int, MenuItem]]:
        c, v = self.choices, self.choices.variants
        onoff = lambda b: "on" if b else "off"  # noqa: E731
        rows = [
            (START, MenuItem("Start match")),
            (CLOCK, MenuItem("Clock", CLOCK_LABELS[c.clock])),
            (HOLES, MenuItem("Holes", onoff(v.holes))),
            (HALVED, MenuItem("Halved final", onoff(v.halved))),
            (SHUFFLED, MenuItem("Shuffled exits", onoff(v.shuffled))),
        ]
        if len(self.opponents) > 1:
            rows.append((OPPONENT, MenuItem("Opponent", c.opponent)))
        rows += [(PLAYER1, MenuItem("Player 1", c.players[0])), (PLAYER2, MenuItem("Player 2", c.players[1])),
                 (RULES, MenuItem("Rules"))]
        if self.lessons:
            rows.append((LESSONS, MenuItem("Learn by playing")))
        rows.append((HISTORY, MenuItem("History")))
        return rows

    def view(self) -> MenuView:
        rows = self.items()
        keys = [k for k, _ in rows]
        index = keys.index(self.selected) if self.selected in keys else 0
        return MenuView("Coindrel", tuple(i for _, i in rows), index, "turn: choose  press: change")

    def act(self, action: str) -> int | None:
        """Handle an action; returns the item chosen when it leads elsewhere
        (START, PLAYER1, PLAYER2, RULES, LESSONS, HISTORY), else None."""
        keys = [k for k, _ in self.items()]
        i = keys.index(self.selected) if self.selected in keys else 0
        if action == NEXT:
            self.selected = keys[(i + 1) % len(keys)]
        elif action == PREV:
            self.selected = keys[(i - 1) % len(keys)]
        elif action in (SELECT, HOLD_SELECT):
            return self._choose(self.selected)
        return None

    def _choose(self, key: int) -> int | None:
        c = self.choices
        if key == CLOCK:
            c.clock = CLOCKS[(CLOCKS.index(c.clock) + 1) % len(CLOCKS)]
        elif key in (HOLES, HALVED, SHUFFLED):
            name = {HOLES: "holes", HALVED: "halved", SHUFFLED: "shuffled"}[key]
            c.variants = c.variants.replace(**{name: not getattr(c.variants, name)})
        elif key == OPPONENT:
            c.opponent = self.opponents[(self.opponents.index(c.opponent) + 1) % len(self.opponents)]
        else:
            return key
        return None


class NameEditor:
    """One character at a time: next/prev change the character under the
    cursor, select moves on, back moves back (or cancels at the start),
    hold-select finishes."""

    def __init__(self, title: str, name: str):
        self.title = title
        self.original = name
        self.chars = list(name[:MAX_NAME]) or ["A"]
        self.cursor = 0

    def view(self) -> NameEntryView:
        return NameEntryView(self.title, "".join(self.chars), min(self.cursor, MAX_NAME - 1), MAX_NAME)

    def act(self, action: str) -> str | None:
        """The finished name ("" when cancelled), or None while editing."""
        ch = self.chars[self.cursor]
        k = NAME_CHARS.find(ch)
        if action in (NEXT, PREV):
            step = 1 if action == NEXT else -1
            self.chars[self.cursor] = NAME_CHARS[(k + step) % len(NAME_CHARS)]
        elif action == SELECT:
            if self.cursor + 1 < MAX_NAME:
                self.cursor += 1
                if self.cursor == len(self.chars):
                    self.chars.append(" ")
        elif action == BACK:
            if self.cursor == 0:
                return ""
            self.cursor -= 1
        elif action == HOLD_SELECT:
            name = "".join(self.chars).strip()
            return name or self.original
        return None
