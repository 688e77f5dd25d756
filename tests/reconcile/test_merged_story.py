"""A world merged from several stories keeps them (up to MERGED_STORY) on
its next groups too (issue 13, h16n): cutting a merged story back to STORY
dropped the stories merged in first, and the drop they explained lost its
support in the revisions.

The log (cut from a board3 session, 23 drops): drop 1's coin never reaches
R5S1 (a jam in either chute into it, or the coin on its pad taken off);
later a coin stacks in R3S1's left chute and, in a quiet spell, the stack
lets go (two coins at exits 1 and 2). The worlds that let it go for good
and the one with the coin taken off end on one board and merge; a coin
down that chute afterwards must not make the revision forget R3S1's
release (before: 0.64 against 0.36 for the other chute, which caught no
coin that came free)."""

from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

LOG = Path(__file__).parent / "logs" / "merged_story_jam_released.jsonl"


def test_a_released_jam_keeps_its_support_after_its_world_merged():
    _, reports = reconcile_log(load(LOG.read_text(encoding="utf-8").splitlines()))
    out = [r.to_json() for r in reports]
    first = next(r for r in out if r["verdict"] == "mismatch")
    assert first["drop"] == 1 and ("jam", "R3S1 left outlet") in [(d["fault"], d["where"]) for d in first["diagnosis"]]
    revs = [r for r in out if r["verdict"] == "revised" and r["revises"] == 1]
    assert revs
    conf = {(d["fault"], d["where"]): d["confidence"] for d in revs[-1]["diagnosis"]}
    assert max(conf, key=conf.get) == ("jam", "R3S1 left outlet")
    assert conf[("jam", "R3S1 left outlet")] >= 3 * conf.get(("jam", "R4S1 left outlet"), 0.0)
