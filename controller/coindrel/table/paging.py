"""The buttons on a paged notice (``display.DiagnosisView``: a mismatch, a
coin outside a drop, a revision): the knob reads it a page at a time and
then moves through the choices; a press on the words goes to the choices
(or, with a single option such as "OK", takes it); back leaves, as on
every screen, with the first option (the default: "Board is right", "OK")."""

from __future__ import annotations

from dataclasses import replace

from ..display import DiagnosisView
from ..buttons import BACK, HOLD_SELECT, NEXT, PREV, SELECT


def turn_notice(d: DiagnosisView, action: str, pages: int) -> tuple[DiagnosisView, str | None]:
    """A button on a paged notice of ``pages`` pages: (the notice as it is
    now, the option chosen or None). Pages of words come first, the choices
    last (when there is more than one option); nothing wraps around, so a
    person turning on always ends on the choices."""
    d, chosen = choose_on_notice(d, action, pages)
    return d, None if chosen is None else d.options[chosen]


def choose_on_notice(d: DiagnosisView, action: str, pages: int) -> tuple[DiagnosisView, int | None]:
    """As ``turn_notice``, with the option chosen as its index in
    ``d.options``: the flow acts on what it offered, not on the words."""
    choices = pages - 1 if len(d.options) > 1 else None
    page = min(d.page, pages - 1)
    on_choices = choices is not None and page == choices
    if action == NEXT:
        if on_choices:
            return replace(d, page=page, selected=min(d.selected + 1, len(d.options) - 1)), None
        return replace(d, page=min(page + 1, pages - 1), selected=0), None
    if action == PREV:
        if on_choices and d.selected > 0:
            return replace(d, page=page, selected=d.selected - 1), None
        return replace(d, page=max(0, page - 1)), None
    if action == BACK:
        return d, 0  # leave, as back does on every screen: the first option is the default
    if action in (SELECT, HOLD_SELECT):
        if choices is not None and not on_choices:
            return replace(d, page=choices, selected=0), None
        return d, d.selected
    return d, None
