"""What the sensors reported for one group of events (a drop, several drops
in flight together, or events while no drop was falling), in the shape a
cascade can be compared with.

A flip is counted as a change of the *settled* side (``L``/``R``) of a
switch's hall: sensing.md guarantees each flip shows as ``mid`` then the new
side, so ``L mid R mid L`` is two flips and ``L mid L`` (a knock that did not
flip the rocker) none. When the reading before the group was not a side
(``mid`` or ``none``), the number of flips cannot be known and is ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..events import EntryEvent, ExitEvent, SwitchEvent

SIDES = {"L": 0, "R": 1}


@dataclass(frozen=True)
class Sensors:
    """Which sensors this board has (sensing.md section 1: a build may have fewer)."""

    entries: bool = True
    exits: bool = True
    halls: bool = True

    @classmethod
    def from_dict(cls, d: dict | None) -> "Sensors":
        d = d or {}
        unknown = set(d) - {"entries", "exits", "halls"}
        if unknown:
            from ..engine import EngineError

            raise EngineError(f"unknown sensor kind(s) {sorted(unknown)}; a board may say entries, exits, halls (true/false)")
        return cls(**{k: bool(v) for k, v in d.items()})

    def missing(self) -> list[str]:
        return [n for n, on in (("entry beams", self.entries), ("exit beams", self.exits), ("hall sensors", self.halls)) if not on]


@dataclass
class Observed:
    """Counts, times and readings of one group of events."""

    switch_count: int
    exit_count: int
    entry_count: int
    entries: list = field(default_factory=list)  # (t, entry) in time order
    exits: list = field(default_factory=list)  # (t, exit) in time order
    readings: dict = field(default_factory=dict)  # switch -> [(t, pos)]
    pre: list = field(default_factory=list)  # the reading of every switch before the group
    events: list = field(default_factory=list)  # the raw events, in time order
    # derived (``finish``)
    entry_counts: list = field(default_factory=list)
    exit_counts: list = field(default_factory=list)
    flips: list = field(default_factory=list)  # per switch: settled changes, or None
    final: list = field(default_factory=list)  # per switch: last reading
    flip_times: dict = field(default_factory=dict)  # switch -> times of settled changes
    flip_spans: dict = field(default_factory=dict)  # switch -> per change, seconds from leaving a side (None: no mid seen)
    active: tuple = ()  # switches with readings in the group
    coin_like: dict = field(default_factory=dict)  # switch -> flips shown as fast as a coin makes them (``mark_coin_like``)
    flip_floor: float = 0.0  # a side change faster than this is the sensor jumping, not a rocker moving
    slow_limit: float = float("inf")  # a side change this slow or slower is counted in ``slow``
    slow: dict = field(default_factory=dict)  # switch -> flips shown as slowly as a hand moves a rocker

    @property
    def t0(self) -> float:
        return self.events[0].t if self.events else 0.0

    @property
    def t1(self) -> float:
        return self.events[-1].t if self.events else 0.0

    def finish(self) -> "Observed":
        self.entry_counts = [0] * self.entry_count
        for _, e in self.entries:
            self.entry_counts[e] += 1
        self.exit_counts = [0] * self.exit_count
        for _, x in self.exits:
            self.exit_counts[x] += 1
        flips: list = [0] * self.switch_count
        final = list(self.pre)
        for s, seq in self.readings.items():
            settled = SIDES.get(self.pre[s])
            count: int | None = 0 if settled is not None else None
            times = []
            spans = []
            left_at = None  # when the reading last left its side
            for t, pos in seq:
                side = SIDES.get(pos)
                if side is None:
                    if left_at is None:
                        left_at = t
                    continue
                if settled is None:
                    settled = side  # the first side after an unknown reading
                elif side != settled:
                    settled = side
                    times.append(t)
                    spans.append(None if left_at is None else t - left_at)
                    if count is not None:
                        count += 1
                left_at = None
            flips[s] = count
            final[s] = seq[-1][1]
            self.flip_times[s] = times
            self.flip_spans[s] = spans
        self.flips = flips
        self.final = final
        self.active = tuple(sorted(self.readings))
        return self

    def mark_coin_like(self, flip_limit: float, flip_floor: float = 0.0) -> "Observed":
        """Count the flips shown as a coin makes them: from one side to the
        other faster than a hand, slower than a sensor jumping."""
        self.flip_floor, self.slow_limit = flip_floor, flip_limit
        self.coin_like, self.slow = {}, {}
        for s, spans in self.flip_spans.items():
            n = sum(1 for d in spans if d is not None and flip_floor <= d < flip_limit)
            if n:
                self.coin_like[s] = n
            n = sum(1 for d in spans if d is not None and d >= flip_limit)
            if n:
                self.slow[s] = n
        return self

    def settled_final(self, s: int) -> int | None:
        return SIDES.get(self.final[s])

    def changes_nothing(self) -> bool:
        """Only switch readings that leave every switch as it was read before
        (a re-sent reading), with no ``mid`` seen: nothing to reconcile."""
        if self.entries or self.exits:
            return False
        for s, seq in self.readings.items():
            if any(pos != self.pre[s] for _, pos in seq):
                return False
        return True

    def flips_json(self, labels) -> dict:
        out = {}
        for s in range(self.switch_count):
            f = self.flips[s]
            if f is None:
                if s in self.readings:
                    out[labels[s]] = None
            elif f:
                out[labels[s]] = f
        return out


def observe_events(events, pre, switch_index, switch_count: int, exit_count: int, entry_count: int) -> Observed:
    """Build the observation of a group from its events and the readings before it."""
    obs = Observed(switch_count, exit_count, entry_count, pre=list(pre), events=list(events))
    for ev in obs.events:
        if isinstance(ev, EntryEvent):
            obs.entries.append((ev.t, ev.entry))
        elif isinstance(ev, ExitEvent):
            obs.exits.append((ev.t, ev.exit))
        elif isinstance(ev, SwitchEvent):
            obs.readings.setdefault(switch_index[ev.switch], []).append((ev.t, ev.pos))
    return obs.finish()
