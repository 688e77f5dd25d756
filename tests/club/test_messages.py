import json

import pytest
from hypothesis import given, strategies as st

from coindrel.club import messages as m
from coindrel.club.records import drop_of, result_of, state_of
from coindrel.engine import Match, MatchSetup
from coindrel.table.history import match_summary


def played(seed=3):
    match = Match(MatchSetup(players=("Ada", "Bo"), seed=seed))
    match.reveal_done(0.0)
    drops = []
    while not match.over:
        r = match.play(len(match.results) % 8, 0.0)
        drops.append(r)
    return match, drops


def full(kind, record, table="t1", seq=1):
    return {"schema": m.SCHEMA, "table": table, "source": "abc", "seq": seq, **record} if kind in ("drop", "result") \
        else {"schema": m.SCHEMA, "table": table, **record}


def test_what_a_table_sends_is_what_the_club_reads():
    match, drops = played()
    state = m.parse_state("t1", full("state", state_of(match, match_id="0001-x", now=0.0)))
    assert state["totals"] == list(match.totals) and state["board"] == match.board.text()
    d = m.parse_drop("t1", full("drop", drop_of("0001-x", 1, drops[0])))
    assert (d["turn"], d["points"], d["match"]) == (1, drops[0].points, "0001-x")
    summary = match_summary(match, result="finished", number=1, match_id="0001-x", started=1.0, ended=2.0)
    r = m.parse_result("t1", full("result", result_of(summary)))
    assert r["winner"] == match.winner and r["totals"] == list(match.totals)
    idle = m.parse_state("t1", full("state", state_of(None, match_id=None, health="ok")))
    assert idle["match"] is None


def test_a_long_explanation_is_cut_to_fit():
    _, drops = played()
    d = drop_of("0001-x", 1, drops[0], explanation="x" * 10_000)
    assert len(m.parse_drop("t1", full("drop", d))["explanation"]) <= m.MAX_TEXT


@pytest.mark.parametrize("payload, words", [
    (b"x" * (m.MAX_MESSAGE + 1), "limit"),
    (b"\xff\xfe", "not UTF-8 text \\(byte 0 is b'\\\\xff'\\); club messages are JSON in UTF-8"),  # it said utf-16-le
    (b"{\"a\": 1", "not JSON"),
    (b"[1, 2]", "object"),
    (b'{"a": NaN}', "NaN"),
    (b"[" * 100000 + b"]" * 100000, "limit"),
])
def test_malformed_payloads_are_refused_by_name(payload, words):
    with pytest.raises(m.MessageError, match=words):
        m.decode(payload)


def test_deep_nesting_within_the_size_limit_is_refused_not_a_crash():
    with pytest.raises(m.MessageError):
        m.parse("coindrel/t1/drop", b"[" * 8000 + b"]" * 8000)


def test_wrong_schema_and_wrong_table_are_refused():
    match, drops = played()
    good = full("drop", drop_of("0001-x", 1, drops[0]))
    with pytest.raises(m.MessageError, match="schema"):
        m.parse_drop("t1", {**good, "schema": 99})
    with pytest.raises(m.MessageError, match="table 't1'"):
        m.parse_drop("t1", {**good, "table": "t2"})
    with pytest.raises(m.MessageError, match="points"):
        m.parse_drop("t1", {**good, "points": -5})
    with pytest.raises(m.MessageError, match="'extra'"):
        m.parse_drop("t1", {**good, "extra": 1})
    summary = match_summary(match, result="finished", number=1, match_id="0001-x", started=1.0, ended=2.0)
    r = full("result", result_of(summary))
    with pytest.raises(m.MessageError, match="does not follow"):
        m.parse_result("t1", {**r, "winner": 2 if match.winner == 1 else 1})


@pytest.mark.parametrize("topic", ["coindrel/T1/drop", "coindrel/t1/drop/x", "other/t1/drop", "coindrel/t1/nope",
                                   "coindrel/" + "a" * 40 + "/drop", "coindrel//drop"])
def test_topics_outside_the_club_vocabulary(topic):
    with pytest.raises(m.MessageError):
        m.split_topic(topic)


def test_requests_carry_only_what_a_table_may_start():
    req = {"schema": 1, "table": "t1", "id": "r1", "players": ["A", "B"], "clock": 60, "variants": {"holes": True}}
    assert m.parse_request("t1", req)["players"] == ["A", "B"]
    for bad in ({"clock": 7}, {"players": ["A"]}, {"players": ["A", " "]}, {"variants": {"fly": True}},
                {"seed": 4}, {"id": 5}):
        with pytest.raises(m.MessageError):
            m.parse_request("t1", {**req, **bad})


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                           max_leaves=20)


@given(kind=st.sampled_from(m.TOPICS), body=st.dictionaries(st.sampled_from(
    ["schema", "table", "seq", "source", "match", "players", "totals", "turn", "winner", "online", "board", "x"]),
    json_values, max_size=8))
def test_any_json_object_is_read_or_refused_with_a_message_error(kind, body):
    try:
        m.parse(f"coindrel/t1/{kind}", json.dumps(body).encode())
    except m.MessageError:
        pass
