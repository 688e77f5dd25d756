"""Fault mechanisms of the second board model, each acting on the physics of
``board.py`` with a rate (the share of coins it acts on), and the ground
truth of what each did: which drop it first changed, or when it first showed
outside any drop.

A fault here is a mechanism, not a label the reconciler uses: a sticky
pivot (sometimes wiggles its hall without going over), a pad whose coin
rolls off, a chute that catches coins, a frozen or drifting or swapped hall,
a knocked rocker resting off its seat, a dirty beam, a beam that bounces, a
hand turning a rocker, a coin put on or taken off a pad. Each is named with
sensing.md's fault names in the truth only.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class Fault:
    id: int
    name: str  # sensing.md's name, for the truth only
    where: str
    t: float
    rate: float = 1.0
    params: dict = field(default_factory=dict)
    first_drop: int | None = None  # the first drop it changed
    first_effect: float | None = None  # or when it first showed outside a drop
    done: bool = False  # a one-off that has acted

    def truth(self) -> dict:
        d = {"kind": "fault", "id": self.id, "fault": self.name, "where": self.where, "t": round(self.t, 5),
             "rate": self.rate, "persistent": self.name not in ONE_OFF}
        if self.first_drop is not None:
            d["first_drop"] = self.first_drop
        if self.first_effect is not None:
            d["first_effect"] = round(self.first_effect, 5)
        return d


ONE_OFF = ("moved_by_hand", "coin_added", "coin_removed")


class Faults:
    """The active mechanisms; the board asks them coin by coin."""

    def __init__(self, board, seed: int):
        self.board = board
        self.rng = random.Random(seed ^ 0x5EED)
        self.list: list[Fault] = []
        self.acted: dict[int, set] = {}  # drop -> fault ids that changed it
        # Switch -> faults whose action changed nothing a sensor saw yet, only
        # where a coin rests (a coin that would have come to rest there
        # silently): the next coin to meet that switch shows the difference.
        self.latent: dict[int, list] = {}

    def _active(self, name: str, where: str, t: float):
        for f in self.list:
            if f.name == name and f.where == where and f.t <= t and not f.done:
                yield f

    def _act_or_latent(self, f: Fault, drop: int, rests_at: int | None, later: bool = False) -> None:
        # ``later``: the coin the beam missed or repeated reaches ``rests_at``
        # itself right after, changing nothing seen there; only a later coin tells.
        if rests_at is None:
            self._act(f, drop)
        else:
            self.acted.setdefault(drop, set()).add(f.id)
            if f.first_drop is None and f.first_effect is None:
                self.latent.setdefault(rests_at, []).append((drop if later else None, f))

    def _act(self, f: Fault, drop: int) -> None:
        if f.first_drop is None and f.first_effect is None:
            if drop > 0:
                f.first_drop = drop
            else:  # coins a hand set moving, outside every drop
                f.first_effect = self.board.now
        self.acted.setdefault(drop, set()).add(f.id)

    def _label(self, s: int) -> str:
        return self.board.g.switches[s].label

    # -- questions from the physics ----------------------------------------------------

    def pivot_sticks(self, s: int, t: float, drop: int) -> bool:
        for f in self._active("switch_stuck", self._label(s), t):
            if self.rng.random() < f.rate:
                self._act(f, drop)
                return True
        return False

    def wiggles(self, s: int) -> bool:
        return self.rng.random() < 0.5

    def pad_slips(self, s: int, t: float, drop: int) -> bool:
        for f in self._active("pad_not_holding", self._label(s), t):
            if self.rng.random() < f.rate:
                self._act(f, drop)
                return True
        return False

    def jammed(self, s: int, side: int, t: float, drop: int) -> bool:
        where = f"{self._label(s)} {'left' if side == 0 else 'right'} outlet"
        for f in self._active("jam", where, t):
            kind, target, _ = self.board.g.below(s, side)
            self._act_or_latent(f, drop, self.board.silent_rest(target) if kind == "switch" else None)
            return True
        return False

    def beam_misses(self, kind: str, index: int, t: float, drop: int) -> bool:
        for f in self._active(f"{kind}_sensor_dead", f"{kind} {index + 1}", t):
            if self.rng.random() < f.rate:
                rests = self.board.silent_rest(self.board.g.entry_switch(index)) if kind == "entry" else None
                self._act_or_latent(f, drop, rests, later=True)
                return True
        return False

    def beam_repeats(self, kind: str, index: int, t: float, drop: int) -> list[float]:
        for f in self._active(f"{kind}_sensor_chatter", f"{kind} {index + 1}", t):
            if self.rng.random() < f.rate:
                # A repeat on an entry looks like a second coin; where that coin
                # would have come to rest unseen, only a later coin tells.
                rests = self.board.silent_second(self.board.g.entry_switch(index)) if kind == "entry" else None
                self._act_or_latent(f, drop, rests, later=True)
                return [self.rng.uniform(0.004, 0.03)]
        return []

    def coin_reaches(self, s: int, t: float, drop: int) -> None:
        """A coin meets switch ``s``: a pad changed by hand shows now."""
        waiting = self.latent.pop(s, ())
        later = [f for d, f in waiting if d != drop]
        if len(later) < len(waiting):
            self.latent[s] = [(d, f) for d, f in waiting if d == drop]
        for f in later:
            self._act(f, drop)
        for name in ("coin_added", "coin_removed"):
            for f in self._active(name, self._label(s), t):
                if f.params.get("applied"):
                    self._act(f, drop)
                    f.done = True

    def note_exit(self, lane: int, drop: int) -> None:
        pass

    def reseat(self, s: int) -> None:
        self.board.halls[s].unseated = 0.0

    def hall_misreports(self, s: int, t: float, drop: int | None) -> None:
        """The hub classified rocker ``s`` unlike where it physically is."""
        for f in self._active("hall_fault", self._label(s), t):
            if drop is not None and drop >= 0:
                self._act(f, drop)
            elif f.first_drop is None and f.first_effect is None:
                f.first_effect = t


def inject(board, faults: Faults, f: Fault, t: float, drop_after: int) -> None:
    """Make fault ``f`` start at ``t`` (the board is quiet then, between drops)."""
    b = board
    faults.list.append(f)
    name = f.name
    if f.where in b.g.by_label:
        s = b.g.by_label[f.where]
    if name == "hall_fault":
        h = b.halls[s]
        mode = f.params["mode"]
        if mode == "frozen":
            h.frozen = h.raw(b.rest_pos(s), t, b.rng)
        elif mode == "drift":  # the magnet creeps along its rocker
            h.drift_from = t
            h.drift_rate = (1 if b.pads[s] == 0 else -1) * (h.right - h.left) * f.params.get("speed", 0.02)
            f.params["watch"] = True
        elif mode == "inverted":
            h.inverted = True
            before = b.reading[s]
            b.hall_report(s, b.rest_pos(s), t)
            if b.reading[s] != before:
                f.first_effect = t
    elif name == "switch_unseated":
        b.halls[s].unseated = f.params.get("offset", 0.6)
        before = b.reading[s]
        b.hall_report(s, b.rest_pos(s), t)
        if b.reading[s] != before:
            f.first_effect = t
        else:
            f.params["silent"] = True
    elif name == "moved_by_hand":
        f.first_effect = t
        b.hand_flip(s, t, cause=-f.id)
        f.done = True
    elif name == "coin_added":
        if not b.coins[s] and b.pads[s] == b.g.switches[s].inlet:
            b.coins[s] = True
            f.params["applied"] = True
        else:
            f.done = True
            f.params["applied"] = False
    elif name == "coin_removed":
        if b.coins[s]:
            b.coins[s] = False
            f.params["applied"] = True
        else:
            f.done = True
            f.params["applied"] = False


def watch_drift(board, faults: Faults, t: float) -> None:
    """A drifting magnet's reading leaves its band at some moment; the hub reports it then."""
    for f in faults.list:
        if f.name == "hall_fault" and f.params.get("watch"):
            s = board.g.by_label[f.where]
            before = board.reading[s]
            if not board.moving[s]:
                board.hall_report(s, board.rest_pos(s), t)
            if board.reading[s] != before and f.first_drop is None and f.first_effect is None:
                f.first_effect = t
