"""What every frame must do, whatever the view: size, mode, purity, the
pixel-shift margin, the exit values under the exits, names that stay in
their place."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from coindrel.display import (
    LessonView,
    MatchView,
    MenuItem,
    MenuView,
    RevealView,
    TextView,
    exit_cells,
    render,
    text_lines,
)
from coindrel.display.widgets import exit_row_height, panel
from coindrel.engine import VALUES
from luma.core.legacy.font import TINY_FONT

from .samples import LONG, SAMPLES

SIZES = [(128, 64), (256, 64), (128, 128), (192, 64), (256, 128), (160, 80)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_sample_renders_1bit_at_size_with_free_margin(size):
    w, h = size
    for name, view in SAMPLES.items():
        img = render(view, size)
        assert img.mode == "1" and img.size == size, name
        # The last column and row are left for the Display's pixel shift.
        assert img.crop((w - 1, 0, w, h)).getbbox() is None, f"{name} draws in the last column"
        assert img.crop((0, h - 1, w, h)).getbbox() is None, f"{name} draws in the last row"
        assert img.getbbox() is not None, f"{name} draws nothing"


def test_render_is_pure_and_deterministic():
    for name, view in SAMPLES.items():
        before = dataclasses.replace(view)
        a, b = render(view), render(view)
        assert a.tobytes() == b.tobytes(), name
        assert view == before


def test_panels_too_small_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="too small.*128x64"):
        render(SAMPLES["match"], (96, 64))
    with pytest.raises(ValueError, match="rotate"):
        render(SAMPLES["match"], (64, 128))


def test_unknown_view_is_a_type_error_naming_the_kinds():
    with pytest.raises(TypeError, match="MatchView"):
        render(object())


# -- the exit row ----------------------------------------------------------------

DIGITS = {}
for _d in "0123456789*":
    _cols = [c >> 1 for c in TINY_FONT[ord(_d)][:3]]  # rows 1..5 of the glyph, as drawn from y + 1
    DIGITS[tuple(_cols)] = _d


def read_cell(img: Image.Image, x0: int, x1: int, y: int, inverted: bool) -> str:
    """Read the digits in one exit's cell back from the pixels (TINY_FONT)."""
    cols = []
    for x in range(x0, x1 - 1):  # the cell's last column is the divider
        bits = 0
        for r in range(5):
            on = img.getpixel((x, y + 1 + r)) > 0
            if on != inverted:
                bits |= 1 << r
        cols.append(bits)
    text, i = "", 0
    while i < len(cols):
        if cols[i] == 0:
            i += 1
            continue
        glyph = tuple(cols[i:i + 3]) + (0,) * (3 - len(cols[i:i + 3]))
        assert glyph in DIGITS, f"unreadable glyph {glyph} at x={x0 + i}"
        text += DIGITS[glyph]
        i += 3
    return text


def exit_row(img, size):
    p = panel(size)
    y = p.h - exit_row_height(p)
    return y


@pytest.mark.parametrize("size", [(128, 64), (256, 64), (128, 128), (192, 64)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("values", [VALUES[1], VALUES[3], tuple(range(16)), (99, 0, 10, 88, 7, 11, 12, 12, 12, 12, 1, 2, 3, 45, 60, 98)])
def test_the_sixteen_values_sit_under_the_sixteen_exits(size, values):
    hit = (0, 7, 15)
    img = render(MatchView(("A", "B"), 4, 80, values, hit_exits=hit), size)
    w = size[0]
    y = exit_row(img, size)
    cells = exit_cells(w)
    assert len(cells) == 16
    for k, (x0, x1) in enumerate(cells):
        # Each exit's column is centred where exit k is along the panel's width.
        assert abs((x0 + x1) / 2 - (k + 0.5) * w / 16) <= 1
        assert read_cell(img, x0, x1, y, inverted=k in hit) == str(values[k]), f"exit {k + 1}"
        # ...and the digits are centred in that column, within a pixel.
        ink = [x for x in range(x0, x1 - 1) for r in range(5)
               if (img.getpixel((x, y + 1 + r)) > 0) != (k in hit)]
        mid = (min(ink) + max(ink)) / 2
        assert abs(mid - (x0 + x1 - 2) / 2) <= 1, f"exit {k + 1} off centre"


def test_reveal_shows_only_the_revealed_exits_in_place():
    values = VALUES[2]
    full = render(RevealView(3, 20, values))
    part = render(RevealView(3, 20, values, shown=5))
    y = exit_row(full, (128, 64))
    for k, (x0, x1) in enumerate(exit_cells(128)):
        if k < 5:
            assert read_cell(part, x0, x1, y, False) == str(values[k]) == read_cell(full, x0, x1, y, False)
        else:  # one dot: an exit whose value is still to come
            lit = [1 for x in range(x0, x1 - 1) for yy in range(y, 63) if part.getpixel((x, yy))]
            assert len(lit) == 1


def test_values_over_99_are_flagged_not_overflowing():
    values = (100,) + (1,) * 15
    img = render(MatchView(("A", "B"), 1, 10, values))
    x0, x1 = exit_cells(128)[0]
    assert read_cell(img, x0, x1, exit_row(img, (128, 64)), False) == "**"


def test_exit_row_is_in_the_same_place_on_reveal_and_match():
    y_reveal = exit_row(None, (128, 64))
    a = render(RevealView(2, 40, VALUES[1])).crop((0, y_reveal, 128, 64))
    b = render(MatchView(("A", "B"), 2, 40, VALUES[1])).crop((0, y_reveal, 128, 64))
    assert a.tobytes() == b.tobytes()


# -- names -----------------------------------------------------------------------


@pytest.mark.parametrize("size", [(128, 64), (256, 64), (128, 128)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_long_names_are_cut_not_spilling_into_the_other_player(size):
    w, h = size
    short = render(MatchView(("Al", "Bo"), 1, 10, VALUES[0], to_move=None), size)
    long1 = render(MatchView((LONG, "Bo"), 1, 10, VALUES[0], to_move=None), size)
    long2 = render(MatchView(("Al", LONG), 1, 10, VALUES[0], to_move=None), size)
    half = (w - 1 + 1) // 2
    # Player 1's long name changes nothing right of the divider, player 2's nothing left of it.
    assert long1.crop((half, 0, w, h)).tobytes() == short.crop((half, 0, w, h)).tobytes()
    assert long2.crop((0, 0, half, h)).tobytes() == short.crop((0, 0, half, h)).tobytes()
    # ...and both are visibly longer than "Al"/"Bo": cut to the space, not dropped.
    from PIL import ImageChops

    box = ImageChops.difference(long1, short).getbbox()
    assert box is not None and box[2] <= half - 1 and box[2] - box[0] > 20


def test_long_names_everywhere_stay_on_the_panel():
    for name, view in SAMPLES.items():
        if hasattr(view, "players"):
            v = dataclasses.replace(view, players=(LONG * 2, LONG))
            img = render(v)
            assert img.crop((127, 0, 128, 64)).getbbox() is None, name


def test_non_ascii_names_are_folded_not_boxed():
    a = render(MatchView(("Zoë", "Łukasz"), 1, 10, VALUES[0]))
    b = render(MatchView(("Zoe", "Lukasz"), 1, 10, VALUES[0]))
    assert a.tobytes() == b.tobytes()


# -- scrolling -----------------------------------------------------------------


def test_text_lines_bounds_scrolling_and_render_clamps():
    view = TextView("Rules", "word " * 300)
    total, visible = text_lines(view)
    assert total > visible >= 3
    last = render(dataclasses.replace(view, scroll=total - visible))
    beyond = render(dataclasses.replace(view, scroll=total + 50))
    assert last.tobytes() == beyond.tobytes()
    assert render(dataclasses.replace(view, scroll=1)).tobytes() != render(view).tobytes()


def test_lesson_text_scrolls_too():
    view = LessonView("Flips", 1, 3, "A coin passing the lever flips the switch. " * 6, board=None)
    total, visible = text_lines(view)
    assert total > visible
    assert render(dataclasses.replace(view, scroll=2)).tobytes() != render(view).tobytes()
    with pytest.raises(TypeError):
        text_lines(SAMPLES["match"])


def _bands(img):
    """The inverted bands (rows lit in the margin left of the text, x=0..1) as
    crops; the one-pixel rule under the title is not a band."""
    rows = [y for y in range(img.height) if img.getpixel((0, y)) and img.getpixel((1, y))]
    bands, start = [], None
    for y in rows + [None]:
        if start is None:
            start = prev = y
        elif y != prev + 1:
            if prev - start >= 2:
                bands.append(img.crop((0, start, img.width, prev + 1)))
            start = prev = y
        else:
            prev = y
    return bands


@given(st.integers(0, 40), st.integers(1, 40))
def test_menus_always_show_the_selected_item(selected, count):
    selected = selected % count
    items = tuple(MenuItem(f"Item {i}", str(i * 7)) for i in range(count))
    bands = _bands(render(MenuView("Pick", items, selected)))
    assert len(bands) == 1, "exactly one highlighted row"
    # It is the selected item: the same pixels as a menu holding only that item.
    alone = _bands(render(MenuView("Pick", (items[selected],), 0)))[0]
    got = bands[0]
    assert got.size == alone.size
    # Same label at the same place (the value sits right-aligned, against a bar
    # that a scroll bar may have narrowed, so compare the label's part).
    assert got.crop((0, 0, 60, got.height)).tobytes() == alone.crop((0, 0, 60, alone.height)).tobytes()


# -- views check themselves --------------------------------------------------------


def test_views_refuse_bad_shapes():
    with pytest.raises(ValueError, match="16"):
        MatchView(("A", "B"), 1, 10, (1, 2, 3))
    with pytest.raises(ValueError, match="player 1 or 2"):
        MatchView(("A", "B"), 1, 10, VALUES[0], to_move=3)
    with pytest.raises(ValueError, match="hit_exits"):
        MatchView(("A", "B"), 1, 10, VALUES[0], hit_exits=(16,))
    with pytest.raises(ValueError, match="selected"):
        MenuView("M", (MenuItem("a"),), selected=1)
    with pytest.raises(ValueError, match="shown"):
        RevealView(1, 10, VALUES[0], shown=17)
    with pytest.raises(ValueError, match="step"):
        LessonView("x", 4, 3, "t")


def test_lesson_board_text_errors_are_the_engines():
    from coindrel.engine import EngineError

    with pytest.raises(EngineError, match="row"):
        render(LessonView("x", 1, 1, "t", board="LLL/LL"))


def test_drawing_uses_the_libraries_fonts():
    # The exit digits are luma's TINY_FONT as luma.core.legacy.text draws them.
    from luma.core.legacy import text

    img = Image.new("1", (8, 8))
    text(ImageDraw.Draw(img), (0, 0), "12", fill=1, font=TINY_FONT)
    match = render(MatchView(("A", "B"), 4, 80, (12,) + (1,) * 15))
    y = exit_row(match, (128, 64))
    assert match.crop((0, y, 7, y + 6)).tobytes() == img.crop((0, 0, 7, 6)).tobytes()
