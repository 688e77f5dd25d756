"""A world: one complete hypothesis about the board as it really is.

The controller cannot see resting coins and may doubt a sensor, so after an
ambiguous drop more than one board fits what it saw (R3S2 stuck and its pad
still left, or R3S2's hall dead and its pad now right). Each world holds a
board state, the persistent faults it believes in and the coins it believes
stopped at jams, with a log weight. The reconciler keeps the few best worlds;
the next drops settle between them, which is how a persistent fault gains
confidence drop after drop.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..engine import (
    EntrySensorDead,
    ExitSensorDead,
    Geometry,
    HallFault,
    Jam,
    PadNotHolding,
    SwitchStuck,
)
from ..engine.core import HOLE, PAD_R
from .faults import EntrySensorChatter, ExitSensorChatter, SwitchUnseated


class FaultIndex:
    """A world's faults by kind and number, for the cascade and the sensor check."""

    __slots__ = ("stuck", "slips", "jams", "halls", "unseated", "dead_exits", "chatter_exits", "dead_entries", "chatter_entries", "by_place")

    def __init__(self, faults: frozenset, geometry: Geometry):
        idx = geometry.index
        self.stuck = frozenset(idx(f.switch) for f in faults if isinstance(f, SwitchStuck))
        self.slips = frozenset(idx(f.switch) for f in faults if isinstance(f, PadNotHolding))
        self.jams = frozenset((idx(f.switch), f.side) for f in faults if isinstance(f, Jam))
        self.halls = frozenset(idx(f.switch) for f in faults if isinstance(f, HallFault))
        self.unseated = frozenset(idx(f.switch) for f in faults if isinstance(f, SwitchUnseated))
        self.dead_exits = frozenset(f.exit for f in faults if isinstance(f, ExitSensorDead))
        self.chatter_exits = frozenset(f.exit for f in faults if isinstance(f, ExitSensorChatter))
        self.dead_entries = frozenset(f.entry for f in faults if isinstance(f, EntrySensorDead))
        self.chatter_entries = frozenset(f.entry for f in faults if isinstance(f, EntrySensorChatter))
        self.by_place = {}
        for f in faults:
            place = getattr(f, "switch", None)
            self.by_place.setdefault(idx(place) if place else None, []).append(f)

    def at(self, s: int) -> list:
        return self.by_place.get(s, [])


@lru_cache(maxsize=4096)
def fault_index(faults: frozenset, geometry: Geometry) -> FaultIndex:
    return FaultIndex(faults, geometry)


class World:
    __slots__ = ("codes", "faults", "logw", "jammed", "geometry", "story", "came", "source", "origin")

    def __init__(self, geometry: Geometry, codes: bytes, faults: frozenset = frozenset(), logw: float = 0.0,
                 jammed: tuple = (), story: tuple = (), came: tuple = (), origin: dict | None = None):
        self.geometry = geometry
        self.codes = bytes(codes)
        self.faults = frozenset(faults)
        self.logw = logw
        self.jammed = jammed  # ((switch, side), coins) sorted
        self.story = story  # the one-off events (coin added, moved by hand...) this world assumed lately
        # Where resting coins came from: ((switch, parent, side), ...) for each
        # coin a cascade this world explained left at rest, the outlet it
        # arrived through. A coin believed there that is not may never have
        # arrived: a jam in that chute (the drop that sent it saw nothing).
        self.came = came
        self.source = None  # the candidate this world came from, until its provenance is worked out
        # Which drop first assumed each of its faults and story events:
        # {(fault, drop): share}. A world merged from two stories holds each
        # at the share of the weight its story had, so a revision reads how
        # likely the earlier drop's explanation is, not only whether some
        # story kept it (a jam assumed at drop 37 on top of a coin taken off
        # at drop 27 is no evidence that drop 27 saw that jam).
        self.origin = origin or {}

    def support(self, fault, drop: int) -> float:
        """How much of this world has ``fault`` (believed, or in its story)
        assumed at ``drop`` or before."""
        if fault not in self.faults and fault not in self.story:
            return 0.0
        shares = [(n, p) for (f, n), p in self.origin.items() if f == fault]
        if not shares:
            return 1.0  # held from the start (or a reset): no origin known
        return min(1.0, sum(p for n, p in shares if n <= drop))

    def full_origin(self) -> dict:
        out = dict(self.origin)
        known = {f for f, _ in out}
        for f in list(self.faults) + list(self.story):
            if f not in known:
                out[(f, 0)] = 1.0
        return out

    def came_at(self, s: int) -> list:
        """The chutes the coin resting on ``s`` may have come by: [(parent, side)]."""
        return [(parent, side) for t, parent, side in self.came if t == s]

    @property
    def index(self) -> FaultIndex:
        return fault_index(self.faults, self.geometry)

    def key(self) -> tuple:
        return (self.codes, self.faults, self.jammed)

    def jammed_at(self) -> dict:
        return dict(self.jammed)

    def __repr__(self) -> str:
        from ..engine import BoardState

        faults = ", ".join(sorted(f"{f.name}@{f.where}" for f in self.faults)) or "no faults"
        return f"World({BoardState(self.geometry, self.codes).text()}, {faults}, logw={self.logw:.2f})"


def merge_jams(before: tuple, added: dict, cleared=()) -> tuple:
    d = dict(before)
    for k in cleared:
        d.pop(k, None)
    for k, v in added.items():
        d[k] = d.get(k, 0) + v
    return tuple(sorted(d.items()))


MERGED_STORY = 12


def normalise(worlds: list[World], keep: int, floor: float) -> list[World]:
    """Merge identical worlds, keep the ``keep`` best within ``floor`` (log) of
    the best, and rescale so the best has log weight 0."""
    merged: dict = {}
    for w in worlds:
        k = w.key()
        old = merged.get(k)
        if old is None:
            merged[k] = w
        else:
            hi, lo = max(old.logw, w.logw), min(old.logw, w.logw)
            a = 1.0 / (1.0 + math.exp(w.logw - old.logw))  # the old story's share of the merged weight
            mine, theirs = old.full_origin(), w.full_origin()
            old.origin = {k: a * mine.get(k, 0.0) + (1.0 - a) * theirs.get(k, 0.0) for k in mine.keys() | theirs.keys()}
            old.logw = hi + math.log1p(math.exp(lo - hi))
            if w.story != old.story:
                # Two stories that led to one board: no later drop can tell
                # them apart, so the merged world remembers both (revisions
                # must not read a merge as evidence for the story kept).
                old.story = tuple(dict.fromkeys(old.story + w.story))[-MERGED_STORY:]
    ranked = sorted(merged.values(), key=lambda w: -w.logw)
    if not ranked:
        return ranked
    top = ranked[0].logw
    out = [w for w in ranked[:keep] if w.logw - top >= floor]
    for w in out:
        w.logw -= top
    return out


def marginals(worlds: list[World]) -> dict:
    """Each persistent fault's probability over the worlds."""
    total = sum(math.exp(w.logw) for w in worlds) or 1.0
    out: dict = {}
    for w in worlds:
        p = math.exp(w.logw) / total
        for f in w.faults:
            out[f] = out.get(f, 0.0) + p
    return out


def with_sides(w: World, sides: dict) -> World:
    """``w`` with the rockers of ``sides`` (switch -> 0 left, 1 right) on those sides, coins kept."""
    codes = bytearray(w.codes)
    for s, side in sides.items():
        if codes[s] != HOLE:
            codes[s] = (codes[s] & ~PAD_R & 0xFF) | side
    return World(w.geometry, bytes(codes), w.faults, w.logw, w.jammed, w.story, origin=w.origin)
