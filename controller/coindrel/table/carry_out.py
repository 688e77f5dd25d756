"""Carrying out the flow's effects: sounds, entry LEDs and the dropper (the
table's own outputs, or the hub's), the display's wake-up, and what the flow
asks of the table itself (a new match, a new belief, the end of a match).

One catalog, ``HANDLERS``: a row per effect class (``effects.py``), so a new
effect is its dataclass there and one ``@carries`` handler here; a test fails
for an effect class without a row.

A failing output never stops the match: it is logged and the next effect runs.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from . import effects as fx

log = logging.getLogger("coindrel.table")

# effect class -> handler(table, effect, now)
HANDLERS: dict[type[fx.Effect], Callable[..., None]] = {}


def carries(cls: type[fx.Effect]):
    """Make the decorated ``handler(table, effect, now)`` the row of ``cls``."""

    def register(handler):
        if cls in HANDLERS:
            raise ValueError(f"{cls.__name__} already has a handler: {HANDLERS[cls].__name__}")
        HANDLERS[cls] = handler
        return handler

    return register


@carries(fx.Sound)
def _sound(table, e: fx.Sound, now: float) -> None:
    if table.outputs is not None:
        table.outputs.buzzer.play(e.name, now)


@carries(fx.Led)
def _led(table, e: fx.Led, now: float) -> None:
    o = table.outputs
    if o is not None:
        if e.name == "off":
            o.leds.set(e.entry, False)
        else:
            o.leds.blink(e.entry, now)
    table._hub_outputs(leds=[] if e.name == "off" else [e.entry])


@carries(fx.LedsOff)
def _leds_off(table, e: fx.LedsOff, now: float) -> None:
    if table.outputs is not None:
        table.outputs.leds.clear()
    table._hub_outputs(leds=[])


@carries(fx.Drop)
def _drop(table, e: fx.Drop, now: float) -> None:
    o = table.outputs
    if o is not None and o.dropper.available:
        o.dropper.drop(e.entry, now)
    else:
        table._hub_outputs(drop=e.entry)


@carries(fx.Wake)
def _wake(table, e: fx.Wake, now: float) -> None:
    if table.display is not None:
        table.display.wake(now)


@carries(fx.NewMatch)
def _new_match(table, e: fx.NewMatch, now: float) -> None:
    table._new_match(e.match)


@carries(fx.Belief)
def _belief(table, e: fx.Belief, now: float) -> None:
    table._believe(e.board, halls_right=e.halls_right, by_hand=e.by_hand, unput=e.unput)


@carries(fx.Hands)
def _hands(table, e: fx.Hands, now: float) -> None:
    table._hands(bool(e.on), e.steps)


@carries(fx.Expect)
def _expect(table, e: fx.Expect, now: float) -> None:
    table._expect(bool(e.on))


@carries(fx.EndMatch)
def _end_match(table, e: fx.EndMatch, now: float) -> None:
    table._end_match(e.name, e.match)


@carries(fx.ReopenMatch)
def _reopen_match(table, e: fx.ReopenMatch, now: float) -> None:
    table._reopen_match(e.match)


class EffectsMixin:
    """Part of ``daemon.Table``: ``_apply_effects`` empties the flow's effects in order."""

    def _apply_effects(self) -> None:
        effects, self.flow.effects = self.flow.effects, []
        now = self.now()
        for e in effects:
            try:
                self._apply(e, now)
            except Exception:  # an output failing must never stop the match
                log.exception("could not carry out %s", e)

    def _apply(self, e: fx.Effect, now: float) -> None:
        HANDLERS[type(e)](self, e, now)

    def _hub_outputs(self, **kw) -> None:
        if not (self.hub_leds or self.hub_dropper):
            return
        if "drop" in kw and not self.hub_dropper:
            return
        if "leds" in kw and not self.hub_leds:
            return
        asyncio.get_event_loop().create_task(self._send_outputs(kw))

    async def _send_outputs(self, kw) -> None:
        try:
            await self.source.set_outputs(**kw)
        except Exception as e:  # a hub without the output, or one that is gone
            log.warning("hub outputs %s failed: %s", kw, e)


__all__ = ["EffectsMixin", "HANDLERS", "carries"]
