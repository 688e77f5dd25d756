"""The tabletop's match flow: a pure state machine between the board, the
buttons, the match and the screen.

Inputs arrive as method calls with the time passed in: button actions
(``on_action``), board events (``on_event``: a coin entering stops the clock,
hall readings are tracked, lessons watch everything), the reconciler's drop
reports (``on_report``), the link going down or up (``on_link``) and the
passing of time (``tick``). ``view(now)`` is what the panel shows;
``effects`` is what the daemon must do (sounds, LEDs, the dropper, the
reconciler's belief, journalling a new match).

Scoring follows what the exits saw (the report's ``scored_exits``: the best
explanation of the cascade, so a coin a dead beam missed still scores), and
every mismatch is shown with its explanations and a way to undo the drop.
What the buttons do in each mode is in ``modes_menu`` and ``modes_match``.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from ..display.notices import seen_text

from ..display import (
    ConnectionView,
    DiagnosisView,
    HistoryItem,
    HistoryView,
    MenuItem,
    MenuView,
    MessageView,
    TextView,
    match_result_view,
    match_view,
    mismatch_view,
    reveal_view,
    revision_view,
    round_result_view,
    rules_text,
    stray_view,
)
from ..engine import PHASE_FALLING, PHASE_REVEAL, PHASE_TURN, BoardState, EngineError, Geometry, Match, MatchSetup, entry_label
from ..events import EntryEvent, SwitchEvent
from . import effects as fx
from .effects import Effect
from .modes_match import PAUSE_ITEMS, MatchModes
from .modes_menu import MenuModes
from .restore import Hand, HandStep, holes_steps, restore_steps
from .setupmenu import Choices, SetupMenu

NOTE_SECONDS = 5.0  # how long a note (a stray coin, a hint) stays over the match screen
DROP_AGAIN = 6.0  # seconds after which a dropper coin nobody saw go in is dropped again
REVEAL_STEP = 0.12  # seconds per exit value in the reveal animation
OPPONENTS = ("person", "easy", "medium", "hard")
IN_TURN = ("turn", "reveal", "mismatch")  # modes in which a coin is the drop the table waits for
OUT_OF_TURN = {"round-result": "the round was over", "paused": "the match was paused",
               "correct": "the last drop was being corrected", "restore": "the board was being put back",
               "rules": "the rules were on screen"}


class TableFlow(MenuModes, MatchModes):
    def __init__(
        self,
        geometry: Geometry,
        choices: Choices,
        *,
        new_seed: Callable[[], int],
        read_board: Callable[[], BoardState | None] = lambda: None,
        read_positions: Callable[[], dict[str, str]] = dict,
        history: Callable[[], list[HistoryItem]] = lambda: [],
        has_dropper: bool = False,
        has_halls: bool = True,
        has_beams: bool = True,
        keyed: bool = False,
        reveal_seconds: float = 6.0,
        result_seconds: float = 8.0,
    ):
        from ..ai.search import Searcher
        from ..lessons import load_lessons

        self.geometry = geometry
        self.lessons = load_lessons()
        self.menu = SetupMenu(choices, OPPONENTS, lessons=bool(self.lessons))
        self.new_seed, self.read_board, self.history = new_seed, read_board, history
        self.read_positions = read_positions
        self.before_start: tuple[HandStep, ...] = ()  # what the players must do before the match can start
        self.has_dropper, self.has_halls, self.has_beams, self.keyed = has_dropper, has_halls, has_beams, keyed
        self.reveal_seconds, self.result_seconds = reveal_seconds, result_seconds
        self.effects: list[Effect] = []
        self.match: Match | None = None
        self.mode, self.since, self.scroll, self.selected = "menu", 0.0, 0, 0
        self.editor = None
        self.editing = 0  # which player's name the editor is changing
        self.back_to = "menu"  # where the Rules screen returns to
        self.message: MessageView | None = None
        self.message_until = float("inf")
        self.note: MessageView | None = None  # a passing note over any screen (a stray coin)
        self.note_until = float("-inf")
        self.coin_mode: str | None = None  # the mode the table was in when the falling coin went in
        self.falling_entry: int | None = None  # where the coin now falling went in (None: not seen)
        self.falling_since = 0.0
        self.dropped_t = float("-inf")  # when the dropper last fired
        self.diagnosis: DiagnosisView | None = None
        self.restore: list[HandStep] = []
        self.restore_coins: tuple[BoardState, BoardState] | None = None
        self.hit_exits: tuple[int, ...] = ()
        self.pauses: set[str] = set()
        self.link_up, self.link_detail, self.link_since = True, "", 0.0
        self.halls: dict[str, str] = {}
        self.finished_round = 0
        self.keyed_entry = 0
        self.need_layout = self.layout_confirmed = False
        self.need_clear = self.clear_confirmed = False
        self.last_board: BoardState | None = None  # the belief when the last match ended
        self.runner = None  # the lesson being played
        self.lesson_coins: frozenset[str] | None = frozenset()  # coins lessons left on pads (None: somewhere)
        self.lesson_index = 0
        self.opponent = None  # the computer's Player in solo play
        self.computer = None  # its ComputerDrop for the turn in progress
        self.correction: list[int] = []  # coins per exit while the players correct the last drop
        self.searcher = Searcher()  # kept for the whole match: hints reuse what it learned

    # -- small helpers -------------------------------------------------------------

    def _go(self, mode: str, now: float) -> None:
        if mode != self.mode:
            self.message = None  # a message belongs to the screen it was shown on
        self.mode, self.since, self.scroll, self.selected = mode, now, 0, 0
        self.effects.append(Effect(fx.EXPECT, data=self.expecting))

    def _emit(self, kind: str, name: str = "", entry: int | None = None, data=None) -> None:
        self.effects.append(Effect(kind, name, entry, data))

    def _ask(self, view: MessageView) -> None:
        """A question that stays until it is answered (not a passing message)."""
        self.message, self.message_until = view, float("inf")

    def ask(self, view: MessageView) -> None:
        """The daemon's own question to the players (board events lost for good)."""
        self._ask(view)

    def _note(self, view: MessageView, now: float) -> None:
        self.note, self.note_until = view, now + NOTE_SECONDS

    @property
    def expecting(self) -> bool:
        """A drop can come now (the reconciler's flag): during a match's turns."""
        m = self.match
        return m is not None and not m.over and self.mode in ("turn", "reveal", "mismatch")

    def _pause(self, reason: str, now: float) -> None:
        if self.match is not None and not self.pauses and not self.match.over:
            self.match.pause(now)
        self.pauses.add(reason)

    def _resume(self, reason: str, now: float) -> None:
        if reason in self.pauses:
            self.pauses.discard(reason)
            if self.match is not None and not self.pauses and not self.match.over:
                self.match.resume(now)

    # -- inputs ------------------------------------------------------------------------

    def on_action(self, action: str, now: float) -> None:
        self._emit(fx.WAKE)
        if self.note is not None and now < self.note_until:
            self._act_note(action, now)  # a press puts a passing note away (or reads on)
            return
        self.note = None
        getattr(self, "_act_" + self.mode.replace("-", "_"))(action, now)
        self._settle(now)

    def on_event(self, ev, now: float) -> None:
        """A board event: hall readings are tracked, a coin going in stops the
        clock, and a lesson in progress watches them all."""
        if isinstance(ev, SwitchEvent):
            self.halls[ev.switch] = ev.pos
            if self.mode == "restore":
                self.restore = restore_steps(self.match.board, self.halls, self.restore_coins)
        if self.runner is not None and self.mode == "lesson":
            self.runner.event(ev)
        if isinstance(ev, EntryEvent):
            self.on_entry(ev.entry, now)

    def on_entry(self, entry: int, now: float) -> None:
        m = self.match
        if m is None or m.over:
            return  # the reconciler reports it as a coin outside any drop
        if self.coin_mode is None:
            self.coin_mode = self.mode  # out of turn unless the table was waiting for a drop
        if m.phase != PHASE_FALLING:
            self.falling_entry = entry
        self.falling_since = now
        if self.mode == "reveal" and m.phase == PHASE_REVEAL:
            m.reveal_done(now)
            self._go("turn", now)
        m.coin_seen(now)
        self._emit(fx.LED, "off", entry)
        if self.computer is not None and not self.has_dropper:
            as_asked, lines = self.computer.confirm(entry)
            if not as_asked:
                self._note(MessageView("Not my entry", "\n".join(lines), alert=True), now)

    def on_report(self, report, now: float) -> None:
        """A reconciled drop (or events outside any drop)."""
        m = self.match
        if report.drop is None and getattr(report, "revises", None) is not None:
            # a later drop re-explains an earlier mismatch (sensing.md §4, revisions): the same paged screen
            self._note(revision_view(report.revises, report.diagnosis), now)
            return
        if report.drop is None and self.mode == "restore":
            return  # hands putting the board back, as the table asked
        if report.drop is None or m is None or m.over:
            over = ("The match is over: it scores nothing.",) if m is not None and m.over else ()
            self._note(stray_view(report, facts=over), now)
            self._emit(fx.SOUND, "error")
            if m is not None and not m.over and report.state:
                # the belief follows the board into the journal, or a restart would forget it
                belief = BoardState.parse(report.state, self.geometry)
                if belief.codes != m.board.codes:
                    where = ", ".join(seen_text(e) for e in report.events[:3]) or "the board"
                    m.set_board(belief, f"changed outside a drop: {where}", now)
            return
        coin_mode, self.coin_mode = self.coin_mode or self.mode, None
        self.falling_entry = None
        forced = m.forced_entry
        exits = tuple(report.scored_exits if report.scored_exits is not None else report.observed_exits)
        belief = BoardState.parse(report.state, self.geometry) if report.state else None
        result = m.record(report.entry, exits, belief, now)
        self.hit_exits, self.computer = result.exits, None
        self._emit(fx.LEDS_OFF)
        facts = []
        if coin_mode not in IN_TURN:
            name = m.setup.players[result.player - 1]
            facts.append(f"Coin out of turn ({OUT_OF_TURN.get(coin_mode, 'not asked for')}): "
                         f"it counts as {name}'s drop.")
        if forced is not None and report.entry != forced:
            facts.append(f"Coin in {entry_label(report.entry)}; the clock chose {entry_label(forced)}.")
        if report.verdict != "ok" or facts or report.diagnosis:
            self.diagnosis = mismatch_view(report, findings=report.diagnosis[:3], facts=tuple(facts))
            if self.diagnosis.drop != len(m.results):  # the match's count (a restarted reconciler counts anew)
                self.diagnosis = dataclasses.replace(self.diagnosis, drop=len(m.results))
            self._emit(fx.SOUND, "mismatch")
        else:
            self._emit(fx.SOUND, "score" if result.points else "nothing")
        self._after_drop(result, now)

    def coin_unaccounted(self, now: float) -> None:
        """A coin went in, but its drop never came back from the board (the
        hub lost the events: unplugged, reset, a restart while it fell). The
        table never waits for it for ever: the drop scores as the engine
        predicts from the board as believed, and the players are asked to
        check it; a coin whose entry is unknown gives the turn back."""
        m, entry = self.match, self.falling_entry
        self.coin_mode, self.falling_entry = None, None
        if entry is None:
            m.coin_lost(now)
            self._note(MessageView("Coin lost", "A coin went in, but the board lost it. Drop again.", alert=True), now)
            self._emit(fx.SOUND, "error")
            return
        result = m.play(entry, now)
        self.hit_exits, self.computer = result.exits, None
        self._emit(fx.LEDS_OFF)
        self._emit(fx.BELIEF, data=m.board)
        exits = " ".join(str(x + 1) for x in result.exits) or "none"
        self.diagnosis = DiagnosisView(
            title="Check board", options=("Board is right", "Correct score", "Undo last drop"), drop=len(m.results),
            findings=(f"The board's events for this drop were lost (the hub was away). It was scored as the "
                      f"engine predicts: {entry_label(entry)} to exits {exits}. Check the board, and correct "
                      f"the score if the coins went elsewhere.",),
        )
        self._emit(fx.SOUND, "mismatch")
        self._after_drop(result, now)

    def _after_drop(self, result, now: float) -> None:
        m = self.match
        if m.over or m.phase == PHASE_REVEAL:
            if m.over:
                self._emit(fx.SOUND, "draw" if m.winner == "draw" else "match-won")
                self._emit(fx.END_MATCH, "finished")
                self.last_board = m.board.copy()
            else:
                self._emit(fx.SOUND, "round-over")
            self.finished_round = result.round
            self._go("mismatch" if self.diagnosis else "round-result", now)
            return
        if result.last_drop:
            self._emit(fx.SOUND, "last-drop")
        if self.diagnosis:
            self._pause("mismatch", now)
            self._go("mismatch", now)

    def on_positions(self, positions: dict[str, str], now: float) -> None:
        """Every switch's position from a snapshot (after a connect): a switch
        already where it should be is confirmed without moving it."""
        for label, pos in positions.items():
            self.halls.setdefault(label, pos)
        if self.runner is not None:
            self.runner.learn_positions(positions)
        if self.mode == "restore":
            self.restore = restore_steps(self.match.board, self.halls, self.restore_coins)

    @property
    def asking(self) -> tuple[HandStep, ...]:
        """What the table waits for people's hands to do on the board now."""
        if self.mode == "menu" and self.message is not None:
            return self.before_start
        if self.mode == "restore":
            return tuple(self.restore)
        if self.mode == "lesson" and self.runner is not None:
            p = self.runner.prompt
            steps = []
            for label, want in self.runner.still_to_set():
                if want == "none":
                    steps.append(HandStep(Hand.TAKE_OUT, label))
                elif self.halls.get(label) == "none":
                    steps.append(HandStep(Hand.PUT_BACK, label, want))
                else:
                    steps.append(HandStep(Hand.FLIP, label, want))
            if p.phase == "coins" and self.runner.coin_changes() is None:
                steps.append(HandStep(Hand.CLEAR_PADS))  # "no other coins": where they rest is not known
            steps += [HandStep(Hand.COIN_ON, label) for label in p.coins]
            steps += [HandStep(Hand.COIN_OFF, label) for label in p.remove]
            return tuple(steps)
        return ()

    def on_link(self, up: bool, detail: str, now: float) -> None:
        if up == self.link_up:
            self.link_detail = detail or self.link_detail
            return
        self.link_up, self.link_detail, self.link_since = up, detail, now
        if up:
            self._resume("link", now)
            self._emit(fx.SOUND, "connected")
        else:
            self._pause("link", now)
            self._emit(fx.SOUND, "disconnected")

    def tick(self, now: float, board_now: float | None = None) -> None:
        m = self.match
        if self.message is not None and self.mode in ("turn", "menu") and now >= self.message_until:
            self.message = None
        if self.note is not None and now >= self.note_until:
            self.note = None
        self._hint_over()
        if self.mode == "lesson" and self.runner is not None and board_now is not None:
            self.runner.tick(board_now)
        if self.mode == "reveal" and now - self.since >= self.reveal_seconds:
            self._start_turns(now)
        elif self.mode == "round-result" and now - self.since >= self.result_seconds and not m.over:
            self._go("reveal", now)
        elif self.mode == "turn" and m is not None and not self.pauses:
            forced = m.expire(now)
            if forced is not None:
                self._emit(fx.SOUND, "timeout")
                if self.keyed:
                    self.keyed_entry = forced
                else:
                    self._emit(fx.DROP if self.has_dropper else fx.LED, "blink", forced)
                    self.dropped_t = now
            if self._computer_to_move():
                self.computer_turn(now)
            self._drop_again(now)
        self._settle(now)

    def _drop_again(self, now: float) -> None:
        """The dropper's coin was never seen (it fell while the hub was away,
        or the coin jammed in the dropper): drop again, as a person would."""
        m = self.match
        if not self.has_dropper or self.keyed or m.phase != PHASE_TURN or not self.link_up:
            return
        entry = m.forced_entry if m.forced_entry is not None else (
            self.computer.entry if self.computer is not None and self._computer_to_move() else None)
        if entry is not None and now - max(self.dropped_t, self.link_since) >= DROP_AGAIN:
            self._emit(fx.DROP, "", entry)
            self.dropped_t = now

    def _settle(self, now: float) -> None:
        """Keep the screen's mode and the match's phase in step, whatever
        order people and coins came in (a coin during the round's result has
        already started the next round's turns)."""
        m = self.match
        if m is None or self.mode not in ("reveal", "turn", "round-result"):
            return
        if m.over:
            if self.mode != "round-result":
                self._go("round-result", now)
        elif self.mode == "reveal" and m.phase != PHASE_REVEAL:
            self._go("turn", now)
        elif self.mode == "turn" and m.phase == PHASE_REVEAL:
            self._go("reveal", now)

    # -- a match from start to end --------------------------------------------------------

    def start_match(self, now: float) -> None:
        c = self.menu.choices
        try:
            board = self.read_board()
        except EngineError as e:
            self._ask(MessageView("Before we start", str(e), alert=True))
            return
        if board is None and not self.layout_confirmed:
            # No hall sensors: nothing tells where the rockers sit, so the players set them.
            self.need_layout = True
            self.before_start = tuple(HandStep(Hand.FLIP, label, "L") for label in self.geometry.labels)
            self._ask(MessageView("Before we start", "No switch sensors: set every pad to the left, then press."))
            return
        steps = _board_steps(board, self.geometry, c.variants.holes)
        if steps:
            self.before_start = tuple(steps)
            self._ask(MessageView("Before we start", _board_problem(steps), alert=True))
            return
        left = self.last_board.coin_labels() if self.last_board is not None else []
        if self.lesson_coins is None and not self.clear_confirmed:
            # A lesson left coins on pads nobody can tell apart now: clear them all.
            self.need_clear = True
            self.before_start = (HandStep(Hand.CLEAR_PADS),)
            self._ask(MessageView("Before we start", "Take every coin off the pads (the lesson left some), then press."))
            return
        left = sorted(set(left) | set(self.lesson_coins or ()))
        if left and not self.clear_confirmed:
            # Nothing senses resting coins: the players clear the pads the last match left full.
            self.need_clear = True
            self.before_start = tuple(HandStep(Hand.COIN_OFF, label) for label in left)
            more = f" and {len(left) - 4} more" if len(left) > 4 else ""
            self._ask(MessageView("Before we start", f"Take the coins off {', '.join(left[:4])}{more}, then press."))
            return
        self.before_start, self.lesson_coins = (), frozenset()
        self.need_layout = self.layout_confirmed = self.need_clear = self.clear_confirmed = False
        self.last_board = None
        self.need_clear = self.clear_confirmed = False
        self.last_board: BoardState | None = None  # the belief when the last match ended
        if board is None:
            board = BoardState.empty(self.geometry)
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
                           start=board.text(), board=self.geometry.name)
        self.begin(Match(setup), now)

    def begin(self, match: Match, now: float, resumed: bool = False) -> None:
        """Run ``match`` (new, or replayed from the journal after a restart)."""
        self.match, self.pauses, self.diagnosis, self.hit_exits, self.computer = match, set(), None, (), None
        if resumed and match.setup.players[1].startswith("Coindrel ") and self.opponent is None:
            from ..ai.levels import level_player

            level = match.setup.players[1].split(" ", 1)[1]
            self.opponent = level_player(level, match.setup.seed) if level in OPPONENTS[1:] else None
        if not resumed:
            self._emit(fx.NEW_MATCH, data=match)
            self._emit(fx.SOUND, "start")
        self._emit(fx.BELIEF, data=match.board)
        if match.over:
            self._go("result", now)
        elif match.phase == PHASE_REVEAL:
            self._go("reveal", now)
        else:
            self._go("turn", now)
            if resumed and match.clock is not None:
                match.clock.start(now)  # a restart gives the player a fresh clock
            if not self.link_up:
                self._pause("link", now)

    def _start_turns(self, now: float) -> None:
        if self.match.phase == PHASE_REVEAL:
            self.match.reveal_done(now)
        self._go("turn", now)
        if not self.link_up:
            self._pause("link", now)

    # -- what the panel shows ------------------------------------------------------------------

    def view(self, now: float):
        m, mode = self.match, self.mode
        if m is not None and not self.link_up and mode in ("turn", "reveal"):
            return ConnectionView(detail=self.link_detail or "reconnecting", since=max(0.0, now - self.link_since))
        if self.note is not None and now < self.note_until:
            return self.with_clock(self.note, now) if mode == "turn" else self.note
        if self.message is not None and mode in ("menu", "turn"):
            return self.with_clock(self.message, now) if mode == "turn" else self.message
        if mode == "menu":
            return self.menu.view()
        if mode == "names":
            return self.editor.view()
        if mode == "rules":
            return TextView("Rules", rules_text(), self.scroll)
        if mode == "history":
            items = self.history()
            return HistoryView("History", tuple(items), min(self.selected, max(0, len(items) - 1)))
        if mode == "lessons":
            return self.lessons_view()
        if mode == "lesson":
            return self.lesson_view()
        if mode == "reveal":
            return reveal_view(m, min(16, int((now - self.since) / REVEAL_STEP)))
        if mode == "turn":
            return match_view(m, now, status=self._turn_status(), hit_exits=self.hit_exits)
        if mode == "paused":
            return MenuView("Paused", tuple(MenuItem(i) for i in PAUSE_ITEMS), self.selected, "press: choose")
        if mode == "mismatch":
            return self.diagnosis
        if mode == "correct":
            return self.correction_view()
        if mode == "restore":
            if not self.restore:
                return MessageView("Put the board back", "Board matches.\nPress to play on.")
            steps = [f"{i}/{len(self.restore)} {step.text}" for i, step in enumerate(self.restore, 1)]
            return TextView("Put the board back", "\n".join(steps + ["Then press."]), self.scroll)
        if mode == "round-result":
            return round_result_view(m, self.finished_round)
        if mode == "result":
            return match_result_view(m)
        raise EngineError(f"no view for mode {mode!r}")

    def _turn_status(self) -> str | None:
        m = self.match
        if m.phase != "turn" or m.over:
            return None
        if self.computer is not None and not self.has_dropper and not self.keyed:
            return f"Drop my coin: entry {self.computer.entry + 1}"
        if self.keyed and not self._computer_to_move():
            if m.forced_entry is not None:
                return f"Time! Entry {m.forced_entry + 1}: press"
            return f"Entry {self.keyed_entry + 1}? turn, press"
        return None


def _board_steps(board: BoardState | None, geometry: Geometry, holes: bool) -> list[HandStep]:
    """What must change before the board can start a match as it stands."""
    if board is None:
        return []
    return holes_steps(board.holes(), list(geometry.holes) if holes else [])


def _board_problem(steps: list[HandStep]) -> str:
    take_out = [s.switch for s in steps if s.hand is Hand.TAKE_OUT]
    put_back = [s.switch for s in steps if s.hand is Hand.PUT_BACK]
    if take_out:
        return "Holes: take out " + ", ".join(take_out) + ", then press."
    return "Put back " + ", ".join(put_back) + " (no Holes), then press."

