"""Carrying out the flow's effects: sounds, entry LEDs and the dropper (the
table's own outputs, or the hub's), the display's wake-up, and what the flow
asks of the table itself (a new match, a new belief, the end of a match).

A failing output never stops the match: it is logged and the next effect runs.
"""

from __future__ import annotations

import asyncio
import logging

from . import effects as fx

log = logging.getLogger("coindrel.table")


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
        o = self.outputs
        if e.kind == fx.SOUND and o is not None:
            o.buzzer.play(e.name, now)
        elif e.kind == fx.LED:
            if o is not None:
                if e.name == "off":
                    o.leds.set(e.entry, False)
                else:
                    o.leds.blink(e.entry, now)
            self._hub_outputs(leds=[] if e.name == "off" else [e.entry])
        elif e.kind == fx.LEDS_OFF:
            if o is not None:
                o.leds.clear()
            self._hub_outputs(leds=[])
        elif e.kind == fx.DROP:
            if o is not None and o.dropper.available:
                o.dropper.drop(e.entry, now)
            else:
                self._hub_outputs(drop=e.entry)
        elif e.kind == fx.WAKE and self.display is not None:
            self.display.wake(now)
        elif e.kind == fx.NEW_MATCH:
            self._new_match(e.data)
        elif e.kind == fx.BELIEF:
            self._believe(e.data, halls_right=e.halls_right, pads_checked=e.pads_checked)
        elif e.kind == fx.EXPECT:
            self._expect(bool(e.data))
        elif e.kind == fx.END_MATCH:
            self._end_match(e.name, e.data)

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


__all__ = ["EffectsMixin"]
