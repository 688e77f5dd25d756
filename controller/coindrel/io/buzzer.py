"""The buzzer: named sounds played on a timeline.

    [outputs.buzzer]
    kind = "tonal"          # passive piezo driven by PWM (gpiozero TonalBuzzer),
                            # "active" (an on/off buzzer, gpiozero Buzzer) or "none"
    pin = 12
    mid_tone = "A6"         # tonal: the middle of the buzzer's range...
    octaves = 1             # ...and how many octaves either side it plays
    active_high = true      # active: on when the pin is high
    muted = false

A new sound cuts off the one playing. Consecutive notes get a short gap so
repeated notes are heard as separate beeps on either kind of buzzer.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from ..config import Section
from .pins import gpio_error, need_gpiozero
from .sounds import Melody, MelodyError, default_sounds, parse_melody
from .timeline import Timeline

log = logging.getLogger("coindrel.io")

KINDS = ("tonal", "active", "none")
GAP = 0.02  # seconds of silence between consecutive notes
_NOTE = re.compile(r"^[A-G](?:#|b)?[0-9]$")


@dataclass(frozen=True)
class BuzzerConfig:
    kind: str = "none"
    pin: int | str | None = None
    mid_tone: str = "A6"
    octaves: int = 1
    active_high: bool = True
    muted: bool = False
    sounds: dict = field(default_factory=default_sounds, compare=False)

    def pins(self) -> dict:
        return {self.pin: "[outputs.buzzer] pin"} if self.kind != "none" and self.pin is not None else {}

    @classmethod
    def from_section(cls, s: Section) -> "BuzzerConfig":
        kind = s.str("kind", "tonal" if s.has("pin") else "none", choices=KINDS)
        pin = s.pin("pin", required=kind != "none")
        mid = s.str("mid_tone", "A6")
        if not _NOTE.match(mid):
            s.fail("mid_tone", f"{mid!r} is not a note name like \"A6\" or \"C#5\"")
        octaves = s.int("octaves", 1, lo=1, hi=3)
        active_high = s.bool("active_high", True)
        muted = s.bool("muted", False)
        sounds = default_sounds()
        extra = s.sub("sounds")
        for name in list(extra.data):
            try:
                sounds[name] = parse_melody(extra.get(name))
            except MelodyError as e:
                extra.fail(name, str(e))
        s.check_unknown()
        return cls(kind=kind, pin=pin, mid_tone=mid, octaves=octaves, active_high=active_high, muted=muted, sounds=sounds)


class Buzzer:
    """Plays named sounds (``play("score", now)``) on ``backend``, an object
    with ``tone(note | None)`` and ``close()``."""

    def __init__(self, backend, sounds: dict[str, Melody], timeline: Timeline, muted: bool = False):
        self.backend = backend
        self.sounds = dict(sounds)
        self.timeline = timeline
        self.muted = muted
        self.playing: str | None = None
        self.note: str | None = None  # what the buzzer sounds now

    def play(self, sound: str, now: float) -> bool:
        """Start ``sound`` (a name, or melody text) at ``now``; False (and a
        log line) for an unknown name. Never raises into the match."""
        melody = self.sounds.get(sound)
        if melody is None:
            try:
                melody = parse_melody(sound)
            except MelodyError:
                log.warning("no sound called %r; sounds are %s", sound, ", ".join(sorted(self.sounds)))
                return False
        self.stop()
        if self.muted:
            return True
        self.playing = sound
        t = now
        for i, (note, dur) in enumerate(melody):
            self.timeline.at(t, lambda n=note: self._tone(n), owner=self)
            nxt = melody[i + 1][0] if i + 1 < len(melody) else None
            if note is not None and nxt is not None:
                gap = min(GAP, dur / 4)  # repeated notes must not merge into one
                self.timeline.at(t + dur - gap, lambda: self._tone(None), owner=self)
            t += dur
        self.timeline.at(t, self._end, owner=self)
        return True

    def stop(self) -> None:
        self.timeline.cancel(self)
        self.playing = None
        if self.note is not None:
            self._tone(None)

    def _tone(self, note: str | None) -> None:
        self.note = note
        self.backend.tone(note)

    def _end(self) -> None:
        self._tone(None)
        self.playing = None

    def close(self) -> None:
        try:
            self.stop()
        finally:
            self.backend.close()


class NullBuzzer:
    """No buzzer: remembers the last note asked for, for tests and the simulator."""

    def __init__(self) -> None:
        self.notes: list[str | None] = []

    def tone(self, note: str | None) -> None:
        self.notes.append(note)

    def close(self) -> None:
        pass


class TonalBackend:
    """A passive buzzer on a PWM pin (gpiozero TonalBuzzer)."""

    def __init__(self, cfg: BuzzerConfig, pin_factory=None):
        from gpiozero import TonalBuzzer
        from gpiozero.tones import Tone

        self._Tone = Tone
        self.device = TonalBuzzer(cfg.pin, mid_tone=Tone(note=cfg.mid_tone), octaves=cfg.octaves, pin_factory=pin_factory)
        self._lo, self._hi = self.device.min_tone.midi, self.device.max_tone.midi
        self._cache: dict[str, object] = {}

    def fitted(self, note: str):
        """The Tone for ``note``, moved by whole octaves into the buzzer's range."""
        tone = self._cache.get(note)
        if tone is None:
            midi = self._Tone(note=note).midi
            while midi < self._lo:
                midi += 12
            while midi > self._hi:
                midi -= 12
            tone = self._cache[note] = self._Tone(midi=midi)
        return tone

    def tone(self, note: str | None) -> None:
        if note is None:
            self.device.stop()
        else:
            self.device.play(self.fitted(note))

    def close(self) -> None:
        self.device.close()


class ActiveBackend:
    """An active buzzer: it has one pitch; notes are on, rests off."""

    def __init__(self, cfg: BuzzerConfig, pin_factory=None):
        from gpiozero import Buzzer as GpioBuzzer

        self.device = GpioBuzzer(cfg.pin, active_high=cfg.active_high, pin_factory=pin_factory)

    def tone(self, note: str | None) -> None:
        if note is None:
            self.device.off()
        else:
            self.device.on()

    def close(self) -> None:
        self.device.close()


def build_buzzer(cfg: BuzzerConfig, timeline: Timeline, pin_factory=None) -> Buzzer:
    if cfg.kind == "none":
        backend = NullBuzzer()
    else:
        need_gpiozero("[outputs.buzzer]")
        from gpiozero.exc import GPIOZeroError

        try:
            backend = TonalBackend(cfg, pin_factory) if cfg.kind == "tonal" else ActiveBackend(cfg, pin_factory)
        except (GPIOZeroError, ValueError, OSError) as e:
            raise gpio_error(f"[outputs.buzzer] pin ({cfg.kind} buzzer)", cfg.pin, e) from None
    return Buzzer(backend, cfg.sounds, timeline, cfg.muted)
