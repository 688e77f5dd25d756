"""How long to wait before a drop is over, learned from the board itself.

Every drop that reconciles ``ok`` is a measurement of this board: the
longest silence between two of its events (a coin falling a row, or two
rows where a lane has no switch, or waiting for a busy rocker) and how long
its cascade lasted. A drop is over when the board has been quiet for
``margin`` times the longest healthy silence seen recently; while the
prediction still expects events (a coin the sensors have not reported yet)
the reconciler waits ``patience`` instead, so a slow or missing coin is not
split off into a separate report. Until enough drops have been seen a
conservative prior is used.
"""

from __future__ import annotations

from collections import deque

from ..engine import EngineError


PATIENCE_FLOOR = 1.2
SLOWER = 2.5  # a flip this many times slower than any coin's here was a hand


SAVED_MAX = 30.0  # s: the longest duration a saved timing may hold (a coin's whole journey is seconds)


class Timing:
    def __init__(
        self,
        prior_quiet: float = 0.8,
        margin: float = 1.8,
        floor: float = 0.15,
        ceiling: float = 3.0,
        window: int = 300,
        min_samples: int = 8,
        chatter_window: float = 0.12,
    ):
        if not 0 < floor <= prior_quiet <= ceiling:
            raise EngineError("timing: need 0 < floor <= prior_quiet <= ceiling (seconds)")
        self.prior_quiet = prior_quiet
        self.margin = margin
        self.floor = floor
        self.ceiling = ceiling
        self.min_samples = min_samples
        self.chatter_window = chatter_window
        self.gaps: deque = deque(maxlen=window)  # longest silence inside each ok group
        self.spans: deque = deque(maxlen=window)  # last entry to last event of each ok group
        self.flips: deque = deque(maxlen=window)  # longest mid-to-side time of a coin-driven flip per ok group
        self.quickest: deque = deque(maxlen=window)  # and the shortest
        self.learned = 0

    def learn(self, obs) -> None:
        """Measure one group that reconciled ok. A silence that ends with a
        coin going in is the players' time, not the board's, and is left out."""
        events = obs.events
        gaps = [b.t - a.t for a, b in zip(events, events[1:]) if getattr(b, "kind", "") != "entry"]
        if gaps:
            self.gaps.append(max(gaps))
        if obs.entries and len(events) > 1:
            self.spans.append(events[-1].t - obs.entries[-1][0])
        flips = [d for spans in obs.flip_spans.values() for d in spans if d is not None]
        if flips:
            self.flips.append(max(flips))
            self.quickest.append(min(flips))
        self.learned += 1

    @property
    def ready(self) -> bool:
        return len(self.gaps) >= self.min_samples

    @property
    def quiet(self) -> float:
        """Seconds of silence after which a drop whose coins are all accounted for is over."""
        if not self.ready:
            return self.prior_quiet
        return min(self.ceiling, max(self.floor, self.margin * max(self.gaps)))

    @property
    def silence(self) -> float:
        """The longest silence a healthy cascade has had (the prior's share
        until learned): after its last event a coin may still fall this long
        before it rests, unseen (no sensor sees a resting coin)."""
        return self.quiet / self.margin

    @property
    def flip_limit(self) -> float:
        """A rocker reaching its new side faster than this was flipped by a
        coin, not moved by a hand (a person takes a good part of a second)."""
        if len(self.flips) < min(4, self.min_samples):
            return 0.12  # a rocker's whole travel takes 20-70 ms; a hand's 250 ms or more
        # Rockers take up to ~70 ms, hands 150 ms or more; a flip well past
        # the slowest this board's coins have made is no coin's (issue 13: a
        # virtual board's rockers take 24 ms at most, a hand 70 ms or more).
        return min(0.15, max(0.05, SLOWER * max(self.flips)))

    @property
    def flip_floor(self) -> float:
        """A reading that leaves one side and reaches the other faster than
        this did not follow a moving rocker: the sensor jumped (a fault)."""
        if len(self.quickest) < min(4, self.min_samples):
            return 0.004
        return min(0.02, max(0.001, 0.5 * min(self.quickest)))

    @property
    def patience(self) -> float:
        """Seconds of silence to wait while the prediction still expects events
        (never less than a coin balancing on an edge can take, about half a
        second, plus its fall)."""
        return min(self.ceiling * 2, max(PATIENCE_FLOOR, 2.5 * self.quiet))

    @property
    def journey(self) -> float:
        """The longest a coin's cascade may go on after it went in: twice the
        longest an ok group ran after its last coin went in, and never less
        than the patience. An event later than this after a coin went in was
        made by a later coin (reporting: which drop of a group missed it)."""
        longest = max(self.spans) if len(self.spans) >= self.min_samples else 0.0
        return max(2.0 * longest, self.patience)

    def summary(self) -> dict:
        def q(values, f):
            if not values:
                return None
            v = sorted(values)
            return round(v[min(len(v) - 1, int(f * len(v)))], 4)

        return {
            "learned_from": self.learned,
            "quiet_window": round(self.quiet, 4),
            "patience": round(self.patience, 4),
            "longest_silence": {"p50": q(self.gaps, 0.5), "p99": q(self.gaps, 0.99), "max": q(self.gaps, 1.0)},
            "cascade_span": {"p50": q(self.spans, 0.5), "p99": q(self.spans, 0.99), "max": q(self.spans, 1.0)},
            "flip": {"p50": q(self.flips, 0.5), "max": q(self.flips, 1.0), "min": q(self.quickest, 0.0),
                     "hand_if_slower_than": round(self.flip_limit, 4), "sensor_jump_if_faster_than": round(self.flip_floor, 4)},
            "prior_in_use": not self.ready,
        }

    def to_json(self) -> dict:
        return {"gaps": [round(g, 5) for g in self.gaps], "spans": [round(s, 5) for s in self.spans],
                "flips": [round(f, 5) for f in self.flips], "quickest": [round(f, 5) for f in self.quickest], "learned": self.learned}

    def restore(self, d: dict) -> None:
        """Take back what an earlier session learned (the daemon keeps it)."""
        try:
            gaps = [float(g) for g in d.get("gaps", [])]
            spans = [float(s) for s in d.get("spans", [])]
            flips = [float(f) for f in d.get("flips", [])]
            quickest = [float(f) for f in d.get("quickest", [])]
            learned = int(d.get("learned", len(gaps)))
        except (TypeError, ValueError, AttributeError):
            raise EngineError("saved timing is damaged: gaps and spans must be lists of seconds; delete it to relearn") from None
        if any(g < 0 for g in gaps + spans + flips + quickest):
            raise EngineError("saved timing has a negative duration; delete it to relearn")
        if any(not g <= SAVED_MAX for g in gaps + spans + flips + quickest):  # nan too
            # no healthy cascade is this slow: a drop would then wait that long before it is scored
            raise EngineError(f"saved timing has a duration over {SAVED_MAX:g} s; delete it to relearn")
        self.gaps.extend(gaps)
        self.spans.extend(spans)
        self.flips.extend(flips)
        self.quickest.extend(quickest)
        self.learned = learned
