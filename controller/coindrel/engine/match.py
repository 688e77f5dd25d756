"""A match (rules.md sections 1, 5-8): players, turns, rounds, targets, exit
values, the last drop, winner or draw, variants, the seeded generator and the
turn clock. Time is always passed in; nothing here reads a clock.

Every action is appended to ``match.log`` (plain JSON-able dicts), and
``Match.replay(log)`` rebuilds the same match: that log is what the daemon
journals, so a restart resumes exactly where the match was.
"""

from __future__ import annotations

from .clock import TurnClock
from .core import COIN, HOLE, MatchError, exit_label
from .drop import drop, drop_in_place
from .outcome import _PATTERNS, exits_of, exits_of_pattern
from .geometry import Geometry, geometry_by_name
from .matchlog import LogReplay
from .rng import MatchRandom
from .rounds import ROUNDS, TARGETS, VALUES, target
from .setup import MatchSetup, TurnResult
from .state import _TEXT, BoardState, _cutter, _Made
from .tables import hexlify, topology

PHASE_REVEAL = "reveal"  # a round's values are being shown; no clock
PHASE_TURN = "turn"  # a player is expected to drop; the clock runs
PHASE_FALLING = "falling"  # a coin was seen entering; the clock is stopped
PHASE_OVER = "over"

_new = object.__new__
_tuple_new = tuple.__new__  # a global: one look-up less than tuple.__new__ per drop
_pattern = _PATTERNS.get  # a name bound by an import is called by LOAD_ATTR, a bound method made per call


class _Score:
    """Everything an undo must restore, in one bundle: scores are tuples, so a
    snapshot is one tuple of the fields plus the board's 38 bytes."""

    __slots__ = ("board", "round", "round_scores", "totals", "to_move", "owed_last", "values", "phase",
                 "forced_entry", "rng_state", "turns")

    def __init__(self, board: BoardState):
        self.board = board
        self.round = 0
        self.round_scores = self.totals = (0, 0)
        self.to_move = 0
        self.owed_last: int | None = None
        self.values: tuple = ()
        self.phase = PHASE_REVEAL
        self.forced_entry: int | None = None
        self.rng_state = 0
        self.turns = 0

    @classmethod
    def restore(cls, snap: tuple, geometry: Geometry) -> "_Score":
        """The bundle again from an undo snapshot (``Match.play`` makes them:
        the fields in slot order, the board before as a drop's working bytes,
        or plain codes, which ``before_of`` leaves as they are; a healthy
        board's history bytes mean the same on every geometry)."""
        c = _new(cls)
        for name, value in zip(cls.__slots__, snap):
            setattr(c, name, value)
        board = c.board = _new(BoardState)
        t = topology(geometry)
        board.geometry, board.codes = geometry, snap[0][: t.n].translate(t.before_of)
        return c


class Match(LogReplay):
    def __init__(self, setup: MatchSetup | None = None):
        self.setup = setup = setup or MatchSetup()
        if len(setup.players) != 2 or not all(isinstance(p, str) and p.strip() for p in setup.players):
            raise MatchError("a match needs two players with non-empty names")
        self.geometry: Geometry = geometry_by_name(setup.board)
        self._entries = self.geometry.entry_count
        self.rng = MatchRandom(setup.seed)
        self.clock = TurnClock(setup.clock) if setup.clock else None
        self.log: list[dict] = [{"do": "setup", "setup": setup.to_dict()}]
        self.results: list[TurnResult] = []
        self._undo: list[tuple] = []  # snapshots, see play
        self.over = False
        self.s = _Score(self._start_board())
        self._begin_round(0)

    # -- setup -----------------------------------------------------------------

    def _start_board(self) -> BoardState:
        g, variants = self.geometry, self.setup.variants
        if self.setup.start is None:
            board = BoardState.random(self.rng, g)
        else:
            board = BoardState.parse(self.setup.start, g)
        coins = [g.labels[i] for i, c in enumerate(board.codes) if c != HOLE and c & COIN]
        if coins:
            raise MatchError(f"the start board has coins on {', '.join(coins)}; a new match starts with every pad empty")
        wanted = set(g.hole_switches) if variants.holes else set()
        extra = [g.labels[i] for i, c in enumerate(board.codes) if c == HOLE and i not in wanted]
        if extra:
            raise MatchError(
                f"the start board has holes at {', '.join(extra)}, but "
                + ("the Holes variant removes only " + ", ".join(g.holes) if variants.holes else "the Holes variant is off")
            )
        if variants.holes:
            board.make_holes_in_place()
        return board

    def _begin_round(self, k: int) -> None:
        s = self.s
        s.round = k
        s.round_scores = (0, 0)
        s.owed_last = None
        if self.setup.values:
            values = tuple(self.setup.values[k])
        else:
            values = list(VALUES[k])
            if self.setup.variants.shuffled:
                self.rng.shuffle(values)
            values = tuple(values)
        s.values = values
        s.phase = PHASE_REVEAL
        if self.clock:
            self.clock.running = False
            self.clock.since = None
        self.log.append({"do": "reveal", "round": k + 1, "values": list(values)})

    # -- reading ---------------------------------------------------------------

    @property
    def board(self) -> BoardState:
        return self.s.board

    @property
    def round(self) -> int:
        """The current round, 1..4."""
        return self.s.round + 1

    @property
    def target(self) -> int:
        return target(self.s.round, self.setup.variants)

    @property
    def values(self) -> tuple[int, ...]:
        return self.s.values

    @property
    def to_move(self) -> int:
        """The player expected to drop next, 1 or 2."""
        return self.s.to_move + 1

    @property
    def round_scores(self) -> tuple[int, int]:
        return self.s.round_scores

    @property
    def totals(self) -> tuple[int, int]:
        return self.s.totals

    @property
    def phase(self) -> str:
        return self.s.phase

    # ``over`` is an attribute, kept with the phase (a drop is the only way
    # there, an undo the only way back): a caller's loop reads it per drop.

    @property
    def last_drop_pending(self) -> bool:
        """The player to move is taking the last drop of the round."""
        return self.s.owed_last is not None

    @property
    def forced_entry(self) -> int | None:
        return self.s.forced_entry

    @property
    def winner(self) -> int | str | None:
        if not self.over:
            return None
        a, b = self.s.totals
        return "draw" if a == b else (1 if a > b else 2)

    def status(self) -> str:
        """The status line a player reads."""
        if self.over:
            w = self.winner
            return "Draw" if w == "draw" else f"{self.setup.players[w - 1]} wins"
        if self.s.phase == PHASE_REVEAL:
            return f"Round {self.round}: new exit values"
        if self.last_drop_pending:
            return "Last drop of the round"
        return f"{self.setup.players[self.s.to_move]} to drop"

    # -- clock -----------------------------------------------------------------

    def reveal_done(self, now: float | None = None) -> None:
        """The round's values have been shown: the turn (and its clock) starts."""
        self._need_phase(PHASE_REVEAL, "finish the reveal")
        self.s.phase = PHASE_TURN
        if self.clock and now is not None:
            self.clock.start(now)
        self.log.append({"do": "revealed", "t": now})

    def coin_seen(self, now: float | None = None) -> None:
        """A coin was seen entering the board: the clock stops while coins fall."""
        if self.s.phase == PHASE_OVER:
            raise MatchError("the match is over; start a new one")
        if self.s.phase == PHASE_REVEAL:
            self.s.phase = PHASE_TURN
        self.s.phase = PHASE_FALLING
        if self.clock and now is not None:
            self.clock.stop(now)
        self.log.append({"do": "coin", "t": now})

    def coin_lost(self, now: float | None = None) -> None:
        """A coin was seen going in, but where it went was lost (the board's
        events never came): the turn is the dropper's again, clock and all."""
        self._need_phase(PHASE_FALLING, "give back a lost coin's turn")
        self.s.phase = PHASE_TURN
        if self.clock and now is not None:
            self.clock.start(now)
        self.log.append({"do": "lost", "t": now})

    def pause(self, now: float) -> None:
        if self.clock:
            self.clock.pause(now)
        self.log.append({"do": "pause", "t": now})

    def resume(self, now: float) -> None:
        if self.clock:
            self.clock.resume(now)
        self.log.append({"do": "resume", "t": now})

    def remaining(self, now: float) -> float | None:
        return self.clock.remaining(now) if self.clock else None

    def expire(self, now: float) -> int | None:
        """If the clock has run out, choose the entry the coin must drop in
        (uniformly, with the match's generator) and return it; else None."""
        if not self.clock or self.s.phase != PHASE_TURN or self.s.forced_entry is not None or not self.clock.expired(now):
            return None
        return self._force_entry(now)

    def _force_entry(self, now: float | None) -> int:
        entry = self.rng.randbelow(self.geometry.entry_count)
        self.s.forced_entry = entry
        if self.clock and now is not None:
            self.clock.stop(now)
        self.log.append({"do": "timeout", "t": now, "entry": entry})
        return entry

    # -- drops -------------------------------------------------------------------

    def play(self, entry: int, now: float | None = None, _scored: tuple | None = None) -> TurnResult:
        """The player to move drops in ``entry``; the engine says what happens.
        (``_scored``: ``record``'s exits, board after and board before; a
        match's scoring is written once, here, where the call a match makes
        per drop saves a call.)"""
        if entry.__class__ is not int or not 0 <= entry < self._entries:
            self._check_entry(entry)
        s = self.s
        if _scored is not None:
            exits, after, before = _scored
        else:
            # A match needs the board after and the exits, not an Outcome: drop()'s
            # loop (``run``) on the working bytes, then the board and the exits.
            board = s.board
            try:  # the board's own geometry, as drop() reads it
                tail, starts, rows, code_of, _, head, exits_from, exit_pairs, g, _ = board.geometry._fast
            except AttributeError:
                tail, starts, rows, code_of, _, head, exits_from, exit_pairs, g, _ = topology(board.geometry).fast
            before = w = board.codes + tail if tail else board.codes.copy()
            try:
                q = [starts[entry]]
                for k in q:  # drop.run(), written out
                    while k is not None:
                        w[k], k, more = rows[k][w[k]]
                        if more is not None:
                            q.append(more)
            except (IndexError, KeyError):  # more coins at one switch than its byte holds (or a board of
                outcome = drop(board, (entry,))  # fewer entries, set by hand): drop()'s cascade, or its message
                exits, after, before = exits_of(outcome.exit_counts), outcome.board, board.codes.copy()
            else:
                after = _Made()
                after.geometry = g
                after.codes = (w if head is None else w[head]).translate(code_of)
                # The exits from the exit patterns seen lately (``exits_of_pattern``).
                key = bytes(w[exits_from]) + b"=" if exit_pairs is None else hexlify(w[exits_from].translate(exit_pairs))
                exits = _pattern(key)
                if exits is None:
                    exits = exits_of_pattern(key, exit_pairs is not None)
        values = s.values
        points = 0
        for x in exits:  # one to four exits: a plain loop is a third of sum(map(...))'s cost
            points += values[x]
        # What follows the drop; ``exits`` sorted and checked, ``after`` owned by the match.
        phase = s.phase
        if phase == PHASE_OVER:
            raise MatchError("the match is over; no more drops score")
        player, rnd, scores, totals, owed, forced = s.to_move, s.round, s.round_scores, s.totals, s.owed_last, s.forced_entry
        # The undo snapshot: one tuple of the fields in slot order, the board
        # before as bytes no caller holds (a caller may still change that board
        # object in place): play's working bytes, whose histories say each
        # switch's code before the drop, so no copy is made; _Score.restore
        # makes it a bundle again.
        self._undo.append((before, rnd, scores, totals, player, owed, values, phase, forced, self.rng._state, s.turns))
        a, b = scores
        ta, tb = totals
        if player:
            s.round_scores = scores = (a, b + points)
            s.totals = totals = (ta, tb + points)
        else:
            s.round_scores = scores = (a + points, b)
            s.totals = totals = (ta + points, tb)
        s.board = after
        s.turns += 1
        s.forced_entry = None
        s.to_move = 1 - player
        try:  # after.text(), without the call
            cut = self.geometry._cut_rows
        except AttributeError:
            cut = _cutter(self.geometry)
        text = b"/".join(cut(after.codes.translate(_TEXT))).decode()
        self.log.append({"do": "drop", "t": now, "entry": entry, "exits": [*exits], "board": text})
        if owed is None:  # a drop that may earn the other player the round's last one
            over = False
            last_drop = scores[player] >= (TARGETS[rnd] if rnd != ROUNDS - 1 else self.target)
            if last_drop:
                s.owed_last = 1 - player
            s.phase = PHASE_TURN
            if now is not None and self.clock:
                self.clock.start(now)
        else:  # this was the round's last drop; it cannot earn another
            last_drop = False
            over = rnd == ROUNDS - 1
            if over:
                s.phase = PHASE_OVER
                self.over = True
                if now is not None and self.clock:
                    self.clock.stop(now)
            else:
                self._begin_round(rnd + 1)
        result = _tuple_new(TurnResult, (player + 1, entry, rnd + 1, exits, points, scores, totals, last_drop, over, forced, text))
        self.results.append(result)
        return result

    def record(self, entry: int, exits: Sequence[int], board: BoardState | str | None = None, now: float | None = None) -> TurnResult:
        """Score a drop from what the exits saw; ``board`` is the board after it,
        as now believed (default: the engine's prediction)."""
        self._check_entry(entry)
        if self.s.phase == PHASE_OVER:
            raise MatchError("the match is over; no more drops score")
        exits = tuple(sorted(exits))
        for x in exits:
            if not isinstance(x, int) or not 0 <= x < self.geometry.exit_count:
                raise MatchError(f"{x!r} is not an exit (0..{self.geometry.exit_count - 1})")
        if board is None:
            after = self.s.board.copy()
            drop_in_place(after, [entry])
        elif isinstance(board, str):
            after = BoardState.parse(board, self.geometry)
        else:
            after = board.copy()
        return self.play(entry, now, (exits, after, self.s.board.codes.copy()))

    def set_board(self, board: BoardState | str, why: str = "", now: float | None = None) -> None:
        """Replace the board belief between drops (a correction, e.g. a rocker moved by hand)."""
        self.s.board = BoardState.parse(board, self.geometry) if isinstance(board, str) else board.copy()
        self.log.append({"do": "board", "t": now, "board": self.s.board.text(), "why": why})

    def undo(self, now: float | None = None) -> TurnResult:
        """Take back the last drop: scores, board, round and generator as before it."""
        if not self._undo:
            raise MatchError("there is no drop to undo")
        self.s = s = _Score.restore(self._undo.pop(), self.geometry)
        self.rng.setstate(s.rng_state)
        self.over = s.phase == PHASE_OVER
        undone = self.results.pop()
        if s.phase == PHASE_FALLING:
            # the snapshot was taken while that drop's coin fell: taken back, the turn is the dropper's again
            # (without a clock the match stayed "falling", and the table said a coin was lost)
            s.phase = PHASE_TURN
        if self.clock and now is not None and s.phase == PHASE_TURN:
            self.clock.start(now)
        self.log.append({"do": "undo", "t": now})
        return undone

    def _check_entry(self, entry) -> None:
        if not isinstance(entry, int) or isinstance(entry, bool) or not 0 <= entry < self.geometry.entry_count:
            raise MatchError(f"{entry!r} is not an entry; entries are 0..{self.geometry.entry_count - 1}")

    def _need_phase(self, phase: str, doing: str) -> None:
        if self.s.phase != phase:
            raise MatchError(f"cannot {doing} now: the match is in phase {self.s.phase!r}, not {phase!r}")


def exit_names(exits: Sequence[int]) -> str:
    return ", ".join(exit_label(x) for x in exits) or "no exit"


__all__ = ["Match", "MatchSetup", "TurnResult", "exit_names"]
