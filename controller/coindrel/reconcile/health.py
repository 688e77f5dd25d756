"""The board's health: persistent faults with their confidence now, one-off
incidents, drop counts, the learned timing and what this board cannot check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import catalog
from .faults import is_persistent, say, twins

PERSISTENT_FLOOR = 0.05


@dataclass
class FaultRecord:
    fault: object
    first_drop: int | None = None
    last_drop: int | None = None
    reports: int = 0  # reports that listed it
    top: int = 0  # reports where it was the best explanation
    best_confidence: float = 0.0
    last_confidence: float = 0.0

    def to_json(self, confidence: float | None = None, twins=()) -> dict:
        c = self.last_confidence if confidence is None else confidence
        d = {
            "fault": self.fault.name,
            "where": self.fault.where,
            "confidence": round(c, 2),
            "first_drop": self.first_drop,
            "last_drop": self.last_drop,
            "reports": self.reports,
            "say": say(self.fault),
        }
        if twins:
            d["or"] = [{"fault": t.name, "where": t.where} for t in twins]
        return d


class HealthTracker:
    def __init__(self):
        self.drops = 0
        self.ok = 0
        self.mismatches = 0
        self.stray = 0
        self.unexplained = 0
        self.lost = 0
        self.records: dict = {}

    def record(self, report) -> None:
        if report.drop is None:
            self.stray += 1
        else:
            self.drops += 1
            if report.ok:
                self.ok += 1
            else:
                self.mismatches += 1
        for i, finding in enumerate(report.diagnosis):
            f = finding.fault
            if f.name == catalog.UNEXPLAINED:
                self.unexplained += 1
            if f.name == catalog.EVENTS_LOST:
                self.lost += 1
            r = self.records.get(f)
            if r is None:
                r = self.records[f] = FaultRecord(f, first_drop=report.drop)
            r.last_drop = report.drop if report.drop is not None else r.last_drop
            r.reports += 1
            r.top += i == 0
            r.best_confidence = max(r.best_confidence, finding.confidence)
            r.last_confidence = finding.confidence

    def revise(self, revision) -> None:
        """Later drops re-ranked an earlier drop's explanations: its faults'
        confidence is what the revision says now."""
        named = {f.fault for f in revision.diagnosis}
        for f in revision.diagnosis:
            r = self.records.get(f.fault)
            if r is None:
                r = self.records[f.fault] = FaultRecord(f.fault, first_drop=revision.revises)
            r.best_confidence = r.last_confidence = f.confidence
        for f, r in self.records.items():
            if f == revision.before and f not in named:
                r.best_confidence = r.last_confidence = 0.0

    def report(self, marginals: dict, timing, sensors, geometry=None) -> "HealthReport":
        persistent = []
        for f, p in sorted(marginals.items(), key=lambda kv: (-kv[1], kv[0].name, kv[0].where)):
            if p < PERSISTENT_FLOOR:
                continue
            rec = self.records.get(f) or FaultRecord(f)
            alike = [t for t in twins(f, geometry) if marginals.get(t, 0.0) >= PERSISTENT_FLOOR] if geometry is not None else []
            persistent.append(rec.to_json(p, alike))
        incidents = [
            r.to_json()
            for r in sorted(self.records.values(), key=lambda r: (r.first_drop or 0, r.fault.name))
            if not is_persistent(r.fault) and r.fault.name not in (catalog.UNEXPLAINED, catalog.EVENTS_LOST) and r.best_confidence >= 0.5
        ]
        return HealthReport(
            drops=self.drops,
            ok=self.ok,
            mismatches=self.mismatches,
            stray=self.stray,
            unexplained=self.unexplained,
            lost=self.lost,
            faults=persistent,
            incidents=incidents,
            timing=timing.summary(),
            cannot_check=_cannot_check(sensors),
        )


def _cannot_check(sensors) -> list[str]:
    out = []
    if not sensors.halls:
        out.append("No hall sensors: switch positions come from the engine alone; stuck or hand-moved rockers and wrong resting coins show only through the exits.")
    if not sensors.exits:
        out.append("No exit beams: scores come from the engine alone and cannot be checked.")
    if not sensors.entries:
        out.append("No entry beams: entries must be keyed in; a coin dropped without keying it in shows as an unexplained cascade.")
    return out


@dataclass
class HealthReport:
    drops: int
    ok: int
    mismatches: int
    stray: int
    unexplained: int
    lost: int
    faults: list = field(default_factory=list)
    incidents: list = field(default_factory=list)
    timing: dict = field(default_factory=dict)
    cannot_check: list = field(default_factory=list)
    extra: int = 0  # coins the match scored nothing for (a second coin in its turn): not among ``drops``

    def numbered_as_match(self, numbers: dict, outcomes: dict) -> "HealthReport":
        """This report with the match's drop numbers (``numbers``: the
        reconciler's drop -> the match's, None for a coin that was no drop
        of the match; ``outcomes``: the reconciler's drop -> ok). The
        reconciler counts every coin it reconciled as a drop of its own."""
        import dataclasses

        extra = [n for n, m in numbers.items() if m is None]
        ok_extra = sum(1 for n in extra if outcomes.get(n))

        def renumber(f: dict) -> dict:
            f = dict(f)
            for key in ("first_drop", "last_drop"):
                if f.get(key) is not None:
                    f[key] = match_drop(numbers, f[key])
            return f

        return dataclasses.replace(self, drops=self.drops - len(extra), ok=self.ok - ok_extra,
                                   mismatches=self.mismatches - (len(extra) - ok_extra), extra=self.extra + len(extra),
                                   faults=[renumber(f) for f in self.faults],
                                   incidents=[renumber(f) for f in self.incidents])

    @property
    def healthy(self) -> bool:
        return not self.faults

    def to_json(self) -> dict:
        return {
            "kind": "health",
            "drops": self.drops,
            "ok": self.ok,
            "mismatches": self.mismatches,
            "outside_drops": self.stray,
            "extra_coins": self.extra,
            "unexplained": self.unexplained,
            "events_lost": self.lost,
            "faults": self.faults,
            "incidents": self.incidents,
            "timing": self.timing,
            "cannot_check": self.cannot_check,
        }

    def text(self) -> str:
        lines = [
            f"{self.drops} drops reconciled: {self.ok} ok, {self.mismatches} mismatched"
            + (f"; {self.stray} event group(s) outside any drop" if self.stray else "")
            + (f"; {self.extra} coin(s) that were no drop of the match (a second coin in a turn)" if self.extra else "")
            + (f"; {self.unexplained} unexplained" if self.unexplained else "")
            + (f"; {self.lost} with events lost on the link" if self.lost else "")
            + "."
        ]
        if self.faults:
            lines.append("Persistent faults (most likely first):")
            for f in self.faults:
                since = f" since drop {f['first_drop']}" if f["first_drop"] else ""
                lines.append(f"  {f['confidence']:4.0%}  {f['fault']} at {f['where']}{since}: {f['say']}")
                for t in f.get("or", ()):
                    lines.append(f"        (the sensors cannot tell this from {t['fault']} at {t['where']}; look, or run coindrel selftest)")
        else:
            lines.append("No persistent faults: the board is healthy.")
        if self.incidents:
            lines.append("Incidents:")
            for f in self.incidents:
                at = f"drop {f['first_drop']}" if f["first_drop"] else "between drops"
                lines.append(f"  {at}: {f['fault']} at {f['where']}")
        t = self.timing
        if t:
            src = "prior (not enough drops yet)" if t.get("prior_in_use") else f"learned from {t.get('learned_from')} drops"
            lines.append(f"Timing: a drop is over after {t.get('quiet_window')} s of quiet ({src}).")
        lines.extend(f"Cannot check: {c}" for c in self.cannot_check)
        return "\n".join(lines)


def match_drop(numbers: dict, n: int) -> int | None:
    """The match's number of the reconciler's drop ``n`` (``numbers``: its
    map). A coin that was no drop of the match counts as the drop before it."""
    if numbers.get(n) is not None:
        return numbers[n]
    before = [numbers[k] for k in numbers if k < n and numbers[k] is not None]
    return max(before) if before else None
