"""The board as a picture (Pillow): entries, switches with pad, lever and
resting coins, holes, inlets, and exits with the round's values."""

from __future__ import annotations

from typing import Sequence

from PIL import Image, ImageDraw, ImageFont

from ..engine import COIN, HOLE, PAD_R, BoardState, Outcome

LANE = 40
ROW = 90
TOP = 70
SIDE = 50
WOOD = (222, 190, 140)
INK = (40, 30, 20)
PAD = (60, 90, 160)
LEVER = (120, 80, 40)
COIN_FILL = (230, 180, 40)
FLIP = (200, 40, 40)


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has one size only
        return ImageFont.load_default()


def board_image(
    state: BoardState,
    values: Sequence[int] | None = None,
    outcome: Outcome | None = None,
    title: str | None = None,
) -> Image.Image:
    g = state.geometry
    rows = len(g.row_sizes)
    w = SIDE * 2 + LANE * g.lanes
    h = TOP + ROW * rows + 90
    img = Image.new("RGB", (w, h), WOOD)
    d = ImageDraw.Draw(img)
    small, big = _font(13), _font(16)

    def lane_x(lane: float) -> float:
        return SIDE + LANE * lane + LANE / 2

    for lane in range(g.lanes):  # lane guides
        d.line([(lane_x(lane), TOP - 10), (lane_x(lane), TOP + ROW * rows)], fill=(205, 170, 120), width=1)
    if title:
        d.text((SIDE, 8), title, fill=INK, font=big)
    for e, s in enumerate(g.entry_switches):
        a, b = g.spans[s]
        x = (lane_x(a) + lane_x(b)) / 2
        d.text((x - 4, 30), str(e + 1), fill=INK, font=big)
        d.polygon([(x - 7, 50), (x + 7, 50), (x, 60)], fill=INK)

    flips = outcome.flips if outcome is not None else None
    for s, code in enumerate(state.codes):
        r = g.row_of[s]
        a, b = g.spans[s]
        y = TOP + ROW * r + ROW / 2
        xa, xb = lane_x(a), lane_x(b)
        if code == HOLE:
            d.ellipse([(xa + xb) / 2 - 14, y - 14, (xa + xb) / 2 + 14, y + 14], fill=(30, 20, 10))
            continue
        pad_x, lever_x = (xb, xa) if code & PAD_R else (xa, xb)
        # The rocker tilts down on the pad side.
        d.line([(lever_x, y - 12), (pad_x, y + 8)], fill=LEVER, width=5)
        d.ellipse([(xa + xb) / 2 - 4, y - 6, (xa + xb) / 2 + 4, y + 2], fill=INK)
        d.rectangle([pad_x - 13, y + 4, pad_x + 13, y + 16], outline=PAD, width=3)
        if code & COIN:
            d.ellipse([pad_x - 10, y - 10, pad_x + 10, y + 10], fill=COIN_FILL, outline=INK)
        inlet_x = xb if g.inlets[s] else xa
        d.polygon([(inlet_x - 5, y - 32), (inlet_x + 5, y - 32), (inlet_x, y - 24)], fill=INK)
        d.text((xa - 12, y + 20), g.labels[s], fill=(110, 90, 70), font=small)
        if flips is not None and flips[s]:
            d.text((xb + 4, y - 30), f"x{flips[s]}", fill=FLIP, font=small)

    base = TOP + ROW * rows
    for x in range(g.lanes):
        cx = lane_x(x)
        d.rectangle([cx - LANE / 2 + 3, base + 5, cx + LANE / 2 - 3, base + 60], outline=INK, width=2)
        d.text((cx - 8, base + 10), f"{x + 1}", fill=INK, font=small)
        if values is not None:
            d.text((cx - 8, base + 32), f"{values[x]}", fill=PAD, font=big)
        if outcome is not None and x in outcome.exits:
            n = outcome.exits.count(x)
            d.ellipse([cx - 8, base + 64, cx + 8, base + 80], fill=COIN_FILL, outline=INK)
            if n > 1:
                d.text((cx + 10, base + 64), f"x{n}", fill=FLIP, font=small)
    return img
