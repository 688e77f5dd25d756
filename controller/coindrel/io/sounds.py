"""The table's sounds, as short melodies in note names gpiozero understands.

A melody is text: steps separated by spaces, each ``NOTE:seconds`` where
NOTE is a note name as ``gpiozero.tones.Tone`` reads it ("A5", "C#6",
"Eb6") or ``-`` for a rest. ``[outputs.buzzer.sounds]`` in the config can
replace any of these or add new ones:

    [outputs.buzzer.sounds]
    score = "C6:0.06 E6:0.06 G6:0.1"

The defaults sit between A5 and A7, where small piezo buzzers are loud; a
tonal buzzer moves notes outside its range by whole octaves into it.
"""

from __future__ import annotations

import re

from ..errors import CoindrelError

Melody = tuple[tuple[str | None, float], ...]

_STEP = re.compile(r"^(?:(?P<note>[A-G](?:#|b|\u266f|\u266d)?[0-9])|(?P<rest>-)):(?P<dur>\d+(?:\.\d+)?|\.\d+)$")
MAX_STEP = 5.0  # seconds; a longer step is a typo, and a stuck buzzer is miserable

SOUNDS = {
    # menus
    "click": "A6:0.015",
    "select": "E6:0.03 A6:0.05",
    "back": "A6:0.03 E6:0.05",
    "error": "C6:0.12 -:0.05 C6:0.2",
    # the match
    "start": "C6:0.08 E6:0.08 G6:0.08 C7:0.2",
    "coin": "G6:0.02",
    "score": "C7:0.05 E7:0.08",
    "nothing": "E6:0.08",
    "last-drop": "G6:0.1 -:0.05 G6:0.1 -:0.05 D7:0.25",
    "round-over": "C6:0.1 E6:0.1 G6:0.1 C7:0.1 G6:0.1 C7:0.3",
    "match-won": "C6:0.12 E6:0.12 G6:0.12 C7:0.24 -:0.06 G6:0.12 C7:0.5",
    "draw": "G6:0.2 -:0.05 G6:0.2",
    "tick": "A6:0.02",
    "timeout": "A6:0.1 -:0.05 F6:0.1 -:0.05 D6:0.3",
    # the board and the hub
    "mismatch": "D7:0.08 -:0.04 D7:0.08 -:0.04 D7:0.08 -:0.1 A6:0.3",
    "connected": "E6:0.06 B6:0.1",
    "disconnected": "B6:0.06 E6:0.2",
}


class MelodyError(CoindrelError, ValueError):
    pass


def parse_melody(text: str) -> Melody:
    """``"C6:0.1 -:0.05 E6:0.2"`` -> ``(("C6", 0.1), (None, 0.05), ("E6", 0.2))``."""
    if not isinstance(text, str) or not text.strip():
        raise MelodyError("a melody is text like \"C6:0.1 -:0.05 E6:0.2\" (note:seconds, - for a rest)")
    steps = []
    for i, token in enumerate(text.split(), 1):
        m = _STEP.match(token)
        if not m:
            raise MelodyError(
                f"step {i} {token!r} is not NOTE:seconds; a note is a letter A-G, an optional # or b and an "
                "octave 0-9 (e.g. C#6:0.1), a rest is -:seconds"
            )
        dur = float(m.group("dur"))
        if not 0 < dur <= MAX_STEP:
            raise MelodyError(f"step {i} {token!r} lasts {dur:g} s; a step lasts more than 0 and at most {MAX_STEP:g} s")
        steps.append((m.group("note"), dur))
    return tuple(steps)


def duration(melody: Melody) -> float:
    return sum(d for _, d in melody)


def default_sounds() -> dict[str, Melody]:
    return {name: parse_melody(text) for name, text in SOUNDS.items()}
