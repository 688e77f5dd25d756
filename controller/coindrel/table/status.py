"""The one-line status of a match, as ``systemctl status coindrel`` shows it
(sd_notify ``STATUS=``) and as the log prints it."""

from __future__ import annotations

from ..engine import Match
from ..engine.rounds import ROUNDS

NAME_WIDTH = 16


def _name(name: str) -> str:
    name = " ".join(name.split())
    return name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "~"


def status_text(match: Match | None, note: str = "") -> str:
    """E.g. ``Round 2 of 4: Ann 23, Bo 17 (this round 12-9); Bo to drop``."""
    if match is None:
        text = "Waiting for a new match"
    else:
        a, b = (_name(p) for p in match.setup.players)
        ta, tb = match.totals
        if match.over:
            w = match.winner
            result = "draw" if w == "draw" else f"{_name(match.setup.players[w - 1])} wins"
            text = f"Match over: {a} {ta}, {b} {tb}; {result}"
        else:
            ra, rb = match.round_scores
            head = f"Round {match.round} of {ROUNDS}: {a} {ta}, {b} {tb}"
            if match.phase == "reveal":
                text = f"{head}; new exit values"
            else:
                who = _name(match.setup.players[match.to_move - 1])
                turn = f"last drop of the round, {who}" if match.last_drop_pending else f"{who} to drop"
                text = f"{head} (this round {ra}-{rb}); {turn}"
    if note:
        text = f"{text} [{note}]"
    return " ".join(text.split())
