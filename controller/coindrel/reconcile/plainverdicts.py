"""The reconciler's verdicts that need no search (mixed into ``Reconciler``):
a healthy board's exact outcome, a drop scored as the board shows it
(``plain``), events the hub lost, the rest of a coin that was falling when
the board was set anew, and what no fault explains."""

from __future__ import annotations

from .belief import UNEXPLAINED, Finding
from .handful import with_left
from .faults import EventsLost, Unexplained
from .observed import Observed
from .report import DropReport
from .reporting import carried, fallback_codes, plain_reports, unseen_drop_report
from .sensors import derive
from .stray import unseen_drop
from .world import World, fault_index


class PlainVerdicts:
    """Part of ``reconciler.Reconciler``."""

    def _healthy(self, obs: Observed, prev: World, best=None, codes: bytes | None = None) -> bool:
        """The observation is exactly what a healthy board in the believed state
        (or ``codes``) does (with the coins ``best`` found in the beams' counts: a handful)."""
        entries = [e for _, e in obs.entries]
        codes = prev.codes if codes is None else codes
        if best is not None:
            entries += [m.s for m in best.moves if m.kind == "handful" for _ in range(m.side)]
            codes = with_left(codes, best, self.geometry)  # and an earlier handful's coin it found resting
        trace = self.physics.run(bytearray(codes), self.physics.starts(entries), self.physics.base)
        counts = list(obs.entry_counts)
        d = derive(obs, fault_index(frozenset(), self.geometry), self.labels, counts, trace, (), self.sensors, self.timing.chatter_window)
        return d is not None and not d.new

    def _plain(self, obs, prev: World, finding: Finding, score_seen: bool = False) -> list[DropReport]:
        codes = fallback_codes(self.physics, obs, prev, self.sensors.halls)
        self.worlds = [World(self.geometry, codes, prev.faults, 0.0, prev.jammed, prev.story, origin=prev.origin)]
        reports = plain_reports(self.physics, obs, prev.codes, finding, self.drops + 1, codes, self.timing.silence,
                                score_seen=score_seen and self.sensors.exits)
        self.drops += sum(1 for r in reports if r.drop is not None)
        return reports

    def _lost(self, obs, count: int) -> list[DropReport]:
        finding, prev = Finding(EventsLost(count), 1.0), self.worlds[0]
        if not obs.entries and self.expecting:
            # No coin seen going in, but the board moved while the hub could
            # not see it: a coin that went in meanwhile is the drop, when the
            # board it left fits exactly one entry (else nothing is guessed).
            fit = unseen_drop(self.physics, obs, prev)
            if fit is not None:
                entry, trace, codes = fit
                self.worlds = [World(self.geometry, codes, prev.faults, 0.0, prev.jammed, prev.story, origin=prev.origin)]
                self.drops += 1
                return [unseen_drop_report(self.physics, obs, prev.codes, entry, trace, finding, self.drops, codes)]
        return self._plain(obs, prev, finding)

    def _carried(self, obs) -> list[DropReport]:
        """The rest of a coin that was falling when the board was set anew."""
        self.worlds, report = carried(self.physics, obs, self.worlds, self.sensors.halls)
        return [report]

    def _unexplained(self, obs, prev) -> list[DropReport]:
        return self._plain(obs, prev, Finding(Unexplained(True, self.unsure <= self.asked) if self.unsure
                                              else UNEXPLAINED.fault, 1.0), score_seen=True)
