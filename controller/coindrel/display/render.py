"""``render(view, size) -> PIL.Image``: pure, mode "1", one function per view kind.

Same view and size, same pixels: the golden-image tests hold the renderer
to that. Nothing here touches a device; ``Display`` sends the images.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from . import screens_menu, screens_notice, screens_play
from .views import (
    ClubRequestView,
    ConnectionView,
    DiagnosisView,
    HistoryView,
    LessonView,
    MatchResultView,
    MatchView,
    MenuView,
    MessageView,
    NameEntryView,
    RevealView,
    RoundResultView,
    TextView,
)
from .widgets import exit_cells, panel

DEFAULT_SIZE = (128, 64)

_SCREENS = {
    MatchView: screens_play.draw_match,
    RevealView: screens_play.draw_reveal,
    RoundResultView: screens_play.draw_round_result,
    MatchResultView: screens_play.draw_match_result,
    MenuView: screens_menu.draw_menu,
    NameEntryView: screens_menu.draw_name_entry,
    TextView: screens_menu.draw_text_view,
    LessonView: screens_menu.draw_lesson,
    HistoryView: screens_menu.draw_history,
    DiagnosisView: screens_notice.draw_diagnosis,
    ConnectionView: screens_menu.draw_connection,
    MessageView: screens_menu.draw_message,
    ClubRequestView: screens_menu.draw_club_request,
}


def render(view, size: tuple[int, int] = DEFAULT_SIZE) -> Image.Image:
    """Draw ``view`` on a blank ``size`` (width, height) 1-bit image."""
    draw_screen = _SCREENS.get(type(view))
    if draw_screen is None:
        known = ", ".join(t.__name__ for t in _SCREENS)
        raise TypeError(f"cannot render {type(view).__name__}; views are {known}")
    p = panel(tuple(size))
    image = Image.new("1", tuple(size), 0)
    draw_screen(ImageDraw.Draw(image), p, view)
    return image


def text_lines(view: TextView | LessonView, size: tuple[int, int] = DEFAULT_SIZE) -> tuple[int, int]:
    """(lines of wrapped text, lines visible at once) for a scrolling view on
    a ``size`` panel: the daemon keeps ``scroll`` within ``lines - visible``."""
    if not isinstance(view, (TextView, LessonView)):
        raise TypeError(f"{type(view).__name__} does not scroll; TextView and LessonView do")
    return screens_menu.scroll_extent(view, panel(tuple(size)))


def page_count(view: DiagnosisView, size: tuple[int, int] = DEFAULT_SIZE) -> int:
    """Pages a notice has on a ``size`` panel: its pages of text, then (with
    more than one option) the page of choices, at ``page_count - 1``. The
    flow turns the knob through them."""
    if not isinstance(view, DiagnosisView):
        raise TypeError(f"{type(view).__name__} is not paged; DiagnosisView is")
    return screens_notice.page_count(view, panel(tuple(size)))


__all__ = ["render", "text_lines", "page_count", "exit_cells", "DEFAULT_SIZE"]
