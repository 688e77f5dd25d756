"""What the table flow asks the outside world to do.

The flow is pure: it never touches a buzzer, a LED, the dropper or the
reconciler. It appends ``Effect``s, and the daemon carries them out in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SOUND = "sound"  # name: a sound from coindrel.io.sounds
LED = "led"  # entry, name: "on" | "blink" | "off"
LEDS_OFF = "leds-off"
DROP = "drop"  # entry: fire the dropper
BELIEF = "belief"  # data: BoardState the reconciler must now believe
EXPECT = "expect"  # data: bool, whether a drop can come now (the reconciler's expecting flag)
NEW_MATCH = "new-match"  # data: Match, to journal from its first line
END_MATCH = "end-match"  # name: "finished" | "abandoned"
WAKE = "wake"  # a person did something: full brightness


@dataclass(frozen=True)
class Effect:
    kind: str
    name: str = ""
    entry: int | None = None
    data: Any = None
