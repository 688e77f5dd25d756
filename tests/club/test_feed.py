"""The feed between the daemon's table and the link: each drop once, across a
restart of the daemon; the result once; an abandoned match said so."""

import json
from types import SimpleNamespace

from coindrel.club.config import settings_from_url
from coindrel.club.feed import TableFeed
from coindrel.club.link import ClubLink
from coindrel.engine import Match, MatchSetup


def fake_table(match, match_id):
    return SimpleNamespace(flow=SimpleNamespace(match=match, link_up=True, diagnosis=None),
                           journal=SimpleNamespace(match_id=match_id, number=1, started=1.0),
                           last_status="", now=lambda: 0.0, healthy=True, failed=None)


def sent(link):
    return [(kind, json.loads(p)) for _, kind, p in link.outbox.pending(10_000)]


def new_link(tmp_path):
    return ClubLink(settings_from_url("mqtt://127.0.0.1:1", "t1"), tmp_path)


def test_each_drop_once_across_a_restart_then_the_result_once(tmp_path):
    match = Match(MatchSetup(players=("Ann", "Bo"), seed=7))
    match.reveal_done(0.0)
    table = fake_table(match, "0001-a")
    link = new_link(tmp_path)
    feed = TableFeed(link)
    for _ in range(5):
        match.play(len(match.results) % 8, 0.0)
        feed.check(table)
        feed.check(table)  # looking twice sends nothing twice
    link.close()
    # the daemon is killed and restarts: the same match, replayed from its journal
    again = Match.replay(match.log)
    table = fake_table(again, "0001-a")
    link = new_link(tmp_path)
    feed = TableFeed(link)
    feed.check(table)
    while not again.over:
        again.play(len(again.results) % 8, 0.0)
        feed.check(table)
    feed.check(table)
    drops = [m for k, m in sent(link) if k == "drop"]
    assert [d["turn"] for d in drops] == list(range(1, len(again.results) + 1))
    assert [d["seq"] for d in drops] == sorted(d["seq"] for d in drops)
    results = [m for k, m in sent(link) if k == "result"]
    assert len(results) == 1 and results[0]["totals"] == list(again.totals) and results[0]["result"] == "finished"
    assert link._state is not None  # the state went to the link too


def test_a_match_left_for_another_is_sent_as_abandoned_with_its_last_drops(tmp_path):
    link = new_link(tmp_path)
    feed = TableFeed(link)
    first = Match(MatchSetup(players=("Ann", "Bo"), seed=1))
    first.reveal_done(0.0)
    table = fake_table(first, "0001-a")
    feed.check(table)
    first.play(0, 0.0)
    first.play(1, 0.0)  # not looked at before the match is left
    second = Match(MatchSetup(players=("Cy", "Di"), seed=2))
    table.flow.match, table.journal = second, SimpleNamespace(match_id="0002-b", number=2, started=2.0)
    feed.check(table)
    kinds = [(k, m.get("match"), m.get("turn"), m.get("result")) for k, m in sent(link)]
    assert kinds == [("drop", "0001-a", 1, None), ("drop", "0001-a", 2, None), ("result", "0001-a", None, "abandoned")]
