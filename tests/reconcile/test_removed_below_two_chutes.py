"""A drop whose first leader later drops made less likely than another
explanation, short of ruling it out, is revised to the new leader
(issue 13, h18n).

The log (a board2 session cut after drop 47; a coin was taken off R3S4's pad
before drop 12): drops 12 and 13, two coins in entry 5 together, lose a coin
above R3S4: a jam in R2S3's right outlet (two of the worlds that fit), in
R2S4's left outlet, or the coin believed on R3S4 was gone and this one rests
there. Later coins down R2S3's right outlet arrive, so by drop 47 the coin
taken off R3S4 is more likely (0.54) than both jams together. Before, no
revision was written below a 0.6 share and the drops kept naming the jam."""

from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

LOG = Path(__file__).parent / "logs" / "coin_removed_below_two_chutes.jsonl"
TAKEN = ("coin_removed", "R3S4")


def _records():
    _, reports = reconcile_log(load(LOG.read_text(encoding="utf-8").splitlines()))
    return [r.to_json() for r in reports]


def _keys(r) -> list:
    return [(d["fault"], d["where"]) for d in r["diagnosis"]]


def test_the_drop_first_names_a_jam_and_lists_the_coin_taken_off():
    first = next(r for r in _records() if r["verdict"] == "mismatch")
    assert first["drop"] == 12 and _keys(first)[0][0] == "jam" and TAKEN in _keys(first)


def test_later_drops_that_make_the_coin_taken_off_likelier_than_the_jams_revise_it():
    out = _records()
    rev = [r for r in out if r["verdict"] == "revised" and r["revises"] == 12]
    assert rev, "no revision of drop 12"
    d = rev[-1]["diagnosis"]
    assert (d[0]["fault"], d[0]["where"]) == TAKEN and 0.5 < d[0]["confidence"] < 0.6
    # Not ruled out: the record says the jam became less likely, not impossible.
    assert "make this likelier" in d[0]["say"] and "rule that out" not in d[0]["say"]
    assert any(x["fault"] == "jam" for x in d[1:])
