"""What the buttons do outside a match: the setup menu, names, the Rules,
the history and the lessons (mixed into ``TableFlow``)."""

from __future__ import annotations

from ..display import LessonView, MenuItem, MenuView
from ..buttons import BACK, HOLD_SELECT, NEXT, PREV, SELECT
from .setupmenu import HISTORY, LESSONS, PLAYER1, PLAYER2, RULES, START, NameEditor


class MenuModes:
    def _act_menu(self, action: str, now: float) -> None:
        if self.message is not None:
            self.message = None
            if action in (SELECT, HOLD_SELECT):
                self.layout_confirmed = self.need_layout
                self.clear_confirmed = self.need_clear
                self.start_match(now)  # try again: the players fixed the board
            return
        chosen = self.menu.act(action)
        if chosen == START:
            self.start_match(now)
        elif chosen in (PLAYER1, PLAYER2):
            self.editing = 0 if chosen == PLAYER1 else 1
            self.editor = NameEditor(f"Player {self.editing + 1} name", self.menu.choices.players[self.editing])
            self._go("names", now)
        elif chosen == RULES:
            self.back_to = "menu"
            self._go("rules", now)
        elif chosen == HISTORY:
            self._go("history", now)
        elif chosen == LESSONS:
            self._go("lessons", now)

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

    # -- learn by playing ---------------------------------------------------------------

    def lessons_view(self) -> MenuView:
        titles = [lesson.title for lesson in self.lessons]
        return MenuView("Learn by playing", tuple(MenuItem(t) for t in titles), min(self.selected, len(titles) - 1),
                        "press: start  back: menu")

    def _act_lessons(self, action: str, now: float) -> None:
        n = len(self.lessons)
        if action in (NEXT, PREV):
            self.selected = (self.selected + (1 if action == NEXT else -1)) % n
        elif action == BACK:
            self._go("menu", now)
        elif action in (SELECT, HOLD_SELECT):
            from ..lessons import LessonRunner

            self.runner = LessonRunner(self.lessons[self.selected], positions={**self.read_positions(), **self.halls},
                                       halls=self.has_halls, beams=self.has_beams)
            self.lesson_index = self.selected
            self._go("lesson", now)

    def _act_lesson(self, action: str, now: float) -> None:
        # select: confirm / next; back: a step back; hold select: replay the step
        press = {SELECT: "select", BACK: "back", HOLD_SELECT: "replay"}.get(action)
        if press is not None:
            self.runner.press(press)
        elif action in (NEXT, PREV):
            self.scroll = max(0, self.scroll + (1 if action == NEXT else -1))
        if self.runner.finished:
            left = self.runner.coins
            if self.runner.touched:
                self.lesson_coins = None if left is None or self.lesson_coins is None else self.lesson_coins | left
            self.runner = None
            self._go("lessons", now)
            self.selected = self.lesson_index

    def lesson_view(self) -> LessonView:
        p = self.runner.prompt
        return LessonView(
            title=p.title or p.lesson, step=max(1, p.step or p.steps), steps=max(1, p.steps), text="\n".join(p.lines),
            board=p.board.text(), highlight=tuple(label for label, _ in p.switches), entry=p.entry,
            exits=tuple(sorted(set(p.outcome.exits))) if p.outcome is not None else (), scroll=self.scroll,
        )
