"""docs/extending.md kept true: every file its checklists name exists, and
each worked example (a toy board source, fault, screen and lesson) goes
through the same registry or catalog the product uses, with nothing else
touched."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "extending.md"


def test_every_file_the_checklists_name_exists():
    text = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:controller|tests|systemd|docs)/[^`<>*\s]+|pyproject\.toml)`", text))
    assert len(named) >= 20, sorted(named)
    missing = sorted(p for p in named if not (ROOT / p.rstrip("/")).exists())
    assert not missing, f"docs/extending.md names files that are not there: {missing}"
    for section in ("## A board source", "## A fault", "## A screen", "## A lesson"):
        assert section in text and "*Worked example*" in text.split(section, 1)[1].split("\n## ", 1)[0], section


# -- a board source: one class, one registration ---------------------------------------

def test_a_toy_source_registered_by_name_is_what_the_config_and_make_source_build():
    from coindrel.sources import BACKENDS, BoardSource, Capabilities, Snapshot, make_source, register_source
    from coindrel.table.settings import parse_settings

    class ToySource(BoardSource):
        name = "toy"
        summary = "two exit beams on a breadboard"

        @classmethod
        def parse(cls, section):
            lanes = section.int("lanes", 2, lo=1, hi=16)
            section.check_unknown()
            return lanes

        @classmethod
        def from_settings(cls, settings, *, clock=None, **options):
            source = cls(clock)
            source.capabilities = Capabilities(exits=tuple(range(settings)))
            return source

        async def snapshot(self, timeout=None):
            return Snapshot(self.board_time())

    register_source("toy", ToySource)
    try:
        config = tomllib.loads('[storage]\nstate_dir = "/tmp/x"\n[board]\nsource = "toy"\n[board.toy]\nlanes = 3\n')
        s = parse_settings(config, "t.toml")
        assert s.board.source == "toy" and s.board.backend == 3
        assert make_source("toy", {"lanes": 5}).capabilities.exits == (0, 1, 2, 3, 4)
        with pytest.raises(Exception, match="lanes"):
            make_source("toy", {"lanes": 99})
    finally:
        BACKENDS.pop("toy")


# -- a fault: one row, its class, its hook ------------------------------------------------

def test_a_toy_fault_is_one_row_and_its_class_and_the_catalog_test_wants_its_hook(monkeypatch):
    from reconcile.test_catalog import test_every_row_has_its_class_hook_sentence_and_injection as row_is_complete

    from coindrel.engine import catalog, entry_label
    from coindrel.engine.faults import BY_NAME, Fault
    from coindrel.reconcile.search import HOOKS
    from coindrel.reconcile.sensors import derive

    row = catalog.Row("coin_wedged", catalog.Place.ENTRY, False, False, 0.01,
                      "A coin is wedged in {where}: push it through.", catalog.AsIf.REPORT)
    monkeypatch.setattr(catalog, "ROWS", catalog.ROWS + (row,))
    monkeypatch.setattr(catalog, "CATALOG", MappingProxyType({**catalog.CATALOG, row.name: row}))
    monkeypatch.setitem(BY_NAME, row.name, None)  # undone after the test

    @dataclass(frozen=True)
    class CoinWedged(Fault):
        entry: int
        name: ClassVar[str] = "coin_wedged"

        @property
        def where(self) -> str:
            return entry_label(self.entry)

    assert BY_NAME["coin_wedged"] is CoinWedged, "the class registers itself from its catalog name"
    assert "coin_wedged" in catalog.names(place=catalog.Place.ENTRY)
    assert catalog.sentence("coin_wedged", "entry 4") == "A coin is wedged in entry 4: push it through."
    with pytest.raises(AssertionError, match="no reporting hook"):
        row_is_complete(row)  # the catalog's own test: a row without its hook fails
    monkeypatch.setitem(HOOKS, "coin_wedged", derive)
    row_is_complete(row)


# -- a screen: a mode, its Screen, its row ----------------------------------------------------

class ToyMode(str, Enum):
    COUNTER = "toy-counter"


def test_a_toy_screen_added_through_the_catalog_is_a_mode_of_the_flow():
    from coindrel.display import MessageView, render
    from coindrel.engine import BoardState, standard_geometry
    from coindrel.table.flow import TableFlow
    from coindrel.table.modes import Mode, Screen, register
    from coindrel.table.screens import SCREENS
    from coindrel.table.setupmenu import Choices

    class Counter(Screen):
        mode = ToyMode.COUNTER
        aside = "the counter was on screen"

        def act(self, flow, press, now):
            if press == "next":
                flow.scroll += 1
            elif press == "back":
                flow._go(Mode.MENU, now)

        def view(self, flow, now):
            return MessageView("Counter", f"{flow.scroll} turns")

    register(Counter())
    try:
        with pytest.raises(ValueError, match="already has its screen"):
            register(Counter())
        flow = TableFlow(standard_geometry(), Choices(), new_seed=lambda: 1,
                         read_board=lambda: BoardState.empty(standard_geometry()))
        flow._go(ToyMode.COUNTER, 0.0)
        flow.on_action("next", 1.0)
        flow.on_action("next", 2.0)
        assert flow.mode == "toy-counter" and flow.view(2.0) == MessageView("Counter", "2 turns")
        assert render(flow.view(2.0)).getbbox() is not None
        assert not flow.expecting and flow.screen.aside == "the counter was on screen"
        flow.on_action("back", 3.0)
        assert flow.mode is Mode.MENU
    finally:
        SCREENS.pop(ToyMode.COUNTER)


def test_a_toy_effect_is_its_class_and_one_carries_row_the_daemon_dispatches_through():
    from coindrel.table import effects as fx
    from coindrel.table.carry_out import HANDLERS, EffectsMixin, carries

    @dataclass(frozen=True)
    class Chime(fx.Effect):
        kind: ClassVar[str] = "toy-chime"
        name: str

    heard = []

    @carries(Chime)
    def _chime(table, e, now):
        heard.append((e.name, now))

    class Daemon(EffectsMixin):  # only what carrying out needs of the daemon
        flow = type("Flow", (), {"effects": []})()

        def now(self):
            return 4.0

    try:
        d = Daemon()
        d.flow.effects = [Chime("ding")]
        d._apply_effects()
        assert heard == [("ding", 4.0)] and d.flow.effects == []
    finally:
        HANDLERS.pop(Chime)


# -- a lesson: one file ---------------------------------------------------------------------

TOY_LESSON = """
format = 1
title = "A toy lesson"
order = 9
extra = true
summary = "A pad catches a coin."

[[step]]
title = "Pads catch coins"
board = "RLLLLRLL/LLLLLLL/RLLLLLLL/LLLLLLL/RLLLLLLL"
text = ["Drop a coin in", "entry 3."]
entry = 3
after = ["It rests on the pad."]
[step.expect]
flips = []
exits = []
rests = ["R1S3"]
"""


def test_a_toy_lesson_is_one_file_checked_on_load_and_played_by_the_runner():
    from lessons.support import Table

    from coindrel.lessons import LessonError, parse_lesson
    from coindrel.lessons.runner import DONE, DROP, EXPLAIN

    lesson = parse_lesson(tomllib.loads(TOY_LESSON), "toy", "lessons/data/toy.toml")
    assert (lesson.title, lesson.extra, len(lesson.steps)) == ("A toy lesson", True, 1)
    table = Table(lesson)
    p = table.set_up()
    assert p.phase == DROP and p.entry == 2
    p = table.drop(2)
    assert p.phase == EXPLAIN and p.matched is True
    table.runner.press("select")
    assert table.prompt.phase == DONE
    wrong = TOY_LESSON.replace("exits = []", "exits = [5]")
    with pytest.raises(LessonError, match=r"step 1.*exits"):
        parse_lesson(tomllib.loads(wrong), "toy", "lessons/data/toy.toml")
