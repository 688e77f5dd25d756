"""Pieces every screen is built from: panel metrics, title bars, lists,
the exit-value row, scroll bars, the clock.

Geometry rule shared by all screens: nothing is ever drawn in the last
column or the last row. The ``Display`` port shifts whole frames by one
pixel right and/or down against burn-in, and that margin is where they go,
so no shift ever cuts anything off.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from . import text as T

EXITS = 16
MIN_SIZE = (128, 64)


@dataclass(frozen=True)
class Panel:
    """Sizes for one panel: fonts grow with the pixels available."""

    w: int  # drawable columns 0..w-1 (one fewer than the panel has, see above)
    h: int  # drawable rows 0..h-1
    body: int  # font size for words
    big: int  # font size for scores and headlines
    line: int  # pitch of body text lines
    tall: bool  # room for more than the 64-row layout

    @property
    def size(self) -> tuple[int, int]:
        return (self.w + 1, self.h + 1)


@lru_cache(maxsize=16)
def panel(size: tuple[int, int]) -> Panel:
    w, h = size
    if w < MIN_SIZE[0] or h < MIN_SIZE[1]:
        raise ValueError(
            f"a {w}x{h} panel is too small: the sixteen exit values need at least {MIN_SIZE[0]}x{MIN_SIZE[1]} "
            "(use a 128x64 or larger panel, or rotate a 64x128 one)"
        )
    tall = h >= 96
    body = 13 if tall else 10
    big = 24 if tall else 16
    return Panel(w=w - 1, h=h - 1, body=body, big=big, line=T.line_height(body) + 1, tall=tall)


# -- exits ---------------------------------------------------------------------


def exit_cells(width: int) -> list[tuple[int, int]]:
    """Columns ``[x0, x1)`` of the sixteen exits across a panel ``width`` wide,
    left to right like the exits under the board. The last column of each
    cell is the gap (or the divider) between neighbours."""
    cell = width // EXITS
    left = (width - cell * EXITS) // 2
    return [(left + k * cell, left + (k + 1) * cell) for k in range(EXITS)]


def value_text(v: int) -> str:
    # Two digits is all an 8 px cell holds; a larger custom value is flagged.
    return str(v) if 0 <= v <= 99 else "**"


def exit_row_height(p: Panel) -> int:
    size = exit_font(p)
    return T.TINY_HEIGHT + 2 if size == 0 else T.line_height(size) + 1


def exit_font(p: Panel) -> int:
    """Font size for the exit values: the largest default face that fits "88"
    in an exit's column with a gap, on panels tall enough to spare the rows;
    else 0, for TINY_FONT."""
    cells = exit_cells(p.w + 1)
    return _exit_font(cells[0][1] - cells[0][0]) if p.tall else 0


@lru_cache(maxsize=8)
def _exit_font(cell: int) -> int:
    for size in (13, 12, 11, 10):
        if T.width("88", size) <= cell - 3:
            return size
    return 0


def draw_exit_row(d, p: Panel, y: int, values: Sequence[int], hit: Sequence[int] = (), shown: int = EXITS,
                  dividers: bool = True) -> int:
    """The sixteen values, each centred in its exit's column; exits in ``hit``
    drawn inverted; only the first ``shown`` filled in. Returns the y below."""
    cells = exit_cells(p.w + 1)
    size = exit_font(p)
    hgt = exit_row_height(p)
    hit = set(hit)
    for k, (x0, x1) in enumerate(cells):
        inner = x1 - x0 - 1  # the cell's last column is the gap
        if k in hit:
            d.rectangle([x0, y, x0 + inner - 1, y + hgt - 1], fill=1)
        ink = 0 if k in hit else 1
        if k < shown:
            s = value_text(values[k])
            if size:
                tw = T.width(s, size)
                T.draw_text(d, (x0 + (inner - tw + 1) // 2, y + 1), s, size, fill=ink)
            else:
                tw = T.tiny_width(s)
                T.draw_tiny(d, (x0 + (inner - tw + 1) // 2, y + 1), s, fill=ink)
        elif k not in hit:
            d.point((x0 + inner // 2, y + hgt // 2), fill=1)  # not yet revealed
        if dividers and k < EXITS - 1:
            for yy in range(y, y + hgt, 2):  # dotted: the walls between exits
                d.point((x1 - 1, yy), fill=1)
    return y + hgt


# -- lines and bars ------------------------------------------------------------


TITLE_GAP = 2  # extra px per space in a title (1, then none, where that does not fit): shrunk, the face's space ran "Put the" into "Putthe"


def _title(d, xy, title: str, size: int, room: int, fill: int) -> None:
    """A title at the largest size that fits ``room``, its spaces widened
    when that still fits, else as it was (cut with an ellipsis if need be)."""
    size = T.shrink_to_fit(title, size, room)
    text = T.fit(title, size, room)
    gap = next((g for g in range(TITLE_GAP, 0, -1) if T.spaced_width(text, size, g) <= room), 0)
    T.draw_spaced(d, xy, text, size, gap, fill=fill)


def title_bar(d, p: Panel, title: str, right: str = "") -> int:
    """A title on the first line, ``right`` flush right, a rule under them.
    Returns the first free row below."""
    rw = T.width(T.displayable(right, p.body), p.body) if right else 0
    room = p.w - rw - (4 if right else 0)
    _title(d, (0, 0), title, p.body, room, 1)
    if right:
        T.draw_text(d, (p.w - rw, 0), right, p.body)
    y = p.line - 1
    d.line([(0, y), (p.w - 1, y)], fill=1)
    return y + 2


def alert_bar(d, p: Panel, title: str, right: str = "") -> int:
    """A title drawn inverted: this screen wants a person; ``right`` flush
    right. Returns the y below."""
    d.rectangle([0, 0, p.w - 1, p.line - 1], fill=1)
    rw = T.width(T.displayable(right, p.body), p.body) if right else 0
    room = p.w - 4 - (rw + 4 if right else 0)
    _title(d, (2, 1), title, p.body, room, 0)
    if right:
        T.draw_text(d, (p.w - rw - 1, 1), right, p.body, fill=0)
    return p.line + 1


def clock_text(seconds: float | None, paused: bool = False) -> tuple[str, bool]:
    """(what the turn clock shows, whether it is urgent: 5 s or less, running)."""
    if seconds is None:
        return ("II" if paused else ""), False
    s = format_clock(seconds)
    return (f"II {s}" if paused else s), (not paused and seconds <= 5)


def corner_clock(d, p: Panel, text: str, urgent: bool, on_alert: bool = False) -> None:
    """Redraw a title bar's right-hand clock boxed in the other colour when it
    is urgent (the title bar drew it plain)."""
    if not text or not urgent:
        return
    cw = T.width(T.displayable(text, p.body), p.body)
    x = p.w - cw - 1
    box = 0 if on_alert else 1
    d.rectangle([x - 2, 0, p.w - 1, p.line - 1], fill=box)
    T.draw_text(d, (x, 1), text, p.body, fill=1 - box)


def hint_line(d, p: Panel, hint: str) -> int:
    """Small print on the bottom rows; returns the top row it took (or the
    bottom of the panel when there is no hint)."""
    if not hint:
        return p.h - 1
    y = p.h - T.TINY_HEIGHT
    T.draw_tiny(d, (0, y), T.fit_tiny(hint, p.w - 1))
    return y - 1


def status_line(d, p: Panel, y: int, message: str, alert: bool = False) -> int:
    """The one line that says what happens next; inverted when it needs a person."""
    hgt = p.line
    if alert:
        d.rectangle([0, y, p.w - 1, y + hgt - 1], fill=1)
    size = T.shrink_to_fit(message, p.body, p.w - 4)
    msg = T.fit(message, size, p.w - 4)
    x = max(0, (p.w - T.width(msg, size)) // 2)
    T.draw_text(d, (x, y + 1), msg, size, fill=0 if alert else 1)
    return y + hgt


def scrollbar(d, x: int, y0: int, y1: int, first: int, visible: int, total: int) -> None:
    """A thin bar at column ``x`` when not everything fits."""
    if total <= visible or y1 - y0 < 4:
        return
    span = y1 - y0
    for yy in range(y0, y1 + 1, 2):
        d.point((x, yy), fill=1)
    top = y0 + span * first // total
    bottom = y0 + max(span * (first + visible) // total, span * first // total + 2)
    d.line([(x, top), (x, min(bottom, y1))], fill=1)
    d.line([(x - 1, top), (x - 1, min(bottom, y1))], fill=1)


def window(selected: int, total: int, visible: int) -> int:
    """First row to show so that ``selected`` is on screen, keeping the
    selection off the edges when the list scrolls."""
    if total <= visible:
        return 0
    first = selected - visible // 2
    return max(0, min(first, total - visible))


def list_rows(d, p: Panel, y0: int, y1: int, rows: Sequence[tuple[str, str, bool]], selected: int | None) -> None:
    """Rows of (label, value, enabled) between ``y0`` and ``y1``; the selected
    row inverted, values right-aligned, a scroll bar when they do not fit."""
    pitch = p.line
    visible = max(1, (y1 - y0 + 1) // pitch)
    first = window(selected or 0, len(rows), visible)
    bar = len(rows) > visible
    right_edge = p.w - (4 if bar else 0)
    for i, (label, value, enabled) in enumerate(rows[first: first + visible]):
        idx = first + i
        y = y0 + i * pitch
        on = idx == selected
        if on:
            d.rectangle([0, y, right_edge - 1, y + pitch - 1], fill=1)
        ink = 0 if on else 1
        vtext = T.fit(value, p.body, (right_edge - 2) // 2) if value else ""
        vw = T.width(vtext, p.body)
        label_room = right_edge - 4 - (vw + 6 if vtext else 0)
        T.draw_text(d, (2, y + 1), T.fit(label, p.body, label_room), p.body, fill=ink)
        if vtext:
            T.draw_text(d, (right_edge - 2 - vw, y + 1), vtext, p.body, fill=ink)
        if not enabled:  # greyed out: a dotted strike through
            mid = y + pitch // 2
            for x in range(2, right_edge - 2, 2):
                d.point((x, mid), fill=ink)
    scrollbar(d, p.w - 1, y0, y0 + visible * pitch - 1, first, visible, len(rows))


def format_clock(seconds: float) -> str:
    """Seconds left as the panel shows them: "1:05", "0:27", "5"."""
    s = max(0, int(-(-seconds // 1)))  # round up: the clock shows 1 until it runs out
    if s < 10:
        return str(s)
    return f"{s // 60}:{s % 60:02d}"


def draw_big_number(d, p: Panel, x: int, y: int, n: int, align: str = "left") -> int:
    """A score in the big face; returns its width."""
    s = str(n)
    tw = T.width(s, p.big)
    if align == "right":
        x -= tw
    elif align == "center":
        x -= tw // 2
    T.draw_text(d, (x, y), s, p.big)
    return tw
