"""A chute that stopped a coin can let the next coin by (the stopped coin
narrows it and stays, or is knocked on while the next catches in its place):
the next coin down it arriving does not rule the jam out (issue 13, h16n).

The log (cut from a board4 session, 4 drops): drop 1's coin tipped off
R1S3 leaves by its left outlet and never reaches R2S2 (a jam there, or the
coin believed on R2S2's pad was taken off and this one rests there: the
pad ends full either way); drop 4's coin leaves R1S3 by that outlet and
flips R2S2. Before, that coin ruled the jam out and drop 1 was revised to
``coin_removed`` at 1.0."""

from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

LOG = Path(__file__).parent / "logs" / "jam_passes_next_coin.jsonl"
JAM = ("jam", "R1S3 left outlet")


def _records():
    _, reports = reconcile_log(load(LOG.read_text(encoding="utf-8").splitlines()))
    return [r.to_json() for r in reports]


def _keys(r) -> list:
    return [(d["fault"], d["where"]) for d in r["diagnosis"]]


def test_the_jam_is_listed_on_the_drop_it_stopped_a_coin_in():
    out = _records()
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert first["drop"] == 1 and JAM in _keys(first) and ("coin_removed", "R2S2") in _keys(first)
    assert [r["verdict"] for r in out if r["drop"] is not None][1:] == ["ok", "ok", "ok"]


def test_the_next_coin_through_that_chute_does_not_rule_the_jam_out():
    out = _records()
    for r in out:
        if r["verdict"] == "revised" and r["revises"] == 1:
            assert JAM in _keys(r), r
            assert r["diagnosis"][0]["confidence"] < 0.95, r
