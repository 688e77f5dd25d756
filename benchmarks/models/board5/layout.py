"""The standard board as rules.md section 2 draws it: rows, spans, inlets,
lanes. Written out here (not taken from the engine) so the model's physics
has its own reading of the board."""

from __future__ import annotations

ROWS = 5
LANES = 16
ENTRIES = 8
L, R = 0, 1


def row_size(r: int) -> int:
    return 8 if r % 2 == 0 else 7


SWITCHES = [(r, j) for r in range(ROWS) for j in range(row_size(r))]
INDEX = {rj: i for i, rj in enumerate(SWITCHES)}
LABELS = [f"R{r + 1}S{j + 1}" for r, j in SWITCHES]


def left_lane(s: int) -> int:
    r, j = SWITCHES[s]
    return 2 * j + (r % 2)


def inlet(s: int) -> int:
    r, j = SWITCHES[s]
    if (r, j) == (1, 3):
        return R
    if (r, j) == (3, 3):
        return L
    return L if j < (4 if r % 2 == 0 else 3) else R


def covering(row: int, lane: int) -> int | None:
    """The switch of ``row`` whose span covers ``lane`` (None: a gap at an odd row's edge)."""
    j = (lane - row % 2) // 2
    if 0 <= j < row_size(row) and lane - row % 2 >= 0:
        return INDEX[(row, j)]
    return None


def below(s: int, side: int) -> tuple[str, int, int]:
    """Where a coin leaving switch ``s`` through outlet ``side`` goes next:
    ("switch", index, rows fallen) or ("exit", lane, rows fallen)."""
    r, _ = SWITCHES[s]
    lane = left_lane(s) + side
    for r2 in range(r + 1, ROWS):
        t = covering(r2, lane)
        if t is not None:
            return "switch", t, r2 - r
    return "exit", lane, ROWS - r


def entry_switch(e: int) -> int:
    return INDEX[(0, e)]


def outlet_label(s: int, side: int) -> str:
    return f"{LABELS[s]} {'left' if side == L else 'right'} outlet"


def parse_outlet(where: str) -> tuple[int, int]:
    label, side, _ = where.split(" ")
    return LABELS.index(label), (L if side == "left" else R)


def text_rows(pads: list[int], coins: list[int]) -> list[str]:
    """rules.md section 9: one string per row, lowercase where a coin rests."""
    rows = []
    for r in range(ROWS):
        chars = []
        for j in range(row_size(r)):
            s = INDEX[(r, j)]
            c = "L" if pads[s] == L else "R"
            chars.append(c.lower() if coins[s] else c)
        rows.append("".join(chars))
    return rows
