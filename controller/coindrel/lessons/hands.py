"""Board events a healthy board (and a helpful pair of hands) would report,
made with the engine: for walking a lesson without hardware (``coindrel
lesson``), for tests, and for a simulator that has no timing model of its own.
"""

from __future__ import annotations

from typing import Mapping

from ..engine import HOLE, PAD_R, BoardState, drop
from ..events import EntryEvent, ExitEvent, SwitchEvent


def hall_positions(board: BoardState) -> dict[str, str]:
    """What every hall sensor reads on ``board``: L, R, or none for a hole."""
    return {label: ("none" if c == HOLE else "LR"[c & PAD_R]) for label, c in zip(board.geometry.labels, board.codes)}


def setup_events(todo, t: float = 0.0, step: float = 0.5) -> list[SwitchEvent]:
    """A person setting the switches in ``todo`` ((label, want) pairs): each
    rocker passes ``mid`` on its way (a removed switch just reads none)."""
    events = []
    for label, want in todo:
        if want != "none":
            events.append(SwitchEvent(t, label, "mid"))
            t += 0.05
        events.append(SwitchEvent(t, label, want))
        t += step
    return events


def drop_events(board: BoardState, entries, t: float = 0.0, positions: Mapping[str, str] | None = None) -> list:
    """The events of a drop on a healthy board: the entry beam, each flip as
    ``mid`` then the new side, the exit beams. ``board`` is what the board
    really is (it may differ from what a lesson believes)."""
    outcome = drop(board, list(entries))
    g = board.geometry
    pads = {label: "LR"[c & PAD_R] for label, c in zip(g.labels, board.codes) if c != HOLE}
    events: list = []
    for e in entries:
        events.append(EntryEvent(t, e))
        t += 0.01
    for s in outcome.flipped:  # processing order: a rocker never interleaves two flips
        label = g.labels[s]
        pads[label] = "R" if pads[label] == "L" else "L"
        events.append(SwitchEvent(t, label, "mid"))
        events.append(SwitchEvent(t + 0.03, label, pads[label]))
        t += 0.06
    for x in outcome.exits:
        events.append(ExitEvent(t, x))
        t += 0.02
    return events
