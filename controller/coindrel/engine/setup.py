"""What a match is set up with, and what one turn did (the vectors' turn shape)."""

from __future__ import annotations

from collections import namedtuple
from .core import Frozen, MatchError
from .rounds import Variants, check_values


class MatchSetup(Frozen):
    """``players``; ``variants``; ``seed``; ``clock``: seconds per turn (None:
    no clock); ``start``: board text (None: seeded random pads); ``values``:
    replaces the round tables (e.g. from a vector); ``board``: the geometry."""

    __slots__ = _fields = ("players", "variants", "seed", "clock", "start", "values", "board")
    _defaults = {"players": ("Player 1", "Player 2"), "variants": Variants(), "seed": 0, "clock": None,
                 "start": None, "values": None, "board": "standard"}

    def _check(self) -> None:
        if self.values is not None:
            self._set("values", check_values(self.values))
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise MatchError(f"the match seed must be a whole number, not {self.seed!r}")
        if self.clock is not None and (not isinstance(self.clock, (int, float)) or self.clock <= 0):
            raise MatchError(f"the turn clock must be a positive number of seconds (30, 60, 120 or 5 for Turbo), not {self.clock!r}")

    def to_dict(self) -> dict:
        return {
            "players": list(self.players),
            "variants": self.variants.to_dict(),
            "seed": self.seed,
            "clock": self.clock,
            "start": self.start,
            "values": [list(v) for v in self.values] if self.values else None,
            "board": self.board,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "MatchSetup":
        unknown = set(d) - {"players", "variants", "seed", "clock", "start", "values", "board"}
        if unknown:
            raise MatchError(f"unknown match setup key(s) {sorted(unknown)}")
        return cls(
            players=tuple(d.get("players", ("Player 1", "Player 2"))),
            variants=Variants.from_dict(d.get("variants")),
            seed=d.get("seed", 0),
            clock=d.get("clock"),
            start=d.get("start"),
            values=d.get("values"),
            board=d.get("board", "standard"),
        )


_TURN_FIELDS = ("player", "entry", "round", "exits", "points", "round_scores", "totals", "last_drop", "over",
                "forced_entry", "board")


class TurnResult(namedtuple("TurnResult", _TURN_FIELDS, defaults=(None, ""))):
    """What one drop did: ``player`` 1 or 2, ``entry`` 0-based, ``round`` 1..4
    (the round the drop was made in), ``exits`` sorted, ``points``,
    ``round_scores`` and ``totals`` after it, ``last_drop`` (the other player
    is now owed the last drop), ``over``, ``forced_entry`` (the clock chose
    it) and ``board`` (the text after it). A named tuple: a match makes one per
    drop, so it is built in one step."""

    __slots__ = ()

    def to_json(self) -> dict:
        """The vectors' turn shape."""
        return {
            "player": self.player,
            "entry": self.entry,
            "round": self.round,
            "exits": list(self.exits),
            "points": self.points,
            "round_scores": list(self.round_scores),
            "totals": list(self.totals),
            "last_drop": self.last_drop,
            "over": self.over,
        }
