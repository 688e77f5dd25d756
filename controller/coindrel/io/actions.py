"""Menu actions: the one upward stream from buttons and the encoder.

The daemon sees only ``Action``s: ``next``, ``prev``, ``select``, ``back``,
``hold-select``, ``hold-back`` (``repeat`` marks auto-repeated next/prev).
``Keypad`` turns key edges and encoder steps into them with timing from an
injected clock, never from sleeps or gpiozero's hold threads:

- up/down (prev/next) act on press, then repeat while held;
- select/back act on release, or become hold-select/hold-back once held for
  ``hold_time`` (at the first ``poll`` after that, or at release if no poll
  came in between), and then do nothing more on release;
- an encoder step is next (clockwise) or prev.

gpiozero calls back from its own threads; the Keypad's state is behind a
lock and actions leave through ``emit``. For an asyncio daemon, make ``emit``
``queue_sink(loop, queue)``: it hands each action to the loop with
``loop.call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from typing import Callable

from ..buttons import ACTIONS, BACK, HOLD_BACK, HOLD_SELECT, NEXT, PREV, SELECT  # noqa: F401  (io's names)

KEYS = ("up", "down", "select", "back")
_REPEATING = {"up": PREV, "down": NEXT}
_HOLDING = {"select": (SELECT, HOLD_SELECT), "back": (BACK, HOLD_BACK)}


@dataclass(frozen=True)
class Action:
    name: str  # one of ACTIONS
    t: float  # when, on the injected clock
    repeat: bool = False  # an auto-repeat of a held up/down


def queue_sink(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue) -> Callable[[Action], None]:
    """An ``emit`` that puts actions on ``queue`` from any thread, in order."""

    def emit(action: Action) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, action)

    return emit


class Keypad:
    def __init__(self, emit: Callable[[Action], None], clock: Callable[[], float] = time.monotonic, *,
                 hold_time: float = 0.8, repeat_delay: float = 0.5, repeat_every: float = 0.15):
        self.emit = emit
        self.clock = clock
        self.hold_time, self.repeat_delay, self.repeat_every = hold_time, repeat_delay, repeat_every
        self._lock = threading.RLock()
        self._down: dict[str, float] = {}  # key -> when pressed
        self._due: dict[str, float] = {}  # key -> when its hold or next repeat falls due
        self._held: set[str] = set()  # select/back keys whose hold action has gone out
        self.wakeup: Callable[[], None] | None = None  # called when a key goes down: its hold needs polls now

    def _now(self, now: float | None) -> float:
        return self.clock() if now is None else float(now)

    def _send(self, name: str, t: float, repeat: bool = False) -> None:
        self.emit(Action(name, t, repeat))

    def press(self, key: str, now: float | None = None) -> None:
        if key not in KEYS:
            raise ValueError(f"unknown key {key!r}; keys are {', '.join(KEYS)}")
        with self._lock:
            t = self._now(now)
            if key in self._down:  # a bounce, or a missed release: one press only
                return
            self._down[key] = t
            if key in _REPEATING:
                self._send(_REPEATING[key], t)
                if self.repeat_every > 0:
                    self._due[key] = t + self.repeat_delay
            else:
                self._held.discard(key)
                self._due[key] = t + self.hold_time
        if self.wakeup is not None:
            self.wakeup()

    def release(self, key: str, now: float | None = None) -> None:
        with self._lock:
            t = self._now(now)
            pressed = self._down.pop(key, None)
            self._due.pop(key, None)
            if pressed is None or key not in _HOLDING:
                return
            short, long = _HOLDING[key]
            if key in self._held:
                self._held.discard(key)
            elif t - pressed >= self.hold_time:  # held that long, but nobody polled
                self._send(long, t)
            else:
                self._send(short, t)

    def step(self, clockwise: bool, now: float | None = None) -> None:
        """One detent of the encoder."""
        with self._lock:
            self._send(NEXT if clockwise else PREV, self._now(now))

    def feed(self, name: str, now: float | None = None) -> None:
        """Put an action in the stream by hand (simulator, tests, a web page)."""
        if name not in ACTIONS:
            raise ValueError(f"unknown action {name!r}; actions are {', '.join(ACTIONS)}")
        with self._lock:
            self._send(name, self._now(now))

    def poll(self, now: float | None = None) -> None:
        """Fire holds and repeats that have fallen due. One repeat per key per
        poll: a late poll must not scroll a menu by a burst."""
        with self._lock:
            t = self._now(now)
            for key, due in sorted(self._due.items(), key=lambda kv: kv[1]):
                if due > t:
                    continue
                if key in _REPEATING:
                    self._send(_REPEATING[key], t, repeat=True)
                    nxt = due + self.repeat_every
                    self._due[key] = nxt if nxt > t else t + self.repeat_every
                else:
                    self._send(_HOLDING[key][1], t)
                    self._held.add(key)
                    del self._due[key]

    def next_deadline(self) -> float | None:
        """When ``poll`` next has something to do (None: no key is held)."""
        with self._lock:
            return min(self._due.values(), default=None)

    @property
    def pressed(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._down)
