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
as plain text by ``notice_text``), ConnectionView (hub lost), MessageView.
``match_view``/``reveal_view``/``round_result_view``/``match_result_view``
build the match screens from an engine ``Match``; ``text_lines`` says how far
a scrolling view can scroll.

``import coindrel.display`` needs Pillow and luma.core only; a driver
(luma.oled, luma.emulator) is imported when the device is opened.
"""

from .device import DeviceOpener, DisplayConfig
from .from_match import match_result_view, match_view, reveal_view, round_result_view
from .port import Display, display_from_config, open_display
from .notices import mismatch_view, notice_text, revision_view, stray_view
from .render import DEFAULT_SIZE, page_count, render, text_lines
from .texts import rules_text, rules_view
from .views import (
    VIEW_TYPES,
    ConnectionView,
    DiagnosisView,
    HistoryItem,
    HistoryView,
    LessonView,
    MatchResultView,
    MatchView,
    MenuItem,
    MenuView,
    MessageView,
    NameEntryView,
    RevealView,
    RoundResultView,
    TextView,
)
from .widgets import exit_cells

__all__ = [
    "DeviceOpener", "Display", "DisplayConfig", "display_from_config", "open_display", "match_view", "reveal_view", "round_result_view",
    "match_result_view", "rules_text", "rules_view", "DEFAULT_SIZE", "VIEW_TYPES", "ConnectionView", "DiagnosisView", "HistoryItem", "HistoryView", "LessonView",
    "MatchResultView", "MatchView", "MenuItem", "MenuView", "MessageView", "NameEntryView", "RevealView",
    "RoundResultView", "TextView", "exit_cells", "render", "text_lines", "page_count", "mismatch_view", "stray_view",
    "revision_view", "notice_text",
]
