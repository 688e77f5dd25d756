"""Look-ahead over the rules engine: the best entry for the player to move.

A ``Position`` is everything a drop's value depends on: the board, the round
(its exit values and target), both round scores and match totals, who drops
next and whether that drop is the round's last (rules.md sections 1 and 5).
``Searcher`` looks ``depth`` drops ahead (alternating players) with negamax,
alpha-beta pruning and a transposition cache keyed by ``BoardState.key()``
plus the score context, and scores every line exactly: points of every exit
reached (coins knocked loose included), the target and the last-drop rule,
round scores reset and the next round's values after a last drop, and a win
or loss when round 4's last drop ends the match.

Values are match-total differences from the point of view of the player to
move (a win or loss adds ``WIN``). Beyond the horizon an optional ``threat``
term counts part of what the player to move could take at once: resting
coins left behind are points waiting for whoever knocks them loose next.

With shuffled exits the next round's values are not known until they are
revealed; ``Position.from_match`` then uses each round's mean value on every
exit (the expectation), so lines that cross a round change score fairly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..engine import COIN, HOLE, BoardState, EngineError, Match, cascade, topology
from ..engine.rounds import ROUNDS, TARGETS, VALUES, check_values, target as round_target

WIN = 10_000.0
_EXACT, _LOWER, _UPPER = 0, 1, 2


@dataclass(frozen=True)
class Position:
    """A match as the search sees it. ``round`` is 1..4, ``to_move`` 1 or 2;
    ``values[k]`` are round ``k + 1``'s exit values (the current round's as
    shown); ``last_drop``: the player to move takes the round's last drop
    (set by itself when the opponent already has the target)."""

    board: BoardState
    round: int = 1
    round_scores: tuple[int, int] = (0, 0)
    totals: tuple[int, int] | None = None  # None: the round scores (as in round 1)
    to_move: int = 1
    last_drop: bool = False
    values: tuple[tuple[float, ...], ...] = VALUES
    targets: tuple[int, ...] = TARGETS

    def __post_init__(self) -> None:
        if not isinstance(self.board, BoardState):
            raise EngineError("a position needs a BoardState (use BoardState.parse on board text)")
        if self.round not in range(1, ROUNDS + 1):
            raise EngineError(f"round {self.round!r} is not a round of the match (1..{ROUNDS})")
        if self.to_move not in (1, 2):
            raise EngineError(f"the player to move is 1 or 2, not {self.to_move!r}")
        if self.totals is None:
            object.__setattr__(self, "totals", self.round_scores)
        for name in ("round_scores", "totals"):
            pair = getattr(self, name)
            if (not isinstance(pair, (tuple, list)) or len(pair) != 2
                    or any(not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0 for v in pair)):
                raise EngineError(f"{name.replace('_', ' ')} must be two numbers >= 0, not {pair!r}")
            object.__setattr__(self, name, tuple(pair))
        if any(t < rs for t, rs in zip(self.totals, self.round_scores)):
            raise EngineError(f"match totals {self.totals} cannot be below this round's scores {self.round_scores}")
        object.__setattr__(self, "values", tuple(tuple(v) for v in self.values))
        object.__setattr__(self, "targets", tuple(self.targets))
        if len(self.values) != ROUNDS or any(len(v) != self.board.geometry.exit_count for v in self.values):
            raise EngineError(f"exit values must list {ROUNDS} rounds of {self.board.geometry.exit_count} values")
        if len(self.targets) != ROUNDS:
            raise EngineError(f"targets must list {ROUNDS} rounds")
        target = self.targets[self.round - 1]
        mover, other = self.round_scores[self.to_move - 1], self.round_scores[2 - self.to_move]
        if mover >= target:
            raise EngineError(
                f"player {self.to_move} already has {mover} of round {self.round}'s target {target}: "
                "the round would have ended (check --scores and --to-move)"
            )
        if other >= target and not self.last_drop:
            object.__setattr__(self, "last_drop", True)  # the opponent reached it: this is the last drop

    @classmethod
    def from_match(cls, match: Match) -> "Position":
        if match.over:
            raise EngineError("the match is over; there is no drop to think about")
        setup, k = match.setup, match.round - 1
        values = []
        for r in range(ROUNDS):
            if r == k:
                values.append(tuple(match.values))
            elif setup.values:
                values.append(tuple(setup.values[r]))
            elif setup.variants.shuffled and r > k:
                mean = sum(VALUES[r]) / len(VALUES[r])  # not revealed yet: the expectation
                values.append((mean,) * len(VALUES[r]))
            else:
                values.append(VALUES[r])
        return cls(
            board=match.board.copy(),
            round=match.round,
            round_scores=match.round_scores,
            totals=match.totals,
            to_move=match.to_move,
            last_drop=match.last_drop_pending,
            values=tuple(values),
            targets=tuple(round_target(r, setup.variants) for r in range(ROUNDS)),
        )

    @property
    def target(self) -> int:
        return self.targets[self.round - 1]

    def play(self, entry: int) -> "Step":
        """The player to move drops in ``entry``: points, and what comes next."""
        geometry = self.board.geometry
        if not isinstance(entry, int) or isinstance(entry, bool) or not 0 <= entry < geometry.entry_count:
            raise EngineError(f"entry {entry!r} is not an entry; entries are 0..{geometry.entry_count - 1}")
        board = self.board.copy()
        topo = topology(geometry)
        sinks, flipped = cascade(board.codes, topo, [topo.entries[entry]])
        n, values = topo.n, self.values[self.round - 1]
        exits = tuple(sorted(s - n for s in sinks if s < topo.swallow))
        points = sum(values[x] for x in exits)
        me = self.to_move - 1
        rs = list(self.round_scores)
        tot = list(self.totals)
        rs[me] += points
        tot[me] += points
        ends_round = self.last_drop
        reaches = not ends_round and rs[me] >= self.target
        over = ends_round and self.round == ROUNDS
        nxt = None
        if not over:
            nxt = Position(
                board=board,
                round=self.round + 1 if ends_round else self.round,
                round_scores=(0, 0) if ends_round else tuple(rs),
                totals=tuple(tot),
                to_move=2 - me,
                last_drop=reaches,
                values=self.values,
                targets=self.targets,
            )
        return Step(entry, exits, points, sum(1 for s in sinks if s == topo.swallow), board, reaches, ends_round, over, tuple(tot), nxt)


@dataclass(frozen=True)
class Step:
    """One drop from a position: what it scores and what it leads to."""

    entry: int
    exits: tuple[int, ...]
    points: float
    swallowed: int
    board: BoardState
    reaches_target: bool  # the opponent now gets the last drop
    ends_round: bool  # this was the last drop
    ends_match: bool
    totals: tuple[float, float]
    next: Position | None  # None when the match is over

    @property
    def resting(self) -> int:
        return sum(1 for c in self.board.codes if c != HOLE and c & COIN)


@dataclass(frozen=True)
class Line:
    """One entry as the search rates it (values are gains for the dropper)."""

    entry: int
    value: float  # total-difference gain over the horizon (+/- WIN for a decided match)
    points: float  # this drop's points
    reply_entry: int | None  # the opponent's best reply, None when the match ends
    reply: float | None  # that reply's points
    step: Step = field(repr=False)


class Searcher:
    """Negamax look-ahead with alpha-beta and a transposition cache.

    ``depth`` counts drops (1: this drop only; 2: and the opponent's best
    reply; ...). ``threat`` weighs, at the horizon, the best single drop of the
    player to move there. The caches persist between calls, so a searcher
    kept for a whole match reuses what it learnt (a deeper answer found
    earlier may answer a shallower question); they are bounded, and start
    afresh when the board, the exit values or the targets change.
    """

    def __init__(self, depth: int = 2, threat: float = 0.0, cache_limit: int = 100_000):
        if not isinstance(depth, int) or depth < 1:
            raise EngineError(f"search depth must be a whole number >= 1, not {depth!r}")
        self.depth, self.threat, self.cache_limit = depth, float(threat), cache_limit
        self.tt: dict = {}
        self.drops: dict = {}
        self.nodes = 0
        self._geometry = self._values = self._targets = None

    # -- the board moves ---------------------------------------------------------

    def _prepare(self, position: Position) -> None:
        g = position.board.geometry
        if g is not self._geometry or position.values != self._values or position.targets != self._targets:
            # Cached children carry points and cached values follow the
            # targets: both belong to one match set-up.
            self._geometry, self._values, self._targets = g, position.values, position.targets
            self.tt, self.drops = {}, {}
            self._topo = topology(g)
        if len(self.tt) > self.cache_limit:
            self.tt.clear()
        if len(self.drops) > self.cache_limit // 4:
            self.drops.clear()

    def _children(self, key: bytes, k: int):
        """Every entry's drop on board ``key`` in round ``k``: (points, entry,
        board after), most points first (cuts come sooner)."""
        ck = (key, k)
        children = self.drops.get(ck)
        if children is None:
            topo, values = self._topo, self._values[k]
            n, swallow = topo.n, topo.swallow
            children = []
            for e, start in enumerate(topo.entries):
                codes = bytearray(key)
                sinks, _ = cascade(codes, topo, (start,))
                children.append((sum(values[s - n] for s in sinks if s < swallow), e, bytes(codes)))
            children.sort(key=_by_points)
            self.drops[ck] = children
        return children

    # -- negamax -----------------------------------------------------------------

    def _after(self, k, mine, theirs, owed, diff, points):
        """Score context for the next player after the mover scores ``points``:
        (k, mine, theirs, owed, diff) from the next mover's view, or None when
        this was the match's last drop."""
        mine += points
        if owed:  # the last drop: the round ends, whoever leads
            if k == ROUNDS - 1:
                return None
            return (k + 1, 0, 0, False, -(diff + points))
        return (k, theirs, mine, mine >= self._targets[k], -(diff + points))

    def _value(self, key, k, mine, theirs, owed, diff, depth, alpha, beta):
        """Value for the player to move: the final total difference, as far as
        the horizon sees, plus the threat term (or +/- WIN when decided)."""
        self.nodes += 1
        if depth == 0:
            if not self.threat:
                return diff
            return diff + self.threat * self._children(key, k)[0][0]
        tkey = (key, k, mine, theirs, owed, diff)
        hit = self.tt.get(tkey)
        first = None
        if hit is not None:
            d, v, flag, best = hit
            if d >= depth and (flag == _EXACT or (flag == _LOWER and v >= beta) or (flag == _UPPER and v <= alpha)):
                return v
            first = best
        a0 = alpha
        best_v, best_e = -float("inf"), None
        children = self._children(key, k)
        if first is not None and children[0][1] != first:
            children = sorted(children, key=lambda c: c[1] != first)  # stable: the previous best first
        for points, e, after in children:
            nxt = self._after(k, mine, theirs, owed, diff, points)
            if nxt is None:
                final = diff + points
                v = final + (WIN if final > 0 else -WIN if final < 0 else 0.0)
            else:
                k2, m2, t2, o2, d2 = nxt
                v = -self._value(after, k2, m2, t2, o2, d2, depth - 1, -beta, -alpha)
            if v > best_v:
                best_v, best_e = v, e
            if v > alpha:
                alpha = v
            if alpha >= beta:
                break
        flag = _UPPER if best_v <= a0 else _LOWER if best_v >= beta else _EXACT
        self.tt[tkey] = (depth, best_v, flag, best_e)
        return best_v

    # -- the root ----------------------------------------------------------------

    def _root(self, position: Position):
        me = position.to_move - 1
        return (
            position.board.key(),
            position.round - 1,
            position.round_scores[me],
            position.round_scores[1 - me],
            position.last_drop,
            position.totals[me] - position.totals[1 - me],
        )

    def rate(self, position: Position, depth: int | None = None) -> list[tuple[float, int, float]]:
        """Every entry's exact value at ``depth``: (value gain, entry, points), best first."""
        depth = self.depth if depth is None else depth
        self._prepare(position)
        key, k, mine, theirs, owed, diff = self._root(position)
        inf = float("inf")
        rated = []
        for points, e, after in self._children(key, k):
            nxt = self._after(k, mine, theirs, owed, diff, points)
            if nxt is None:
                final = diff + points
                v = final + (WIN if final > 0 else -WIN if final < 0 else 0.0)
            else:
                v = -self._value(after, *nxt, depth - 1, -inf, inf)
            rated.append((v - diff, e, points))
        rated.sort(key=lambda r: (-r[0], -r[2], r[1]))
        return rated

    def best(self, position: Position, depth: int | None = None) -> list[int]:
        """The best entries (all of equal value), lowest first."""
        rated = self.rate(position, depth)
        top = rated[0][0]
        return sorted(e for v, e, _ in rated if v >= top - 1e-9)

    def analyse(self, position: Position, depth: int | None = None) -> list[Line]:
        """Every entry ranked by the look-ahead, each with the opponent's best
        reply: the most points the opponent's next drop can score (the
        first such entry)."""
        depth = self.depth if depth is None else depth
        lines = []
        for value, entry, points in self.rate(position, depth):
            step = position.play(entry)
            reply_entry = reply = None
            if step.next is not None:
                nxt = step.next
                self._prepare(nxt)
                children = self._children(nxt.board.key(), nxt.round - 1)
                reply = children[0][0]
                reply_entry = min(e for p, e, _ in children if p == reply)
            lines.append(Line(entry, value, points, reply_entry, reply, step))
        return lines


def _by_points(child) -> float:
    return -child[0]


def position_of(match_or_position) -> Position:
    if isinstance(match_or_position, Position):
        return match_or_position
    if isinstance(match_or_position, Match):
        return Position.from_match(match_or_position)
    raise EngineError(f"expected a Match or a Position, not {type(match_or_position).__name__}")


def custom_values(values: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """A checked table of 4 rounds x 16 exit values (e.g. a club's own)."""
    return check_values(values)
