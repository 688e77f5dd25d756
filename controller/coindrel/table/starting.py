"""A match from its start (mixed into ``TableFlow``): the board checked
before it begins (rockers set, Holes switches out, pads cleared), a new or
resumed match run, and the turns started after the reveal."""

from __future__ import annotations

from ..display import MessageView
from ..engine import COIN, HOLE, PHASE_REVEAL, BoardState, EngineError, Geometry, Match, MatchSetup
from . import effects as fx
from .modes import Mode
from .restore import Hand, HandStep, holes_steps

OPPONENTS = ("person", "easy", "medium", "hard")
STILL_SECONDS = 1.0  # no board event this long before a match starts: nothing is falling


class Starting:
    def start_match(self, now: float) -> None:
        c = self.menu.choices
        g = self.geometry
        # A press answers the question it was asked at: a pads question an earlier try asked, replaced by
        # the Holes one, must not count as answered by the press at the Holes one (the match began believing
        # pads empty that held coins: hardware faults named on a healthy board)
        self.need_layout = self.need_clear = False
        if now - self.board_moved_at < STILL_SECONDS:
            # A coin still falling as the match begins lands on pads the match believes empty, and its
            # later flips are taken for the match's (a newcomer's start 0.03 s after a coin: false
            # mismatches and a hall fault that stayed)
            self._ask(MessageView("Before we start", "The board is still moving (a coin is falling): wait until "
                                  "it is still, then press.", alert=True))
            return
        try:
            board = self.read_board()
        except EngineError as e:
            self._ask(MessageView("Before we start", str(e), alert=True))
            return
        if board is None and not self.layout_confirmed:
            # No hall sensors: nothing tells where the rockers sit, so the players set them.
            self.need_layout = True
            self.before_start = tuple(HandStep.on(g, Hand.FLIP, s, "L") for s in range(g.switch_count))
            self._ask(MessageView("Before we start", "No switch sensors: set every pad to the left, then press."))
            return
        steps = _board_steps(board, g, c.variants.holes)
        if steps:
            self.before_start = tuple(steps)
            self._ask(MessageView("Before we start", _board_problem(steps), alert=True))
            return
        if self.coins_between and not self.clear_confirmed:
            # A coin went in at the menu or after the last match: it may rest on any pad it reached.
            self.need_clear = True
            self.before_start = (HandStep(Hand.CLEAR_PADS),)
            self._ask(MessageView("Before we start", "A coin went in between matches and may rest on a pad: take "
                                  "every coin off the pads, then press."))
            return
        if self.lesson_coins is None and not self.clear_confirmed:
            # A lesson left coins on pads nobody can tell apart now: clear them all.
            self.need_clear = True
            self.before_start = (HandStep(Hand.CLEAR_PADS),)
            self._ask(MessageView("Before we start", "Take every coin off the pads (the lesson left some), then press."))
            return
        left = set(self.lesson_coins or ())
        if self.last_board is not None:
            left |= {s for s, code in enumerate(self.last_board.codes) if code != HOLE and code & COIN}
        left = sorted(left)
        if left and not self.clear_confirmed:
            # Nothing senses resting coins: the players clear the pads the last match left full.
            self.need_clear = True
            self.before_start = tuple(HandStep.on(g, Hand.COIN_OFF, s) for s in left)
            more = f" and {len(left) - 4} more" if len(left) > 4 else ""
            named = ", ".join(g.labels[s] for s in left[:4])
            self._ask(MessageView("Before we start", f"Take the coins off {named}{more}, then press."))
            return
        self.before_start, self.lesson_coins = (), frozenset()
        self.need_layout = self.layout_confirmed = self.need_clear = self.clear_confirmed = False
        self.coins_between = False
        self.last_board = None
        if board is None:
            board = BoardState.empty(g)
            if c.variants.holes:
                board.make_holes_in_place()
        players = c.players
        self.opponent = None
        seed = self.new_seed()
        if c.opponent != "person":
            from ..ai.levels import level_player

            self.opponent = level_player(c.opponent, seed)
            players = (c.players[0], f"Coindrel {c.opponent}")
        setup = MatchSetup(players=players, variants=c.variants, seed=seed, clock=c.clock_seconds,
                           start=board.text(), board=g.name)
        self.begin(Match(setup), now)

    def begin(self, match: Match, now: float, resumed: bool = False) -> None:
        """Run ``match`` (new, or replayed from the journal after a restart)."""
        self.match, self.pauses, self.diagnosis, self.hit_exits, self.computer = match, set(), None, (), None
        self.pads_unknown, self.moved_unseen = False, ()
        if resumed and match.setup.players[1].startswith("Coindrel ") and self.opponent is None:
            from ..ai.levels import level_player

            level = match.setup.players[1].split(" ", 1)[1]
            self.opponent = level_player(level, match.setup.seed) if level in OPPONENTS[1:] else None
        if not resumed:
            self._emit(fx.NewMatch(match))
            self._emit(fx.Sound("start"))
        self._emit(fx.Belief(match.board))
        if match.over:
            self._go(Mode.RESULT, now)
        elif match.phase == PHASE_REVEAL:
            self._go(Mode.REVEAL, now)
        else:
            self._go(Mode.TURN, now)
            if resumed and match.clock is not None:
                match.clock.start(now)  # a restart gives the player a fresh clock
            if not self.link_up:
                self._pause("link", now)

    def _start_turns(self, now: float) -> None:
        if self.match.phase == PHASE_REVEAL:
            self.match.reveal_done(now)
        self._go(Mode.TURN, now)
        if not self.link_up:
            self._pause("link", now)


def _board_steps(board: BoardState | None, geometry: Geometry, holes: bool) -> list[HandStep]:
    """What must change before the board can start a match as it stands."""
    if board is None:
        return []
    present = [s for s, code in enumerate(board.codes) if code == HOLE]
    return holes_steps(geometry, present, list(geometry.hole_switches) if holes else [])


def _board_problem(steps: list[HandStep]) -> str:
    take_out = [s.label for s in steps if s.hand is Hand.TAKE_OUT]
    put_back = [s.label for s in steps if s.hand is Hand.PUT_BACK]
    if take_out:
        return "Holes: take out " + ", ".join(take_out) + ", then press."
    return "Put back " + ", ".join(put_back) + " (no Holes), then press."
