"""What a person can do with the table's knob and buttons: one vocabulary
for the keypad that reads them (``io``), the flow that acts on them
(``table``), scripts and the control socket. Pure: no hardware, no asyncio.

A ``Press`` is a ``str`` enum, so ``Press.NEXT == "next"`` and the names
travel as plain text in journals, scripts and sockets.
"""

from __future__ import annotations

from enum import Enum


class Press(str, Enum):
    NEXT = "next"  # knob clockwise / down
    PREV = "prev"  # knob anticlockwise / up
    SELECT = "select"  # a short press
    BACK = "back"
    HOLD_SELECT = "hold-select"  # the knob held down
    HOLD_BACK = "hold-back"

    def __str__(self) -> str:
        return self.value


NEXT, PREV, SELECT, BACK, HOLD_SELECT, HOLD_BACK = Press
ACTIONS = tuple(p.value for p in Press)
