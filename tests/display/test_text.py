"""Text that fits: folding to what the font draws, cutting, wrapping."""

from hypothesis import given
from hypothesis import strategies as st

from coindrel.display import text as T


def test_displayable_folds_what_the_default_face_lacks():
    assert T.displayable("Zoë", 10) == "Zoe"
    assert T.displayable("Hub disconnected \u2014 reconnecting", 10) == "Hub disconnected - reconnecting"
    assert T.displayable("Łukasz Straße", 10) == "Lukasz Strasse"
    assert T.displayable("中", 10) == "?"
    assert T.displayable("a\tb\nc", 10) == "a b c"
    # TINY_FONT is ASCII only
    assert T.displayable("café", 0) == "cafe"


def test_fit_cuts_with_an_ellipsis_and_never_exceeds_the_width():
    s = T.fit("Bartholomew Maximilian", 10, 60)
    assert s.endswith("\u2026") and T.width(s, 10) <= 60
    assert T.fit("Bob", 10, 60) == "Bob"
    assert T.fit("Bartholomew", 10, 3) == ""


@given(st.text(min_size=0, max_size=60), st.integers(1, 200), st.sampled_from([10, 13, 16]))
def test_fit_always_fits(text, room, size):
    out = T.fit(text, size, room)
    assert T.width(out, size) <= room


@given(st.lists(st.text(alphabet="abcdefghij XYZ", min_size=1, max_size=25), max_size=12), st.integers(20, 200))
def test_wrap_keeps_every_word_and_fits_each_line(words, room):
    text = " ".join(words)
    lines = T.wrap(text, 10, room)
    for line in lines:
        assert T.width(line, 10) <= room
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_wrap_keeps_paragraph_breaks():
    assert T.wrap("one\n\ntwo", 10, 100) == ["one", "", "two"]


def test_widths_are_measured_as_drawn_on_1bit_images():
    from PIL import Image, ImageDraw

    for s in ("Last drop of the round", "target 20", "0:27", "Alice"):
        img = Image.new("1", (300, 20))
        ImageDraw.Draw(img).text((0, 0), s, font=T.font(10), fill=1)
        assert img.getbbox()[2] <= T.width(s, 10)


def test_tiny_text_helpers():
    assert T.tiny_width("12") == 7
    assert T.fit_tiny("A VERY LONG HINT LINE INDEED", 40).endswith("..")
    assert all(T.tiny_width(x) <= 40 for x in T.wrap_tiny("some words that wrap around here", 40))
