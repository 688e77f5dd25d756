"""A hub reset while coins are falling (issue 13, board5 case
hub_reset_group_stays_open): the drops the reset cut lost events and are not
checked, but the group closes once the board is seen again and has been
quiet, so every later drop, begun after the hub was back and seen whole, is
checked on its own (it was merged into the never-closing group, flagged)."""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

CASE = Path(__file__).resolve().parents[2] / "benchmarks" / "models" / "board5" / "cases" / "hub_reset_group_stays_open.jsonl"
RESYNC = 66.37638497544415  # the restarted hub's resync; its snapshot 30 ms later


def _drops(lines: list[str]) -> list[dict]:
    _, reports = reconcile_log(load(lines))
    return [r.to_json() for r in reports if r.drop is not None]


def test_drops_after_a_mid_cascade_reset_are_checked_on_their_own():
    drops = _drops(CASE.read_text().splitlines())
    cut = [d for d in drops if d["t"] < RESYNC]
    after = [d for d in drops if d["t"] > RESYNC]
    assert len(cut) == 4 and len(after) == 11
    # drop 4's coin fell through the reset: its exit 16 was never heard
    assert all(d["verdict"] == "mismatch" and d["diagnosis"][0]["fault"] == "events_lost" for d in cut)
    assert all(d["t_end"] < after[0]["t"] for d in cut), "the reset's group closed before the next coin"
    assert [d["verdict"] for d in after] == ["ok"] * len(after), [d for d in after if d["verdict"] != "ok"]
    assert after[0]["observed"] == {"exits": [15, 16], "flips": {"R1S8": 1, "R3S8": 1, "R5S8": 1}}
    assert len({d["t_end"] for d in after}) == len(after), "each later drop closed by itself"


def test_a_fault_after_the_reset_is_still_flagged():
    """Exit 15's beam misses drop 5's coin (the first after the reset): its
    drop, checked on its own now, is flagged, not lost in the reset's group."""
    lines = CASE.read_text().splitlines()
    cut = [ln for ln in lines if not (json.loads(ln).get("kind") == "exit" and json.loads(ln).get("t") == 67.86706786807937)]
    assert len(cut) == len(lines) - 1
    drops = _drops(cut)
    five = next(d for d in drops if d["drop"] == 5)
    assert five["verdict"] == "mismatch" and five["diagnosis"][0]["fault"] != "events_lost"
    assert five["observed"]["exits"] == [16]
    assert all(d["verdict"] == "ok" for d in drops if d["drop"] > 5)


JUST_AFTER = CASE.with_name("drop_just_after_reset.jsonl")


def test_a_drop_begun_just_after_the_hub_is_back_is_checked_on_its_own():
    """board5 case drop_just_after_reset: two coins into entry 8 as the hub
    resets (their exits lost), back 1.35 s later, its snapshot lists R3S8 and
    R4S7; 0.35 s after the resync a coin goes into entry 6 and rests on
    R1S6. The snapshot's switch events are no falling coin's, and nothing of
    the cut drops was heard since the hub came back, longer than a cascade is
    ever silent here: that coin is a drop of its own (it joined the cut
    group, `events_lost`)."""
    drops = _drops(JUST_AFTER.read_text().splitlines())
    cut = [d for d in drops if 50.8 < d["t"] < 51.0]
    assert [d["entry"] for d in cut] == [8, 8]
    assert all(d["diagnosis"][0]["fault"] == "events_lost" for d in cut)
    nxt = next(d for d in drops if d["t"] > 52.6)
    assert nxt["entry"] == 6 and nxt["t_end"] != cut[-1]["t_end"]
    assert nxt["verdict"] == "ok", nxt
    assert [d["verdict"] for d in drops if d["t"] > 52.6] == ["ok"] * 4


SHOWN = CASE.with_name("reset_drops_shown_by_snapshot.jsonl")


def test_drops_a_snapshot_shows_as_predicted_are_checked():
    """board5 case reset_drops_shown_by_snapshot: a pair into entries 4 and 3
    (each rests on its pad: one flip), and 0.3 s later a coin into entry 7 as
    the hub resets; back 1.7 s later, its snapshot lists R1S7 L, R2S7 R, R3S8
    L: the moves the prediction expects of that coin, which rests, no exit
    expected. Every exit and flip the prediction expects is accounted for and
    the whole is exactly a healthy board's: the three drops are checked, `ok`
    (they were `events_lost`)."""
    drops = _drops(SHOWN.read_text().splitlines())
    cut = [d for d in drops if 50.8 < d["t"] < 51.2]
    assert [d["entry"] for d in cut] == [4, 3, 7]
    assert [d["verdict"] for d in drops] == ["ok"] * len(drops), [d for d in drops if d["verdict"] != "ok"]
    assert cut[2]["observed"] == {"exits": [], "flips": {"R1S7": 1, "R2S7": 1, "R3S8": 1}}


def test_a_snapshot_short_of_the_prediction_leaves_the_drops_lost():
    """The same log with R3S8 left out of the snapshot: the coin into entry 7
    did not do (or not only did) what the prediction says, unseen: lost."""
    lines = SHOWN.read_text().splitlines()
    snap = next(json.loads(ln)["t"] for ln in lines if json.loads(ln).get("state") == "lost")
    cut = [ln for ln in lines if not (json.loads(ln).get("switch") == "R3S8" and json.loads(ln)["t"] == snap)]
    assert len(cut) == len(lines) - 1
    drops = _drops(cut)
    seven = next(d for d in drops if d["entry"] == 7 and 51.0 < d["t"] < 51.2)
    assert seven["verdict"] == "mismatch" and seven["diagnosis"][0]["fault"] == "events_lost"
