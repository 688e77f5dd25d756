"""The tabletop's match flow: a pure state machine between the board, the
buttons, the match and the screen.

Inputs arrive as method calls with the time passed in: button presses
(``on_action``), board events (``on_event``: a coin entering stops the clock,
hall readings are tracked, lessons watch everything), the reconciler's drop
reports (``on_report``), the link going down or up (``on_link``), a club's
match request (``on_club_request``) and the passing of time (``tick``).
``view(now)`` is what the panel shows; ``effects`` (``effects.py``) is what
the daemon must do (sounds, LEDs, the dropper, the reconciler's belief,
journalling a new match).

The flow is always in one ``Mode``; that mode's ``Screen`` (catalog:
``screens.py``) says what the buttons do there and what the panel shows.
Coins and drops are in ``drops.py``, a match's start in ``starting.py``,
what the match screens share in ``turns.py``. A switch is its number here
(``geometry.labels`` only where people read it).
"""

from __future__ import annotations

from typing import Callable

from ..buttons import Press
from ..display import ConnectionView, HistoryItem, MessageView
from ..engine import PHASE_REVEAL, BoardState, EngineError, Geometry, Match
from ..events import EntryEvent, ExitEvent, SwitchEvent
from . import effects as fx
from .clubrequest import WAITING, MatchRequest, RequestError
from .drops import DropInputs
from .effects import Effect
from .modes import Mode, Screen
from .modes_pads import ask_for_pads
from .restore import HandStep
from .screens import SCREENS
from .setupmenu import Choices, SetupMenu
from .starting import OPPONENTS, Starting
from .turns import NOTE_SECONDS, MatchActions

SEEN = 32  # club request ids remembered, so a request the broker delivers twice is shown once


class TableFlow(Starting, DropInputs, MatchActions):
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
        self.read_positions = read_positions  # labels -> positions (the daemon's snapshot, as sources say it)
        self.before_start: tuple[HandStep, ...] = ()  # what the players must do before the match can start
        self.has_dropper, self.has_halls, self.has_beams, self.keyed = has_dropper, has_halls, has_beams, keyed
        self.reveal_seconds, self.result_seconds = reveal_seconds, result_seconds
        self.effects: list[Effect] = []
        self.match: Match | None = None
        self.mode, self.since, self.scroll, self.selected = Mode.MENU, 0.0, 0, 0
        self.ending = False  # the pause menu asks "End the match?" before it abandons one
        self.extras = (None, 0)  # (the turn, its extra coins so far): a handful is one note that counts them
        self.extras_note = (None, None)  # (its note naming the player to move, the same without): drops.extras_note_over
        self.editor = None
        self.editing = 0  # which player's name the editor is changing
        self.back_to = Mode.MENU  # where the Rules screen returns to
        self.message: MessageView | None = None
        self.message_until = float("inf")
        self.note: MessageView | None = None  # a passing note over any screen (a stray coin)
        self.note_until = float("-inf")
        self.coin_mode: str | None = None  # the mode the table was in when the falling coin went in
        self.falling_entry: int | None = None  # where the coin now falling went in (None: not seen)
        self.falling_since = 0.0
        # coins seen going in, in order, not yet reported: (match, entry, extra), extra being a second
        # coin in while the turn's coin still fell (out of turn: it is not the next player's drop)
        self.coins_in: list[tuple] = []  # (match, entry, extra, dropper, board time of the entry)
        self.entry_t: float | None = None  # the entry event being handled (board time)
        self.turn_end: float | None = None  # board time the last scored drop's cascade ended
        self.dropped_t = float("-inf")  # when the dropper last fired
        self.diagnosis = None  # the mismatch on screen (a DiagnosisView)
        self.note_passes: frozenset = frozenset()  # presses a note invites (``_note``)
        self.told: tuple = (None, {})  # (the match, its drop -> the first explanation shown): drops._told
        self.answers: list[dict] = []  # the players' answers to it, for the daemon to journal (questions.py)
        self.answer_held: tuple | None = None  # "Correct score" chosen: the answer once the correction is done
        self.blamed_halls: frozenset[int] = frozenset()  # switches whose hall the last drop's diagnosis holds lying
        self.suspect_halls: frozenset[int] = frozenset()  # switches whose hall any of its explanations doubts
        self.restore: list[HandStep] = []
        self.restore_coins: tuple[BoardState, BoardState] | None = None
        self.restore_eye: frozenset[int] = frozenset()  # rockers the put-back lists to check by eye (suspected halls)
        self.restore_asked: tuple[HandStep, ...] = ()  # the put-back's list as it first stood (turns.put_back)
        self.board_clock = (None, None, None)  # the last tick's (now, the board's clock, board time heard up to)
        self.undo_held = None  # (mode, press, board time): an undo pressed before the board was heard up to it
        self.undo_refused = (None, None)  # ("Not yet" on screen for an undo, the mode it was shown on): turns.py
        self.restore_cut = (None, ())  # a coin went in before the board was put back: (its board time, the coin steps' pads)
        self.hit_exits: tuple[int, ...] = ()
        self.pauses: set[str] = set()
        self.link_up, self.link_detail, self.link_since = True, "", 0.0
        self.halls: dict[int, str] = {}  # switch number -> what its hall sensor last said
        self.finished_round = 0
        self.keyed_entry = 0
        self.need_layout = self.layout_confirmed = False
        self.need_clear = self.clear_confirmed = False
        self.pads_unknown = False  # board events were lost: the pads must be checked (modes_pads)
        self.moved_unseen: tuple[str, ...] = ()  # rockers found moved meanwhile, named on that check
        self.unseen_away = "the hub was away"  # while what they moved (the table's own restart: resync.py)
        self.loss_asked = None  # the daemon's "Events lost" question, which the pads check answers too
        self.board_quiet = lambda: True  # nothing of the board is still being reconciled (the daemon's)
        self.lying_halls = lambda: frozenset()  # switches whose hall the board's known faults hold lying (the daemon's)
        self.last_board: BoardState | None = None  # the belief when the last match ended
        self.coins_between = False  # a coin went in with no match running: where it rests nobody knows
        self.board_moved_at = float("-inf")  # the last board event with no match running (starting.STILL_SECONDS)
        self.ended: Match | None = None  # the match whose end was filed (EndMatch "finished")
        self.runner = None  # the lesson being played
        self.lesson_coins: frozenset[int] | None = frozenset()  # coins lessons left on pads (None: somewhere)
        self.lesson_index = 0
        self.opponent = None  # the computer's Player in solo play
        self.computer = None  # its ComputerDrop for the turn in progress
        self.correction: list[int] = []  # coins per exit while the players correct the last drop
        self.club_requests: list[MatchRequest] = []  # a club's match requests, waiting for the menu
        self.club_seen: tuple[str, ...] = ()  # the ids of the last requests taken (answered or waiting)
        self.searcher = Searcher()  # kept for the whole match: hints reuse what it learned

    # -- the mode and its screen -------------------------------------------------------

    @property
    def mode(self) -> str:
        return self._screen.mode

    @mode.setter
    def mode(self, mode: str) -> None:
        self._screen = self.screen_of(mode)

    @property
    def screen(self) -> Screen:
        return self._screen

    @staticmethod
    def screen_of(mode: str) -> Screen:
        try:
            return SCREENS[mode]
        except KeyError:
            raise EngineError(f"no screen for mode {str(mode)!r}; modes are {', '.join(map(str, SCREENS))}") from None

    # -- small helpers -------------------------------------------------------------

    def _go(self, mode: str, now: float) -> None:
        if mode != self.mode and self._screen.messages:
            # A message belongs to the screen it was shown on; one the daemon
            # asked while a screen that shows none was up (a question, the
            # pause menu) has not been read yet: it waits for the next screen
            # that shows messages (it was dropped unread, and stayed in ``ctl status``).
            self.message = None
        self.mode, self.since, self.scroll, self.selected = mode, now, 0, 0
        self.ending = False
        self._emit(fx.Expect(self.expecting))

    def _emit(self, effect: Effect) -> None:
        self.effects.append(effect)

    def _ask(self, view: MessageView) -> None:
        """A question that stays until it is answered (not a passing message)."""
        self.message, self.message_until = view, float("inf")

    def ask(self, view: MessageView) -> None:
        """The daemon's own question to the players (board events lost for good)."""
        self._ask(view)

    def _note(self, view: MessageView, now: float, passes: frozenset = frozenset()) -> None:
        """A passing note; ``passes``: presses it invites, which go on to the screen under it."""
        self.note, self.note_until, self.note_passes = view, now + NOTE_SECONDS, passes

    @property
    def expecting(self) -> bool:
        """A drop can come now (the reconciler's flag): during a match's turns."""
        m = self.match
        return m is not None and not m.over and self._screen.in_turn

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
        try:
            press = Press(action)
        except ValueError:
            return  # not a button (the keypad, scripts and the control socket send only these)
        self._emit(fx.Wake())
        self.undo_held = None  # another press: the held one is let go (the knob may have moved off it)
        if self.note is not None and now < self.note_until and press not in getattr(self, "note_passes", ()):
            self._act_note(press, now)  # a press puts a passing note away (or reads on)
            return
        self.note = None
        self._screen.act(self, press, now)
        self._settle(now)

    def on_event(self, ev, now: float) -> None:
        """A board event: hall readings are tracked, a coin going in stops the
        clock, and a lesson in progress watches them all."""
        if isinstance(ev, (EntryEvent, SwitchEvent, ExitEvent)) and (self.match is None or self.match.over):
            self.board_moved_at = now
        if isinstance(ev, SwitchEvent) and (s := self._switch(ev.switch)) is not None:
            self.halls[s] = ev.pos
            if self.mode is Mode.RESTORE:
                self.restore = self.restore_list()
        if self.runner is not None and self.mode is Mode.LESSON:
            was = (self.runner.phase, self.runner.index)
            self.runner.event(ev)
            if (self.runner.phase, self.runner.index) != was:
                self.scroll = 0  # a new lesson screen is read from its top
        if isinstance(ev, EntryEvent):
            self.entry_t = ev.t
            self.on_entry(ev.entry, now)

    def _switch(self, label: str) -> int | None:
        """A switch's number from the label a source gives (None: not on this board)."""
        try:
            return self.geometry.index(label)
        except EngineError:
            return None  # the reconciler reports what it makes of it

    def on_positions(self, positions: dict[str, str], now: float) -> None:
        """Every switch's position from a snapshot (after a connect): a switch
        already where it should be is confirmed without moving it."""
        for label, pos in positions.items():
            s = self._switch(label)
            if s is not None:
                self.halls.setdefault(s, pos)
        if self.runner is not None:
            self.runner.learn_positions(positions)
        if self.mode is Mode.RESTORE:
            self.restore = self.restore_list()

    @property
    def asking(self) -> tuple[HandStep, ...]:
        """What the table waits for people's hands to do on the board now."""
        return tuple(self._screen.asking(self))

    def on_link(self, up: bool, detail: str, now: float) -> None:
        if up == self.link_up:
            self.link_detail = detail or self.link_detail
            return
        self.link_up, self.link_detail, self.link_since = up, detail, now
        if up:
            self._resume("link", now)
            self._emit(fx.Sound("connected"))
        else:
            self._pause("link", now)
            self._emit(fx.Sound("disconnected"))

    def on_club_request(self, request: MatchRequest, now: float) -> None:
        """A club asks for a match (``clubrequest.match_request`` checked it).
        Shown at once when the table is at its menu; otherwise it waits, and
        never disturbs a match. RequestError when too many already wait."""
        if request.id in self.club_seen:
            return  # the broker delivered it again (QoS 1), perhaps after it was answered
        if len(self.club_requests) >= WAITING:
            raise RequestError(f"match request {request.id} refused: {WAITING} club requests already wait "
                               "for a person at the table")
        self.club_seen = (self.club_seen + (request.id,))[-SEEN:]
        self.club_requests.append(request)
        self.offer_club_request(now)

    def offer_club_request(self, now: float) -> None:
        """The first waiting club request on screen, if the table is free for it."""
        if self.club_requests and self.mode is Mode.MENU and self.message is None and self.match is None:
            self._go(Mode.CLUB_REQUEST, now)
            self._emit(fx.Wake())
            self._emit(fx.Sound("connected"))

    def tick(self, now: float, board_now: float | None = None, heard: float | None = None) -> None:
        """``heard``: board time up to which every board event has reached the
        table (None: the source promises nothing of the kind)."""
        self.board_clock = (now, board_now, heard)
        self.replay_undo(now, heard)
        if self.message is not None and self._screen.messages and now >= self.message_until:
            self.message = None
        if self.note is not None and now >= self.note_until:
            self.note = None
        self._hint_over()
        self.extras_note_over()
        self.undo_refusal_over(now)
        self._screen.tick(self, now, board_now)
        self._settle(now)
        if self.pads_unknown:
            ask_for_pads(self, now)

    def _settle(self, now: float) -> None:
        """Keep the screen's mode and the match's phase in step, whatever
        order people and coins came in (a coin during the round's result has
        already started the next round's turns)."""
        m, mode = self.match, self.mode
        if m is None or mode not in (Mode.REVEAL, Mode.TURN, Mode.ROUND_RESULT):
            return
        if m.over:
            self.match_ended()  # the last drop's mismatch has been answered (or there was none)
            if mode is not Mode.ROUND_RESULT:
                self._go(Mode.ROUND_RESULT, now)
        elif mode is Mode.REVEAL and m.phase != PHASE_REVEAL:
            self._go(Mode.TURN, now)
        elif mode is Mode.TURN and m.phase == PHASE_REVEAL:
            self._go(Mode.REVEAL, now)

    # -- what the panel shows ------------------------------------------------------------------

    def view(self, now: float):
        screen = self._screen
        if self.match is not None and not self.link_up and screen.over_match:
            return ConnectionView(detail=self.link_detail or "reconnecting", since=max(0.0, now - self.link_since))
        if self.note is not None and now < self.note_until:
            return self.with_clock(self.note, now) if screen.over_match and screen.messages else self.note
        if self.message is not None and screen.messages:
            return self.with_clock(self.message, now) if screen.over_match else self.message
        return screen.view(self, now)
