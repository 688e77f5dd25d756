"""Views of an engine ``Match``: read-only helpers the daemon (and the
simulator) use so the screens say exactly what the engine knows."""

from __future__ import annotations

from ..engine import PHASE_FALLING, PHASE_OVER, ROUNDS, Match, entry_label
from .views import EXITS, MatchResultView, MatchView, RevealView, RoundResultView


def match_view(match: Match, now: float | None = None, *, status: str | None = None, alert: bool | None = None,
               hit_exits=()) -> MatchView:
    """The play screen for ``match`` at ``now``. ``status`` replaces the
    engine's status line (e.g. "Waiting for the hub"); a clock expiry that
    chose an entry shows "Drop in entry N" as an alert."""
    forced = match.forced_entry
    if status is None:
        if forced is not None and not match.over:
            status, alert = f"Drop in {entry_label(forced)}", True if alert is None else alert
        elif match.clock is not None and match.clock.paused and not match.over:
            status = "Paused"
        else:
            status = match.status()
    if alert is None:
        alert = match.last_drop_pending and not match.over
    clock = None
    if match.clock is not None and now is not None and not match.over:
        clock = match.remaining(now)
    to_move = None if match.phase in (PHASE_FALLING, PHASE_OVER) else match.to_move
    return MatchView(
        players=match.setup.players, round=match.round, target=match.target, values=match.values,
        round_scores=match.round_scores, totals=match.totals, to_move=to_move, status=status, alert=alert,
        clock=clock, paused=bool(match.clock is not None and match.clock.paused), hit_exits=tuple(hit_exits),
    )


def reveal_view(match: Match, shown: int = EXITS, hint: str = "Press to start") -> RevealView:
    return RevealView(round=match.round, target=match.target, values=match.values, shown=shown,
                      shuffled=match.setup.variants.shuffled, hint=hint)


def round_scores(match: Match) -> list[tuple[int, int]]:
    """Points each player scored in each round played so far."""
    per = [[0, 0] for _ in range(ROUNDS)]
    for r in match.results:
        per[r.round - 1][r.player - 1] += r.points
    played = max((r.round for r in match.results), default=0)
    return [tuple(p) for p in per[:played]]


def round_result_view(match: Match, round_no: int) -> RoundResultView:
    """The result of round ``round_no`` (1-based) once it is over."""
    rounds = round_scores(match)
    if not 1 <= round_no <= len(rounds):
        raise ValueError(f"round {round_no} has not been played (rounds played: {len(rounds)})")
    scores = rounds[round_no - 1]
    totals = tuple(sum(r[i] for r in rounds[:round_no]) for i in range(2))
    winner = None if scores[0] == scores[1] else (1 if scores[0] > scores[1] else 2)
    nxt = round_no + 1 if round_no < ROUNDS else None
    target = match.target if nxt is not None and match.round == nxt else None
    return RoundResultView(round=round_no, players=match.setup.players, round_scores=scores, totals=totals,
                           winner=winner, next_round=nxt, next_target=target)


def match_result_view(match: Match) -> MatchResultView:
    w = match.winner
    winner = None if w in (None, "draw") else w
    return MatchResultView(players=match.setup.players, totals=match.totals, winner=winner,
                           rounds=tuple(round_scores(match)))
