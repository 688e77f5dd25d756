"""A rocker that will not seat on one side (warped, debris in that seat),
sensing.md's ``switch_unseated``: its hall reads ``mid`` whenever it is on that
side, and its other side properly (issue 13, h17n; logs cut from board5).

The log ``unseated_there_and_back.jsonl``: R5S7 sits on R; two coins turn it
to L and back in one group. Its hall reads ``mid`` (it left R, never reached
L's band) then R: no settled change, two flips. Before, only ``hall_fault``
0.89 was listed (a hall that missed two flips); a drifted hall that reads L as
``mid`` shows the same, so the two are listed, ranked by prior."""

from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

LOGS = Path(__file__).parent / "logs"


def _records(name: str, drop=lambda line: False):
    lines = [x for x in (LOGS / name).read_text(encoding="utf-8").splitlines() if not drop(x)]
    _, reports = reconcile_log(load(lines))
    return [r.to_json() for r in reports]


def _ranked(r) -> list:
    return [(d["fault"], d["where"]) for d in r["diagnosis"]]


def test_mid_then_its_side_again_over_two_flips_is_an_unseated_rocker_or_a_hall():
    out = _records("unseated_there_and_back.jsonl")
    flagged = [r for r in out if r["verdict"] == "mismatch"]
    assert flagged and all(r["drop"] is not None for r in flagged)
    for r in flagged:
        assert _ranked(r)[:2] == [("switch_unseated", "R5S7"), ("hall_fault", "R5S7")]


def test_the_pattern_is_one_mid_spell_per_two_flips_and_never_the_other_side():
    from coindrel.reconcile.sensors import _visits_unseated

    spell = [(1.0, "mid"), (1.1, "R")]
    assert _visits_unseated(spell, "R", 2)
    assert _visits_unseated(spell * 2, "R", 4)
    assert not _visits_unseated(spell * 2, "R", 2)  # two twitches for two coins: a sticky pivot, not this
    assert not _visits_unseated(spell, "R", 1)  # an odd count cannot end where it began
    assert not _visits_unseated([(1.0, "mid"), (1.05, "L"), (1.1, "mid"), (1.2, "R")], "R", 2)  # it seated on L
    assert not _visits_unseated([(1.0, "mid")], "R", 2)  # ends away from its side
    assert not _visits_unseated(spell, "mid", 2)  # where it began is not known

