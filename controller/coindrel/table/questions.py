"""The table's questions to the players outlive a restart: a drop it flagged
(a mismatch, a coin whose events were lost and that was scored as the
engine predicts: "Check board") waits for "Board is right", "Correct score"
or "Undo last drop", and a kill -9 while it waits must not file the drop as
if someone had answered.

Both sides go into the match journal as notes (the journal's own
checksummed records; a reader that does not know them skips them):

    {"ask": {"drop": 7, "title": "Check board", "findings": [...], "facts": [...],
             "options": [...], "expected": [9, 10], "observed": [9]}}
    {"answer": {"drop": 7, "answer": "Board is right"}}

The question is written in the same write as the drop it asks about (the
journal's held records, ``MatchJournal.hold``), and the answer in the same
write as what it changes (the undo, the correction, the board as the halls
read it): a kill leaves both or neither. A question whose drop is not on
disk is not asked again: the drop itself comes again (its saved verdict, or
its coin waits again) and asks again.

On a restart every question without an answer is asked again: in a match
in progress, and in the match last filed in the history (a match is filed
as its last drop ends, even while that drop is asked about); its answer
then reaches that match's journal (a note, or the undo or correction that
reopens it, ``store.reopen``). Exits in the notes count from 1, as people
read them.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ..display import DiagnosisView
from ..engine import EngineError
from ..engine import PHASE_REVEAL
from .modes import Mode

log = logging.getLogger("coindrel.table")
ASK, ANSWER = "ask", "answer"
RESTORE, RESTORED = "restore", "restored"
PLAYED_ON = "Played on"  # the answer of a question a newer drop's question replaced


UNANSWERED = "'s question was not answered: it stands as scored"


def _clip(text: str, limit: int = 90) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def ask_note(view: DiagnosisView) -> dict:
    exits = (lambda xs: None if xs is None else [x + 1 for x in xs])
    return {ASK: {"drop": view.drop, "title": view.title, "findings": list(view.findings), "facts": list(view.facts),
                  "options": list(view.options), "expected": exits(view.expected), "observed": exits(view.observed)}}


def question_key(view: DiagnosisView | None):
    """What makes a question the same question (paging through it does not)."""
    if view is None:
        return None
    return (view.drop, view.title, tuple(view.findings), tuple(view.facts))


def open_question(records) -> dict | None:
    """The last question the journal's records ask with no answer after it
    (its ``ask`` payload), or None."""
    asked = None
    for r in records:
        d = r.data if r.kind == "note" and isinstance(r.data, dict) else None
        if d is None:
            continue
        if isinstance(d.get(ASK), dict):
            asked = d[ASK]
        elif isinstance(d.get(ANSWER), dict):
            asked = None
    return asked


def view_of(asked: dict, options=()) -> DiagnosisView | None:
    """The question's screen again from its note (None: a note this version cannot show)."""
    def texts(key):
        v = asked.get(key) or ()
        return tuple(str(x) for x in v) if isinstance(v, list) else ()

    def exits(key):
        v = asked.get(key)
        if not isinstance(v, list) or not all(type(x) is int and 1 <= x <= 16 for x in v):
            return None
        return tuple(x - 1 for x in v)

    drop = asked.get("drop")
    try:
        return DiagnosisView(title=str(asked.get("title") or "Check board"), findings=texts("findings"),
                             options=texts("options") or tuple(options), expected=exits("expected"),
                             observed=exits("observed"), drop=drop if type(drop) is int else None,
                             facts=texts("facts"))
    except (TypeError, ValueError):
        return None


class QuestionsMixin:
    """Part of ``daemon.Table``."""

    asked_key = None  # the question on screen that the journal holds (``question_key``)

    def _note_questions(self) -> None:
        """Journal a new question on screen, and the players' answers."""
        f = self.flow
        answers, f.answers = f.answers, []
        for a in answers:
            self._question_note({ANSWER: a})
            self.asked_key = None
        self._note_restore()
        d = f.diagnosis
        if d is None or not isinstance(d, DiagnosisView) or f.match is None:
            return
        key = question_key(d)
        if key != self.asked_key:
            old = self.asked_key[0] if self.asked_key is not None else None
            if old is not None and d.drop is not None and old != d.drop:
                # A newer drop's question took the screen (the players dropped on): the
                # older one is answered by that, and says so; it was never asked again.
                self._question_note({ANSWER: {"drop": old, "answer": PLAYED_ON}})
                # what it asked goes along (a restart replaying several flagged drops at once replaced each
                # within milliseconds: nobody had read them), and so do the ones it had replaced
                _, _, findings, facts = self.asked_key
                earlier = tuple(x for x in facts if x.startswith("Drop ") and UNANSWERED in x)
                said = f" (it said: {_clip(findings[0])})" if findings else ""
                d = f.diagnosis = replace(d, facts=earlier + (f"Drop {old}{UNANSWERED}{said}.",) + tuple(d.facts))
                key = question_key(d)
            self._question_note(ask_note(d))
            self.asked_key = key

    restore_noted = False  # the journal holds the "put the board back" list now on screen

    def _note_restore(self) -> None:
        """The undo's "Put the board back" screen is journalled as it opens
        and as it closes: a kill between (the players halfway through the
        list) asks for the rest again, instead of believing the hall sensors
        as the board moved by hand (a hall the table held lying included)."""
        f = self.flow
        on = f.mode is Mode.RESTORE and f.match is not None and f.restore_coins is not None
        if on and not self.restore_noted:
            before, after = f.restore_coins
            self._question_note({RESTORE: {"before": before.text(), "after": after.text()}})
        elif not on and self.restore_noted:
            self._question_note({RESTORED: True})
        self.restore_noted = on

    def _restore_again(self, records, match) -> bool:
        """After a restart: the board still being put back after an undo is
        asked for again (the list follows the hall sensors as they read)."""
        from ..engine import BoardState

        open_restore = None
        for r in records:
            d = r.data if r.kind == "note" and isinstance(r.data, dict) else None
            if d is not None and isinstance(d.get(RESTORE), dict):
                open_restore = d[RESTORE]
            elif d is not None and (d.get(RESTORED) or ASK in d):
                open_restore = None
            elif r.kind == "act" and isinstance(r.data, dict) and r.data.get("do") == "drop":
                open_restore = None  # the match went on after it
        if open_restore is None or self.flow.diagnosis is not None:
            return False
        try:
            before = BoardState.parse(str(open_restore["before"]), match.board.geometry)
            after = BoardState.parse(str(open_restore["after"]), match.board.geometry)
        except (KeyError, ValueError, EngineError):
            return False
        if bytes(after.codes) != bytes(match.board.codes):
            return False  # not the board the undo left: the journal moved on
        f = self.flow
        f.restore_coins = (before, after)
        f.put_back(self.now())
        self.restore_noted = True
        log.warning("the board was being put back after an undo when the table stopped; asked again")
        return True

    def _question_note(self, data: dict) -> None:
        """Into the journal of the match the question is about: the open one
        (in the write with the drop or the change), or the one filed."""
        m = self.flow.match
        if self.journal is not None and (m is None or m is self.journalled):
            self.journal.hold("note", data)
            return
        filed = self.filed
        if filed is None or self.store is None or filed[1] is not m:
            return  # a match no journal records (none kept, or one the store could not take)
        from .journal import JournalError

        try:
            self.store.note_filed(filed[0], data)
        except (JournalError, OSError) as e:
            log.error("cannot add the players' answer to match #%s: %s", filed[0].number, e)

    def _ask_again(self, records, match, filed: bool = False) -> bool:
        """After a restart: the journal's question without an answer is on
        screen again (``match``: the one the journal holds; ``filed``: it is
        in the history, over). Returns whether one was."""
        from .modes_match import ANSWERS

        f = self.flow
        asked = open_question(records)
        if asked is None or f.diagnosis is not None:
            return False  # nothing open, or the restart's own report asks already
        view = view_of(asked, ANSWERS)
        drops = len(match.results)
        if view is None or view.drop is None or not 1 <= view.drop <= drops:
            return False  # its drop is not on disk: the drop comes again, and asks again
        now = self.now()
        f.diagnosis, f.finished_round = view, match.results[-1].round
        self.asked_key = question_key(view)
        if filed:
            f.ended = match  # filed already: an answer files it no second time
            f.last_board = match.board.copy()
        elif not match.over and match.phase != PHASE_REVEAL:
            f._pause("mismatch", now)  # as the drop paused it (a round's last drop pauses nothing)
        f._go(Mode.MISMATCH, now)
        log.warning("drop %d of match %s was asked about when the table stopped; asked again: %s", view.drop,
                    getattr(self.journal, "match_id", "") or (self.filed[0].id if self.filed else "?"),
                    " ".join(view.findings or view.facts or (view.title,))[:200])
        return True

    def _ask_filed_again(self) -> None:
        """No match in progress: the match last filed, if its last drop's
        question was never answered, is on screen with it again."""
        from .history import history_files, read_summary
        from .journal import JournalError, read_journal
        from .replay import read_contents

        if self.store is None or self.flow.match is not None:
            return
        try:
            files = history_files(self.store.dir)
            if not files:
                return
            contents = read_contents(read_journal(files[-1]))
        except (JournalError, OSError) as e:
            log.warning("could not read the last filed match: %s", e)
            return
        m = contents.match
        if m is None or not m.over or contents.end is None or contents.end.get("result") != "finished":
            return
        if open_question(contents.good()) is None:
            return
        summary = read_summary(files[-1])
        self.filed = (summary, m)
        self.flow.begin(m, self.now(), resumed=True)
        self._apply_effects()
        if not self._ask_again(contents.good(), m, filed=True):
            self.flow.match, self.filed = None, None
            self.flow._go(Mode.MENU, self.now())


__all__ = ["ANSWER", "ASK", "QuestionsMixin", "ask_note", "open_question", "question_key", "view_of"]
