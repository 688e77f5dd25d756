"""How often each known persistent fault acted when it could: a sticky
rocker that fails on some coins, a dirty beam that misses some, a pad that
holds sometimes keep their name with a ``rate`` (sensing.md section 4)
instead of flip-flopping between names from drop to drop."""

from __future__ import annotations

import math
from dataclasses import replace

from .faults import is_persistent

INTERMITTENT_AT_ALL = 0.5  # a physical fault that once let a coin pass is as likely intermittent as fixed


class Rates:
    def __init__(self):
        self.acted: dict = {}  # persistent fault -> drops it acted on
        self.spared: dict = {}  # and drops it could have and did not

    def count(self, best) -> None:
        """The best explanation of a group: which known faults acted, which let coins pass."""
        for f in best.shown():
            if is_persistent(f):
                self.acted[f] = self.acted.get(f, 0) + 1
        for f in list(best.spared) + list(best.derivation.unshown):
            self.spared[f] = self.spared.get(f, 0) + 1

    def spare_cost(self, fault) -> float:
        """Log chance that a known physical fault let this coin pass (it is
        intermittent, at the rate seen so far), as against fixed."""
        a, q = self.acted.get(fault, 0), self.spared.get(fault, 0)
        return math.log(INTERMITTENT_AT_ALL * (q + 1) / (a + q + 2))

    def rate(self, fault) -> float | None:
        """The share of chances ``fault`` acted on, once it was seen to miss some."""
        a, q = self.acted.get(fault, 0), self.spared.get(fault, 0)
        return a / (a + q) if q and a else None

    def rated(self, finding):
        r = self.rate(finding.fault)
        return finding if r is None else replace(finding, rate=r)
