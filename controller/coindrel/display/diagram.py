"""A board diagram small enough for a lesson screen (64x64 px and up).

Each switch is a rocker drawn as a tilted bar, low on its pad side, with a
cup there (filled when a coin rests in it); a hole is a ring. Lanes are
``box width / 16`` px wide, so a switch covers two of them as on the board.
An entry to use is an arrow over the inlet it feeds; exits to watch are
blocks under their lanes.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable

from ..engine import COIN, HOLE, PAD_R, BoardState, standard_geometry


@lru_cache(maxsize=64)
def _parse(board: str) -> BoardState:
    return BoardState.parse(board, standard_geometry())


def check_board(board: str) -> None:
    """Raise the engine's clear error when ``board`` is not a board text."""
    _parse(board)


def draw_board(d, box: tuple[int, int, int, int], board: str | None, highlight: Iterable[str] = (),
               entry: int | None = None, exits: Iterable[int] = ()) -> None:
    """Draw ``board`` (rules.md section 9 one-line form; None: all pads left,
    no coins) into ``box`` = (x, y, width, height)."""
    x0, y0, bw, bh = box
    state = _parse(board) if board else BoardState.empty(standard_geometry())
    g = state.geometry
    rows_ = len(g.row_sizes)
    # Square-ish switches: a lane no wider than a row is tall.
    lane = max(2, min(bw // g.lanes, (bh - 7) // rows_))
    left = x0 + (bw - lane * g.lanes) // 2
    rows = len(g.row_sizes)
    top = y0 + 4  # entry arrows
    bottom = y0 + bh - 3  # exit marks
    pitch = max(4, (bottom - top) // rows)
    marked = {g.index(h) for h in highlight}

    for s, code in enumerate(state.codes):
        a, b = g.spans[s]
        xa, xb = left + a * lane, left + (b + 1) * lane - 2
        yr = top + g.row_of[s] * pitch
        ym = yr + pitch // 2
        ink = 1
        if s in marked:
            d.rectangle([xa - 1, yr, xb + 1, yr + pitch - 2], fill=1)
            ink = 0
        if code == HOLE:
            r = max(1, min(lane, pitch) // 3)
            cx = (xa + xb) // 2
            d.ellipse([cx - r, ym - r, cx + r, ym + r], outline=ink)
            continue
        rise = max(1, pitch // 4)
        lo, hi = ym + rise, ym - rise
        cw = max(3, min(lane, (xb - xa + 1) // 2))  # the cup, walls included
        if code & PAD_R:
            c0, c1 = xb - cw + 1, xb
            d.line([(xa, hi), (c0 - 1, lo - 1)], fill=ink)
        else:
            c0, c1 = xa, xa + cw - 1
            d.line([(c1 + 1, lo - 1), (xb, hi)], fill=ink)
        wall = max(2, pitch // 5)
        d.line([(c0, lo), (c1, lo)], fill=ink)
        d.line([(c0, lo - wall), (c0, lo)], fill=ink)
        d.line([(c1, lo - wall), (c1, lo)], fill=ink)
        if code & COIN:
            d.rectangle([c0 + 1, lo - wall, c1 - 1, lo - 1], fill=ink)

    if entry is not None:
        s = g.entry_switches[entry]
        a, b = g.spans[s]
        inlet_lane = b if g.inlets[s] else a
        cx = left + inlet_lane * lane + (lane - 1) // 2
        d.polygon([(cx - 2, y0), (cx + 2, y0), (cx, y0 + 2)], fill=1)

    exits = set(exits)
    yb = y0 + bh - 2
    for x in range(g.lanes):
        xa = left + x * lane
        if x in exits:
            d.rectangle([xa, yb - 1, xa + lane - 2, yb + 1], fill=1)
        else:
            d.point((xa + (lane - 1) // 2, yb), fill=1)
