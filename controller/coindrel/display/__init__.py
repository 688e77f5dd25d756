"""The OLED port: views (pure data), ``render(view, size)`` (pure, 1-bit
Pillow images), a luma device built from the ``[display]`` config section,
and ``Display``, which sends frames to it without ever failing the match.

    display = open_display(config.sub("display"))   # ConfigError if the section is wrong
    display.show(match_view(match, now), now)       # each frame; never raises
    display.wake(now)                               # on any button or coin: full brightness
    display.tick(now)                               # dim, sleep, shift, reconnect when due
    display.next_deadline(now)                      # when tick() next has work
    await display.show_async(view, now)             # same, on a worker thread (I2C is slow)
    display.close()                                 # persist: the last frame stays lit

Screens (``views``): MatchView, RevealView, RoundResultView, MatchResultView,
MenuView (setup and other menus), NameEntryView, TextView (Rules: ``rules_view``),
LessonView (words and a board diagram), HistoryView, DiagnosisView (a paged
notice with choices: a mismatch, a coin outside a drop, a revision; built by
``mismatch_view``/``stray_view``/``revision_view``, paged by ``page_count``,
as plain text by ``notice_text``), ConnectionView (hub lost), MessageView,
ClubRequestView (a club asks for a match).
``match_view``/``reveal_view``/``round_result_view``/``match_result_view``
build the match screens from an engine ``Match``; ``text_lines`` says how far
a scrolling view can scroll.

``import coindrel.display`` needs Pillow and luma.core only; a driver
(luma.oled, luma.emulator) is imported when the device is opened.
"""

import importlib
import sys
import types

# Loaded on first use: the views are pure data, and ``import
# coindrel.table.flow`` must not pull in Pillow, luma or a thread pool.
_WHERE = {
    "DeviceOpener": "device", "DisplayConfig": "device",
    "match_result_view": "from_match", "match_view": "from_match", "reveal_view": "from_match",
    "round_result_view": "from_match",
    "Display": "port", "display_from_config": "port", "open_display": "port",
    "mismatch_view": "notices", "notice_text": "notices", "revision_view": "notices", "stray_view": "notices",
    "DEFAULT_SIZE": "render", "page_count": "render", "render": "render", "text_lines": "render",
    "rules_text": "texts", "rules_view": "texts", "exit_cells": "widgets",
    **{name: "views" for name in (
        "VIEW_TYPES", "ClubRequestView", "ConnectionView", "DiagnosisView", "HistoryItem", "HistoryView",
        "LessonView", "MatchResultView", "MatchView", "MenuItem", "MenuView", "MessageView", "NameEntryView",
        "RevealView", "RoundResultView", "TextView")},
}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Package(types.ModuleType):
    """``coindrel.display.render`` is the function, also once the submodule of
    that name is loaded (the import system would set the module there)."""

    @property
    def render(self):
        from .render import render

        return render

    @render.setter
    def render(self, module) -> None:
        pass  # the submodule stays reachable as sys.modules["coindrel.display.render"]


sys.modules[__name__].__class__ = _Package
__all__ = sorted(_WHERE)
