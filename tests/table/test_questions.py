"""A question open when the table is killed is asked again after the
restart (table/questions.py): the journal holds each question with its drop
and each answer with what it changed. In a match in progress, and in the
match filed in the history as it ended; the answer reaches that match.

Here the kill is ``store.close()`` with nothing flushed or closed (the lock
goes with the process) and a new table resuming the state directory; the
real SIGKILL of ``coindrel run`` is tests/table/test_questions_kill.py."""

from __future__ import annotations

from coindrel.table.control import asking
from coindrel.table.daemon import Table
from coindrel.table.history import list_matches, load_match
from coindrel.table.journal import read_journal
from coindrel.table.matchjournal import MatchJournal
from coindrel.table.questions import ANSWER, ASK, ask_note, open_question, view_of
from coindrel.table.records import Record
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore

from .flowkit import choose, report_for
from .test_filing import NO_SYNC, BoardOnly, G, table_at_the_last_drop

FINDING = type("F", (), {"say": "Exit 16 did not see a coin."})()


def restarted(state, now=200.0):
    """A new table on the state directory, as the service starts it again."""
    t = Table(G, Choices(clock="off", players=("Ann", "Bo")), source=BoardOnly(),
              store=MatchStore(state, **NO_SYNC).open(), clock=lambda: now)
    t.positions.update({label: "L" for label in G.labels})
    t.resume(t.store.recover())
    return t


def not_asked(flow) -> bool:
    """The question is not asked again; the undo's "put the board back" list may be
    (the kill came before the players had put it back)."""
    q = asking(flow)
    return q is None or q["screen"] == "restore"


def notes(path, key):
    return [r.data[key] for r in read_journal(path).records if r.kind == "note" and key in r.data]


def table_with_a_mismatch(state):
    """A match in progress whose third drop is flagged and not answered yet."""
    now = [100.0]
    t = Table(G, Choices(clock="off", players=("Ann", "Bo")), source=BoardOnly(),
              store=MatchStore(state, **NO_SYNC).open(), clock=lambda: now[0])
    t.positions.update({label: "L" for label in G.labels})
    t.handle_action("select")
    m = t.flow.match
    for step in range(5):
        if t.flow.mode == "reveal":
            t.handle_action("select")
        if len(m.results) == 2:
            break
        t.flow.on_entry(step % 8, now[0])
        t.flow.on_report(report_for(m, step % 8, len(m.results) + 1), now[0] + 0.5)
        t._after_flow()
        now[0] += 1
    assert len(m.results) == 2 and not m.over
    t.flow.on_entry(3, now[0])
    t.flow.on_report(report_for(m, 3, 3, verdict="mismatch", seen=(), diagnosis=[FINDING]), now[0])
    t._after_flow()
    assert t.flow.mode == "mismatch" and asking(t.flow)["drop"] == 3
    return t, m


# -- the journal's notes -------------------------------------------------------------------------

def rec(n, data, kind="note"):
    return Record(n, kind, data, None, 0, 0)


def test_the_last_question_without_an_answer_is_the_open_one():
    a = {"drop": 3, "title": "Check board"}
    b = {"drop": 5, "title": "Check board"}
    assert open_question([]) is None
    assert open_question([rec(1, {ASK: a})]) == a
    assert open_question([rec(1, {ASK: a}), rec(2, {ANSWER: {"drop": 3, "answer": "Board is right"}})]) is None
    assert open_question([rec(1, {ASK: a}), rec(2, {ANSWER: {"drop": 3}}), rec(3, {ASK: b})]) == b
    assert open_question([rec(1, {ASK: a}), rec(2, {"do": "drop"}, "act"), rec(3, "not a dict")]) == a


def test_a_question_note_gives_its_screen_back_exactly_and_bad_ones_give_none():
    from coindrel.display import DiagnosisView

    v = DiagnosisView(title="Check board", findings=("Exit 16 did not see a coin.",), options=("A", "B"),
                      expected=(0, 15), observed=(0,), drop=4, facts=("Exits: expected 1 16; seen 1.",))
    d = ask_note(v)[ASK]
    assert d["expected"] == [1, 16] and d["observed"] == [1]  # counted from 1 in the journal, as people read
    assert view_of(d) == v
    assert view_of({"drop": 2, "findings": "no list", "expected": [0, 99]}, options=("X",)).expected is None
    assert view_of({"drop": 2}) is None  # no answers to offer: not a question this version can show
    assert view_of({"drop": 2, "options": None}, options=("X",)).options == ("X",)


def test_a_held_record_goes_in_one_write_with_the_actions(tmp_path):
    writes = []
    with MatchStore(tmp_path, **NO_SYNC) as store:
        store.recover()
        from coindrel.engine import Match, MatchSetup

        m = Match(MatchSetup(players=("Ann", "Bo"), seed=3))
        j = store.begin(m)
        real = MatchJournal.append_many

        def counted(self, items, durable=True):
            items = list(items)
            writes.append([k for k, _ in items])
            return real(self, items, durable)

        MatchJournal.append_many = counted
        try:
            j.hold("note", {ASK: {"drop": 1}})
            m.coin_seen()
            m.play(2)
            j.sync_match(m)
            j.hold("note", {ANSWER: {"drop": 1}})
            j.sync_match(m)  # no action: the held record alone
        finally:
            MatchJournal.append_many = real
        j.close()
    assert writes[0][0] == "note" and set(writes[0][1:]) == {"act"} and writes[1] == ["note"]


# -- a match in progress -------------------------------------------------------------------------

def test_a_mismatch_open_at_the_kill_is_asked_again_and_its_answer_outlives_the_next(tmp_path):
    t, m = table_with_a_mismatch(tmp_path)
    t.store.close()  # killed while the question is on screen
    t2 = restarted(tmp_path)
    q = asking(t2.flow)
    assert t2.flow.mode == "mismatch" and q is not None and q["drop"] == 3, t2.flow.mode
    assert q["findings"] == ["Exit 16 did not see a coin."] and "Board is right" in q["answers"]
    assert "mismatch" in t2.flow.pauses and len(t2.flow.match.results) == 3
    assert len(notes(t2.store.current, ASK)) == 1, "asked again, not journalled again"
    choose(t2.flow, "Board is right", 201)
    t2._after_flow()
    assert t2.flow.mode == "turn"
    assert notes(t2.store.current, ANSWER) == [{"drop": 3, "answer": "Board is right"}]
    t2.store.close()
    t3 = restarted(tmp_path)
    assert asking(t3.flow) is None and t3.flow.mode == "turn", "answered: not asked a third time"


def test_an_undo_answered_before_the_kill_stays_undone(tmp_path):
    t, m = table_with_a_mismatch(tmp_path)
    choose(t.flow, "Undo last drop", 101)
    t._after_flow()
    t.store.close()
    t2 = restarted(tmp_path)
    assert not_asked(t2.flow) and len(t2.flow.match.results) == 2


def test_a_coin_whose_events_were_lost_is_asked_about_again(tmp_path):
    t, m = table_with_a_mismatch(tmp_path)
    choose(t.flow, "Board is right", 101)
    t._after_flow()
    t.flow.on_entry(5, 102)
    t.flow.coin_unaccounted(110)  # the board's events for it never came
    t._after_flow()
    assert asking(t.flow)["drop"] == 4
    t.store.close()
    t2 = restarted(tmp_path)
    q = asking(t2.flow)
    assert q is not None and q["drop"] == 4 and "were lost" in q["findings"][0]


def test_a_question_whose_drop_never_reached_the_disk_is_not_asked(tmp_path):
    t, m = table_with_a_mismatch(tmp_path)
    path = t.store.current
    t.store.close()
    data = path.read_bytes().splitlines(keepends=True)
    # the last write (the drop's action and its question) cut off by a power cut
    while b'"ask"' not in data[-1] and b'"do":"drop"' not in data[-1]:
        data.pop()
    while b'"ask"' in data[-1] or b'"do":"drop"' in data[-1]:
        data.pop()
    path.write_bytes(b"".join(data))
    t2 = restarted(tmp_path)
    assert len(t2.flow.match.results) == 2 and asking(t2.flow) is None
    assert t2.flow.mode == "turn", "the drop comes again (its verdict, or its coin's events) and asks again"


# -- a match filed as it ended -------------------------------------------------------------------

def test_the_filed_matchs_last_question_is_asked_again_and_board_is_right_reaches_the_history(tmp_path):
    t, m, entry, now = table_at_the_last_drop(tmp_path)
    assert m.over and [s.result for s in list_matches(tmp_path)] == ["finished"]
    t.store.close()
    t2 = restarted(tmp_path)
    q = asking(t2.flow)
    assert t2.flow.mode == "mismatch" and q is not None and q["drop"] == len(m.results)
    choose(t2.flow, "Board is right", 201)
    t2._after_flow()
    filed = t2.store.history_dir / next(p.name for p in t2.store.history_dir.iterdir())
    assert notes(filed, ANSWER) == [{"drop": len(m.results), "answer": "Board is right"}]
    assert [s.result for s in list_matches(tmp_path)] == ["finished"]
    assert load_match(tmp_path, "last").summary.turns == len(m.results)
    t2.store.close()
    t3 = restarted(tmp_path)
    assert asking(t3.flow) is None and t3.flow.match is None and t3.flow.mode == "menu"


def test_the_filed_matchs_last_drop_undone_after_the_restart_reopens_it(tmp_path):
    t, m, entry, now = table_at_the_last_drop(tmp_path)
    turns = len(m.results)
    t.store.close()
    t2 = restarted(tmp_path)
    choose(t2.flow, "Undo last drop", 201)
    t2._after_flow()
    assert t2.journal is not None and t2.store.current.exists()
    assert [(s.result, s.turns) for s in list_matches(tmp_path)] == [("in progress", turns - 1)]
    t2.store.close()
    t3 = restarted(tmp_path)
    assert t3.flow.match is not None and not t3.flow.match.over and len(t3.flow.match.results) == turns - 1
    assert not_asked(t3.flow)


class Killed(BaseException):
    """The process dies here (nothing after it runs, nothing is closed)."""


def test_a_kill_between_the_reopening_and_its_write_leaves_the_match_filed_and_asks_again(tmp_path, monkeypatch):
    t, m, entry, now = table_at_the_last_drop(tmp_path)
    turns = len(m.results)

    def die(self, *a, **k):
        raise Killed

    monkeypatch.setattr(MatchJournal, "append_many", die)
    try:
        choose(t.flow, "Undo last drop", now[0] + 1)
        t._after_flow()
    except Killed:
        pass
    else:
        raise AssertionError("the undo wrote nothing")
    monkeypatch.undo()
    assert t.store.current.exists(), "killed after the journal moved back from the history"
    t.store.close()
    t2 = restarted(tmp_path)
    assert [(s.result, s.turns) for s in list_matches(tmp_path)] == [("finished", turns)], "as it was filed"
    q = asking(t2.flow)
    assert q is not None and q["drop"] == turns, "the undo is not lost: the question is asked again"
    choose(t2.flow, "Undo last drop", 201)
    t2._after_flow()
    assert [(s.result, s.turns) for s in list_matches(tmp_path)] == [("in progress", turns - 1)]


def test_a_kill_right_after_the_reopening_write_resumes_the_undone_match(tmp_path, monkeypatch):
    t, m, entry, now = table_at_the_last_drop(tmp_path)
    turns = len(m.results)
    real = MatchJournal.append_many

    def write_then_die(self, items, durable=True):
        real(self, items, durable)
        raise Killed

    monkeypatch.setattr(MatchJournal, "append_many", write_then_die)
    try:
        choose(t.flow, "Undo last drop", now[0] + 1)
        t._after_flow()
    except Killed:
        pass
    monkeypatch.undo()
    t.store.close()
    t2 = restarted(tmp_path)
    assert t2.flow.match is not None and not t2.flow.match.over and len(t2.flow.match.results) == turns - 1
    assert not_asked(t2.flow), "answered: the undo is on disk with its answer"


def test_a_kill_on_the_correction_screen_asks_again_and_a_done_correction_is_answered(tmp_path):
    t, m, entry, now = table_at_the_last_drop(tmp_path)
    turns = len(m.results)
    choose(t.flow, "Correct score", now[0] + 1)
    t._after_flow()
    assert t.flow.mode == "correct"
    t.store.close()  # killed while the players count the coins
    t2 = restarted(tmp_path)
    assert [(s.result, s.turns) for s in list_matches(tmp_path)] == [("finished", turns)]
    assert asking(t2.flow)["screen"] == "mismatch", "not answered yet: asked again"
    choose(t2.flow, "Correct score", 201)
    t2._after_flow()
    t2.flow.correction[3] = 1  # one coin seen at exit 4
    t2.handle_action("hold-select")  # done
    assert t2.flow.match.over and t2.flow.match.results[-1].exits == (3,)
    assert [(s.result, s.turns) for s in list_matches(tmp_path)] == [("finished", turns)]
    filed = next(t2.store.history_dir.iterdir())
    assert notes(filed, ANSWER) == [{"drop": turns, "answer": "Correct score"}]
    t2.store.close()
    t3 = restarted(tmp_path)
    assert asking(t3.flow) is None and t3.flow.match is None
    assert load_match(tmp_path, "last").turns()[-1]["exits"] == [3]


def test_a_question_a_newer_drops_question_replaces_is_answered_by_it_and_says_so(tmp_path):
    """Found by a newcomer: drop 14's question turned into drop 18's (the
    players dropped on); answering that one, drop 14's was never asked again,
    and nothing said so. Undo and Correct act on the last drop only, so the
    older question is answered by playing on: journalled, and told."""
    t, m = table_with_a_mismatch(tmp_path)
    now = 150.0
    t.flow.on_entry(5, now)  # the players drop on with drop 3's question on screen
    t.flow.on_report(report_for(m, 5, 4, verdict="mismatch", seen=(), diagnosis=[FINDING]), now + 0.5)
    t._after_flow()
    q = asking(t.flow)
    assert q["drop"] == 4 and q["facts"][0].startswith("Drop 3's question was not answered: it stands as scored")
    assert notes(t.store.current, ANSWER) == [{"drop": 3, "answer": "Played on"}]
    assert [a["drop"] for a in notes(t.store.current, ASK)] == [3, 4]
    said = asking(t.flow)["findings"]
    # a third flagged drop at once (a restart replaying them): both earlier questions go along, with what they said
    t.flow.on_entry(6, now + 1)
    t.flow.on_report(report_for(m, 6, 5, verdict="mismatch", seen=(), diagnosis=[FINDING]), now + 1.5)
    t._after_flow()
    q = asking(t.flow)
    assert q["drop"] == 5 and [x[:7] for x in q["facts"][:2]] == ["Drop 3'", "Drop 4'"], q["facts"]
    assert said and said[0][:40] in q["facts"][1]
    t.store.close()
    t2 = restarted(tmp_path)
    assert asking(t2.flow)["drop"] == 5  # the open one is the newest; drops 3 and 4 are answered


def test_undo_on_an_older_question_never_takes_back_a_later_drop(tmp_path):
    """Found by a newcomer: drop 1's question was still open after drops 2 and
    3 scored; "Undo last drop" there took back drop 3. Once later drops are
    scored only "Board is right" is offered, and the screen says why."""
    t, m = table_with_a_mismatch(tmp_path)
    f = t.flow
    f.on_action("select", 150.0)  # to the answers
    while asking(f)["marked"] != "Undo last drop":
        f.on_action("next", 150.1)
    f.on_entry(5, 151.0)  # the players drop on, unflagged, with the question up
    f.on_report(report_for(m, 5, 4), 151.5)
    t._after_flow()
    q = asking(f)
    assert q["drop"] == 3 and q["answers"] == ["Board is right"]
    assert "Drops have fallen since drop 3" in q["facts"][-1]
    f.on_action("select", 152.0)
    t._after_flow()
    assert len(m.results) == 4 and f.mode != "restore", "drop 4 was not taken back"
    assert notes(t.store.current, ANSWER)[-1] == {"drop": 3, "answer": "Board is right"}


def test_a_kill_while_the_board_is_put_back_after_an_undo_asks_for_it_again(tmp_path):
    """Found by a newcomer: a kill on the "Put the board back" screen came back
    on the turn screen; the rockers not yet put back were taken as moved by
    hand and believed (a hall the table held lying included)."""
    t, m = table_with_a_mismatch(tmp_path)
    choose(t.flow, "Undo last drop", 150.0)
    t._after_flow()
    assert t.flow.mode == "restore" and t.flow.restore
    steps = [s.text for s in t.flow.restore]
    t.store.close()  # killed halfway through the list
    t2 = restarted(tmp_path)
    assert t2.flow.mode == "restore", t2.flow.mode
    q = asking(t2.flow)
    assert q["screen"] == "restore" and q["facts"] and len(t2.flow.match.results) == 2
    assert [s.text for s in t2.flow.restore] == steps
    t2.flow.restore = []  # put back (the hall sensors agree)
    t2.flow.on_action("select", 201.0)
    t2._after_flow()
    assert t2.flow.mode == "turn"
    t2.store.close()
    t3 = restarted(tmp_path)
    assert t3.flow.mode == "turn", "put back: not asked again"
