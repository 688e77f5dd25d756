"""The catalog of the flow's screens: one row per mode, each row its mode's."""

import pytest

from coindrel.engine import EngineError, standard_geometry
from coindrel.table.flow import TableFlow
from coindrel.table.modes import Mode, Screen, catalog
from coindrel.table.screens import SCREENS
from coindrel.table.setupmenu import Choices


def test_every_mode_has_exactly_its_screen():
    assert set(SCREENS) >= set(Mode), f"modes without a screen: {sorted(set(Mode) - set(SCREENS))}"
    for mode, screen in SCREENS.items():
        assert isinstance(screen, Screen) and screen.mode == mode
        assert type(screen).act is not Screen.act and type(screen).view is not Screen.view, mode


def test_which_screens_wait_for_a_drop_and_what_a_coin_elsewhere_is_called():
    assert {m for m, s in SCREENS.items() if s.in_turn} == {Mode.TURN, Mode.REVEAL, Mode.MISMATCH, Mode.CHECK_PADS}
    assert SCREENS[Mode.PAUSED].aside == "the match was paused"
    assert SCREENS[Mode.MENU].aside == "no coin was asked for"


def test_a_mode_twice_in_a_catalog_and_an_unknown_mode_are_refused():
    with pytest.raises(ValueError, match="already has its screen"):
        catalog(SCREENS[Mode.MENU], SCREENS[Mode.MENU])
    flow = TableFlow(standard_geometry(), Choices(), new_seed=lambda: 1)
    flow.mode = "lessons"  # a mode's text is the mode
    assert flow.mode is Mode.LESSONS
    with pytest.raises(EngineError, match="no screen for mode 'nowhere'"):
        flow.mode = "nowhere"
