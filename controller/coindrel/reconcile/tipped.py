"""Where a coin found on a pad may have been put.

A rocker whose pad faces away from its inlet holds a coin only when a hand
put it there (rules.md section 3): the next coin reaches its lever, flips it
and tips that coin out through the pad's old side. Where that outlet leads
to an empty pad on its switch's inlet side, the tipped coin comes to rest
there and no sensor sees any of it: the flip is the one the coin makes on an
empty rocker. The first drop to meet the lower pad then finds a coin there
that nobody put there: it was put on the rocker above. Both stories are one
hand and one coin; the sensors cannot tell them apart, so a coin found on the
lower pad lists the upper rocker too (below it: the hand's coin on a pad
facing away from its funnel is the rarer placing, and a coin on the lower pad
may also be one a drop left unseen).
"""

from __future__ import annotations

from ..engine.core import COIN, HOLE, PAD_R
from .belief import Finding
from .faults import CoinAdded

UPPER = 0.25  # the upper rocker's share, against the lower pad's


class TipWatch:
    """Per pad: the rockers above whose flips could have tipped a hand's coin
    on to it unseen since a coin last met that pad, and the drops that flipped
    them (the latest first)."""

    def __init__(self, geometry):
        self.geometry = geometry
        self.into: dict[int, list[tuple[int, str]]] = {}

    def clear(self) -> None:
        self.into.clear()

    def extend(self, found: list, index: dict) -> list:
        """``found`` with the upper rocker listed after each coin found on a pad it may have tipped."""
        out = list(found)
        for f in found:
            if not isinstance(f.fault, CoinAdded) or f.fault.unseen:
                continue
            for u, drop in self.into.get(index.get(f.fault.switch), ()):
                label = self.geometry.labels[u]
                if not any(isinstance(g.fault, CoinAdded) and g.fault.switch == label for g in out):
                    out.append(Finding(CoinAdded(label, tipped_to=f.fault.switch, via=drop), f.confidence * UPPER))
        return out

    def after_group(self, before: bytes, flips, visited: set, after: bytes, reports) -> None:
        """A group reconciled: its coins met the pads in ``visited`` (a coin
        tipped there earlier would have shown); rockers that flipped from a
        pad facing away from the inlet may have tipped a hand's coin on to an
        empty inlet-side pad no coin of this group met."""
        g = self.geometry
        n = len(g.labels)
        numbers = [r.drop for r in reports if r.drop is not None]
        drops = f"{numbers[0]}" if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}" if numbers else ""
        for s in visited:
            self.into.pop(s, None)
        for u, count in enumerate(flips):
            code = before[u]
            if not count or code == HOLE or code & COIN:
                continue
            old = code & PAD_R
            if old == g.inlets[u]:
                continue  # a hand's coin on an inlet-side pad would have stopped the coin: seen
            s = g.outs[u][old]
            if s >= n or s in visited:
                continue
            lower = after[s]
            if lower != HOLE and not lower & COIN and (lower & PAD_R) == g.inlets[s]:
                was = [x for x in self.into.get(s, ()) if x[0] != u]
                self.into[s] = [(u, drops)] + was[:3]
