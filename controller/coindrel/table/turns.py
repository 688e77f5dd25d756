"""What several match screens share (mixed into ``TableFlow``): the
Think-ahead hint, keyed drops, undo and putting the board back, correcting
a score, the computer opponent's turn, and the buttons on a passing note."""

from __future__ import annotations

from dataclasses import replace

from ..display import DiagnosisView, MessageView
from ..engine import PHASE_FALLING, PHASE_REVEAL, PHASE_TURN, EngineError
from . import effects as fx
from .modes import Mode
from .paging import choose_on_notice
from .restore import Hand, as_asked, restore_steps

HINT_SECONDS = 8.0
NOTE_SECONDS = 5.0  # how long a note (a stray coin, a hint) stays over the match screen
NOT_YET = MessageView("Not yet", "A coin is still falling. Undo once it has landed: it may be the drop to undo.",
                      alert=True)
LANDED = MessageView("Coin down", "No coin falls now. A press only closes this note; then Undo takes back the "
                     "last drop.")


class MatchActions:
    panel_size = (128, 64)  # the daemon sets its display's: notices page by what fits on it
    hint_shown = (None, 0)  # the hint on screen, and the drop it was for

    def coin_falling(self) -> bool:
        """A coin went in and its drop is not scored yet: hands on the board
        now would meet it (an undo then mixed its cascade with the put-back)."""
        return self.match is not None and self.match.phase == PHASE_FALLING

    def _act_note(self, press, now: float) -> None:
        """A button on a passing note: a paged one (a coin outside a drop)
        turns its pages and stays up while it is read; else the note goes."""
        note = self.note
        n = pages(note, self.panel_size) if isinstance(note, DiagnosisView) else 1
        if n > 1:  # more to read: the knob reads on
            note, choice = choose_on_notice(note, press, n)
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
        self._emit(fx.LedsOff())
        self._emit(fx.Sound("score" if result.points else "nothing"))
        self._after_drop(result, now)

    # -- the players' answers to a question (journalled by the daemon, questions.py) ---------

    def answered(self, drop, answer: str, cancelled: bool = False) -> None:
        self.answers.append({"drop": drop, "answer": answer} | ({"cancelled": True} if cancelled else {}))

    def release_answer(self, cancelled: bool = False) -> None:
        """"Correct score" counts as the answer once the correction is done (or given up)."""
        held, self.answer_held = self.answer_held, None
        if held is not None:
            self.answered(*held, cancelled=cancelled)

    def undo_waits(self, press, now: float) -> bool:
        """An undo chosen now waits (True) while a coin falls (it says so) or
        while the board may not have told the table yet of a coin that went
        in just before the press: the hub's events come a frame late, and
        that coin's cascade met the put-back's hands. Such a press is held
        and acted on again once the board is heard past it (``replay_undo``)."""
        if self.coin_falling():
            self._undo(now)  # says why not yet
            return True
        at, board_at, heard = self.board_clock
        if heard is None or board_at is None or getattr(self, "undo_replayed", False):
            return False
        t = now + (board_at - at)  # the press on the board's clock
        if heard >= t:
            return False
        self.undo_held = (self.mode, press, t)
        return True

    def replay_undo(self, now: float, heard: float | None) -> None:
        """The held undo press once the board is heard past it (or a coin came: it says not yet)."""
        held = self.undo_held
        if held is None:
            return
        mode, press, t = held
        if self.mode is not mode:
            self.undo_held = None
            return
        if heard is not None and heard < t and not self.coin_falling():
            return
        self.undo_held, self.undo_replayed = None, True
        try:
            self._screen.act(self, press, now)
        finally:
            self.undo_replayed = False

    def _undo(self, now: float) -> None:
        m = self.match
        if self.coin_falling():
            self._note(NOT_YET, now)
            # Up until pressed: timed, it went while people read it, and the press meant to put it away
            # a moment later chose Undo on the menu under it (``undo_refusal_over``)
            self.note_until, self.undo_refused = float("inf"), (self.note, self.mode)
            return
        before = m.board.copy()
        try:
            m.undo(now)
        except EngineError as e:
            self._resume("player", now)
            self._go(Mode.TURN, now)
            self.message = MessageView("Cannot undo", str(e), alert=True)
            self.message_until = now + HINT_SECONDS
            return
        self.restore_coins = (before, m.board.copy())
        self.restore_eye = self.suspect_halls  # the drop undone doubted these halls: their readings prove nothing
        # the reconciler goes on believing the board as it stands until the players have put it back
        self.pauses.discard("mismatch")
        self.put_back(now)

    def undo_refusal_over(self, now: float) -> None:
        """The "Not yet" of an undo stays until a press puts it away, which
        does nothing else; once no coin falls it says so, and what a press
        does now. Off the screen it was shown on (the landing coin took the
        table on), it is a passing note again."""
        note, mode = self.undo_refused
        if note is None:
            return
        if self.note is not note:
            self.undo_refused = (None, None)
        elif self.mode != mode:
            self.note_until, self.undo_refused = now + NOTE_SECONDS, (None, None)
        elif note is NOT_YET and not self.coin_falling():
            self.note = LANDED
            self.undo_refused = (self.note, mode)

    def put_back(self, now: float) -> None:
        """Ask for the board to be put back as the undo left the match (``restore_coins``)."""
        self.restore = self.restore_list()
        self.restore_asked = tuple(self.restore)
        self._emit(fx.Hands(True, as_asked(self.restore)))
        self._go(Mode.RESTORE, now)

    def restore_list(self) -> list:
        """The put-back's steps as the hall sensors now show the board."""
        return restore_steps(self.match.board, self.halls, self.restore_coins, self.restore_eye)

    def coin_before_put_back(self, t: float | None, now: float) -> None:
        """A coin went in while the board was being put back (the players
        dropped before pressing; ``t`` its entry's board time): it is the
        turn's drop, on the board as far as they had put it back (the
        reconciler judges it so: rockers as the halls read them, the coin
        steps' pads unsure), and the list is over: the board is what that
        coin makes of it. Its report says so (``put_back_facts``)."""
        pads = tuple(s.switch for s in self.restore_asked if s.hand in (Hand.COIN_ON, Hand.COIN_OFF))
        self.restore_cut, self.restore = (t, tuple(dict.fromkeys(pads))), []
        self._resume("player", now)
        self._resume("mismatch", now)
        self._go(Mode.REVEAL if self.match.phase == PHASE_REVEAL else Mode.TURN, now)

    def put_back_facts(self, report, name: str) -> list[str]:
        """What the players are told of a coin that went in before the board was put back."""
        out = [f"A coin went in before the board was put back: it counts as {name}'s drop, on the board as it "
               "stood (its rockers as the sensors saw them)."]
        # (its report came after every report of the hands' flips: none is held back by its time any more)
        pads, self.restore_cut = self.restore_cut[1], (None, ())
        if pads and report.state:
            from ..engine import COIN, BoardState

            board = BoardState.parse(report.state, self.geometry)
            labels = self.geometry.labels
            on = [labels[s] for s in pads if board.codes[s] & COIN]
            off = [labels[s] for s in pads if not board.codes[s] & COIN]
            said = " and ".join(x for x in ((f"a coin on {', '.join(on)}" if on else ""),
                                            (f"no coin on {', '.join(off)}" if off else "")) if x)
            out.append(f"No sensor sees coins on pads: the table now believes {said}. Check; a pad that differs "
                       "shows at its next drop (not a fault).")
        return out

    # -- correcting what the last drop scored ---------------------------------------------

    def _start_correction(self, now: float) -> None:
        """The players say which exits the last drop's coins really reached
        (a beam that missed or double-counted a coin): the drop is scored again."""
        m = self.match
        if not m.results:
            self.release_answer(cancelled=True)
            self._resume("player", now)
            self._go(Mode.TURN, now)
            self.message = MessageView("Nothing to correct", "No drop has been scored yet.", alert=True)
            self.message_until = now + HINT_SECONDS
            return
        self._pause("player", now)
        last = m.results[-1]
        self.correction = [list(last.exits).count(x) for x in range(self.geometry.exit_count)]
        self._go(Mode.CORRECT, now)

    def _apply_correction(self, now: float) -> None:
        m = self.match
        last = m.results[-1]
        exits = [x for x, count in enumerate(self.correction) for _ in range(count)]
        belief = m.board.copy()  # the board stays as the reconciler believes it
        m.undo(now)
        result = m.record(last.entry, exits, belief, now)
        self.hit_exits = result.exits
        self._emit(fx.Sound("select"))
        self._resume("player", now)
        self.diagnosis = None
        self.finished_round = result.round
        if m.over or m.phase == PHASE_REVEAL:
            self.match_ended()
            self._go(Mode.ROUND_RESULT, now)
        else:
            self._go(Mode.TURN, now)

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
            self._emit(fx.Drop(entry))
            self.dropped_t = now
        else:
            self._emit(fx.Led(entry, "blink"))


def pages(view, size) -> int:
    """How many pages a notice takes on the panel (the renderer's fonts say;
    loaded only when a notice is paged, so the flow itself stays pure)."""
    from ..display.render import page_count

    return page_count(view, size)
