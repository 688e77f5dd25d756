"""The tabletop's match flow: a pure state machine between the board, the
buttons, the match and the screen.

Inputs arrive as method calls with the time passed in: button actions
(``on_action``), a coin seen entering (``on_entry``), hall readings
(``on_switch``), the reconciler's drop reports (``on_report``), the link going
down or up (``on_link``), and the passing of time (``tick``). ``view(now)``
is what the panel shows; ``effects`` is what the daemon must do (sounds,
LEDs, the dropper, the reconciler's belief, journalling a new match).

Scoring follows what the exits saw (the report's ``scored_exits``: the best
explanation of the cascade, so a coin a dead beam missed still scores), and
every mismatch is shown with its explanations and a way to undo the drop.
"""

from __future__ import annotations

from typing import Callable

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
    reveal_view,
    round_result_view,
    rules_text,
)
from ..engine import PHASE_REVEAL, BoardState, EngineError, Geometry, Match, MatchSetup, entry_label
from ..io import BACK, HOLD_SELECT, NEXT, PREV, SELECT
from . import effects as fx
from .effects import Effect
from .restore import restore_steps
from .setupmenu import HISTORY, PLAYER1, PLAYER2, RULES, START, Choices, NameEditor, SetupMenu

NOTE_SECONDS = 5.0  # how long a note about stray coins stays over the match screen
REVEAL_STEP = 0.12  # seconds per exit value in the reveal animation
PAUSE_ITEMS = ("Resume", "Undo last drop", "End match", "Rules")


class TableFlow:
    def __init__(
        self,
        geometry: Geometry,
        choices: Choices,
        *,
        new_seed: Callable[[], int],
        read_board: Callable[[], BoardState | None] = lambda: None,
        history: Callable[[], list[HistoryItem]] = lambda: [],
        has_dropper: bool = False,
        reveal_seconds: float = 6.0,
        result_seconds: float = 8.0,
    ):
        self.geometry = geometry
        self.menu = SetupMenu(choices)
        self.new_seed = new_seed
        self.read_board = read_board
        self.history = history
        self.has_dropper = has_dropper
        self.reveal_seconds = reveal_seconds
        self.result_seconds = result_seconds
        self.effects: list[Effect] = []
        self.match: Match | None = None
        self.mode = "menu"
        self.since = 0.0  # when the current mode began
        self.scroll = 0
        self.selected = 0
        self.editor: NameEditor | None = None
        self.message: MessageView | None = None
        self.diagnosis: DiagnosisView | None = None
        self.restore: list[str] = []
        self.hit_exits: tuple[int, ...] = ()
        self.pauses: set[str] = set()
        self.link_up = True
        self.link_detail = ""
        self.link_since = 0.0
        self.halls: dict[str, str] = {}
        self.finished_round = 0
        self.editing = 0  # which player's name the editor is changing
        self.back_to = "menu"  # where the Rules screen returns to
        self.restore_coins: tuple[BoardState, BoardState] | None = None
        self.message_until = 0.0

    # -- small helpers -------------------------------------------------------------

    def _go(self, mode: str, now: float) -> None:
        self.mode, self.since, self.scroll, self.selected = mode, now, 0, 0
        self.effects.append(Effect(fx.EXPECT, data=self.expecting))

    def _emit(self, kind: str, name: str = "", entry: int | None = None, data=None) -> None:
        self.effects.append(Effect(kind, name, entry, data))

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
        handler = getattr(self, "_act_" + self.mode.replace("-", "_"))
        handler(action, now)

    def on_switch(self, label: str, pos: str, now: float) -> None:
        self.halls[label] = pos
        if self.mode == "restore":
            self.restore = restore_steps(self.match.board, self.halls, self.restore_coins)

    def on_entry(self, entry: int, now: float) -> None:
        """A coin went into ``entry``: the clock stops while coins fall."""
        m = self.match
        if m is None or m.over or self.mode not in ("turn", "reveal", "mismatch"):
            return  # the reconciler reports it as a coin outside any drop
        if m.phase == PHASE_REVEAL:
            m.reveal_done(now)
            self._go("turn", now)
        m.coin_seen(now)
        self._emit(fx.LED, "off", entry)

    def on_report(self, report, now: float) -> None:
        """A reconciled drop (or events outside any drop)."""
        m = self.match
        if report.drop is None or m is None or m.over:
            where = ", ".join(_label(e) for e in report.events[:3]) or "the board"
            self.message = MessageView("Not a drop", f"Seen: {where}. A hand in the board?", alert=True)
            self.message_until = now + NOTE_SECONDS
            self._emit(fx.SOUND, "error")
            return
        forced = m.forced_entry
        exits = tuple(report.scored_exits if report.scored_exits is not None else report.observed_exits)
        belief = BoardState.parse(report.state, self.geometry) if report.state else None
        result = m.record(report.entry, exits, belief, now)
        self.hit_exits = result.exits
        self._emit(fx.LEDS_OFF)
        findings = [f.say if hasattr(f, "say") else str(f) for f in report.diagnosis[:3]]
        if forced is not None and report.entry != forced:
            findings.insert(0, f"Coin in {entry_label(report.entry)}; the clock chose {entry_label(forced)}")
        if report.verdict != "ok" or findings:
            self.diagnosis = DiagnosisView(
                title="Check the board", findings=tuple(findings) or ("The board did something else",),
                options=("Board is right", "Undo last drop"), expected=tuple(report.expected_exits),
                observed=tuple(report.observed_exits), drop=report.drop,
            )
            self._emit(fx.SOUND, "mismatch")
        else:
            self._emit(fx.SOUND, "score" if result.points else "nothing")
        self._after_drop(result, now)

    def _after_drop(self, result, now: float) -> None:
        m = self.match
        if m.over:
            self._emit(fx.SOUND, "draw" if m.winner == "draw" else "match-won")
            self._emit(fx.END_MATCH, "finished")
            self.finished_round = result.round
            self._go("mismatch" if self.diagnosis else "round-result", now)
        elif m.phase == PHASE_REVEAL:
            self._emit(fx.SOUND, "round-over")
            self.finished_round = result.round
            self._go("mismatch" if self.diagnosis else "round-result", now)
        else:
            if result.last_drop:
                self._emit(fx.SOUND, "last-drop")
            if self.diagnosis:
                self._pause("mismatch", now)
                self._go("mismatch", now)

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

    def tick(self, now: float) -> None:
        m = self.match
        if self.message is not None and self.mode == "turn" and now >= self.message_until:
            self.message = None
        if self.mode == "reveal" and now - self.since >= self.reveal_seconds:
            self._start_turns(now)
        elif self.mode == "round-result" and now - self.since >= self.result_seconds and not m.over:
            self._go("reveal", now)
        elif self.mode == "turn" and m is not None and not self.pauses:
            forced = m.expire(now)
            if forced is not None:
                self._emit(fx.SOUND, "timeout")
                self._emit(fx.DROP if self.has_dropper else fx.LED, "blink", forced)

    # -- a match from start to end --------------------------------------------------------

    def start_match(self, now: float) -> None:
        c = self.menu.choices
        board = self.read_board()
        problem = _board_problem(board, self.geometry, c.variants.holes)
        if problem:
            self.message = MessageView("Before we start", problem, alert=True)
            return
        start = board.text() if board is not None else BoardState.empty(self.geometry).text()
        setup = MatchSetup(players=c.players, variants=c.variants, seed=self.new_seed(), clock=c.clock_seconds,
                           start=start, board=self.geometry.name)
        self.begin(Match(setup), now)

    def begin(self, match: Match, now: float, resumed: bool = False) -> None:
        """Run ``match`` (new, or replayed from the journal after a restart)."""
        self.match, self.pauses, self.diagnosis, self.hit_exits = match, set(), None, ()
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
        self.match.reveal_done(now)
        self._go("turn", now)
        if not self.link_up:
            self._pause("link", now)

    # -- per-mode actions -------------------------------------------------------------------

    def _act_menu(self, action: str, now: float) -> None:
        if self.message is not None:
            self.message = None
            if action in (SELECT, HOLD_SELECT):
                self.start_match(now)  # try again after the players fixed the board
            return
        chosen = self.menu.act(action)
        if chosen == START:
            self.start_match(now)
        elif chosen in (PLAYER1, PLAYER2):
            who = 0 if chosen == PLAYER1 else 1
            self.editor = NameEditor(f"Player {who + 1} name", self.menu.choices.players[who])
            self.editing = who
            self._go("names", now)
        elif chosen == RULES:
            self.back_to = "menu"
            self._go("rules", now)
        elif chosen == HISTORY:
            self._go("history", now)

    def _act_names(self, action: str, now: float) -> None:
        name = self.editor.act(action)
        if name is not None:
            if name:
                players = list(self.menu.choices.players)
                players[self.editing] = name
                if players[0] != players[1]:
                    self.menu.choices.players = tuple(players)
            self._go("menu", now)

    def _act_rules(self, action: str, now: float) -> None:
        if action == NEXT:
            self.scroll += 1
        elif action == PREV:
            self.scroll = max(0, self.scroll - 1)
        else:
            self._go(self.back_to, now)

    def _act_history(self, action: str, now: float) -> None:
        items = self.history()
        if action in (NEXT, PREV) and items:
            self.selected = (self.selected + (1 if action == NEXT else -1)) % len(items)
        elif action in (BACK, SELECT, HOLD_SELECT):
            self._go("menu", now)

    def _act_reveal(self, action: str, now: float) -> None:
        if action in (SELECT, HOLD_SELECT):
            self._start_turns(now)

    def _act_turn(self, action: str, now: float) -> None:
        if self.message is not None:
            self.message = None
            return
        if action == BACK:
            self._pause("player", now)
            self._go("paused", now)

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
        elif choice == "End match":
            self._emit(fx.END_MATCH, "abandoned")
            self.match = None
            self.pauses = set()
            self._go("menu", now)
        elif choice == "Rules":
            self.back_to = "paused"
            self._go("rules", now)

    def _act_mismatch(self, action: str, now: float) -> None:
        d = self.diagnosis
        if action in (NEXT, PREV):
            self.diagnosis = DiagnosisView(d.title, d.findings, d.options, (d.selected + (1 if action == NEXT else -1)) % len(d.options),
                                           d.expected, d.observed, d.drop)
            return
        if action not in (SELECT, HOLD_SELECT, BACK):
            return
        choice = d.options[d.selected] if action != BACK else "Board is right"
        self.diagnosis = None
        if choice == "Undo last drop":
            self._undo(now)
            return
        self._resume("mismatch", now)
        m = self.match
        if m.over or m.phase == PHASE_REVEAL:
            self._go("round-result", now)
        else:
            self._go("turn", now)

    def _undo(self, now: float) -> None:
        m = self.match
        before = m.board.copy()
        try:
            m.undo(now)
        except EngineError as e:
            self.message = MessageView("Cannot undo", str(e), alert=True)
            self._resume("player", now)
            self._go("turn", now)
            return
        self.restore_coins = (before, m.board.copy())
        self._emit(fx.BELIEF, data=m.board)
        self.pauses.discard("mismatch")
        self.restore = restore_steps(m.board, self.halls, self.restore_coins)
        self._go("restore", now)

    def _act_restore(self, action: str, now: float) -> None:
        if action in (SELECT, HOLD_SELECT):
            switches_left = [s for s in self.restore if s.startswith("Flip")]
            if switches_left and self.halls:
                return  # the hall sensors still see switches to put back
            self.restore = []
            self._resume("player", now)
            self._resume("mismatch", now)
            self._go("reveal" if self.match.phase == PHASE_REVEAL else "turn", now)

    def _act_round_result(self, action: str, now: float) -> None:
        if action in (SELECT, HOLD_SELECT):
            if self.match.over:
                self._go("result", now)
            else:
                self._go("reveal", now)

    def _act_result(self, action: str, now: float) -> None:
        if action in (SELECT, HOLD_SELECT, BACK):
            self.match = None
            self._go("menu", now)

    # -- what the panel shows ------------------------------------------------------------------

    def view(self, now: float):
        m = self.match
        if m is not None and not self.link_up and self.mode in ("turn", "reveal"):
            return ConnectionView(detail=self.link_detail or "reconnecting", since=max(0.0, now - self.link_since))
        if self.message is not None and self.mode in ("menu", "turn"):
            return self.message
        mode = self.mode
        if mode == "menu":
            return self.menu.view()
        if mode == "names":
            return self.editor.view()
        if mode == "rules":
            return TextView("Rules", rules_text(), self.scroll)
        if mode == "history":
            items = self.history()
            return HistoryView("History", tuple(items), min(self.selected, max(0, len(items) - 1)))
        if mode == "reveal":
            shown = min(16, int((now - self.since) / REVEAL_STEP))
            return reveal_view(m, shown)
        if mode == "turn":
            return match_view(m, now, hit_exits=self.hit_exits)
        if mode == "paused":
            return MenuView("Paused", tuple(MenuItem(i) for i in PAUSE_ITEMS), self.selected, "press: choose")
        if mode == "mismatch":
            return self.diagnosis
        if mode == "restore":
            lines = self.restore or ["Board matches.", "Press to play on."]
            return MessageView("Put the board back", "\n".join(lines[:4]), alert=bool(self.restore))
        if mode == "round-result":
            return round_result_view(m, self.finished_round)
        if mode == "result":
            return match_result_view(m)
        raise EngineError(f"no view for mode {mode!r}")


def _label(ev) -> str:
    kind = getattr(ev, "kind", "")
    if kind == "exit":
        return f"exit {ev.exit + 1}"
    if kind == "entry":
        return f"entry {ev.entry + 1}"
    if kind == "switch":
        return f"{ev.switch} {ev.pos}"
    return kind


def _board_problem(board: BoardState | None, geometry: Geometry, holes: bool) -> str:
    """Why the board cannot start a match as it stands ('' when it can)."""
    if board is None:
        return ""
    present = set(board.holes())
    wanted = set(geometry.holes) if holes else set()
    take_out = sorted(wanted - present)
    put_back = sorted(present - wanted)
    if take_out:
        return "Holes: take out " + ", ".join(take_out) + ", then press."
    if put_back:
        return "Put back " + ", ".join(put_back) + " (no Holes), then press."
    return ""
