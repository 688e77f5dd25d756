"""Putting the physical board back after an undo: what a person must do."""

from __future__ import annotations

from ..engine import COIN, HOLE, BoardState


def restore_steps(target: BoardState, halls: dict[str, str], coins: tuple[BoardState, BoardState] | None) -> list[str]:
    """Short instructions to make the board match ``target``: switches the
    hall sensors show on the wrong side, then coins to put on or take off
    (``coins`` = the belief before and after the undo)."""
    g = target.geometry
    steps = []
    for s, code in enumerate(target.codes):
        if code == HOLE:
            continue
        want = "LR"[code & 1]
        seen = halls.get(g.labels[s])
        if seen in ("L", "R") and seen != want:
            steps.append(f"Flip {g.labels[s]} to {want}")
    if coins is not None:
        before, after = coins
        for s, (a, b) in enumerate(zip(before.codes, after.codes)):
            if a == HOLE:
                continue
            if b & COIN and not a & COIN:
                steps.append(f"Coin on {g.labels[s]}")
            elif a & COIN and not b & COIN:
                steps.append(f"Take coin off {g.labels[s]}")
    return steps
