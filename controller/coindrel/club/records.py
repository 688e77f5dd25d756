"""What a table tells the club, built from the engine's own objects.

The daemon (or any driver) calls these with its ``Match`` and hands the dicts
to ``ClubLink``; the link adds the schema, the table's name, the outbox's
source and sequence number. Texts are cut to the club's limits here, so a
long explanation never makes a message the club would refuse.
"""

from __future__ import annotations

import math
from typing import Sequence

from ..engine import Match, TurnResult
from .messages import MAX_LIST, MAX_TEXT


def _cut(text: str) -> str:
    text = str(text or "")
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def state_of(match: Match | None, *, match_id: str | None, now: float | None = None, status: str = "",
             link: str = "ok", health: str = "ok", faults: Sequence[str] = ()) -> dict:
    """The retained state: the table as it stands (no match: only its health)."""
    out = {"match": match_id if match is not None else None, "status": _cut(status), "link": _cut(link),
           "health": _cut(health), "faults": [_cut(f) for f in list(faults)[:MAX_LIST]]}
    if match is None:
        return out
    remaining = match.remaining(now) if now is not None else None
    out.update(
        players=list(match.setup.players), round=match.round, target=match.target,
        round_scores=list(match.round_scores), totals=list(match.totals), to_move=match.to_move,
        clock=None if remaining is None else math.ceil(max(0.0, remaining)),  # whole seconds: one state a second
        last_drop=match.last_drop_pending, board=match.board.text(), values=list(match.values),
        phase=match.phase, winner=match.winner,
    )
    if not status:
        out["status"] = _cut(match.status())
    return out


def drop_of(match_id: str, turn: int, result: TurnResult, *, verdict: str = "ok", explanation: str = "") -> dict:
    """One scored drop; ``turn`` counts the match's drops from 1."""
    return {
        "match": match_id, "turn": turn, "player": result.player, "entry": result.entry,
        "exits": list(result.exits), "points": result.points, "round": result.round,
        "round_scores": list(result.round_scores), "totals": list(result.totals),
        "verdict": _cut(verdict), "explanation": _cut(explanation), "board": result.board,
        "last_drop": result.last_drop, "over": result.over,
    }


def result_of(summary: dict) -> dict:
    """A finished (or abandoned) match, from the summary the journal's end record holds
    (``coindrel.table.history.match_summary``)."""
    return {
        "match": summary["id"], "players": list(summary["players"]), "totals": list(summary["totals"]),
        "rounds": [list(r) for r in summary.get("rounds") or []], "winner": summary.get("winner"),
        "turns": int(summary.get("turns") or 0), "started": summary.get("started"), "ended": summary.get("ended"),
        "variants": dict(summary.get("variants") or {}), "clock": summary.get("clock"),
        "result": summary.get("result", "finished"),
    }
