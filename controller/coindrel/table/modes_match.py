"""The screens of a match: the reveal, turns (with keyed drops on a board
without entry sensors, and the Think-ahead hint), the pause menu,
mismatches, correcting a score, putting the board back after an undo, and
the results. One ``Screen`` per mode (catalog: ``screens.py``); what they
share (undo, corrections, hints, the computer's turn) is in ``turns.py``."""

from __future__ import annotations

import dataclasses
from enum import Enum

from ..buttons import BACK, HOLD_SELECT, NEXT, PREV, SELECT
from ..display import (MenuItem, MenuView, MessageView, TextView, match_result_view, match_view, reveal_view,
                       round_result_view)
from ..engine import HOLE, PAD_R, PHASE_REVEAL, PHASE_TURN, BoardState
from . import effects as fx
from .modes import Mode, Screen
from .paging import choose_on_notice
from .restore import Hand
from .turns import pages

REVEAL_STEP = 0.12  # seconds per exit value in the reveal animation
COUNTS = 4  # coins an exit can be corrected to (0..3) by pressing on it


class Pause(Enum):
    """The pause menu's rows: chosen by what they are, shown by their label."""

    RESUME = "Resume"
    UNDO = "Undo last drop"
    CORRECT = "Correct last drop"
    END = "End match"
    RULES = "Rules"


class Answer(Enum):
    """A mismatch's choices, in the order the screen lists them (the first is back's)."""

    BOARD_RIGHT = "Board is right"
    CORRECT = "Correct score"
    UNDO = "Undo last drop"


PAUSE_ITEMS = tuple(p.value for p in Pause)
ANSWERS = tuple(a.value for a in Answer)


def stale_question(view, drops: int):
    """``view`` (a question about drop N on screen) once later drops are
    scored: "Undo last drop" and "Correct score" act on the last drop, not on
    N, so only "Board is right" is left, and the screen says why (a newcomer's
    Undo on drop 1's question took back drop 3)."""
    if view is None or getattr(view, "drop", None) is None or view.drop >= drops:
        return view
    if tuple(view.options) == (Answer.BOARD_RIGHT.value,):
        return view
    why = (f"Drops have fallen since drop {view.drop}: undo and correction act on the last drop "
           "(pause menu).")
    return dataclasses.replace(view, options=(Answer.BOARD_RIGHT.value,), selected=0,
                               facts=tuple(view.facts) + (why,))


class Reveal(Screen):
    mode = Mode.REVEAL
    in_turn = True
    over_match = True

    def act(self, flow, press, now):
        if press in (SELECT, HOLD_SELECT):
            flow._start_turns(now)

    def view(self, flow, now):
        return reveal_view(flow.match, min(16, int((now - flow.since) / REVEAL_STEP)))

    def tick(self, flow, now, board_now):
        if now - flow.since >= flow.reveal_seconds:
            flow._start_turns(now)


class Turn(Screen):
    mode = Mode.TURN
    in_turn = True
    over_match = True
    messages = True

    def act(self, flow, press, now):
        m = flow.match
        if flow.message is not None:
            flow.message = None
            return
        if press == BACK:
            flow._pause("player", now)
            flow._go(Mode.PAUSED, now)
        elif press == HOLD_SELECT and m.phase == PHASE_TURN and not flow._computer_to_move():
            flow.show_hint(now)
        elif flow.keyed and m.phase == PHASE_TURN and not flow._computer_to_move():
            if press in (NEXT, PREV):
                count = flow.geometry.entry_count
                flow.keyed_entry = (flow.keyed_entry + (1 if press == NEXT else -1)) % count
            elif press == SELECT:
                entry = m.forced_entry if m.forced_entry is not None else flow.keyed_entry
                flow.play_keyed(entry, now)

    def view(self, flow, now):
        return match_view(flow.match, now, status=self.status(flow), hit_exits=flow.hit_exits)

    def status(self, flow) -> str | None:
        m = flow.match
        if m.phase != PHASE_TURN or m.over:
            return None
        if flow.computer is not None and not flow.has_dropper and not flow.keyed:
            return f"Drop my coin: entry {flow.computer.entry + 1}"
        if flow.keyed and not flow._computer_to_move():
            if m.forced_entry is not None:
                return f"Time! Entry {m.forced_entry + 1}: press"
            return f"Entry {flow.keyed_entry + 1}? turn, press"
        return None

    def tick(self, flow, now, board_now):
        m = flow.match
        if m is None or flow.pauses:
            return
        forced = m.expire(now)
        if forced is not None:
            flow._emit(fx.Sound("timeout"))
            if flow.keyed:
                flow.keyed_entry = forced
            else:
                flow._emit(fx.Drop(forced, "blink") if flow.has_dropper else fx.Led(forced, "blink"))
                flow.dropped_t = now
        if flow._computer_to_move():
            flow.computer_turn(now)
        flow._drop_again(now)


class Ending(Enum):
    """The question "End the match?" asks before a match is abandoned: one
    press on a knob scrolled one row too far ended a match for good."""

    KEEP = "Keep playing"
    END = "End match"


class Paused(Screen):
    mode = Mode.PAUSED
    aside = "the match was paused"

    def coin_in(self, name):
        # The player to move dropped it, often a moment before their back press reached the table: it was
        # their turn, only paused ("out of turn" told Ann her own drop was not hers to make).
        return f"A coin went in as {self.aside}: it counts as {name}'s drop."

    def act(self, flow, press, now):
        rows = tuple(Pause)
        if flow.ending:
            self._confirm(flow, press, now)
            return
        if press in (NEXT, PREV):
            flow.selected = (flow.selected + (1 if press == NEXT else -1)) % len(rows)
            return
        if press == BACK:
            choice = Pause.RESUME
        elif press in (SELECT, HOLD_SELECT):
            choice = rows[flow.selected]
        else:
            return
        if choice is Pause.RESUME:
            flow._resume("player", now)
            flow._go(Mode.TURN, now)
        elif choice is Pause.UNDO:
            if not flow.undo_waits(press, now):
                flow._undo(now)
        elif choice is Pause.CORRECT:
            flow._start_correction(now)
        elif choice is Pause.END:
            flow.ending, flow.selected = True, 0
        elif choice is Pause.RULES:
            flow.back_to = Mode.PAUSED
            flow._go(Mode.RULES, now)

    def _confirm(self, flow, press, now):
        rows = tuple(Ending)
        if press in (NEXT, PREV):  # no wrap: only a turn toward it marks End match (left from Keep did)
            flow.selected = max(0, min(len(rows) - 1, flow.selected + (1 if press == NEXT else -1)))
        elif press == BACK or (press in (SELECT, HOLD_SELECT) and rows[flow.selected] is Ending.KEEP):
            flow.ending, flow.selected = False, tuple(Pause).index(Pause.END)
        elif press in (SELECT, HOLD_SELECT):
            flow._emit(fx.EndMatch("abandoned", flow.match))
            flow.last_board = flow.match.board.copy()
            flow.match, flow.pauses = None, set()
            flow._go(Mode.MENU, now)

    def view(self, flow, now):
        if flow.ending:
            return MenuView("End the match?", tuple(MenuItem(e.value) for e in Ending), flow.selected,
                            "its scores are kept")
        return MenuView("Paused", tuple(MenuItem(p.value) for p in Pause), flow.selected, "press: choose")


class Mismatch(Screen):
    mode = Mode.MISMATCH
    in_turn = True

    def act(self, flow, press, now):
        # The knob reads the explanation a page at a time, then moves through
        # the choices; a press on the words goes to the choices; back is "Board is right".
        d = flow.diagnosis = stale_question(flow.diagnosis, len(flow.match.results))
        d2, chosen = choose_on_notice(d, press, pages(d, flow.panel_size))
        if chosen is None:
            flow.diagnosis = d2
            return
        answer = Answer(d.options[chosen]) if d.options else Answer.BOARD_RIGHT
        if answer is Answer.UNDO and flow.undo_waits(press, now):
            return  # a coin falls (it says so) or may have gone in unheard: the question stays
        flow.diagnosis = None
        # the answer is journalled with what it changes (questions.py): a correction only once it is done
        asked = d.drop if d is not None else None
        if answer is Answer.CORRECT:
            flow.answer_held = (asked, answer.value)
        else:
            flow.answered(asked, answer.value)
        if answer in (Answer.UNDO, Answer.CORRECT):
            flow.reopen_ended()  # the last drop of a filed match: its journal takes the change
        if answer is Answer.UNDO:
            flow._undo(now)
            return
        if answer is Answer.CORRECT:
            flow._start_correction(now)
            return
        m = flow.match
        sensed = board_as_sensed(m.board, flow.halls, flow.blamed_halls) if flow.has_halls else None
        if sensed is not None:
            # The players vouch for the board as it stands: its switches are
            # where the hall sensors say, whatever the explanation supposed
            # (resting coins are sensed by nothing: they stay as believed).
            # Not a hall the explanation on screen holds lying: the players
            # see rockers, not sensors, and this is the back button too, so
            # the answer is no evidence against what the cascades proved.
            m.set_board(sensed, "Board is right: the switches as the hall sensors read them", now)
            flow._emit(fx.Belief(m.board, halls_right=True))
        flow._resume("mismatch", now)
        flow._resume("player", now)  # a coin while paused: the players are playing again
        flow._go(Mode.ROUND_RESULT if m.over or m.phase == PHASE_REVEAL else Mode.TURN, now)

    def view(self, flow, now):
        return flow.diagnosis


def board_as_sensed(board, halls: dict, blamed=frozenset()):
    """``board`` with every switch turned to the side its hall last read
    (``halls``: switch number -> L, R, mid, none); None when that changes nothing.
    A switch between sides, taken out, not read yet, or whose hall is
    ``blamed`` (held lying) keeps its believed side."""
    codes = bytearray(board.codes)
    for s, pos in halls.items():
        if pos in ("L", "R") and codes[s] != HOLE and s not in blamed:
            codes[s] = (codes[s] & ~PAD_R & 0xFF) | (pos == "R")
    if bytes(codes) == bytes(board.codes):
        return None
    return BoardState(board.geometry, codes)


class Correct(Screen):
    """The players say which exits the last drop's coins really reached."""

    mode = Mode.CORRECT
    aside = "the last drop was being corrected"

    def act(self, flow, press, now):
        n = len(flow.correction)
        if press in (NEXT, PREV):
            flow.selected = (flow.selected + (1 if press == NEXT else -1)) % (n + 2)
        elif press == BACK or (press == SELECT and flow.selected == n + 1):
            flow.release_answer(cancelled=True)
            flow._resume("player", now)
            flow._go(Mode.TURN, now)
        elif press == HOLD_SELECT or (press == SELECT and flow.selected == n):
            flow._apply_correction(now)
            flow.release_answer()
        elif press == SELECT:
            flow.correction[flow.selected] = (flow.correction[flow.selected] + 1) % COUNTS

    def view(self, flow, now):
        items = [MenuItem(f"Exit {x + 1}", str(n)) for x, n in enumerate(flow.correction)]
        items += [MenuItem("Done"), MenuItem("Cancel")]
        return MenuView("Coins at each exit", tuple(items), flow.selected, "press: +1  hold: done")


class Restore(Screen):
    """Putting the board back after an undo, as the table lists it."""

    mode = Mode.RESTORE
    aside = "the board was being put back"

    def act(self, flow, press, now):
        if press in (NEXT, PREV):
            flow.scroll = max(0, min(len(flow.restore), flow.scroll + (1 if press == NEXT else -1)))
        elif press in (SELECT, HOLD_SELECT):
            # (a rocker to check by eye has a hall that cannot say: the press is the players' word)
            left = [s for s in flow.restore if s.hand is Hand.FLIP and not s.by_eye] if flow.has_halls else []
            if left and press == SELECT:  # the hall sensors still see switches to put back: say so (a silent press seemed lost)
                more = f" and {len(left) - 2} more" if len(left) > 2 else ""
                flow._note(MessageView("Not yet", "Still to do, as the sensors see it: "
                                       + ", ".join(x.text for x in left[:2]) + more + ". Then press. "
                                       "Done already? Hold: a sensor may be wrong."), now, passes=frozenset({HOLD_SELECT}))
                return
            # put back: the board is the match's again, its coins as people say they set them
            by_hand = frozenset(s.switch for s in flow.restore if s.hand in (Hand.COIN_ON, Hand.COIN_OFF))
            m = flow.match
            # held over "Not yet": those rockers stay where their halls say (a hall nobody doubts is
            # likelier right than a step skipped is done); the reconciler keeps the side listed for a
            # hall it holds lying, and a surprise there is the board not put back, not a fault
            unput = frozenset(x.switch for x in left)
            if unput:
                sensed = board_as_sensed(m.board, {s: flow.halls.get(s) for s in unput})
                if sensed is not None:
                    m.set_board(sensed, "Not put back: " + ", ".join(x.label or str(x.switch) for x in left)
                                + " as the hall sensors read them", now)
            flow.restore = []
            flow._emit(fx.Hands(False))
            flow._emit(fx.Belief(m.board, by_hand=by_hand, unput=unput))
            flow._resume("player", now)
            flow._resume("mismatch", now)
            flow._go(Mode.REVEAL if m.phase == PHASE_REVEAL else Mode.TURN, now)

    def view(self, flow, now):
        if not flow.restore:
            return MessageView("Put the board back", "Board matches.\nPress to play on.")
        n = len(flow.restore)
        steps = [f"{i}/{n} {step.text}" for i, step in enumerate(flow.restore, 1)]
        return TextView("Put the board back", "\n".join(steps + ["Then press."]), flow.scroll)

    def asking(self, flow):
        return tuple(flow.restore)


class RoundResult(Screen):
    mode = Mode.ROUND_RESULT
    aside = "the round's result was on screen"

    def act(self, flow, press, now):
        if press in (SELECT, HOLD_SELECT):
            flow._go(Mode.RESULT if flow.match.over else Mode.REVEAL, now)

    def view(self, flow, now):
        return round_result_view(flow.match, flow.finished_round)

    def tick(self, flow, now, board_now):
        if now - flow.since >= flow.result_seconds and not flow.match.over:
            flow._go(Mode.REVEAL, now)


class Result(Screen):
    mode = Mode.RESULT

    def act(self, flow, press, now):
        if press in (SELECT, HOLD_SELECT, BACK):
            flow.match = None
            flow._go(Mode.MENU, now)

    def view(self, flow, now):
        return match_result_view(flow.match)
