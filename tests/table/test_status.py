"""The one-line status systemd shows: round and score."""

from __future__ import annotations

from coindrel.engine import Match, MatchSetup
from coindrel.table.status import status_text

from .support import SETUP


def test_no_match():
    assert status_text(None) == "Waiting for a new match"


def test_through_a_match():
    m = Match(SETUP)
    assert status_text(m) == "Round 1 of 4: Zoë 0, Bo 0; new exit values"
    m.reveal_done(1.0)
    assert status_text(m) == "Round 1 of 4: Zoë 0, Bo 0 (this round 0-0); Zoë to drop"
    m.play(7, 2.0)  # exit 16 pays 20 here: Zoë reaches the target
    assert status_text(m) == "Round 1 of 4: Zoë 20, Bo 0 (this round 20-0); last drop of the round, Bo"
    m.play(0, 3.0)
    assert status_text(m) == "Round 2 of 4: Zoë 20, Bo 0; new exit values"
    while not m.over:
        if m.phase == "reveal":
            m.reveal_done(4.0)
        m.play(7, 4.0)
    a, b = m.totals
    w = {1: "Zoë wins", 2: "Bo wins", "draw": "draw"}[m.winner]
    assert status_text(m, "hub disconnected") == f"Match over: Zoë {a}, Bo {b}; {w} [hub disconnected]"


def test_long_and_odd_names_stay_on_one_short_line():
    m = Match(MatchSetup(players=("Alexandra\nthe Great of Macedon", "B")))
    text = status_text(m)
    assert "\n" not in text and "Alexandra the G~ 0" in text
