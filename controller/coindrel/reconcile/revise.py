"""Revision records (sensing.md section 4): when later drops tell apart the
explanations an earlier flagged drop could not, say so at the time it is
known.

Every flagged drop's ranked faults are kept while they are undecided. After
each reconciled group the worlds the reconciler still holds say how likely
each of those faults is now (a world believes a persistent fault, or has the
one-off event in its recent story); when that ranking has a new leader, or a
tie has been settled, a revision record goes out with the re-ranked
diagnosis. A drop is revised at most ``MAX_REVISIONS`` times and is followed
for ``FOLLOW`` groups.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..engine import catalog
from .belief import Finding
from .faults import JamCleared, say, twins

FOLLOW = 24  # groups a flagged drop's ambiguity is followed
SETTLED = 0.8  # a leader this sure settles a tie
NEW_LEADER = 0.6  # a different leader at least this sure: the record says the first is ruled out
# A different leader later drops made more likely than all the others
# together revises: the first leader is then the less likely story, and a
# record that still names it sends whoever looks to the wrong place.
MAJORITY = 0.5
MAX_REVISIONS = 2
TIED = 0.75  # a first diagnosis whose leader was less sure than this is followed
RULED_OUT = 0.05  # a first leader left with less than this share is ruled out
TOLD_FROM = 0.1  # a tie after a sure leader is followed among explanations at least this likely


@dataclass
class Revision:
    revises: int
    t: float
    diagnosis: list
    before: object = None  # the fault first ranked on the revised drop
    told: bool = False  # later drops told which of the drop's tied explanations it was (its leader stands)
    doubted: bool = False  # the first leader is now less likely than this one, not ruled out
    drop = None
    verdict = "revised"
    ok = True  # a revision is no new mismatch

    def to_json(self) -> dict:
        return {"drop": None, "revises": self.revises, "t": round(self.t, 4), "verdict": self.verdict,
                "diagnosis": [_line(f, i == 0 and self.before, self.revises, self.told and i, self.doubted) for i, f in enumerate(self.diagnosis)]}


def _line(f: Finding, before, n: int, told: int = 0, doubted: bool = False) -> dict:
    d = f.to_json()
    if isinstance(before, str):  # an ok drop: what it was taken for
        d["say"] = f"Drop {n} {before}; later drops rule that out. " + say(f.fault, f.together)
    elif told == 1:
        d["say"] = f"Drop {n}, later drops tell which of its other explanations it was: " + say(f.fault, f.together)
    elif told:
        pass
    elif before is not None and before is not False and before != f.fault:
        later = "make this likelier" if doubted else "rule that out"
        d["say"] = (f"Drop {n} first looked like {before.name.replace('_', ' ')} at {before.where}; later drops "
                    f"{later}. " + say(f.fault, f.together))
    elif before is not None and before is not False:
        d["say"] = f"Drop {n}, confirmed by later drops: " + say(f.fault, f.together)
    return d


@dataclass
class _Pending:
    drop: int
    faults: list  # the diagnosis' faults, first ranked first
    leader: object
    sure: float
    left: int = FOLLOW
    revised: int = 0
    together: dict = field(default_factory=dict)
    first: dict = field(default_factory=dict)  # each fault's confidence on the drop itself


class Reviser:
    def __init__(self, geometry):
        self.geometry = geometry
        self.pending: list[_Pending] = []

    def note(self, report) -> None:
        """A drop report just written: follow it if its diagnosis was undecided."""
        if report.drop is None or report.ok or len(report.diagnosis) < 2:
            return
        first = report.diagnosis[0]
        # Followed when its leader was unsure, or when explanations after a
        # sure leader tie (a drop with two faults: which jam is the other),
        # or when it lists twins no sensor tells apart until a jam's stopped
        # coins come free (a dead exit beam never counts them).
        if first.confidence >= TIED and not _ties(report.diagnosis[1:]) and not self._twinned(report.diagnosis):
            return
        faults = [f.fault for f in report.diagnosis]
        self.pending.append(_Pending(report.drop, faults, first.fault, first.confidence,
                                     together={f.fault: f.together for f in report.diagnosis},
                                     first={f.fault: f.confidence for f in report.diagnosis}))

    def note_doubles(self, reports, found: list, together: float) -> None:
        """Two counts of one entry ``together`` apart reported ok as two coins
        (the second came to rest unseen) while one coin counted twice fitted
        too: followed, so that the next coin there, which finds that pad empty
        or not, revises the first of them (the turn's own drop)."""
        for a, b in zip(reports, reports[1:]):
            if not (a.ok and b.ok and a.entry_seen and b.entry_seen and a.entry == b.entry and b.t - a.t <= together):
                continue
            f = next((x for x in found if x.fault.name == catalog.ENTRY_SENSOR_CHATTER and x.fault.entry == a.entry), None)
            if f is not None and f.confidence >= RULED_OUT:
                self.pending.append(_Pending(a.drop, [f.fault], None, 1.0 - f.confidence))

    def update(self, worlds: list, t: float) -> list[Revision]:
        if not self.pending:
            return []
        total = sum(math.exp(w.logw) for w in worlds) or 1.0
        out = []
        keep = []
        for p in self.pending:
            p.left -= 1
            probs = {}
            for f in p.faults:
                probs[f] = sum(math.exp(w.logw) * w.support(f, p.drop) for w in worlds) / total
            if p.leader is None:  # an ok drop: revised only once its one alternative is settled
                (f,) = p.faults
                if probs[f] >= SETTLED:
                    taken = f"was taken for two coins in {f.where}" if f.name == catalog.ENTRY_SENSOR_CHATTER else "looked right"
                    out.append(Revision(p.drop, t, [Finding(f, probs[f])], before=taken))
                elif probs[f] >= RULED_OUT and p.left > 0:
                    keep.append(p)
                continue
            s = sum(probs.values())
            if s <= 0:
                continue  # no world holds any of them any more: nothing to say
            ranked = sorted(p.faults, key=lambda f: -probs[f])
            lead = ranked[0]
            q = probs[lead] / s
            # Twins (a dead exit beam and a jam in the only chute to it) no
            # sensor tells apart: a shift between them is no evidence.
            # A leader later drops ruled out is revised even while what is
            # left still ties: the record says so, and lists the rest.
            gone = probs.get(p.leader, 0.0) / s < RULED_OUT
            # (Unless the sensors saw a jam's stopped coins come free: a dead
            # beam never counts them.)
            changed = lead != p.leader and (q > MAJORITY or gone) and (
                lead not in twins(p.leader, self.geometry, at_rest=False) or _freed(worlds, lead, total) >= NEW_LEADER)
            settled = lead == p.leader and q >= SETTLED and p.sure < TIED and not p.revised
            told = None if changed or settled else self._told(p, probs)
            if told is not None:
                # The sure leader stands (the drop had two faults); later
                # drops told which of the tied others was the second one.
                rest = sorted((f for f in p.faults[1:] if f != told and probs[f] >= 0.01), key=lambda f: -probs[f])
                diag = [Finding(f, probs[f], p.together.get(f, ())) for f in [p.faults[0], told] + rest]
                out.append(Revision(p.drop, t, diag, before=p.leader, told=True))
                continue  # (its leader was sure, the tie is settled: nothing left to follow)
            elif changed or settled:
                diag = [Finding(f, probs[f] / s, p.together.get(f, ())) for f in ranked if probs[f] / s >= 0.01]
                out.append(Revision(p.drop, t, diag, before=p.leader, doubted=changed and not gone and q < NEW_LEADER))
                p.revised += 1
                p.leader, p.sure = lead, q
                if settled or p.revised >= MAX_REVISIONS:
                    continue
            if p.left > 0:
                keep.append(p)
        self.pending = keep
        return out

    def _twinned(self, diagnosis: list) -> bool:
        listed = {f.fault for f in diagnosis if f.confidence >= RULED_OUT}
        return any(f.name == catalog.JAM and any(t in listed for t in twins(f, self.geometry, at_rest=False)) for f in listed)

    def _told(self, p: _Pending, probs: dict):
        """After a sure leader (a drop with two faults), an explanation that
        tied with others there and that the worlds now hold (``SETTLED``),
        the others it tied with ruled out; or None. (Twins no sensor tells
        apart are never told.)"""
        if p.sure < TIED or p.faults[0] != p.leader:
            return None
        tied = [f for f in p.faults[1:] if TOLD_FROM <= p.first.get(f, 1.0) < TIED]
        for f in tied:
            others = [g for g in tied if g != f and g not in twins(f, self.geometry, at_rest=False)]
            if probs[f] >= SETTLED and others and all(probs[g] < RULED_OUT for g in others):
                return f
        return None


def _ties(findings: list) -> bool:
    """Two or more of these explanations are about as likely as each other and undecided."""
    conf = [f.confidence for f in findings if TOLD_FROM <= f.confidence < TIED]
    return any(abs(a - b) <= 0.05 * max(a, b) for i, a in enumerate(conf) for b in conf[i + 1:])


def _freed(worlds: list, fault, total: float) -> float:
    """The share of the worlds in which ``fault``, a jam, let its stopped coins go where a sensor saw them."""
    if fault.name != catalog.JAM:
        return 0.0
    came = JamCleared(fault.switch, fault.side)
    return sum(math.exp(w.logw) for w in worlds if came in w.story) / total
