"""The catalog of the flow's screens: one row per ``Mode``.

Adding a screen: a ``Mode`` member (``modes.py``), its ``Screen`` (a module
of its own, or ``modes_menu``/``modes_match``), and its row here
(docs/extending.md). ``tests/table/test_screens.py`` fails when a mode has
no row.
"""

from __future__ import annotations

from .clubrequest import ClubRequest
from .modes import Screen, catalog
from .modes_match import Correct, Mismatch, Paused, Restore, Result, Reveal, RoundResult, Turn
from .modes_menu import History, Lesson, Lessons, Menu, Names, Rules
from .modes_pads import CheckPads

SCREENS: dict[str, Screen] = catalog(
    Menu(), Names(), Rules(), History(), Lessons(), Lesson(), ClubRequest(),
    Reveal(), Turn(), Paused(), Mismatch(), Correct(), Restore(), CheckPads(), RoundResult(), Result(),
)
