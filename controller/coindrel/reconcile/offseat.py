"""A rocker off its seat by no coin's doing (mixed into ``Reconciler``).

Someone leaning on the board, a hand resting on it, a child's finger on a
rocker tilts the rocker part of the way: its hall reads ``mid``, and when
they let go it springs back to the side it was on (a rocker rests on its
side by its own weight). A rocker come off its pivot (``switch_unseated``)
stays off. So ``mid`` says "not seated" only once it has lasted longer than
a person leans; until then the rocker may be on its way back.

Issue 13, board5: 41 healthy drops were called ``switch_unseated`` because
someone leaned on the board just after the cascade, in its quiet spell, and
the drop was judged with the rocker still tilted. Now:

- a drop whose every expected event was seen is not over while a rocker none
  of its coins reaches is off its seat, until it is back on its side or has
  been off ``SETTLE`` seconds, or a coin goes in (then it is judged as it
  is); its readings meanwhile are not the drop's: the quiet spell runs on;
- a rocker that came back on its side after the cascade is left out of the
  drop (its readings change nothing);
- events between turns with a rocker off its seat wait the same.
A coin's own flips are never waited for: a rocker a coin of the drop reaches
is judged as before (a coin seats a knocked rocker; an unseated one reads
``mid`` where the coin left it).
"""

from __future__ import annotations

import math

from ..events import SwitchEvent
from .observed import SIDES

# A lean or a hand resting on the board lasts a moment, a second or two; a
# rocker off its seat longer than this rests there. (More than the longest
# quiet spell a drop waits, ``Timing.ceiling``.)
SETTLE = 3.0


def excursions(group, switch_index: dict) -> dict:
    """{switch: (board time it left its seat, time it came back or None)} for
    the group's rockers whose readings only left the side they were on
    before the group for ``mid`` (never the other side, nor ``none``)."""
    before = group._readings
    out: dict = {}
    spoilt: set = set()
    for ev in group.ordered():
        if not isinstance(ev, SwitchEvent):
            continue
        s = switch_index[ev.switch]
        if s in spoilt:
            continue
        was = SIDES.get(before[s])
        if was is None or (ev.pos != "mid" and SIDES.get(ev.pos) != was):
            spoilt.add(s)  # turned over, out of range, or not on a side before
        elif ev.pos == "mid":
            t0, back = out.get(s, (None, None))
            out[s] = (ev.t if t0 is None or back is not None else t0, None)
        elif s in out:
            out[s] = (out[s][0], ev.t)
    return {s: v for s, v in out.items() if s not in spoilt}


class OffSeat:
    """Part of ``reconciler.Reconciler``."""

    def _unreached(self, group) -> set:
        """Switches no coin of the drop reaches, as the belief predicts it."""
        p = group._predict
        trace = self.physics.run(bytearray(p.start), self.physics.starts(group.entries), p.table)
        return set(range(self.geometry.switch_count)) - trace.visited() - set(p.blind)

    def _aside(self, group) -> dict:
        """The rockers off their seat by no coin of ``group`` (a lean, a
        tap): all of them between turns; in a drop, once its every expected
        event was seen, those none of its coins reaches."""
        ex = excursions(group, self.switch_index)
        if not ex or not group.is_drop:
            return ex
        if not group.complete():
            return {}
        far = self._unreached(group)
        return {s: v for s, v in ex.items() if s in far}

    def _settling(self) -> float:
        """The open group is not over before this board time: a rocker of
        it is off its seat, maybe only leaned on."""
        group = self._group
        if group is None:
            return -math.inf
        off = [t0 for t0, back in self._aside(group).values() if back is None]
        return max(off) + SETTLE if off else -math.inf

    def _add(self, group, ev) -> None:
        """``ev`` joins the open group; a reading of a rocker off its seat
        by no coin of the drop does not end the drop's quiet spell."""
        last = group.last_t
        group.add(ev, self.switch_index)
        if isinstance(ev, SwitchEvent) and group.is_drop and self.switch_index[ev.switch] in self._aside(group):
            group.last_t = last

    def _without_leans(self, group):
        """``group`` without the readings of rockers that left their seat
        after the drop's cascade, none of its coins reaching them, and came
        back on their side (nothing they did is the drop's)."""
        if group is None or not group.is_drop:
            return group
        aside = self._aside(group)
        if not aside:
            return group
        mine = [ev for ev in group.events if not (isinstance(ev, SwitchEvent) and self.switch_index[ev.switch] in aside)]
        end = max(ev.t for ev in mine)
        done = {s for s, (_, back) in aside.items() if back is not None
                and all(ev.t > end for ev in group.events if isinstance(ev, SwitchEvent) and self.switch_index[ev.switch] == s)}
        if done:
            # (their readings count no flip: the group's tallies stand without them)
            group.events = [ev for ev in group.events if not (isinstance(ev, SwitchEvent) and self.switch_index[ev.switch] in done)]
            group.last_t = max(ev.t for ev in group.events)
        return group
