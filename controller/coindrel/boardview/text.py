"""The board drawn in a terminal.

Lane ``x`` takes columns ``4x .. 4x+3`` after the row label; a switch covers
its two lanes. Above each row a ``v`` marks the inlet side (where the funnel
drops coins); the pad is ``[ ]`` (``[o]``/``[●]`` with a resting coin) and the
lever ``--`` is on the other side. Holes show as ``( )``.
"""

from __future__ import annotations

from ..engine import COIN, HOLE, PAD_R, BoardState, Outcome

LEFT = 9  # columns taken by the row label
CELL = 4  # columns per lane


def _put(line: list[str], col: int, text: str) -> None:
    for i, ch in enumerate(text):
        if 0 <= col + i < len(line):
            line[col + i] = ch


def board_text(
    state: BoardState,
    values: "Sequence[int] | None" = None,  # noqa: F821 (typing only)
    value_label: str = "values",
    outcome: Outcome | None = None,
    unicode: bool = True,
) -> str:
    """A multi-line picture of ``state``; with ``outcome``, flips and exits of
    the drop that led to it are marked (``*`` on a flipped switch, ``^`` under a
    reached exit)."""
    g = state.geometry
    width = LEFT + CELL * g.lanes + 2
    coin = "●" if unicode else "o"
    lines: list[str] = []

    head = [" "] * width
    _put(head, 0, "entries")
    for e, s in enumerate(g.entry_switches):
        a, b = g.spans[s]
        _put(head, LEFT + CELL * (a + b + 1) // 2 - 1, str(e + 1))
    lines.append("".join(head).rstrip())

    flips = outcome.flips if outcome is not None else None
    for r, size in enumerate(g.row_sizes):
        inlet_line = [" "] * width
        row_line = [" "] * width
        _put(row_line, 0, f"R{r + 1}")
        for j in range(size):
            s = g.row_start[r] + j
            a, b = g.spans[s]
            start = LEFT + CELL * a
            code = state.codes[s]
            if code == HOLE:
                _put(row_line, start + 2, " ( ) ")
                continue
            inlet_lane = b if g.inlets[s] else a
            _put(inlet_line, LEFT + CELL * inlet_lane + 1, "v")
            pad = "[" + (coin if code & COIN else " ") + "]"
            token = f"  --{pad} " if code & PAD_R else f" {pad}--  "
            if flips is not None and flips[s]:
                token = token[:-1] + ("*" if flips[s] == 1 else str(min(flips[s], 9)))
            _put(row_line, start, token)
        lines.append("".join(inlet_line).rstrip())
        lines.append("".join(row_line).rstrip())

    exits_line = [" "] * width
    _put(exits_line, 0, "exits")
    for x in range(g.lanes):
        _put(exits_line, LEFT + CELL * x, f"{x + 1:>3}")
    lines.append("".join(exits_line).rstrip())
    if values is not None:
        vline = [" "] * width
        _put(vline, 0, value_label[:LEFT - 1])
        for x, v in enumerate(values):
            _put(vline, LEFT + CELL * x, f"{v:>3}")
        lines.append("".join(vline).rstrip())
    if outcome is not None:
        hits = [" "] * width
        _put(hits, 0, "reached")
        for x in outcome.exits:
            count = outcome.exits.count(x)
            _put(hits, LEFT + CELL * x, f"{'^' if count == 1 else count:>3}")
        lines.append("".join(hits).rstrip())
    return "\n".join(lines)
