"""Screens of the match itself: play, a round's reveal, round and match results.

The exit row sits on the bottom rows of every one of these, in the same
place, so values do not jump when the screen changes from reveal to play.
"""

from __future__ import annotations

from . import text as T
from .views import MatchResultView, MatchView, RevealView, RoundResultView
from .widgets import (
    Panel,
    clock_text,
    draw_big_number,
    draw_exit_row,
    exit_row_height,
    status_line,
    title_bar,
)


def _first_fitting(options, size: int, room: int) -> str:
    for o in options:
        if T.width(T.displayable(o, size), size) <= room:
            return o
    return T.fit(options[-1], size, room)


def _exit_row_top(p: Panel) -> int:
    return p.h - exit_row_height(p)


def _player_column(d, p: Panel, x0: int, x1: int, y: int, name: str, score: int, total: int,
                   active: bool, total_label: str = "TOTAL") -> None:
    """Name (inverted when it is their drop), the round score big, the match total small."""
    pitch = p.line
    if active:
        d.rectangle([x0, y, x1 - 1, y + pitch - 1], fill=1)
    T.draw_text(d, (x0 + 2, y + 1), T.fit(name, p.body, x1 - x0 - 4), p.body, fill=0 if active else 1)
    y2 = y + pitch + 2
    sw = draw_big_number(d, p, x0 + 2, y2, score)
    tx = x0 + 2 + max(sw, T.width("88", p.big)) + 5
    if tx + T.tiny_width(total_label) < x1:
        T.draw_tiny(d, (tx, y2), total_label)
        T.draw_text(d, (tx, y2 + T.TINY_HEIGHT + 2), T.fit(str(total), p.body, x1 - tx - 1), p.body)


def _clock_text(view: MatchView) -> tuple[str, bool]:
    return clock_text(view.clock, view.paused)


def draw_match(d, p: Panel, view: MatchView) -> None:
    clock, urgent = _clock_text(view)
    cw = T.width(T.displayable(clock, p.body), p.body) if clock else 0
    room = p.w - cw - 6
    head = _first_fitting(
        (f"Round {view.round} \u00b7 target {view.target}", f"R{view.round} \u00b7 target {view.target}",
         f"R{view.round} \u00b7 {view.target}"), p.body, room)
    T.draw_text(d, (0, 1), head, p.body)
    if clock:
        x = p.w - cw - 1
        if urgent:
            d.rectangle([x - 2, 0, p.w - 1, p.line - 1], fill=1)
        T.draw_text(d, (x, 1), clock, p.body, fill=0 if urgent else 1)
    exit_y = _exit_row_top(p)
    status_y = exit_y - p.line - 1
    y = p.line + 1
    if p.tall:  # centre the scores in the room a tall panel leaves
        block = p.line + 2 + T.line_height(p.big)
        y += max(0, (status_y - 3 - y - block) // 2)
    half = (p.w + 1) // 2
    for i in range(2):
        x0, x1 = (0, half - 1) if i == 0 else (half + 1, p.w)
        _player_column(d, p, x0, x1, y, view.players[i], view.round_scores[i], view.totals[i],
                       view.to_move == i + 1)
    d.line([(half, y), (half, status_y - 3)], fill=1)
    status_line(d, p, status_y, view.status, view.alert)
    draw_exit_row(d, p, exit_y, view.values, view.hit_exits)


def draw_reveal(d, p: Panel, view: RevealView) -> None:
    title_bar(d, p, f"Round {view.round}", f"target {view.target}")
    exit_y = _exit_row_top(p)
    what = "Shuffled exit values" if view.shuffled else "New exit values"
    msg = T.fit(what, p.body, p.w - 2)
    y = p.line + 3
    T.draw_text(d, ((p.w - T.width(msg, p.body)) // 2, y), msg, p.body)
    if view.hint:
        hint = T.fit_tiny(view.hint.upper(), p.w - 1)
        hy = exit_y - T.TINY_HEIGHT - 4
        T.draw_tiny(d, ((p.w - T.tiny_width(hint)) // 2, hy), hint)
    # Arrows down to the exits: the values belong to the board below the panel.
    ay = y + p.line + 2
    if ay + 4 < exit_y - T.TINY_HEIGHT - 6:
        for x in (p.w // 4, p.w // 2, 3 * p.w // 4):
            d.polygon([(x - 3, ay), (x + 3, ay), (x, ay + 3)], fill=1)
    draw_exit_row(d, p, exit_y, view.values, (), view.shown)


def _two_columns(d, p: Panel, y: int, players, big, small, small_label: str, mark: int | None) -> None:
    half = (p.w + 1) // 2
    for i in range(2):
        x0, x1 = (0, half - 1) if i == 0 else (half + 1, p.w)
        _player_column(d, p, x0, x1, y, players[i], big[i], small[i], mark == i + 1, small_label)
    d.line([(half, y), (half, y + p.line + p.big)], fill=1)


def draw_round_result(d, p: Panel, view: RoundResultView) -> None:
    y = title_bar(d, p, f"Round {view.round} over")
    _two_columns(d, p, y, view.players, view.round_scores, view.totals, "TOTAL", view.winner)
    if view.winner is None:
        line = "Round drawn"
    else:
        line = f"{view.players[view.winner - 1]} takes it"
    bottom = p.h - T.TINY_HEIGHT - 1
    ly = bottom - p.line - 1
    msg = T.fit(line, p.body, p.w - 2)
    T.draw_text(d, ((p.w - T.width(msg, p.body)) // 2, ly), msg, p.body)
    if view.next_round is not None:
        hint = f"NEXT: ROUND {view.next_round}" + (f", TARGET {view.next_target}" if view.next_target else "")
    else:
        hint = view.hint.upper()
    hint = T.fit_tiny(hint, p.w - 1)
    T.draw_tiny(d, ((p.w - T.tiny_width(hint)) // 2, bottom + 1), hint)


def draw_match_result(d, p: Panel, view: MatchResultView) -> None:
    title_bar(d, p, "Match over")
    headline = "Draw" if view.winner is None else f"{view.players[view.winner - 1]} wins"
    msg = T.fit(headline, p.big, p.w - 2)
    y = p.line + 2
    T.draw_text(d, ((p.w - T.width(msg, p.big)) // 2, y), msg, p.big)
    y += T.line_height(p.big) + 1
    a, b = view.totals
    names = [T.fit(n, p.body, (p.w - T.width(" 888 : 888 ", p.body)) // 2 - 2) for n in view.players]
    score = f"{a} : {b}"
    sw = T.width(score, p.body)
    mid = p.w // 2
    T.draw_text(d, (mid - sw // 2, y), score, p.body)
    T.draw_text(d, (mid - sw // 2 - 4 - T.width(names[0], p.body), y), names[0], p.body)
    T.draw_text(d, (mid + (sw + 1) // 2 + 4, y), names[1], p.body)
    y += p.line + 1
    if view.rounds:
        table = "  ".join(f"R{i + 1} {r[0]}-{r[1]}" for i, r in enumerate(view.rounds))
        if T.tiny_width(table) > p.w - 1:
            table = " ".join(f"{r[0]}-{r[1]}" for r in view.rounds)
        table = T.fit_tiny(table, p.w - 1)
        if y + T.TINY_HEIGHT < p.h - T.TINY_HEIGHT - 2:
            T.draw_tiny(d, ((p.w - T.tiny_width(table)) // 2, y), table)
    if view.hint:
        hint = T.fit_tiny(view.hint.upper(), p.w - 1)
        T.draw_tiny(d, ((p.w - T.tiny_width(hint)) // 2, p.h - T.TINY_HEIGHT), hint)
