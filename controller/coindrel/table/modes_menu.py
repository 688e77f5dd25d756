"""The screens outside a match: the setup menu, names, the Rules, the
history and the lessons. One ``Screen`` per mode (catalog: ``screens.py``)."""

from __future__ import annotations

from ..buttons import BACK, HOLD_SELECT, NEXT, PREV, SELECT
from ..display import HistoryView, LessonView, MenuItem, MenuView, TextView, rules_text
from .modes import Mode, Screen
from .restore import Hand, HandStep
from .setupmenu import HISTORY, LESSONS, PLAYER1, PLAYER2, RULES, START, NameEditor


class Menu(Screen):
    mode = Mode.MENU
    messages = True

    def act(self, flow, press, now):
        if flow.message is not None:
            flow.message = None
            if press in (SELECT, HOLD_SELECT):
                flow.layout_confirmed = flow.layout_confirmed or flow.need_layout
                flow.clear_confirmed = flow.clear_confirmed or flow.need_clear
                flow.start_match(now)  # try again: the players fixed the board
            return
        chosen = flow.menu.act(press)
        if chosen == START:
            flow.start_match(now)
        elif chosen in (PLAYER1, PLAYER2):
            flow.editing = 0 if chosen == PLAYER1 else 1
            flow.editor = NameEditor(f"Player {flow.editing + 1} name", flow.menu.choices.players[flow.editing])
            flow._go(Mode.NAMES, now)
        elif chosen == RULES:
            flow.back_to = Mode.MENU
            flow._go(Mode.RULES, now)
        elif chosen == HISTORY:
            flow._go(Mode.HISTORY, now)
        elif chosen == LESSONS:
            flow._go(Mode.LESSONS, now)

    def view(self, flow, now):
        return flow.menu.view()

    def tick(self, flow, now, board_now):
        flow.offer_club_request(now)  # a club's match request waits for the menu

    def asking(self, flow):
        return flow.before_start if flow.message is not None else ()


class Names(Screen):
    mode = Mode.NAMES

    def act(self, flow, press, now):
        name = flow.editor.act(press)
        if name is not None:
            if name:
                players = list(flow.menu.choices.players)
                players[flow.editing] = name
                if players[0] != players[1]:
                    flow.menu.choices.players = tuple(players)
            flow._go(Mode.MENU, now)

    def view(self, flow, now):
        return flow.editor.view()


class Rules(Screen):
    mode = Mode.RULES
    aside = "the rules were on screen"

    def act(self, flow, press, now):
        if press == NEXT:
            flow.scroll += 1
        elif press == PREV:
            flow.scroll = max(0, flow.scroll - 1)
        else:
            flow._go(flow.back_to, now)

    def view(self, flow, now):
        return TextView("Rules", rules_text(), flow.scroll)


class History(Screen):
    mode = Mode.HISTORY

    def act(self, flow, press, now):
        items = flow.history()
        if press in (NEXT, PREV) and items:
            flow.selected = (flow.selected + (1 if press == NEXT else -1)) % len(items)
        elif press in (BACK, SELECT, HOLD_SELECT):
            flow._go(Mode.MENU, now)

    def view(self, flow, now):
        items = flow.history()
        return HistoryView("History", tuple(items), min(flow.selected, max(0, len(items) - 1)))


# -- learn by playing ---------------------------------------------------------------

class Lessons(Screen):
    mode = Mode.LESSONS

    def act(self, flow, press, now):
        n = len(flow.lessons)
        if press in (NEXT, PREV):
            flow.selected = (flow.selected + (1 if press == NEXT else -1)) % n
        elif press == BACK:
            flow._go(Mode.MENU, now)
        elif press in (SELECT, HOLD_SELECT):
            from ..lessons import LessonRunner

            labels = flow.geometry.labels
            positions = {**flow.read_positions(), **{labels[s]: pos for s, pos in flow.halls.items()}}
            flow.runner = LessonRunner(flow.lessons[flow.selected], positions=positions,
                                       halls=flow.has_halls, beams=flow.has_beams, replay_key="Hold the knob")
            flow.lesson_index = flow.selected
            flow._go(Mode.LESSON, now)

    def view(self, flow, now):
        titles = [lesson.title for lesson in flow.lessons]
        return MenuView("Learn by playing", tuple(MenuItem(t) for t in titles), min(flow.selected, len(titles) - 1),
                        "press: start  back: menu")


class Lesson(Screen):
    mode = Mode.LESSON

    def act(self, flow, press, now):
        # select: confirm / next; back: a step back; hold select: replay the step
        said = {SELECT: "select", BACK: "back", HOLD_SELECT: "replay"}.get(press)
        if said is not None:
            flow.runner.press(said)
            flow.scroll = 0  # the next screen (or this one again) is read from its top
        elif press in (NEXT, PREV):
            flow.scroll = max(0, flow.scroll + (1 if press == NEXT else -1))
        if flow.runner.finished:
            left = flow.runner.coins  # the lesson's labels; numbers from here on
            left = None if left is None else frozenset(flow.geometry.index(label) for label in left)
            if flow.runner.touched:
                flow.lesson_coins = None if left is None or flow.lesson_coins is None else flow.lesson_coins | left
            flow.runner = None
            flow._go(Mode.LESSONS, now)
            flow.selected = flow.lesson_index

    def view(self, flow, now):
        p = flow.runner.prompt
        return LessonView(
            title=p.title or p.lesson, step=max(1, p.step or p.steps), steps=max(1, p.steps), text="\n".join(p.lines),
            # the entry is pointed at once the set-up is done: a pointer on the set-up screens read as
            # "drop now", and the coin went in before the coins screen was done with
            board=p.board.text(), highlight=tuple(label for label, _ in p.switches),
            entry=None if p.phase in ("switches", "coins") else p.entry,
            exits=tuple(sorted(set(p.outcome.exits))) if p.outcome is not None else (), scroll=flow.scroll,
        )

    def tick(self, flow, now, board_now):
        if flow.runner is not None and board_now is not None:
            flow.runner.tick(board_now)

    def asking(self, flow):
        runner = flow.runner
        if runner is None:
            return ()
        g, p = flow.geometry, runner.prompt
        steps = []
        for label, want in runner.still_to_set():  # the lesson's words name switches: numbers from here on
            s = g.index(label)
            if want == "none":
                steps.append(HandStep.on(g, Hand.TAKE_OUT, s))
            elif flow.halls.get(s) == "none":
                steps.append(HandStep.on(g, Hand.PUT_BACK, s, want))
            else:
                steps.append(HandStep.on(g, Hand.FLIP, s, want))
        if p.phase == "coins" and runner.coin_changes() is None:
            steps.append(HandStep(Hand.CLEAR_PADS))  # "no other coins": where they rest is not known
        steps += [HandStep.on(g, Hand.COIN_ON, g.index(label)) for label in p.coins]
        steps += [HandStep.on(g, Hand.COIN_OFF, g.index(label)) for label in p.remove]
        return tuple(steps)
