"""Coins and drops as they reach the flow (mixed into ``TableFlow``): a coin
seen going in, the reconciler's report of a drop (or of events outside any
drop), a coin whose drop never came back, and what follows a scored drop.

Scoring follows what the exits saw (the report's ``scored_exits``: the best
explanation of the cascade, so a coin a dead beam missed still scores), and
every mismatch is shown with its explanations and a way to undo the drop.
"""

from __future__ import annotations

import dataclasses

from ..display import DiagnosisView, MessageView, mismatch_view, revision_view, stray_view
from ..display.notices import said, seen_text
from ..reconcile.revise import TIED
from ..engine import PHASE_FALLING, PHASE_REVEAL, PHASE_TURN, BoardState, EngineError, catalog, entry_label
from . import effects as fx
from .modes import Mode
from .modes_match import ANSWERS, stale_question
from .modes_pads import moved_unseen

DROP_AGAIN = 6.0  # seconds after which a dropper coin nobody saw go in is dropped again


class DropInputs:
    def on_entry(self, entry: int, now: float) -> None:
        m = self.match
        if m is None or m.over:
            self.entry_t = None
            if self.mode is not Mode.LESSON:  # (a lesson keeps count of its own coins)
                self.coins_between = True  # the next match asks for the pads to be cleared
                self.clear_confirmed = False  # (again, if they were said clear before this coin)
            return
        # the turn's coin went in and is not yet reported: this one is a second coin in the same turn
        extra = m.phase == PHASE_FALLING and any(c[0] is m and not c[2] for c in self.coins_in)
        t, self.entry_t = self.entry_t, None  # the board time of its entry event (None: not from the board)
        self.coins_in.append((m, entry, extra, m.setup.players[m.to_move - 1], t))
        if self.coin_mode is None:
            self.coin_mode = self.mode  # out of turn unless the table was waiting for a drop
        if not extra:
            self.falling_entry = entry
        self.falling_since = now
        if self.mode is Mode.RESTORE:
            self.coin_before_put_back(t, now)
        if self.mode is Mode.REVEAL and m.phase == PHASE_REVEAL:
            m.reveal_done(now)
            self._go(Mode.TURN, now)
        m.coin_seen(now)
        self._emit(fx.Led(entry, "off"))
        if self.computer is not None and not self.has_dropper and not extra:
            as_asked, lines = self.computer.confirm(entry)
            if not as_asked:
                self._note(MessageView("Not my entry", "\n".join(lines), alert=True), now)

    def on_report(self, report, now: float) -> None:
        """A reconciled drop (or events outside any drop)."""
        m = self.match
        if report.drop is None and getattr(report, "revises", None) is not None:
            # a later drop re-explains an earlier mismatch (sensing.md §4, revisions): the same paged screen,
            # saying what it said before; a revision that keeps the first explanation only logs (a builder
            # reading the same sentence twice took it for a second fault)
            said_new = said(report.diagnosis[:1])
            before = self._told().get(report.revises)
            if said_new and said_new[0] == before:
                return
            if said_new:
                self._told()[report.revises] = said_new[0]
            self._note(revision_view(report.revises, report.diagnosis, before=before), now)
            return
        if report.drop is None and (self.mode is Mode.RESTORE or _before(report, self.restore_cut[0])):
            return  # hands putting the board back, as the table asked (until a coin went in)
        if report.drop is None and getattr(report, "carried", False):
            # the rest of a coin that fell before this match began: the belief follows, no alarm
            if m is not None and not m.over and report.state:
                belief = BoardState.parse(report.state, self.geometry)
                if belief.codes != m.board.codes:
                    m.set_board(belief, "changed outside a drop", now)
            return
        if report.drop is None or m is None or m.over:
            moved = moved_unseen(report) if m is not None and not m.over else ()
            if moved:
                # rockers the board, read again, shows moved while events were lost: named once on the
                # pads check, asked at once (modes_pads), and believed (below)
                self.moved_unseen = tuple(dict.fromkeys(self.moved_unseen + moved))
                self.pads_unknown = True
            else:
                over = ("The match is over: it scores nothing.",) if m is not None and m.over else ()
                self._note(stray_view(report, facts=over), now)
                self._emit(fx.Sound("error"))
            if m is not None and not m.over and report.state:
                # the belief follows the board into the journal, or a restart would forget it
                belief = BoardState.parse(report.state, self.geometry)
                if belief.codes != m.board.codes:
                    where = ", ".join(seen_text(e) for e in report.events[:3]) or "the board"
                    m.set_board(belief, f"changed outside a drop: {where}", now)
            return
        extra = self._extra_coin(report)
        if extra is not None:
            self._score_extra(report, extra, now)
            return
        coin_screen = self.screen_of(self.coin_mode or self.mode)
        self.coin_mode = None
        self.falling_entry = None
        forced = m.forced_entry
        exits = tuple(report.scored_exits if report.scored_exits is not None else report.observed_exits)
        belief = BoardState.parse(report.state, self.geometry) if report.state else None
        result = m.record(report.entry, exits, belief, now)
        # when that coin's own cascade ended, on the board's clock: not the end of its group, which a
        # next coin may have joined (an unplug left a coin unseen on a pad, so the group waited for it)
        self.turn_end = getattr(report, "t_last", None) or getattr(report, "t_end", None) or None
        self.hit_exits, self.computer = result.exits, None
        self._emit(fx.LedsOff())
        facts = []
        if coin_screen.mode is Mode.RESTORE:
            facts.extend(self.put_back_facts(report, m.setup.players[result.player - 1]))
        elif not coin_screen.in_turn:
            name = m.setup.players[result.player - 1]
            facts.append(coin_screen.coin_in(name))
        if forced is not None and report.entry != forced:
            facts.append(f"Coin in {entry_label(report.entry)}; the clock chose {entry_label(forced)}.")
        self.blamed_halls = blamed_halls(report, self.geometry) | self.lying_halls()
        self.suspect_halls = blamed_halls(report, self.geometry, SUSPECTED) | self.blamed_halls
        if report.verdict != "ok" or facts or report.diagnosis:
            self.diagnosis = mismatch_view(report, findings=report.diagnosis[:3], facts=tuple(facts), options=ANSWERS)
            if self.diagnosis.drop != len(m.results):  # the match's count (a restarted reconciler counts anew)
                self.diagnosis = dataclasses.replace(self.diagnosis, drop=len(m.results))
            if self.diagnosis.findings and report.diagnosis:
                self._told()[len(m.results)] = self.diagnosis.findings[0]
            self._emit(fx.Sound("mismatch"))
        else:
            self._emit(fx.Sound("score" if result.points else "nothing"))
            self.diagnosis = stale_question(self.diagnosis, len(m.results))
        self._after_drop(result, now)

    def _told(self) -> dict[int, str]:
        """The first explanation the players were shown for each drop of this
        match (its number -> the sentence), which a revision is read against."""
        if self.told[0] is not self.match:
            self.told = (self.match, {})
        return self.told[1]

    def is_extra_coin(self, report) -> bool:
        """Whether ``report`` is a second coin in its turn (it scores nothing,
        so it is no drop of the match); nothing changes."""
        if not report.entry_seen:
            return False
        for coin in self.coins_in:
            if coin[0] is self.match and coin[1] == report.entry:
                return self._still_extra(coin)
        return False

    def _still_extra(self, coin) -> bool:
        """A coin that went in while its turn's coin fell stays a second coin
        only if that coin's cascade had not ended by board time: on a slow
        machine the verdict comes late, and a coin dropped after the last one
        landed is the next turn's (a served board lost 9 of 86 drops so)."""
        _m, _entry, extra, _who, t = coin
        end = self.turn_end
        return extra and not (t is not None and end is not None and t > end)

    def _extra_coin(self, report):
        """The dropper's name if the reported coin is a second one that went in
        while its turn's coin still fell, else None. Reports come in the order
        the coins went in; queued coins before this one were lost by the board."""
        queue = [c for c in self.coins_in if c[0] is self.match]
        if not report.entry_seen:
            self.coins_in = queue
            return None
        for k, coin in enumerate(queue):
            if coin[1] == report.entry:
                self.coins_in = _less_a_repeat(queue[k + 1:], report)
                return coin[3] if self._still_extra(coin) else None
        self.coins_in = queue
        return None

    def _score_extra(self, report, who: str, now: float) -> None:
        """A second coin in one turn is out of turn (rules.md §1: one coin a
        turn): the board follows what it did, it scores for nobody, and the
        player to move still has their own turn. The players are told, so a
        coin that was meant as the next turn can be dropped again."""
        m = self.match
        if report.state:
            belief = BoardState.parse(report.state, self.geometry)
            if belief.codes != m.board.codes:
                m.set_board(belief, f"extra coin in {entry_label(report.entry)} while {who}'s coin fell "
                                    f"(out of turn, scored nothing)", now)
        exits = tuple(report.scored_exits if report.scored_exits is not None else report.observed_exits)
        where = " ".join(str(x + 1) for x in sorted(exits)) or "none"
        # "Bo to drop" only while it is so: not once Bo's coin is in (it may be, before these reports come)
        nxt = f" {m.setup.players[m.to_move - 1]} to drop." if m.phase == PHASE_TURN and not m.over else ""
        turn = (id(m), len(m.results))
        shown = self.note is not None and now < self.note_until and self.note.title.lower().startswith(("extra coin", f"{self.extras[1]} extra"))
        n = self.extras[1] + 1 if shown and self.extras[0] == turn else 1
        self.extras = (turn, n)
        if n > 1:
            # a handful: one note counting them (each replaced the last, and 7 extra coins read as one)
            title, text = f"{n} extra coins", (f"Out of turn: {n} extra coins while {who}'s coin fell, the last in "
                                               f"{entry_label(report.entry)}. They score nothing; the board follows them.")
        else:
            title, text = "Extra coin", (f"Out of turn: a second coin in {entry_label(report.entry)} while {who}'s coin "
                                         f"fell. It scores nothing (exits {where}); the board follows it.")
        self._note(MessageView(title, text + nxt, alert=True), now)
        if nxt:
            self.extras_note = (self.note, MessageView(title, text, alert=True))
        self._emit(fx.Sound("mismatch"))

    def extras_note_over(self) -> None:
        """The extra coins' note names the player to move for that turn only:
        once the turn has moved on (a drop scored, or undone) it says the rest
        for its few seconds, without "Bo to drop" (which stayed up while Ann was to move)."""
        shown, plain = self.extras_note
        if shown is None:
            return
        m = self.match
        if self.note is not shown:
            self.extras_note = (None, None)
        elif m is None or (id(m), len(m.results)) != self.extras[0] or m.phase != PHASE_TURN:
            self.note, self.extras_note = plain, (None, None)

    def coin_unaccounted(self, now: float) -> None:
        """A coin went in, but its drop never came back from the board (the
        hub lost the events: unplugged, reset, a restart while it fell). The
        table never waits for it for ever: the drop scores as the engine
        predicts from the board as believed, and the players are asked to
        check it; a coin whose entry is unknown gives the turn back."""
        m, entry = self.match, self.falling_entry
        self.coin_mode, self.falling_entry = None, None
        self.coins_in = []  # the board lost what was falling; its extra coins with it
        if entry is None:
            m.coin_lost(now)
            self._note(MessageView("Coin lost", "A coin went in, but the board lost it. Drop again.", alert=True), now)
            self._emit(fx.Sound("error"))
            return
        result = m.play(entry, now)
        self.hit_exits, self.computer = result.exits, None
        self._emit(fx.LedsOff())
        self._emit(fx.Belief(m.board))
        exits = " ".join(str(x + 1) for x in result.exits) or "none"
        self.diagnosis = DiagnosisView(
            title="Check board", options=ANSWERS, drop=len(m.results),
            findings=(f"The board's events for this drop were lost (the hub was away). It was scored as the "
                      f"engine predicts: {entry_label(entry)} to exits {exits}. Check the board, and correct "
                      f"the score if the coins went elsewhere.",),
        )
        self._emit(fx.Sound("mismatch"))
        self._after_drop(result, now)

    def _after_drop(self, result, now: float) -> None:
        m = self.match
        self.extras_note_over()
        if m.over or m.phase == PHASE_REVEAL:
            if not m.over:
                self._emit(fx.Sound("round-over"))
            else:
                self.match_ended()  # filed now, even while its last drop's mismatch is asked about
            self.finished_round = result.round
            self._go(Mode.MISMATCH if self.diagnosis else Mode.ROUND_RESULT, now)
            return
        if result.last_drop:
            self._emit(fx.Sound("last-drop"))
        if self.diagnosis:
            self._pause("mismatch", now)
            self._go(Mode.MISMATCH, now)

    def match_ended(self) -> None:
        """The match is over: its end is filed, once, as it ends (the history
        and the status agree at once). While its last drop's mismatch is
        asked about, "Undo last drop" or "Correct score" there reopens it
        (``reopen_ended``): the drop played again goes into the same journal."""
        m = self.match
        if m is None or not m.over or self.ended is m:
            return
        self.ended = m
        if not self.diagnosis:
            self._emit(fx.Sound("draw" if m.winner == "draw" else "match-won"))
        self._emit(fx.EndMatch("finished", m))
        self.last_board = m.board.copy()

    def reopen_ended(self) -> None:
        """The filed match's last drop is undone or corrected: it is not over
        any more (or will end again with another score): file it again later."""
        m = self.match
        if m is not None and self.ended is m:
            self.ended = None
            self.last_board = None
            self._emit(fx.ReopenMatch(m))

    def _drop_again(self, now: float) -> None:
        """The dropper's coin was never seen (it fell while the hub was away,
        or the coin jammed in the dropper): drop again, as a person would."""
        m = self.match
        if not self.has_dropper or self.keyed or m.phase != PHASE_TURN or not self.link_up:
            return
        entry = m.forced_entry if m.forced_entry is not None else (
            self.computer.entry if self.computer is not None and self._computer_to_move() else None)
        if entry is not None and now - max(self.dropped_t, self.link_since) >= DROP_AGAIN:
            self._emit(fx.Drop(entry))
            self.dropped_t = now


# A hall the diagnosis on screen holds lying at least this surely (the
# reconciler's own "not a tie", reconcile.revise.TIED); a hall fault less sure
# than that (pads nobody saw after an outage, say) is the players' to deny.
BLAMED = TIED


# A hall any explanation of the drop names (lying, or its rocker unseated):
# undoing that drop, the put-back lists its rocker to check by eye.
SUSPECTED = 0.0


def blamed_halls(report, geometry, sure: float = BLAMED) -> frozenset:
    """The switches whose hall sensor ``report``'s diagnosis holds lying (its
    first explanation, and its hall_fault findings at ``sure`` or more):
    "Board is right", which is also the mismatch screen's back button, does
    not take their readings. The first explanation at any confidence: the
    screen named that hall lying, and a newcomer's "Board is right" on a hall
    tied with a stuck rocker took the lying reading (R2S3 right with a coin on
    it, the rocker left), and the next mismatch was blamed on a jam that was
    not there. With ``sure`` SUSPECTED, every hall a finding doubts (unseated
    rockers too)."""
    out = set()
    doubted = (catalog.HALL_FAULT,) if sure > SUSPECTED else (catalog.HALL_FAULT, catalog.SWITCH_UNSEATED)
    for i, f in enumerate(getattr(report, "diagnosis", None) or ()):
        fault = getattr(f, "fault", None)
        name = getattr(fault, "name", None)
        if name in doubted and (f.confidence >= sure or (i == 0 and name == catalog.HALL_FAULT)):
            try:
                out.add(geometry.index(fault.switch))
            except EngineError:
                pass
    return frozenset(out)


def _less_a_repeat(queue: list, report) -> list:
    """The coins still to be reported, less the count of this drop's entry that
    its beam made twice: a drop explained by a chattering entry beam took that
    count as a repeat of its own coin, and no report comes for it. Kept, it
    waited as a second coin, and the next turn's coin there was taken for it:
    scored as nothing, its own drop then "lost" (a newcomer's single chattering
    beam named five faults and scored drops as predicted)."""
    faults = [(getattr(f, "fault", f), getattr(f, "confidence", 0.0)) for f in report.diagnosis or ()]
    if not any(getattr(fault, "name", None) == catalog.ENTRY_SENSOR_CHATTER and p >= 0.5
               and getattr(fault, "entry", None) == report.entry for fault, p in faults):
        return queue
    end = getattr(report, "t_last", 0.0) or getattr(report, "t_end", 0.0)
    for k, coin in enumerate(queue):
        if coin[1] == report.entry and coin[2] and (coin[4] is None or coin[4] <= end):
            return queue[:k] + queue[k + 1:]
    return queue


def _before(report, t) -> bool:
    """``report``'s events all came before board time ``t`` (None: never)."""
    end = getattr(report, "t_end", None)
    return t is not None and end is not None and end <= t
