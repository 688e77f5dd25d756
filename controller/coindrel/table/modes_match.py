"""What the buttons do during a match: the reveal, turns (with keyed drops
on a board without entry sensors, and the Think-ahead hint), the pause menu,
mismatches, putting the board back after an undo, and the results (mixed
into ``TableFlow``)."""

from __future__ import annotations

from dataclasses import replace

from ..display import DiagnosisView, MessageView
from ..engine import PHASE_REVEAL, PHASE_TURN, EngineError
from ..buttons import BACK, HOLD_SELECT, NEXT, PREV, SELECT
from . import effects as fx
from .paging import turn_notice
from .restore import Hand, restore_steps

PAUSE_ITEMS = ("Resume", "Undo last drop", "Correct last drop", "End match", "Rules")
COUNTS = 4  # coins an exit can be corrected to (0..3) by pressing on it
HINT_SECONDS = 8.0


class MatchModes:
    panel_size = (128, 64)  # the daemon sets its display's: notices page by what fits on it

    def _act_reveal(self, action: str, now: float) -> None:
        if action in (SELECT, HOLD_SELECT):
            self._start_turns(now)

    def _act_turn(self, action: str, now: float) -> None:
        m = self.match
        if self.message is not None:
            self.message = None
            return
        if action == BACK:
            self._pause("player", now)
            self._go("paused", now)
        elif action == HOLD_SELECT and m.phase == PHASE_TURN and not self._computer_to_move():
            self.show_hint(now)
        elif self.keyed and m.phase == PHASE_TURN and not self._computer_to_move():
            if action in (NEXT, PREV):
                count = self.geometry.entry_count
                self.keyed_entry = (self.keyed_entry + (1 if action == NEXT else -1)) % count
            elif action == SELECT:
                entry = m.forced_entry if m.forced_entry is not None else self.keyed_entry
                self.play_keyed(entry, now)

    def _act_note(self, action: str, now: float) -> None:
        """A button on a passing note: a paged one (a coin outside a drop)
        turns its pages and stays up while it is read; else the note goes."""
        note = self.note
        pages = _pages(note, self.panel_size) if isinstance(note, DiagnosisView) else 1
        if pages > 1:  # more to read: the knob reads on
            note, choice = turn_notice(note, action, pages)
            if choice is None:
                self.note, self.note_until = note, max(self.note_until, now + HINT_SECONDS)
                return
        self.note = None

    def show_hint(self, now: float) -> None:
        """Think ahead: the best entry for the player to move, and why."""
        from ..ai import hint

        try:
            h = hint(self.match, searcher=self.searcher)
        except EngineError as e:
            self.message = MessageView("No hint", str(e))
        else:
            # the title leaves room for the turn clock, which keeps running over it
            self.message = MessageView("Think ahead", "\n".join(h.lines))
        self.message_until = now + HINT_SECONDS
        self.hint_shown = (self.message, len(self.match.results))

    hint_shown = (None, 0)  # the hint on screen, and the drop it was for

    def _hint_over(self) -> None:
        """The hint is for one turn: gone when its coin went in or the clock
        ran out (the entry the clock chose must be seen)."""
        shown, drops = self.hint_shown
        m = self.match
        if shown is not None and self.message is shown and (
                m is None or len(m.results) != drops or m.forced_entry is not None or m.phase != PHASE_TURN):
            self.message = None
        if self.message is not shown:
            self.hint_shown = (None, 0)

    def with_clock(self, note, now: float):
        """A note over a turn shows the turn clock, still counting."""
        m = self.match
        if m is None or m.clock is None or m.over or not hasattr(note, "clock"):
            return note
        if isinstance(note, MessageView):
            return replace(note, clock=m.remaining(now), paused=m.clock.paused)
        return replace(note, clock=None if m.clock.paused else m.remaining(now))

    def play_keyed(self, entry: int, now: float) -> None:
        """A drop keyed in by the players on a board without sensors: the engine scores it."""
        m = self.match
        m.coin_seen(now)
        result = m.play(entry, now)
        self.hit_exits = result.exits
        self._emit(fx.LEDS_OFF)
        self._emit(fx.SOUND, "score" if result.points else "nothing")
        self._after_drop(result, now)

    def _act_paused(self, action: str, now: float) -> None:
        if action in (NEXT, PREV):
            self.selected = (self.selected + (1 if action == NEXT else -1)) % len(PAUSE_ITEMS)
            return
        if action == BACK:
            choice = "Resume"
        elif action in (SELECT, HOLD_SELECT):
            choice = PAUSE_ITEMS[self.selected]
        else:
            return
        if choice == "Resume":
            self._resume("player", now)
            self._go("turn", now)
        elif choice == "Undo last drop":
            self._undo(now)
        elif choice == "Correct last drop":
            self._start_correction(now)
        elif choice == "End match":
            self._emit(fx.END_MATCH, "abandoned")
            self.last_board = self.match.board.copy()
            self.match, self.pauses = None, set()
            self._go("menu", now)
        elif choice == "Rules":
            self.back_to = "paused"
            self._go("rules", now)

    def _act_mismatch(self, action: str, now: float) -> None:
        # The knob reads the explanation a page at a time, then moves through
        # the choices; a press on the words goes to the choices; back is "Board is right".
        d = self.diagnosis
        d2, choice = turn_notice(d, action, _pages(d, self.panel_size))
        if choice is None:
            self.diagnosis = d2
            return
        self.diagnosis = None
        if choice == "Undo last drop":
            self._undo(now)
            return
        if choice == "Correct score":
            self._start_correction(now)
            return
        self._resume("mismatch", now)
        self._resume("player", now)  # a coin while paused: the players are playing again
        m = self.match
        self._go("round-result" if m.over or m.phase == PHASE_REVEAL else "turn", now)

    def _undo(self, now: float) -> None:
        m = self.match
        before = m.board.copy()
        try:
            m.undo(now)
        except EngineError as e:
            self._resume("player", now)
            self._go("turn", now)
            self.message = MessageView("Cannot undo", str(e), alert=True)
            self.message_until = now + HINT_SECONDS
            return
        self.restore_coins = (before, m.board.copy())
        # the reconciler goes on believing the board as it stands until the players have put it back
        self.pauses.discard("mismatch")
        self.restore = restore_steps(m.board, self.halls, self.restore_coins)
        self._go("restore", now)

    # -- correcting what the last drop scored ---------------------------------------------

    def _start_correction(self, now: float) -> None:
        """The players say which exits the last drop's coins really reached
        (a beam that missed or double-counted a coin): the drop is scored again."""
        m = self.match
        if not m.results:
            self._resume("player", now)
            self._go("turn", now)
            self.message = MessageView("Nothing to correct", "No drop has been scored yet.", alert=True)
            self.message_until = now + HINT_SECONDS
            return
        self._pause("player", now)
        last = m.results[-1]
        self.correction = [list(last.exits).count(x) for x in range(self.geometry.exit_count)]
        self._go("correct", now)

    def correction_view(self):
        from ..display import MenuItem, MenuView

        items = [MenuItem(f"Exit {x + 1}", str(n)) for x, n in enumerate(self.correction)]
        items += [MenuItem("Done"), MenuItem("Cancel")]
        return MenuView("Coins at each exit", tuple(items), self.selected, "press: +1  hold: done")

    def _act_correct(self, action: str, now: float) -> None:
        n = len(self.correction)
        if action in (NEXT, PREV):
            self.selected = (self.selected + (1 if action == NEXT else -1)) % (n + 2)
        elif action == BACK or (action == SELECT and self.selected == n + 1):
            self._resume("player", now)
            self._go("turn", now)
        elif action == HOLD_SELECT or (action == SELECT and self.selected == n):
            self._apply_correction(now)
        elif action == SELECT:
            self.correction[self.selected] = (self.correction[self.selected] + 1) % COUNTS

    def _apply_correction(self, now: float) -> None:
        m = self.match
        last = m.results[-1]
        exits = [x for x, count in enumerate(self.correction) for _ in range(count)]
        belief = m.board.copy()  # the board stays as the reconciler believes it
        m.undo(now)
        result = m.record(last.entry, exits, belief, now)
        self.hit_exits = result.exits
        self._emit(fx.SOUND, "select")
        self._resume("player", now)
        self.diagnosis = None
        self.finished_round = result.round
        if m.over or m.phase == PHASE_REVEAL:
            if m.over:
                self._emit(fx.END_MATCH, "finished")
                self.last_board = m.board.copy()
            self._go("round-result", now)
        else:
            self._go("turn", now)

    def _act_restore(self, action: str, now: float) -> None:
        if action in (NEXT, PREV):
            self.scroll = max(0, min(len(self.restore), self.scroll + (1 if action == NEXT else -1)))
        elif action in (SELECT, HOLD_SELECT):
            if self.has_halls and any(s.hand is Hand.FLIP for s in self.restore):
                return  # the hall sensors still see switches to put back
            self.restore = []
            self._emit(fx.BELIEF, data=self.match.board)  # put back: the board is the match's again
            self._resume("player", now)
            self._resume("mismatch", now)
            self._go("reveal" if self.match.phase == PHASE_REVEAL else "turn", now)

    def _act_round_result(self, action: str, now: float) -> None:
        if action in (SELECT, HOLD_SELECT):
            self._go("result" if self.match.over else "reveal", now)

    def _act_result(self, action: str, now: float) -> None:
        if action in (SELECT, HOLD_SELECT, BACK):
            self.match = None
            self._go("menu", now)

    # -- the computer opponent ---------------------------------------------------------------

    def _computer_to_move(self) -> bool:
        return self.opponent is not None and self.match is not None and self.match.to_move == 2

    def computer_turn(self, now: float) -> None:
        """The computer chooses once per turn; the dropper drops its coin, or a
        person is asked to, and the entry beam confirms it."""
        from ..ai.solo import computer_drop

        m = self.match
        if self.computer is not None or m.phase != PHASE_TURN:
            return
        self.computer = computer_drop(m, self.opponent)
        entry = m.forced_entry if m.forced_entry is not None else self.computer.entry
        if self.keyed:
            self.computer = None
            self.play_keyed(entry, now)
        elif self.has_dropper:
            self._emit(fx.DROP, "", entry)
            self.dropped_t = now
        else:
            self._emit(fx.LED, "blink", entry)


def _pages(view, size) -> int:
    """How many pages a notice takes on the panel (the renderer's fonts say;
    loaded only when a notice is paged, so the flow itself stays pure)."""
    from ..display.render import page_count

    return page_count(view, size)
