"""From a group's candidate explanations to a ranked diagnosis and the next
set of worlds (belief correction).

Confidence is a posterior: each candidate's weight is its world's weight
times its own prior cost, normalised over every candidate found plus a share
for explanations the search did not try (bigger when only complicated
explanations were found). A fault's confidence is the sum over the
candidates that use it, so two explanations that fit equally get equal
confidence and are both listed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..engine import Jam, catalog
from ..engine.core import COIN, HOLE, PAD_R
from .faults import FIXED, INTERMITTENT, SwitchUnseated, Unexplained, is_persistent, say
from .world import MERGED_STORY, World, merge_jams, normalise

# The weight left for explanations not tried, relative to the best found,
# by how many new faults the best one needs.
UNTRIED = {0: 0.002, 1: 0.12, 2: 0.5, 3: 0.8}
KEEP_WORLDS = 6
WORLD_FLOOR = math.log(1e-5)
LIST_FLOOR = 0.01
LIST_MAX = 8
STORY = 6  # one-off events a world remembers having assumed


@dataclass(frozen=True)
class Finding:
    """One line of a drop's diagnosis."""

    fault: object
    confidence: float
    together: tuple = ()
    rate: float | None = None  # the share of coins an intermittent fault acted on, when estimated

    @property
    def say(self) -> str:
        """The sentence a person reads (the display shows it)."""
        return say(self.fault, self.together)

    def to_json(self) -> dict:
        d = {
            "fault": self.fault.name,
            "where": self.fault.where,
            "confidence": round(self.confidence, 2),
            "say": self.say,
        }
        if self.rate is not None:
            d["rate"] = round(self.rate, 2)
        return d


def posterior(candidates: list) -> list[tuple]:
    """``[(probability, candidate)]`` best first; the untried share is left out
    of the list but taken out of the probabilities."""
    if not candidates:
        return []
    # Equal weights: the explanation that blames fewer faults comes first.
    ranked = sorted(candidates, key=lambda c: (-c.logp, len(c.shown())))
    best = ranked[0]
    top = best.logp
    size = min(c.size for c in ranked)
    other = UNTRIED.get(size, 0.9)
    weights = [math.exp(c.logp - top) for c in ranked]
    total = sum(weights) + other
    return [(w / total, c) for w, c in zip(weights, ranked)]


def findings(ranked: list[tuple], believed=None) -> list[Finding]:
    """Each fault's summed probability over the candidates that use it. A
    candidate from another world than the believed one also uses what that
    world assumed and the believed one did not (its faults, and the recent
    one-off events in its story: this drop settles an earlier ambiguity)."""
    conf: dict = {}
    partners: dict = {}
    faults = believed.faults if believed is not None else frozenset()
    story = set(believed.story) if believed is not None else set()
    for p, c in ranked:
        shown = c.shown()
        if believed is not None and c.world is not believed:
            # a set's faults in a fixed order (a copy of the set, e.g. a checkpoint's, may iterate otherwise)
            shown += sorted((f for f in c.world.faults if f not in faults and f not in shown), key=_by_name)
            shown += [f for f in c.world.story if f not in story and f not in shown]
        shown = list(dict.fromkeys(shown))
        for f in shown:
            conf[f] = conf.get(f, 0.0) + p
            if f not in partners:
                partners[f] = tuple(g for g in shown if g != f)
    out = [Finding(f, p, partners[f]) for f, p in conf.items() if p >= LIST_FLOOR]
    out.sort(key=lambda x: (-x.confidence, x.fault.name, x.fault.where))
    _unput_first(out)
    return out[:LIST_MAX] if out else [Finding(f, p, partners[f]) for f, p in sorted(conf.items(), key=lambda kv: -kv[1])[:1]]


def _unput_first(out: list) -> None:
    """A rocker a put-back held past left as it was (``hands.not_put_back``)
    is told before the known hall fault at it that shows with it (the hall
    that could not say so): the story is the board not put back."""
    for i, x in enumerate(out):
        if not getattr(x.fault, "unput", False):
            continue
        for j in range(i):
            y = out[j]
            if y.fault.name == catalog.HALL_FAULT and y.fault.where == x.fault.where and y.confidence - x.confidence < 0.01:
                out.insert(j, out.pop(i))
                break


def _by_name(f) -> tuple:
    return (f.name, str(f.where))


def successors(cand, geometry, at: int = 0) -> list[World]:
    """The worlds a candidate leads to (two when a known sensor fault did not
    show: still there but intermittent, or fixed). ``at``: the number of the
    group's first drop (what its new faults were first assumed at)."""
    d = cand.derivation
    faults = set(cand.world.faults)
    faults -= set(cand.removed)
    faults -= set(d.fixed)
    for f in cand.new_faults():
        if is_persistent(f):
            faults.add(f)
    jammed = merge_jams(cand.world.jammed, cand.trace.jams, getattr(cand, "cleared", ()))
    codes = bytes(cand.trace.codes)
    logp = cand.logp
    # An unseated rocker that a coin's flip seated again was a one-off knock:
    # the story remembers it, so a later revision sees it confirmed, not gone.
    reseated = tuple(f for f in d.fixed if isinstance(f, SwitchUnseated))
    # A jam whose coins came free and that is clear now was a jam: the story
    # keeps it, so a revision of the drop it stopped a coin in sees it confirmed.
    # So does a jam gone with its coin still stopped in it (the chute lets
    # coins by now): it stopped that drop's coin all the same.
    freed = tuple(f for f in cand.removed if isinstance(f, Jam))
    # A world merged from several stories holds up to MERGED_STORY of them
    # (world.normalise); cutting it back to STORY on its next group would
    # drop the stories merged in first, and a revision would read the drop
    # they explained as no longer supported.
    cap = MERGED_STORY if len(cand.world.story) > STORY else STORY
    story = (cand.world.story + tuple(f for f in cand.new_faults() if not is_persistent(f)) + reseated + freed)[-cap:]
    if not d.unshown:
        out = [World(geometry, codes, frozenset(faults), logp, jammed, story)]
    else:
        n = len(d.unshown)
        out = [
            World(geometry, codes, frozenset(faults), logp + n * math.log(INTERMITTENT), jammed, story),
            World(geometry, codes, frozenset(faults - set(d.unshown)), logp + n * math.log(FIXED), jammed, story),
        ]
    old = cand.world.full_origin()
    for w in out:
        w.source = cand
        kept = set(w.faults) | set(w.story)
        w.origin = {k: p for k, p in old.items() if k[0] in kept}
        for f in cand.new_faults():
            if f in kept:
                w.origin[(f, at)] = 1.0
    return out


def provenance(worlds: list[World], physics) -> None:
    """Each kept world's ``came`` (the chute each resting coin arrived
    through), from the candidate it came from: the coins its cascade left at
    rest, and the earlier ones no coin of it disturbed. Worked out only for
    the few worlds kept, with the candidate's own physical faults."""
    for w in worlds:
        cand, w.source = w.source, None
        if cand is None:
            continue
        old = cand.world.came
        visited = cand.trace.visited()
        came: dict = {}
        for t, p, side in old:
            if t not in visited and w.codes[t] & COIN and w.codes[t] != HOLE:
                came.setdefault(t, set()).add((p, side))
        if cand.entries and not cand.sticky and not cand.hand:
            codes = bytearray(cand.codes0)
            new = physics.rests_via(codes, physics.starts(cand.entries), physics.table(cand.stuck, cand.slips, cand.jams))
            if bytes(codes) == w.codes:  # the same cascade (no hand or replay the plain run leaves out)
                came.update(new)
        w.came = tuple(sorted((t, p, side) for t, vias in came.items() for p, side in vias if side >= 0))


def next_worlds(ranked: list[tuple], geometry, at: int = 0) -> list[World]:
    worlds = []
    for _, c in ranked[: KEEP_WORLDS * 4]:
        worlds.extend(successors(c, geometry, at))
    return normalise(worlds, KEEP_WORLDS, WORLD_FLOOR)


def unexplained_world(world: World, codes: bytes) -> World:
    """When nothing fits: keep the faults, take the corrected state."""
    return World(world.geometry, codes, world.faults, 0.0, world.jammed, world.story, origin=world.origin)


UNEXPLAINED = Finding(Unexplained(), 0.0)


# The players' "Board is right" against explanations that said a hall lies:
# those are kept at this (log) weight below the ones that agree with the halls.
DENIED = math.log(0.02)  # how often "Board is right" is pressed without a look at that rocker
DENIED_AT_MOST = math.log(0.5)  # the players' word still comes first


def vouched_worlds(worlds: list[World], state, readings: list, switch_index: dict) -> list[World]:
    """The worlds after the players' "Board is right": ``state`` has the
    switches as the halls read them, except those whose hall the table held
    lying (their reading differs from ``state``: those hall faults stand)."""
    geometry = state.geometry
    # The explanations held as less likely that agree with the halls (e.g. a
    # stuck rocker against a lying hall) come first: they know the resting
    # coins, which nothing senses.
    sides = [c & PAD_R for c in state.codes]
    affirmed = {s for s, c in enumerate(state.codes) if c != HOLE and readings[s] == "LR"[c & PAD_R]}
    agree = [w for w in worlds if [c & PAD_R for c in w.codes] == sides
             and not any(f.name == catalog.HALL_FAULT and switch_index[f.switch] in affirmed for f in w.faults)]
    denied = [w for w in worlds if w not in agree]
    if agree:
        top = agree[0].logw
        kept = [World(geometry, w.codes, w.faults, w.logw - top, w.jammed, w.story, w.came, origin=w.origin) for w in agree]
    else:
        top = worlds[0].logw
        faults = frozenset(f for f in worlds[0].faults if f.name != catalog.HALL_FAULT or switch_index[f.switch] not in affirmed)
        kept = [World(geometry, state.codes, faults)]
    # "Board is right" is also the mismatch screen's back button: it is
    # pressed to go on as often as after a look at the rockers. A hall the
    # cascades proved wrong is not cleared by it: the explanations it denies
    # are kept behind the players' word, so the next coin past that rocker
    # finds the lying hall again instead of inventing a coin or a jam to fit
    # the denied side.
    kept += [World(geometry, w.codes, w.faults, min(w.logw - top + DENIED, DENIED_AT_MOST), w.jammed, w.story, w.came,
                   origin=w.origin) for w in denied]
    return kept[:KEEP_WORLDS]
