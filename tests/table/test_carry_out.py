"""The daemon carries out every typed effect through one catalog, a row per
effect class: a new effect without its row fails here."""

from __future__ import annotations

import logging

import pytest

from coindrel.table import effects as fx
from coindrel.table.carry_out import HANDLERS, EffectsMixin, carries


def effect_classes(cls=fx.Effect):
    """The package's effect classes (a test's toy effect may still be alive)."""
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("coindrel."):
            yield sub
        yield from effect_classes(sub)


def test_every_effect_class_has_a_handler():
    classes = set(effect_classes())
    assert len(classes) >= 9
    missing = sorted(c.__name__ for c in classes if c not in HANDLERS)
    assert not missing, f"effects with no handler in carry_out.HANDLERS: {missing}"
    assert {c.kind for c in classes} == set(fx.Kind), "an effect kind with no class"


def test_a_second_handler_for_one_effect_is_refused():
    with pytest.raises(ValueError, match="Sound already has a handler"):
        carries(fx.Sound)(lambda table, e, now: None)


class Rec:
    def __init__(self, log, part):
        self.log, self.part = log, part

    def __getattr__(self, name):
        return lambda *a, **k: self.log.append((self.part, name, a, k))


class Dropper(Rec):
    available = True


class Outputs:
    def __init__(self, log, dropper=True):
        self.buzzer, self.leds = Rec(log, "buzzer"), Rec(log, "leds")
        self.dropper = Dropper(log, "dropper") if dropper else type("D", (), {"available": False})()


class Flow:
    effects: list


class FakeTable(EffectsMixin):
    def __init__(self, outputs=True, dropper=True):
        self.log = []
        self.outputs = Outputs(self.log, dropper) if outputs else None
        self.display = Rec(self.log, "display")
        self.flow = Flow()

    def now(self):
        return 5.0

    def _hub_outputs(self, **kw):
        self.log.append(("hub", kw))

    def _new_match(self, match):
        self.log.append(("new_match", match))

    def _believe(self, board, halls_right=False, by_hand=frozenset(), unput=frozenset()):
        said = (tuple(sorted(by_hand)),) if by_hand else ()
        self.log.append(("believe", board, halls_right) + said + ((("unput", tuple(sorted(unput))),) if unput else ()))

    def _hands(self, on, steps=()):
        self.log.append(("hands", on) + ((steps,) if steps else ()))

    def _expect(self, on):
        self.log.append(("expect", on))

    def _end_match(self, how, match):
        self.log.append(("end_match", how, match))


def carry(table, *effects):
    table.flow.effects = list(effects)
    table._apply_effects()
    assert table.flow.effects == []
    return table.log


def test_each_effect_reaches_its_output_or_the_table_in_order():
    log = carry(FakeTable(), fx.Sound("score"), fx.Led(3, "blink"), fx.Led(2, "off"), fx.LedsOff(),
                fx.Drop(4), fx.Wake(), fx.NewMatch("M"), fx.Belief("B", halls_right=True),
                fx.Expect(1), fx.EndMatch("finished", "M"), fx.Hands(True, (("flip", 2, "L"),)), fx.Belief("C", by_hand=frozenset({3, 1})),
                fx.Hands(False), fx.Belief("D", unput=frozenset({7})))
    assert log == [
        ("buzzer", "play", ("score", 5.0), {}),
        ("leds", "blink", (3, 5.0), {}), ("hub", {"leds": [3]}),
        ("leds", "set", (2, False), {}), ("hub", {"leds": []}),
        ("leds", "clear", (), {}), ("hub", {"leds": []}),
        ("dropper", "drop", (4, 5.0), {}),
        ("display", "wake", (5.0,), {}),
        ("new_match", "M"), ("believe", "B", True), ("expect", True), ("end_match", "finished", "M"),
        ("hands", True, (("flip", 2, "L"),)), ("believe", "C", False, (1, 3)), ("hands", False),
        ("believe", "D", False, ("unput", (7,))),
    ]


def test_without_table_outputs_the_hub_gets_leds_and_the_dropper():
    assert carry(FakeTable(outputs=False), fx.Sound("x"), fx.Led(1, "on"), fx.Drop(6)) == [
        ("hub", {"leds": [1]}), ("hub", {"drop": 6})]
    assert carry(FakeTable(dropper=False), fx.Drop(2)) == [("hub", {"drop": 2})]


def test_a_failing_output_is_logged_and_the_next_effect_runs(caplog):
    t = FakeTable()
    t.outputs.buzzer = None  # .play raises AttributeError
    with caplog.at_level(logging.ERROR, "coindrel.table"):
        log = carry(t, fx.Sound("score"), fx.Expect(False))
    assert log == [("expect", False)]
    assert "could not carry out" in caplog.text
