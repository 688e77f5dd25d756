"""A hub link lost in a drop's quiet spell (issue 13, board4): a drop no coin
of which can still be falling when the link went down lost nothing and is
checked as it is; so is one the link gives back whole (the same hub boot:
its ring replays every event) or whose coins' every predicted event was seen
before a hub restart whose snapshot shows nothing moved meanwhile. Otherwise
it is not checked, but the events seen stay with the drop that made them."""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.reconcile.offline import load, reconcile_log

CASES = Path(__file__).resolve().parents[2] / "benchmarks" / "models" / "board4" / "cases"


def _lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (CASES / name).read_text().splitlines() if line.strip()]


def _reconcile(lines: list[dict]) -> list[dict]:
    _, reports = reconcile_log(load([json.dumps(d) for d in lines]))
    return [r.to_json() for r in reports]


def _link_down_at(lines: list[dict], t: float) -> list[dict]:
    """The same events with the hub lost at ``t`` (stamped with the last frame
    heard, as the daemon does) and back 4 s later."""
    events = [d for d in lines if d.get("kind") != "status"]
    assert all(d.get("t", 0) < t for d in events)
    return events + [
        {"t": t, "kind": "status", "state": "disconnected", "detail": "hub stopped answering (3 heartbeats missed)"},
        {"t": t + 4.0, "kind": "status", "state": "resync", "detail": "hub restarted; board time continues"},
        {"t": t + 4.000001, "kind": "status", "state": "connected", "detail": "hub said hello: a new boot"},
    ]


def test_two_drops_seen_to_the_end_before_the_loss_are_ok():
    """Drop 1's coin left through exit 16 (seen), drop 2's rests on R1S3, and
    the link went 0.72 s after the last exit, 1.1 s after drop 2's coin went
    in: both are checked, each with its own events."""
    out = _reconcile(_lines("link_down_after_two_drops.jsonl"))
    drops = [r for r in out if r.get("drop") is not None]
    assert [r["verdict"] for r in drops] == ["ok", "ok"]
    assert drops[0]["observed"]["exits"] == [16] and drops[0]["observed"]["flips"]["R1S8"] == 1
    assert drops[1]["observed"] == {"exits": [], "flips": {}}


def test_a_resting_coin_is_checked_once_the_board_is_seen_again():
    """One coin to rest on R1S4's empty pad, no event after its entry. Lost
    0.2 s later (the coin may not have reached the pad yet: held in the slot,
    a pad that does not hold), the hub restarted and its snapshot shows no
    rocker moved: the coin rests as predicted, ok. Lost after the longest
    silence a healthy cascade has here, it rested: ok at once."""
    lines = _lines("link_down_after_resting_coin.jsonl")
    early = _reconcile(lines)
    assert [(r["verdict"], r["observed"]) for r in early if r.get("drop")] == [("ok", {"exits": [], "flips": {}})]
    late = _reconcile(_link_down_at(lines, 12.6444 + 0.5))
    assert [(r["verdict"], r["observed"]) for r in late if r.get("drop")] == [("ok", {"exits": [], "flips": {}})]


def test_a_link_that_never_came_back_lost_the_drop():
    """The log ends with the link down (or with a hub restarted but never
    seen again): nothing says what the coin did."""
    lines = _lines("link_down_after_resting_coin.jsonl")
    for cut in (3, 4):
        out = _reconcile(lines[:cut])
        assert [r["diagnosis"][0]["fault"] for r in out if r.get("drop")] == ["events_lost"]


def _replayed(lines: list[dict], t_down: float, gone: bool = False) -> list[dict]:
    """The link lost at ``t_down`` and back 4 s later on the same hub boot:
    the events after ``t_down`` come after the "connected" status, with their
    own times (the ring's replay), or (``gone``) the ring had lost them."""
    events = [d for d in lines if d.get("kind") not in ("status", "header")]
    before = [d for d in events if d["t"] <= t_down]
    after = [d for d in events if d["t"] > t_down]
    head = [d for d in lines if d.get("kind") == "header"]
    out = head + before + [{"t": t_down, "kind": "status", "state": "disconnected", "detail": "no data from the hub for 1.5 s"},
                           {"t": t_down + 4.0, "kind": "status", "state": "connected", "detail": "hub answers again"}]
    if gone:
        return out + [{"t": t_down + 4.0, "kind": "status", "state": "lost", "detail": "board events could not be given back"}]
    return out + after


def test_a_reconnect_on_the_same_boot_gives_the_drop_back_whole():
    """The link went down while drop 1's coin still fell (before its exit)
    and came back on the same hub boot: the ring replays the rest (earlier
    times, after the "connected" status). Nothing was lost: both drops are
    checked as they are, ok (counted lost before, whatever came back)."""
    lines = _lines("link_down_after_two_drops.jsonl")
    out = [r for r in _reconcile(_replayed(lines, 97.2)) if r.get("drop") is not None]
    assert [r["verdict"] for r in out] == ["ok", "ok"], out
    assert out[0]["observed"]["exits"] == [16] and out[0]["observed"]["flips"]["R5S8"] == 1


def test_a_reconnect_whose_ring_lost_the_events_loses_the_drop():
    lines = _lines("link_down_after_two_drops.jsonl")
    out = [r for r in _reconcile(_replayed(lines, 97.2, gone=True)) if r.get("drop") is not None]
    assert out and all(r["diagnosis"][0]["fault"] == "events_lost" for r in out), out


def test_a_drop_waits_for_the_link_while_it_is_down_live():
    """Live, the table polls on its clock while the link is down: the open
    drop is not closed then (what comes back decides), only once the link
    has been away longer than ``HOLD_AWAY``."""
    from coindrel.events import event_from_json
    from coindrel.reconcile import Reconciler
    from coindrel.reconcile.outage import HOLD_AWAY

    lines = _lines("link_down_after_two_drops.jsonl")
    seen = [d for d in _replayed(lines, 97.2) if d.get("kind") != "header"]
    k = next(i for i, d in enumerate(seen) if d.get("state") == "connected")
    for away in (4.0, HOLD_AWAY + 5.0):
        rec = Reconciler(None, lines[0]["state"])
        got = []
        for d in seen[:k]:
            ev = event_from_json(d)
            rec.feed(ev)
            got += rec.poll(ev.t)
        assert got == []
        got += rec.poll(97.2 + away - 0.01)
        if away > HOLD_AWAY:
            assert got and got[0].diagnosis[0].fault.name == "events_lost"
            continue
        assert got == []
        for d in seen[k:]:
            rec.feed(event_from_json(d))
        got += rec.poll(97.2 + away + 5.0)
        assert [r.ok for r in got] == [True, True], [r.to_json() for r in got]


def test_a_coin_that_may_still_fall_is_not_checked_when_the_board_moved_meanwhile():
    """The link lost 0.04 s after drop 1's exit, 0.42 s after drop 2's coin
    went in (it should rest on R1S3). The hub restarted: with a snapshot that
    shows nothing moved meanwhile, the coin rested (one that went on would
    have flipped R1S3): both ok. With one that shows R1S3 flipped (its pad
    did not hold, unseen), both cannot be checked, and drop 1 keeps the
    events its cascade made (they were all given to drop 2)."""
    lines = _link_down_at(_lines("link_down_after_two_drops.jsonl"), 97.5)
    out = _reconcile(lines)
    assert [r["verdict"] for r in out if r.get("drop") is not None] == ["ok", "ok"]
    moved = lines + [{"t": 101.5001, "kind": "status", "state": "lost", "detail": "changed unseen: R1S3 L->R", "count": 1},
                     {"t": 101.5002, "kind": "switch", "switch": "R1S3", "pos": "R"}]
    drops = [r for r in _reconcile(moved) if r.get("drop") is not None]
    assert [r["verdict"] for r in drops][:2] == ["mismatch", "mismatch"], drops
    assert all(r["diagnosis"][0]["fault"] == "events_lost" for r in drops[:2])
    assert drops[0]["observed"]["exits"] == [16] and drops[0]["observed"]["flips"]["R5S8"] == 1


def test_a_coin_whose_events_are_still_due_is_not_checked():
    """The link went before drop 1's exit came: lost, whatever the time."""
    lines = [d for d in _lines("link_down_after_two_drops.jsonl") if d.get("kind") != "status" and d.get("t", 0) < 97.0]
    out = _reconcile(_link_down_at(lines, 97.0))
    assert [r["verdict"] for r in out if r.get("drop")] == ["mismatch"]
    assert out[0]["diagnosis"][0]["fault"] == "events_lost"
