"""The board as it stands, laid out for the SVG template: one rocker per
switch (pad side, coin, hole), from the one-line board text a table sends."""

from __future__ import annotations

from ...engine import COIN, HOLE, PAD_R, BoardState, EngineError, standard_geometry

LANE, ROW, TOP, SIDE = 40, 70, 40, 20


def board_layout(text: str | None, values=None) -> dict | None:
    """Shapes for templates/_board.html, or None if the text is not a standard board."""
    if not text:
        return None
    g = standard_geometry()
    try:
        state = BoardState.parse(text, g)
    except EngineError:
        return None
    lane_x = lambda lane: SIDE + LANE * lane + LANE / 2  # noqa: E731
    switches = []
    for s, code in enumerate(state.codes):
        a, b = g.spans[s]
        xa, xb = lane_x(a), lane_x(b)
        y = TOP + ROW * g.row_of[s] + ROW / 2
        if code == HOLE:
            switches.append({"hole": True, "x": (xa + xb) / 2, "y": y, "label": g.labels[s]})
            continue
        pad, lever = (xb, xa) if code & PAD_R else (xa, xb)
        switches.append({"hole": False, "pad": pad, "lever": lever, "y": y, "mid": (xa + xb) / 2,
                         "coin": bool(code & COIN), "label": g.labels[s]})
    base = TOP + ROW * len(g.row_sizes)
    exits = [{"x": lane_x(x), "n": x + 1, "value": values[x] if values and x < len(values) else None}
             for x in range(g.lanes)]
    entries = [{"x": (lane_x(g.spans[s][0]) + lane_x(g.spans[s][1])) / 2, "n": e + 1}
               for e, s in enumerate(g.entry_switches)]
    return {"w": SIDE * 2 + LANE * g.lanes, "h": base + 60, "base": base, "lane": LANE, "switches": switches,
            "exits": exits, "entries": entries, "text": state.text()}
