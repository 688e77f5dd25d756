"""``coindrel lesson``: list the lessons, or walk through one in the terminal.

The terminal stands in for the board: the engine plays each drop (the
person types an entry number) and a pair of virtual hands sets the switches
the lesson asks for, so a lesson's text can be read and checked without
hardware. The same runner drives the OLED on a real board.
"""

from __future__ import annotations

import sys

from ..boardview import board_text
from ..engine import BoardState, EngineError
from ..lessons import BACK, REPLAY, SELECT, LessonRunner, load_lesson, load_lessons
from ..lessons.hands import drop_events, hall_positions, setup_events
from ..lessons.runner import COINS, DONE, DROP, EXPLAIN, LEFT, SWITCHES

HELP = "list the lessons (How to Play > Learn by playing), or walk through one in the terminal"
DESCRIPTION = (
    "Without NAME, lists the lessons. With NAME (or a lesson file path), walks through it: each step's "
    "set-up, instruction and, after the drop the engine plays, the explanation. Keys: Enter = select "
    "(confirm / next; at a set-up the virtual hands set the board), 1-8 = drop a coin in that entry, "
    "r = replay the step, b = back, m LABEL = move a switch by hand, q = quit."
)


def add_arguments(p) -> None:
    p.add_argument("name", nargs="?", help="lesson name (e.g. drop-a-coin) or a lesson .toml file")
    p.add_argument("--ascii", action="store_true", help="plain ASCII board")
    p.add_argument("--no-board", action="store_true", help="do not draw the board (text only)")


def run(args, out=None, inp=None) -> int:
    out, inp = out or sys.stdout, inp or sys.stdin
    if not args.name:
        for lesson in load_lessons():
            kind = "extra " if lesson.extra else f"lesson {lesson.order}"
            out.write(f"{kind:<9} {lesson.name:<22} {lesson.title} ({len(lesson)} steps): {lesson.summary}\n")
        return 0
    return Walk(load_lesson(args.name), out, inp, unicode=not args.ascii, draw=not args.no_board).run()


class Walk:
    """The terminal walk: the board is the engine, the hands are virtual."""

    def __init__(self, lesson, out, inp, unicode: bool = True, draw: bool = True):
        self.lesson, self.out, self.inp, self.unicode, self.draw = lesson, out, inp, unicode, draw
        first = lesson.steps[0].state
        first.clear_coins_in_place()
        self.board: BoardState = first  # the "physical" board
        self.runner = LessonRunner(lesson, positions=hall_positions(self.board), settle=1.0, replay_key="Type r")
        self.t = 0.0
        self._shown = None
        self._done = False  # the player saw the lesson through to its end

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def show(self) -> None:
        p = self.runner.prompt
        key = (p.phase, p.step, p.lines)
        if key == self._shown:
            return
        self._shown = key
        if p.phase == LEFT:
            return
        head = f"[{p.lesson}" + (f" - step {p.step} of {p.steps}" if p.step else "") + f"] {p.title}"
        self.say("\n" + head)
        if self.draw and p.phase in (DROP, EXPLAIN, DONE):
            values = self.lesson.steps[max(p.step, 1) - 1].scoring.values
            self.say(board_text(p.board, values, "values", p.outcome, unicode=self.unicode))
        for line in p.lines:
            self.say("  | " + line)
        if p.matched is False:
            self.say("  (the board did something else: r = replay)")

    def feed(self, events) -> None:
        for ev in events:
            self.t = max(self.t, ev.t)
            self.runner.event(ev)
        self.t += self.runner.settle + 0.1
        self.runner.tick(self.t)

    def hands_set_up(self) -> None:
        """Set the switches the runner still asks for, then the coins."""
        p = self.runner.prompt
        if p.phase == SWITCHES and p.switches:
            for label, want in p.switches:
                if want == "none":
                    self.board.make_holes_in_place([label])
                else:
                    if self.board.is_hole(label):
                        self.board.codes[self.board.geometry.index(label)] = 0
                    self.board.set_pad(label, 0 if want == "L" else 1)
            self.say("  (hands: set " + ", ".join(f"{l} {w if w != 'none' else 'out'}" for l, w in p.switches) + ")")
            self.feed(setup_events(p.switches, self.t))
            if self.runner.prompt.phase == SWITCHES:  # no hall sensors: confirm
                self.runner.press(SELECT)
        elif self.runner.prompt.phase == COINS:
            step = self.runner.step
            g = self.board.geometry
            for i, label in enumerate(g.labels):
                if not self.board.is_hole(label):
                    want = label in step.coins
                    if self.board.has_coin(label) != want:
                        (self.board.place_coin if want else self.board.remove_coin)(label)
            self.say("  (hands: coins on " + (", ".join(step.coins) or "no pad") + ")")
            self.runner.press(SELECT)

    def run(self) -> int:
        while True:
            self.show()
            p = self.runner.prompt
            if p.phase == LEFT:
                self.say("Lesson finished." if self._done else "Left the lesson.")
                return 0
            self.out.write({SWITCHES: "set up [Enter]", COINS: "coins [Enter]", DROP: "entry 1-8",
                            EXPLAIN: "next [Enter] / r / b", DONE: "menu [Enter] / r"}.get(p.phase, ">") + " > ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                self.say("")
                return 0
            self.command(line.strip().lower(), p)

    def command(self, text: str, p) -> None:
        if text in ("q", "quit"):
            self.runner.phase = LEFT
        elif text in ("b", "back"):
            self.runner.press(BACK)
        elif text in ("r", "replay"):
            self.runner.press(REPLAY)
        elif text.startswith("m "):
            label = text[2:].strip().upper()
            try:
                side = self.board.pad(label)
            except EngineError as e:
                self.say(f"  {e}")
                return
            if side is None:
                self.say(f"  {label} is a hole")
                return
            self.board.set_pad(label, 1 - side)
            self.feed(setup_events([(label, "LR"[1 - side])], self.t))
        elif text.isascii() and text.isdigit() and len(text) <= 3 and p.phase == DROP:
            entry = int(text) - 1
            if not 0 <= entry < self.board.geometry.entry_count:
                self.say(f"  entries are 1-{self.board.geometry.entry_count}")
                return
            events = drop_events(self.board, [entry], self.t)
            self.board.drop_in_place([entry])
            self.feed(events)
        elif text == "":
            if p.phase in (SWITCHES, COINS):
                self.hands_set_up()
            else:
                if p.phase == DONE:
                    self._done = True
                self.runner.press(SELECT)
        else:
            self.say("  keys: Enter, 1-8 (at the drop), r, b, m LABEL, q")
