"""Fonts and text for a 1-bit panel: what fits, what the font can draw.

Two fonts, both shipped by the libraries we already depend on: Pillow's
default font at a chosen size (``ImageFont.load_default(size)``, FreeType)
for words, and luma's ``TINY_FONT`` (3x5 pixels in a 4 px cell) for the
sixteen exit values and small print, drawn with ``luma.core.legacy.text``.

Pillow's built-in face covers ASCII and little else; a name like "Zoë"
would show a box, so text is folded to what the face can draw first.
Everything here is pure and cached per size.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from PIL import ImageFont

from luma.core.legacy import text as legacy_text
from luma.core.legacy.font import TINY_FONT, tolerant

ELLIPSIS = "…"
TINY = tolerant(TINY_FONT, missing="?")
TINY_ADVANCE = 4  # pixels per character, including the blank column after it
TINY_HEIGHT = 5  # lit rows of a TINY_FONT glyph...
TINY_TOP = 1  # ...starting this many rows below the y it is drawn at

# Folds for characters the default face lacks; anything else missing becomes "?".
_FOLDS = {
    "\u2014": "-", "\u2013": "-", "\u2212": "-", "\u2018": "'", "\u2019": "'",
    "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\u00d7": "x", "\u2192": ">",
    "\u2190": "<", "\u00df": "ss", "\u00e6": "ae", "\u00c6": "AE", "\u0153": "oe",
    "\u00f8": "o", "\u00d8": "O", "\u0142": "l", "\u0141": "L", "\u0111": "d",
}


@lru_cache(maxsize=None)
def font(size: int):
    """Pillow's default face at ``size`` px (the bitmap font when Pillow has no FreeType)."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow without FreeType: one size only
        return ImageFont.load_default()


@lru_cache(maxsize=None)
def _missing_mask(size: int) -> bytes:
    # Characters the face lacks all draw the same box; remember its pixels.
    f = font(size)
    return bytes(f.getmask("\uffff"))


@lru_cache(maxsize=4096)
def _has_glyph(size: int, ch: str) -> bool:
    if " " <= ch <= "~":
        return True
    return bytes(font(size).getmask(ch)) != _missing_mask(size)


def _fold_char(ch: str, has) -> str:
    if has(ch):
        return ch
    if ch in _FOLDS:
        return _FOLDS[ch]
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    if base and base != ch and all(has(c) for c in base):
        return base
    return "?"


@lru_cache(maxsize=2048)
def displayable(text: str, size: int = 0) -> str:
    """``text`` folded to characters the face at ``size`` can draw (size 0:
    plain printable ASCII, for TINY_FONT). Control characters become spaces."""
    text = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in str(text))
    if size <= 0:
        return "".join(c if " " <= c <= "~" else _fold_char(c, lambda x: " " <= x <= "~") for c in text)
    return "".join(_fold_char(c, lambda x: _has_glyph(size, x)) for c in text)


def width(text: str, size: int) -> int:
    """Advance width in pixels of ``text`` (already displayable) at ``size``."""
    if not text:
        return 0
    # Measured as drawn: on a 1-bit image FreeType hints for mono, and the
    # advances differ from the anti-aliased ones by several pixels a line.
    return _width(text, size)


@lru_cache(maxsize=8192)
def _width(text: str, size: int) -> int:
    f = font(size)
    try:
        return int(round(f.getlength(text, mode="1")))
    except TypeError:  # the bitmap fallback font takes no mode
        return int(round(f.getlength(text)))


def fit(text: str, size: int, max_width: int) -> str:
    """``text`` made displayable and, if too wide for ``max_width`` px, cut
    and ended with an ellipsis, so it never runs into its neighbour."""
    text = displayable(text, size)
    if width(text, size) <= max_width:
        return text
    tail = ELLIPSIS if _has_glyph(size, ELLIPSIS) else ".."
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix that still fits with the tail
        mid = (lo + hi + 1) // 2
        if width(text[:mid].rstrip() + tail, size) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo].rstrip()
    return cut + tail if width(cut + tail, size) <= max_width else ""


def shrink_to_fit(text: str, size: int, max_width: int, smallest: int = 10) -> int:
    """The largest size from ``size`` down to ``smallest`` at which ``text``
    fits ``max_width`` px (``smallest`` when none does: then ``fit`` cuts it).
    A status line read whole beats a bigger one cut short."""
    for s in range(size, min(size, smallest) - 1, -1):
        if width(displayable(text, s), s) <= max_width:
            return s
    return min(size, smallest)


def spaced_width(text: str, size: int, gap: int = 0) -> int:
    """Width of ``text`` drawn by ``draw_spaced`` with ``gap`` extra px per space."""
    return width(text, size) + gap * text.count(" ")


def draw_spaced(draw, xy, text: str, size: int, gap: int = 0, fill: int = 1) -> None:
    """``draw_text`` with ``gap`` extra pixels at every space: the default
    face's 2 px space runs words together in a long sentence on a 1-bit panel."""
    if not gap:
        draw_text(draw, xy, text, size, fill)
        return
    x = xy[0]
    for i, word in enumerate(displayable(text, size).split(" ")):
        if i:
            x += width(" ", size) + gap
        draw_text(draw, (x, xy[1]), word, size, fill)
        x += width(word, size)


def wrap(text: str, size: int, max_width: int, gap: int = 0) -> list[str]:
    """Greedy word wrap to ``max_width`` px; blank lines in ``text`` separate
    paragraphs and are kept; a word wider than a line is cut. ``gap``: extra
    px per space, for lines drawn with ``draw_spaced``."""
    out: list[str] = []
    for para in str(text).split("\n"):
        words = displayable(para, size).split()
        if not words:
            out.append("")
            continue
        line = ""
        for word in words:
            while width(word, size) > max_width:  # a word longer than the line
                if line:
                    out.append(line)
                    line = ""
                n = len(word)
                while n > 1 and width(word[:n], size) > max_width:
                    n -= 1
                out.append(word[:n])
                word = word[n:]
            candidate = f"{line} {word}" if line else word
            if spaced_width(candidate, size, gap) <= max_width:
                line = candidate
            else:
                out.append(line)
                line = word
        if line:
            out.append(line)
    return out


@lru_cache(maxsize=None)
def text_box(size: int) -> tuple[int, int]:
    """(top, bottom) rows, relative to the y text is drawn at, that hold the
    ink of capitals and descenders at ``size``: for vertical placement."""
    f = font(size)
    try:
        return f.getbbox("HIdb", mode="1")[1], f.getbbox("Hgjpqy", mode="1")[3]
    except TypeError:
        return f.getbbox("HIdb")[1], f.getbbox("Hgjpqy")[3]


def line_height(size: int) -> int:
    top, bottom = text_box(size)
    return bottom - top + 1


def draw_text(draw, xy, text: str, size: int, fill: int = 1) -> None:
    """Draw displayable ``text`` so its capitals' top row lands on ``xy[1]``."""
    top, _ = text_box(size)
    draw.text((xy[0], xy[1] - top), displayable(text, size), font=font(size), fill=fill)


def tiny_width(text: str) -> int:
    """Lit width of ``text`` in TINY_FONT (the last blank column not counted)."""
    return max(0, TINY_ADVANCE * len(text) - 1)


def draw_tiny(draw, xy, text: str, fill: int = 1) -> None:
    """TINY_FONT text whose 5 lit rows start at ``xy[1]``, in capitals: the
    font's lower case is too small to read at arm's length."""
    legacy_text(draw, (xy[0], xy[1] - TINY_TOP), displayable(text).upper(), fill=fill, font=TINY)


def fit_tiny(text: str, max_width: int) -> str:
    text = displayable(text)
    if tiny_width(text) <= max_width:
        return text
    n = max(0, (max_width + 1) // TINY_ADVANCE - 2)
    return text[:n] + ".." if n else text[: (max_width + 1) // TINY_ADVANCE]


def wrap_tiny(text: str, max_width: int) -> list[str]:
    per_line = max(1, (max_width + 1) // TINY_ADVANCE)
    out: list[str] = []
    for para in str(text).split("\n"):
        line = ""
        for word in displayable(para).split():
            while len(word) > per_line:
                if line:
                    out.append(line)
                    line = ""
                out.append(word[:per_line])
                word = word[per_line:]
            candidate = f"{line} {word}" if line else word
            if len(candidate) <= per_line:
                line = candidate
            else:
                out.append(line)
                line = word
        out.append(line)
    return out
