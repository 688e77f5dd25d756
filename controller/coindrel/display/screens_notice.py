"""The notice screen (``DiagnosisView``): a title, words read a page at a
time with the knob, then the choices.

Pages are whole lines of whole words: a paragraph that fits on one page
starts on a fresh page rather than being split (and none starts on a page's
last line), and the footer says which
page this is and what the knob and the press do, so nothing is ever cut off
without a way to see the rest.
"""

from __future__ import annotations

from functools import lru_cache

from . import text as T
from .notices import paragraphs
from .views import DiagnosisView
from .widgets import Panel, alert_bar, clock_text, corner_clock, list_rows


GAP = 2  # extra px per space: sentences, not labels, are read here


def _title(view: DiagnosisView) -> str:
    return view.title if view.drop is None else f"Drop {view.drop}: {view.title}"


def _area(p: Panel) -> tuple[int, int, int]:
    """(top, lines per page, text width) of the words between title and footer."""
    top = p.line + 1
    footer = p.h - T.TINY_HEIGHT - 1  # a free row above the footer
    pitch = p.line - 1
    return top, max(1, (footer - top) // pitch), p.w - 3


def _number(word: str) -> bool:
    return word.rstrip(".,;:").isdigit()


def wrap(text: str, p: Panel, width: int) -> list[str]:
    """Words wrapped to ``width``, keeping a run of numbers (a list of exits)
    on one line when it fits on one: "expected 1 2 3" never reads "3 / 4 5"."""
    units: list[str] = []
    for word in T.displayable(text, p.body).split():
        if units and _number(word) and _number(units[-1].split(" ")[-1]) and not units[-1][-1] in ".,;:":
            units[-1] += " " + word
        else:
            units.append(word)
    lines, line = [], ""
    for unit in units:
        candidate = f"{line} {unit}" if line else unit
        if T.spaced_width(candidate, p.body, GAP) <= width:
            line = candidate
        elif T.spaced_width(unit, p.body, GAP) > width:  # a run too long for any line: as words
            more = T.wrap(candidate, p.body, width, GAP)
            lines += more[:-1]
            line = more[-1]
        else:
            lines.append(line)
            line = unit
    return lines + ([line] if line else [])


def text_pages(view: DiagnosisView, p: Panel) -> list[list[str]]:
    """The words as pages of lines (the same every frame: cached)."""
    return [list(page) for page in _pages(tuple(paragraphs(view)), p)]


@lru_cache(maxsize=64)
def _pages(paras: tuple[str, ...], p: Panel) -> tuple[tuple[str, ...], ...]:
    _, per_page, width = _area(p)
    pages: list[list[str]] = [[]]
    for para in paras:
        lines = wrap(para, p, width)
        room = per_page - len(pages[-1])
        if pages[-1] and len(lines) > room and (len(lines) <= per_page or room == 1):
            pages.append([])  # on a page of its own rather than split, and never begun on a last line
        for line in lines:
            if len(pages[-1]) >= per_page:
                pages.append([])
            pages[-1].append(line)
    return tuple(tuple(pg) for pg in pages if pg) or ((),)


def page_count(view: DiagnosisView, p: Panel) -> int:
    """Pages of text, plus one for the choices when there is more than one
    option (a single option, e.g. "OK", is what a press on the text does)."""
    return len(text_pages(view, p)) + (1 if len(view.options) > 1 else 0)


def _footer(d, p: Panel, left: str, right: str) -> None:
    y = p.h - T.TINY_HEIGHT
    right = T.fit_tiny(right.upper(), p.w - 1)
    room = p.w - 1 - (T.tiny_width(right) + 6 if right else 0)
    T.draw_tiny(d, (0, y), T.fit_tiny(left.upper(), room))
    if right:
        T.draw_tiny(d, (p.w - 1 - T.tiny_width(right), y), right)


def draw_diagnosis(d, p: Panel, view: DiagnosisView) -> None:
    pages = text_pages(view, p)
    total = page_count(view, p)
    page = min(view.page, total - 1)
    clock, urgent = clock_text(view.clock)
    y = alert_bar(d, p, _title(view), clock)  # inverted: this screen wants a person
    corner_clock(d, p, clock, urgent, on_alert=True)
    where = f"{page + 1}/{total}" if total > 1 else ""
    if page < len(pages):
        top, _, _ = _area(p)
        for i, line in enumerate(pages[page]):
            T.draw_spaced(d, (1, top + i * (p.line - 1)), line, p.body, GAP)
        last = page == len(pages) - 1
        act = "press: choose" if len(view.options) > 1 else f"press: {view.options[0]}"
        if last:
            hint = ("turn/" + act) if len(view.options) > 1 else act
        else:
            hint = "turn: more  " + act
        _footer(d, p, where, hint)
        return
    rows = [(o, "", True) for o in view.options]
    bottom = p.h - T.TINY_HEIGHT - 2
    list_rows(d, p, y, bottom, rows, view.selected)
    _footer(d, p, where, "press: do it")
