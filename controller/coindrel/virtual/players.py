"""Simulated players for demos and soak runs.

Two computer players (``coindrel.ai``: random, greedy) play matches on the
virtual board: each turn the player to move thinks for a while, chooses an
entry from what the engine believes the board is, and drops a coin there.
Sometimes (``overlap``) a player drops quickly, before the last cascade has
finished, as real players do. When a match ends the next one starts on the
same board after a pause; the players clear nothing, so a soak run is one
long session the controller can follow without being told.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ai import player_by_name
from ..engine import EngineError, Match, MatchSetup
from ..engine.core import COIN, HOLE
from .rand import Stream, derive


@dataclass(frozen=True)
class PlayerSpec:
    one: str = "random"
    two: str = "random"
    matches: int = 1
    drops: int | None = None  # stop after this many drops in all
    think: tuple[float, float] = (0.8, 3.0)  # seconds from one drop to the next
    overlap: float = 0.0  # chance a drop comes quickly, before the cascade ends
    quick: tuple[float, float] = (0.15, 0.5)  # the quick gap
    start: float = 0.5  # first drop
    pause: float = 5.0  # between matches

    def check(self, source: str = "players") -> None:
        for name in (self.one, self.two):
            try:
                player_by_name(name)
            except EngineError as e:  # it names the choices; the source names the file and the key
                raise EngineError(f"{source}: {e}") from None
        if self.matches < 1:
            raise EngineError(f"{source}: matches must be 1 or more")
        if self.drops is not None and self.drops < 1:
            raise EngineError(f"{source}: drops must be 1 or more")
        if not 0.0 <= self.overlap <= 1.0:
            raise EngineError(f"{source}: overlap {self.overlap} is a chance between 0 and 1")
        for key in ("think", "quick"):
            lo, hi = getattr(self, key)
            if not 0.0 < lo <= hi:
                raise EngineError(f"{source}: {key} [{lo}, {hi}] must be seconds with 0 < lo <= hi")


class PlayerDriver:
    """Schedules the players' drops on a ``VirtualBoard`` as virtual time runs."""

    def __init__(self, board, spec: PlayerSpec):
        spec.check()
        self.board = board
        self.spec = spec
        seed = board.config.seed
        self.rng = Stream(seed, "players-timing")
        self.seed = seed
        self.match: Match | None = None
        self.players = ()
        self.matches = 0
        self.drops = 0
        self.results: list = []  # every finished match: (winner, totals)
        self._schedule(spec.start, self._new_match)

    def _schedule(self, t: float, fn) -> None:
        self.board.pending += 1  # the board is not finished while a turn is coming
        self.board.sched.at(t, self._run, fn)

    def _run(self, fn) -> None:
        self.board.pending -= 1
        fn()

    def _new_match(self) -> None:
        w = self.board.world
        self.matches += 1
        empty = w.board()
        empty.clear_coins_in_place()  # a new match starts with every pad empty
        setup = MatchSetup(variants=self.board.config.variants, seed=derive(self.seed, "match", self.matches) & 0xFFFFFFFF,
                           start=empty.text(), board=self.board.config.board)
        self.match = Match(setup)
        if any(c != HOLE and c & COIN for c in w.codes):
            self.match.set_board(w.text(), "coins left on the board from the last match")
        self.players = (
            player_by_name(self.spec.one, derive(self.seed, "player", 1, self.matches) & 0xFFFFFFFF),
            player_by_name(self.spec.two, derive(self.seed, "player", 2, self.matches) & 0xFFFFFFFF),
        )
        self.match.reveal_done()
        self._turn()

    def _turn(self) -> None:
        m, spec = self.match, self.spec
        if spec.drops is not None and self.drops >= spec.drops:
            return
        if m.over:
            self.results.append((m.winner, m.totals))
            if self.matches < spec.matches:
                self._schedule(self.board.now + spec.pause, self._new_match)
            return
        if m.phase == "reveal":
            m.reveal_done()
        who = m.to_move
        entry = self.players[who - 1].choose(m)
        m.play(entry)
        self.drops += 1
        self.board.drop(entry, player=who)
        gap = self.rng.span(spec.quick) if self.rng.chance(spec.overlap) else self.rng.span(spec.think)
        self._schedule(self.board.now + gap, self._turn)

