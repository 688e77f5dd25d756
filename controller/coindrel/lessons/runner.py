"""The lesson runner: a state machine with no I/O.

It takes board events (``coindrel.events``) and button actions (``select`` =
confirm/next, ``back``, ``replay``) and keeps a ``Prompt`` for the display.
Each step goes through these phases:

- ``switches``: the switches the step needs, compared with the hall sensors;
  the prompt lists those that still differ and moves on by itself when none
  do (without hall sensors the player confirms with select);
- ``coins``: which pads need a coin and which must be cleared (nothing
  senses resting coins, so the player confirms with select);
- ``drop``: the instruction; a coin seen entering (or any switch or exit
  event, should the entry beam miss it) starts ``falling``; without beams,
  select says the coin went in;
- ``falling``: events are gathered until the board has been quiet for
  ``settle`` seconds (``tick(now)``);
- ``explain``: what the drop did, in the game's words, computed with the
  engine from the board as set up; when the sensors saw something else,
  the prompt says so plainly and offers Replay.

After the last step comes ``done``; ``left`` means the player went back
past the first step. Lessons have no clock and never touch a match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..ai.hint import Hint, hint
from ..ai.search import Searcher
from ..engine import COIN, HOLE, PAD_R, BoardState, EngineError, Outcome, drop
from ..events import EntryEvent, ExitEvent, SwitchEvent
from .explain import Trace, explain, trace, wrap
from .loader import step_position
from .model import Lesson, LessonStep

SELECT, BACK, REPLAY = "select", "back", "replay"
ACTIONS = (SELECT, BACK, REPLAY)
SWITCHES, COINS, DROP, FALLING, EXPLAIN, DONE, LEFT = "switches", "coins", "drop", "falling", "explain", "done", "left"


@dataclass(frozen=True)
class Prompt:
    """What the display shows now. Entries are 0-based (people read +1)."""

    phase: str
    lesson: str  # the lesson's title
    step: int  # 1-based; 0 once the lesson is done or left
    steps: int
    title: str
    lines: tuple[str, ...]  # at most 21 characters each
    switches: tuple[tuple[str, str], ...]  # still to set: (label, "L" | "R" | "none")
    coins: tuple[str, ...]  # pads that need a coin put on
    remove: tuple[str, ...]  # pads whose coin must come off
    board: BoardState  # the board to draw
    outcome: Outcome | None = None  # after a drop: flips and exits to mark
    entry: int | None = None  # the entry the step asks for
    hint: Hint | None = None  # the look-ahead hint (hint steps)
    matched: bool | None = None  # after a drop: the board did what the engine said (None: unseen)
    actions: tuple[str, ...] = ACTIONS


def _side(code: int) -> str:
    return "none" if code == HOLE else "LR"[code & PAD_R]


def _want_text(pairs) -> list[str]:
    words = [f"{label}:{'out' if want == 'none' else want}" for label, want in pairs]
    return wrap(" ".join(words))


class LessonRunner:
    """Walks one lesson. ``positions`` are the hall readings now (label ->
    L/R/mid/none); ``halls``/``beams``: whether the board has hall sensors
    and entry/exit beams. ``settle``: quiet seconds that end a drop."""

    def __init__(self, lesson: Lesson, positions: Mapping[str, str] | None = None,
                 halls: bool = True, beams: bool = True, settle: float = 1.5,
                 replay_key: str = "Press replay"):
        self.lesson, self.halls, self.beams, self.settle = lesson, halls, beams, settle
        # how this place replays a step, in the words that ask for it: the panel has no replay button,
        # a person there holds the knob (a newcomer answered "replay?" with a press: the next step)
        self.replay_key = replay_key
        self.positions: dict[str, str] = dict(positions or {})
        self.coins: frozenset[str] | None = None  # believed resting coins; None: unknown
        self.touched = False  # coins were put on pads or dropped: the board is not as the lesson found it
        self.index = 0
        self.phase = SWITCHES
        self._drop: dict | None = None
        self._result: tuple | None = None
        self._hint: Hint | None = None
        self._note: list[str] = []  # said once on the next set-up screen
        self._start_step(0)

    # -- reading -------------------------------------------------------------------

    @property
    def step(self) -> LessonStep:
        return self.lesson.steps[self.index]

    @property
    def finished(self) -> bool:
        return self.phase == LEFT

    @property
    def prompt(self) -> Prompt:
        return self._prompt()

    def still_to_set(self) -> tuple[tuple[str, str], ...]:
        """Required switches whose hall reading differs (all of them without halls)."""
        if not self.halls:
            return self.step.required
        return tuple((label, want) for label, want in self.step.required if self.positions.get(label) != want)

    def coin_changes(self) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """(put on, take off) against the believed coins; None when unknown."""
        if self.coins is None:
            return None
        need = set(self.step.coins)
        return tuple(sorted(need - self.coins)), tuple(sorted(self.coins - need))

    # -- inputs --------------------------------------------------------------------

    def learn_positions(self, positions: Mapping[str, str]) -> Prompt:
        """Every switch's position from a snapshot: a step whose switches are
        already right goes on without anyone touching them."""
        if self.phase != FALLING:
            self.positions.update(positions)
            if self.phase == SWITCHES and self.halls and not self.still_to_set():
                self._note = []
                self._after_switches()
        return self.prompt

    def event(self, ev) -> Prompt:
        if isinstance(ev, SwitchEvent):
            self._on_switch(ev)
        elif isinstance(ev, EntryEvent):
            self._on_coin(ev, entry=ev.entry)
        elif isinstance(ev, ExitEvent):
            self._on_coin(ev, exit_=ev.exit)
        return self.prompt  # status events change nothing here

    def press(self, action: str) -> Prompt:
        if action not in ACTIONS:
            raise EngineError(f"unknown lesson action {action!r}; actions are {', '.join(ACTIONS)}")
        phase = self.phase
        if phase == LEFT:
            return self.prompt
        if action == BACK:
            if phase == DONE:
                self._start_step(len(self.lesson.steps) - 1)
            elif self.index == 0:
                self.phase = LEFT
            else:
                self._start_step(self.index - 1)
        elif action == REPLAY:
            self._start_step(0 if phase == DONE else self.index)
        elif phase == SWITCHES:
            if not self.halls:
                self._after_switches()
        elif phase == COINS:
            self.coins = frozenset(self.step.coins)
            self.touched = True
            self.phase, self._note = DROP, []
        elif phase in (DROP, FALLING) and not self.beams:
            if phase == DROP:  # nothing moved: the coin rests on a top pad (or no hall sees it)
                self._begin_drop(0.0)
            self._finish_drop()
        elif phase == EXPLAIN:
            if self.index + 1 < len(self.lesson.steps):
                self._start_step(self.index + 1)
            else:
                self.phase = DONE
        elif phase == DONE:
            self.phase = LEFT
        return self.prompt

    def tick(self, now: float) -> Prompt:
        """Time passes (the board's clock): a drop ends after ``settle`` quiet seconds."""
        if self.phase == FALLING and now - self._drop["last"] >= self.settle:
            self._finish_drop()
        return self.prompt

    # -- phases --------------------------------------------------------------------

    def _start_step(self, index: int) -> None:
        self.index = index
        self._drop = self._result = None
        self._note = []
        step = self.step
        self._hint = hint(step_position(step.state, step.scoring)) if step.show_hint else None
        self.phase = SWITCHES
        if self.halls and not self.still_to_set():
            self._after_switches()

    def _after_switches(self) -> None:
        changes = self.coin_changes()
        self.phase = DROP if changes is not None and not any(changes) else COINS

    def _on_switch(self, ev: SwitchEvent) -> None:
        before = dict(self.positions)
        self.positions[ev.switch] = ev.pos
        if self.phase == FALLING:
            self._drop["switches"].append(ev)
            self._drop["last"] = ev.t
        elif self.phase == SWITCHES and self.halls and not self.still_to_set():
            self._note = []
            self._after_switches()
        elif self.phase == DROP and ev.pos == "mid" and self.halls:
            # A rocker starting to move: a coin the entry beam missed (or that no
            # beam can see), or a hand; the drop's end tells which.
            self._begin_drop(ev.t, before)
            self._drop["switches"].append(ev)
        elif self.phase in (COINS, DROP) and self.halls:
            if dict(self.step.required).get(ev.switch, ev.pos) != ev.pos:
                self.phase = SWITCHES  # moved by hand: set it again

    def _on_coin(self, ev, entry: int | None = None, exit_: int | None = None) -> None:
        if self.phase == DROP:
            self._begin_drop(ev.t)
        if self.phase != FALLING:
            self.coins = None  # a coin fell outside a step's drop: resting coins may have moved
            if self.phase in (SWITCHES, COINS) and entry is not None:
                # a newcomer dropped as the diagram pointed, the coins screen still up: say why it is still up
                self._note = wrap("Too soon: set up first, then drop.")
            return
        if entry is not None:
            self._drop["entries"].append(entry)
        if exit_ is not None:
            self._drop["exits"].append(exit_)
        self._drop["last"] = ev.t

    def _begin_drop(self, t: float, start: Mapping[str, str] | None = None) -> None:
        self.phase = FALLING
        self.touched = True
        start = dict(self.positions if start is None else start)
        self._drop = {"entries": [], "exits": [], "switches": [], "last": t, "start": start}

    # -- the drop and its explanation ------------------------------------------------

    def _believed(self, start: Mapping[str, str]) -> BoardState:
        """The board as set up: the step's board, with every seated hall reading."""
        board = self.step.state
        if self.halls:
            g = board.geometry
            for i, label in enumerate(g.labels):
                pos = start.get(label)
                if board.codes[i] != HOLE and pos in ("L", "R"):
                    board.codes[i] = (board.codes[i] & COIN) | (PAD_R if pos == "R" else 0)
                elif pos == "none" and not board.codes[i] & COIN:
                    board.codes[i] = HOLE  # taken out (a step never asks for a coin there)
        return board

    def _observed_flips(self, start: Mapping[str, str]) -> dict[str, int]:
        seated = {label: pos for label, pos in start.items() if pos in ("L", "R")}
        flips: dict[str, int] = {}
        for ev in self._drop["switches"]:
            if ev.pos in ("L", "R"):
                before = seated.get(ev.switch)
                if before is not None and before != ev.pos:
                    flips[ev.switch] = flips.get(ev.switch, 0) + 1
                seated[ev.switch] = ev.pos
        return flips

    def _fits(self, tr: Trace, flips: dict[str, int], exits: list[int]) -> list[str]:
        """What differs between the engine's trace and the sensors (empty: it fits)."""
        diffs: list[str] = []
        if self.beams and sorted(exits) != list(tr.exits):
            seen = " ".join(str(x + 1) for x in sorted(exits)) or "none"
            said = " ".join(str(x + 1) for x in tr.exits) or "none"
            diffs += wrap(f"Exits seen: {seen}") + wrap(f"Engine said: {said}")
        if self.halls:
            labels = tr.labels
            start = self._drop["start"]
            for s, want in enumerate(tr.flips):
                label = labels[s]
                if start.get(label) not in ("L", "R"):
                    continue  # no seated reading before the drop: cannot count its flips
                got = flips.get(label, 0)
                if got == want:
                    continue
                if got == 0:
                    diffs.append(f"{label} did not flip.")
                elif want == 0:
                    diffs.append(f"{label} flipped too.")
                else:
                    diffs.append(f"{label}: {got} flips, not {want}")
            for label, pos in sorted(self.positions.items()):
                if pos == "mid" and label in dict(self.step.required):
                    diffs.append(f"{label} is not seated.")
        return diffs

    def _finish_drop(self) -> None:
        d = self._drop
        step, start = self.step, d["start"]
        believed = self._believed(start)
        flips = self._observed_flips(start)
        entries = list(d["entries"])
        seen_entry = bool(entries)
        if not entries:
            # No coin seen going in: the entry that explains what was seen,
            # the step's own entry first (also when nothing can be seen).
            order = [step.entry] + [e for e in range(believed.geometry.entry_count) if e != step.entry]
            fitting = [e for e in order if not self._fits(trace(believed, [e]), flips, d["exits"])]
            if not fitting and not d["exits"] and self.halls:
                # Rockers moved and no coin explains it: a hand. Set up again
                # if it moved a switch the step needs.
                self._drop = None
                if self.still_to_set():
                    self.phase, self._note = SWITCHES, wrap("A switch moved, but no coin came.")
                else:
                    self.phase = DROP
                return
            entries = [fitting[0] if fitting else step.entry]
        tr = trace(believed, entries)
        diffs = self._fits(tr, flips, d["exits"])
        sensed = self.halls or self.beams
        matched = not diffs if sensed else None
        on_plan = entries == [step.entry]
        scoring = step.scoring
        if diffs:
            lines = ["The board did", "something else:"] + diffs
            if not seen_entry and not d["exits"] and not flips:
                lines = ["No coin was seen.", "Did a switch move?"] + diffs
            lines += ["The engine expected:"] + explain(tr, scoring) + [f"{self.replay_key} to try", "this step again."]
            self.coins = None  # where coins rest is no longer known
        else:
            lines = explain(tr, scoring)
            if len(entries) > 1:
                lines = [f"{len(entries)} coins went in."] + lines
            if on_plan:
                lines += self._reply_lines(step) + list(step.after)
            else:
                lines += ["This step asks for", f"entry {step.entry + 1}. {self.replay_key}", "to try it again."]
            labels = believed.geometry.labels
            self.coins = frozenset(labels[i] for i, c in enumerate(tr.board.codes) if c != HOLE and c & COIN)
        if not seen_entry and self.beams and not diffs:
            lines += ["(The entry beam did", "not see the coin.)"]
        outcome = drop(believed, entries)
        self._result = (tuple(lines), matched, outcome, tr.board if not diffs else believed)
        self.phase = EXPLAIN

    def _reply_lines(self, step: LessonStep) -> list[str]:
        if not step.show_reply:
            return []
        nxt = step_position(step.state, step.scoring).play(step.entry).next
        if nxt is None:
            return ["The match is over."]
        _, e, p = max(Searcher(1).rate(nxt, 1), key=lambda r: (r[2], -r[1]))
        return ["Other player's best:", f"entry {e + 1}: {p} points"]

    # -- the prompt ----------------------------------------------------------------

    def _prompt(self) -> Prompt:
        lesson, steps = self.lesson, len(self.lesson.steps)
        if self.phase in (DONE, LEFT):
            lines = ("Lesson done!", "Select: back to the", "menu. Replay: again.") if self.phase == DONE else ("Lesson left.",)
            board = self._result[3] if self._result else self.step.state
            return Prompt(self.phase, lesson.title, 0, steps, lesson.title, lines, (), (), (), board,
                          actions=ACTIONS if self.phase == DONE else ())
        step = self.step
        common = dict(phase=self.phase, lesson=lesson.title, step=step.number, steps=steps, title=step.title,
                      entry=step.entry, hint=self._hint)
        if self.phase == SWITCHES:
            todo = self.still_to_set()
            head = self._note or [f"Set up {step.number} of {steps}:"]
            lines = head + (["Set switches:"] if self.halls else ["Check switches:"]) + _want_text(todo)
            lines.append("Then press select." if not self.halls else "(checked by sensor)")
            return Prompt(switches=todo, coins=(), remove=(), lines=tuple(lines), board=step.state, **common)
        if self.phase == COINS:
            changes = self.coin_changes()
            if changes is None:
                put, off = step.coins, ()
                lines = (["Coins only on:"] + wrap(" ".join(step.coins))) if step.coins else ["Take every coin", "off the pads."]
                if step.coins:
                    lines.append("No other coins.")
            else:
                put, off = changes
                lines = []
                if put:
                    lines += ["Put a coin on:" if len(put) == 1 else "Put coins on:"] + wrap(" ".join(put))
                if off:
                    lines += ["Take the coin off:" if len(off) == 1 else "Take coins off:"] + wrap(" ".join(off))
            lines = self._note + lines + ["Then press select."]
            return Prompt(switches=(), coins=tuple(put), remove=tuple(off), lines=tuple(lines), board=step.state, **common)
        if self.phase in (DROP, FALLING):
            lines = list(step.text)
            if self._hint is not None:
                lines.append(self._hint.short)
            if self.phase == FALLING:
                lines = ["Watching the board..."]
            return Prompt(switches=(), coins=(), remove=(), lines=tuple(lines), board=step.state, **common)
        lines, matched, outcome, board = self._result
        return Prompt(switches=(), coins=(), remove=(), lines=lines, board=board, outcome=outcome,
                      matched=matched, **common)
