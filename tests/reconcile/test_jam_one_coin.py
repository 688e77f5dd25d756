"""A chute that wedges one coin and lets the later coins of the same cascade
by (sensing.md's ``jam``: a coin stopped in the board; the chute narrowed, not
shut) is one coin short below, not all of them (issue 13, h17n).

The log (cut from a board5 session, ``jam`` in R5S8's right outlet): one coin
into entry 7 sends two coins out of R5S8's right outlet (R5S8 flips twice, as
the hall shows); exit 16 sees one of them. Before, the only jam the diagnosis
tried stopped every coin sent down that chute, two, so the jam was not listed
at all: only ``exit_sensor_dead`` exit 16 (board4 had three such runs in 24,
board5 one)."""

from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

LOG = Path(__file__).parent / "logs" / "jam_lets_next_by.jsonl"


def _records(lines):
    _, reports = reconcile_log(load(lines))
    return [r.to_json() for r in reports]


def test_a_jam_that_stopped_one_of_two_coins_is_listed_beside_the_dead_beam():
    out = _records(LOG.read_text(encoding="utf-8").splitlines())
    first = out[0]
    assert first["drop"] == 1 and first["verdict"] == "mismatch"
    assert first["expected"]["exits"].count(16) == 2 and first["observed"]["exits"].count(16) == 1
    named = [(d["fault"], d["where"]) for d in first["diagnosis"]]
    assert ("exit_sensor_dead", "exit 16") in named and ("jam", "R5S8 right outlet") in named
    assert all(r["verdict"] == "ok" for r in out[1:])


def test_when_both_coins_are_missing_the_chute_holds_both():
    # Exit 16's one break left out: now both coins sent down the chute are
    # missing, which the plain jam (every coin stopped) explains.
    lines = [x for x in LOG.read_text(encoding="utf-8").splitlines() if '"exit": 16' not in x]
    first = _records(lines)[0]
    assert first["verdict"] == "mismatch" and first["observed"]["exits"].count(16) == 0
    assert ("jam", "R5S8 right outlet") in [(d["fault"], d["where"]) for d in first["diagnosis"]]
