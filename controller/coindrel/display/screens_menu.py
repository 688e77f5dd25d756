"""Screens around the match: menus, name entry, scrolling text, lessons,
history, the lost hub, plain messages, a club's match request."""

from __future__ import annotations

from . import text as T
from .diagram import draw_board
from .views import (
    ClubRequestView,
    ConnectionView,
    HistoryView,
    LessonView,
    MenuView,
    MessageView,
    NameEntryView,
    TextView,
)
from .widgets import Panel, alert_bar, clock_text, corner_clock, hint_line, list_rows, scrollbar, title_bar


def draw_menu(d, p: Panel, view: MenuView) -> None:
    y = title_bar(d, p, view.title)
    bottom = hint_line(d, p, view.hint)
    rows = [(i.label, i.value or "", i.enabled) for i in view.items]
    list_rows(d, p, y, bottom, rows, view.selected)


def draw_name_entry(d, p: Panel, view: NameEntryView) -> None:
    y = title_bar(d, p, view.title, f"{len(view.name)}/{view.max_length}")
    bottom = hint_line(d, p, view.hint)
    name = T.displayable(view.name, p.big)
    cursor = min(view.cursor, len(name))
    shown = name + (" " if cursor == len(name) else "")
    # Keep the cursor on screen: drop characters from the left when the name is wide.
    start = 0
    while start < cursor and T.width(shown[start: cursor + 1], p.big) > p.w - 6:
        start += 1
    x = 2
    ty = y + max(1, (bottom - y - T.line_height(p.big)) // 2)
    if start:
        T.draw_tiny(d, (0, ty + 4), "<")
        x = 6
    for i, ch in enumerate(shown[start:], start):
        cw = max(T.width(ch, p.big), T.width("n", p.big) if ch == " " else 0)
        if x + cw > p.w - 1:
            T.draw_tiny(d, (p.w - 4, ty + 4), ">")
            break
        if i == cursor:
            d.rectangle([x - 1, ty - 2, x + cw, ty + T.line_height(p.big) - 2], fill=1)
        T.draw_text(d, (x, ty), ch, p.big, fill=0 if i == cursor else 1)
        x += cw + 1


def _visible(p: Panel, y0: int, y1: int) -> int:
    return max(1, (y1 - y0 + 1) // (p.line - 1))


def _text_area(p: Panel) -> tuple[int, int, int]:
    """(x, top, width) of the words on a TextView."""
    return 0, p.line + 1, p.w - 5


def _lesson_layout(p: Panel):
    """(diagram box, words x, words top, words width) of a LessonView."""
    if p.tall:  # diagram across the top, words below
        side = p.h // 2
        return (0, 0, p.w, side), 0, side + 2, p.w - 5
    side = min(p.h + 1, (p.w + 1) // 2)  # diagram on the left, as wide as the panel is tall
    return (0, 0, side, p.h), side + 3, 0, p.w - side - 8


def scroll_extent(view: TextView | LessonView, p: Panel) -> tuple[int, int]:
    """(wrapped lines, lines visible at once) of a scrolling view."""
    if isinstance(view, LessonView):
        _, _, ty, tw = _lesson_layout(p)
        top = ty + p.line + 2
    else:
        _, top, tw = _text_area(p)
    return len(T.wrap(view.text, p.body, tw)), _visible(p, top, p.h - 1)


def _scrolled_text(d, p: Panel, x: int, y0: int, y1: int, lines: list[str], scroll: int) -> None:
    pitch = p.line - 1
    visible = _visible(p, y0, y1)
    first = max(0, min(scroll, max(0, len(lines) - visible)))
    for i, line in enumerate(lines[first: first + visible]):
        T.draw_text(d, (x, y0 + i * pitch + 1), line, p.body)
    scrollbar(d, p.w - 1, y0, y0 + visible * pitch - 1, first, visible, len(lines))


def draw_text_view(d, p: Panel, view: TextView) -> None:
    x, top, tw = _text_area(p)
    lines = T.wrap(view.text, p.body, tw)
    visible = _visible(p, top, p.h - 1)
    first = max(0, min(view.scroll, max(0, len(lines) - visible)))
    right = f"{min(first + visible, len(lines))}/{len(lines)}" if len(lines) > visible else ""
    y = title_bar(d, p, view.title, right)
    _scrolled_text(d, p, x, y, p.h - 1, lines, first)


def draw_lesson(d, p: Panel, view: LessonView) -> None:
    box, tx, ty, tw = _lesson_layout(p)
    draw_board(d, box, view.board, view.highlight, view.entry, view.exits)
    head = T.fit(f"{view.step}/{view.steps} {view.title}", p.body, tw + 4)
    T.draw_text(d, (tx, ty + 1), head, p.body)
    d.line([(tx, ty + p.line), (p.w - 1, ty + p.line)], fill=1)
    lines = T.wrap(view.text, p.body, tw)
    _scrolled_text(d, p, tx, ty + p.line + 2, p.h - 1, lines, view.scroll)


def draw_history(d, p: Panel, view: HistoryView) -> None:
    y = title_bar(d, p, view.title, f"{len(view.items)}" if view.items else "")
    if not view.items:
        T.draw_text(d, (2, y + 2), "No matches yet", p.body)
        return
    sel = view.items[view.selected]
    if sel.winner is None:
        who = "draw"
    else:
        who = f"{sel.players[sel.winner - 1]} won"
    bottom = hint_line(d, p, f"{sel.when}  {who}")
    rows = []
    for item in view.items:
        a, b = item.totals
        score = f"{a}:{b}"
        rows.append((f"{item.players[0]} - {item.players[1]}", score, True))
    list_rows(d, p, y, bottom, rows, view.selected)


def draw_connection(d, p: Panel, view: ConnectionView) -> None:
    """The whole reason, never cut: in words when it fits, in the tiny face
    when it is long (the link's reason names the port and what to do)."""
    top = alert_bar(d, p, view.title)
    secs = int(view.since)
    when = f"{secs // 60} min {secs % 60:02d} s" if secs >= 60 else f"{secs} s"
    info = f"try {view.attempts}, {when}" if view.attempts else when
    tiny_pitch = T.TINY_HEIGHT + 2
    bottom = [info.upper()] + (T.wrap_tiny(view.where, p.w - 1)[:2] if view.where else [])
    yy = p.h - len(bottom) * tiny_pitch + 1
    room = yy - top - 2  # rows for the reason
    gap, pitch = 2, p.line - 1
    dots = "." * (view.attempts % 4)
    lines = T.wrap(view.detail + dots, p.body, p.w - 3, gap)
    if len(lines) * pitch <= room:
        y = top + max(1, (room - len(lines) * pitch) // 2)
        for i, line in enumerate(lines):
            T.draw_spaced(d, ((p.w - T.spaced_width(line, p.body, gap)) // 2, y + i * pitch), line, p.body, gap)
    else:
        lines = [x for x in T.wrap_tiny(view.detail, p.w - 1) if x]
        fits = max(1, room // tiny_pitch)
        if len(lines) > fits:  # longer than any reason the table gives: its end is cut, and says so
            lines = lines[:fits]
            lines[-1] = T.fit_tiny(lines[-1] + " ...", p.w - 1)
        y = top + 1
        for i, line in enumerate(lines):
            T.draw_tiny(d, (1, y + i * tiny_pitch), line)
    for line in bottom:
        s = T.fit_tiny(line, p.w - 1)
        T.draw_tiny(d, ((p.w - T.tiny_width(s)) // 2, yy), s)
        yy += tiny_pitch


def draw_message(d, p: Panel, view: MessageView) -> None:
    clock, urgent = clock_text(view.clock, view.paused)  # over a turn: the turn still runs
    if view.alert:
        y = alert_bar(d, p, view.title, clock)
    else:
        y = title_bar(d, p, view.title, clock)
    corner_clock(d, p, clock, urgent, view.alert)
    gap = 2  # sentences: the face's 2 px space runs words together
    lines = T.wrap(view.text, p.body, p.w - 3, gap)
    pitch = p.line - 1
    room = max(1, (p.h - y) // pitch)
    if len(lines) > room:
        lines = lines[:room]
        lines[-1] = T.fit(lines[-1] + " \u2026", p.body, p.w - 3 - 2 * gap)
    for i, line in enumerate(lines):
        T.draw_spaced(d, (1, y + i * pitch + 1), line, p.body, gap)


def draw_club_request(d, p: Panel, view: ClubRequestView) -> None:
    y = title_bar(d, p, view.title, f"+{view.waiting}" if view.waiting else "")
    bottom = hint_line(d, p, view.hint)
    gap, room_w = 2, p.w - 3
    a, b = (T.displayable(n, p.body) for n in view.players)
    both = f"{a} v {b}"
    # the players whole, on one line when they fit, else one line each
    lines = [both] if T.spaced_width(both, p.body, gap) <= room_w else [a, f"v {b}"]
    lines.append(f"Clock: {view.clock}")
    lines += T.wrap(", ".join(view.variants) if view.variants else "No variants", p.body, room_w, gap)
    pitch = p.line - 1
    room = max(1, (bottom - y) // pitch)
    if len(lines) > room:  # a tall name pair and every variant: the variants share the clock's line
        lines = lines[:room - 1] + [T.fit(", ".join([lines[room - 1], *lines[room:]]), p.body, room_w)]
    for i, line in enumerate(lines):
        T.draw_spaced(d, (1, y + i * pitch + 1), T.fit(line, p.body, room_w), p.body, gap)
