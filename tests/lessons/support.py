"""A physical board for lesson tests: the engine plays it, virtual hands set it."""

from coindrel.engine import BoardState
from coindrel.lessons import SELECT, LessonRunner
from coindrel.lessons.hands import drop_events, hall_positions, setup_events
from coindrel.lessons.runner import COINS, SWITCHES


class Table:
    def __init__(self, lesson, board: BoardState | None = None, **options):
        self.lesson = lesson
        if board is None:
            board = lesson.steps[0].state
            board.clear_coins_in_place()
        self.board = board
        self.runner = LessonRunner(lesson, positions=hall_positions(board), **options)
        self.t = 0.0

    @property
    def prompt(self):
        return self.runner.prompt

    def feed(self, events, settle=True):
        for ev in events:
            self.t = max(self.t, ev.t)
            self.runner.event(ev)
        if settle:
            self.t += self.runner.settle + 0.01
            self.runner.tick(self.t)
        return self.prompt

    def set_switches(self, todo=None):
        todo = self.prompt.switches if todo is None else todo
        for label, want in todo:
            if want == "none":
                self.board.make_holes_in_place([label])
            else:
                if self.board.is_hole(label):
                    self.board.codes[self.board.geometry.index(label)] = 0
                self.board.set_pad(label, "LR".index(want))
        return self.feed(setup_events(todo, self.t + 1), settle=False)

    def set_coins(self, coins):
        for label in self.board.geometry.labels:
            if not self.board.is_hole(label) and self.board.has_coin(label) != (label in coins):
                (self.board.place_coin if label in coins else self.board.remove_coin)(label)

    def set_up(self):
        """Do what the set-up screens ask, until the drop is asked for."""
        for _ in range(3):
            p = self.prompt
            if p.phase == SWITCHES:
                self.set_switches()
                if not self.runner.halls:
                    self.runner.press(SELECT)
            elif p.phase == COINS:
                self.set_coins(self.runner.step.coins)
                self.runner.press(SELECT)
        return self.prompt

    def drop(self, entry, events=None):
        events = drop_events(self.board, [entry], self.t + 1) if events is None else events
        self.board.drop_in_place([entry])
        return self.feed(events)
