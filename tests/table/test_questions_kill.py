"""A mismatch question open when ``coindrel run`` is SIGKILLed is asked again
after the restart, and its answer outlives the next kill: real processes (a
served virtual board whose exit 14 beam is dead, ``coindrel run`` against it,
``coindrel ctl``), the rig of the kill -9 benchmark (benchmarks/killrig.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from killrig import KillRig  # noqa: E402

from coindrel.table.journal import read_journal  # noqa: E402

WAIT = 90.0  # seconds: a ceiling only a hang reaches


def asked(rig):
    st = rig.status()
    return st if st and st.get("asking") else None


def settled(rig):
    st = rig.status()
    return st if st and st.get("link", {}).get("up") and st.get("phase") not in (None, "menu") else None


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_a_question_open_at_a_kill_is_asked_again_and_the_answer_survives_the_next_kill(tmp_path):
    # entry 5 on the flat board goes to exit 14, whose beam sees nothing: a mismatch on drop 1
    rig = KillRig(tmp_path, drops=1, first=5.0, seed=3, faults=("exit_sensor_dead@exit 14",))
    rig.schedule = [(5.0, 5)]
    try:
        rig.start_board()
        rig.start_table()
        assert rig.wait_for(lambda: rig.sock.exists(), 30)
        rig.new_match()
        st = rig.wait_for(lambda: asked(rig), WAIT)
        assert st is not None, f"no mismatch was asked; see {tmp_path / 'table.log'}"
        q = st["asking"]
        assert q["drop"] == 1 and q["screen"] == "mismatch" and st["drops"] == 1

        rig.kill_table()  # SIGKILL while the players have not answered
        rig.start_table()
        again = rig.wait_for(lambda: asked(rig), WAIT)
        assert again is not None, f"the question was not asked again; see {tmp_path / 'table.log'}"
        assert again["asking"]["drop"] == 1 and again["asking"]["findings"] == q["findings"]
        assert again["drops"] == 1 and again["mode"] == "mismatch"

        answer = rig.ask({"cmd": "press", "button": "back"})  # "Board is right"
        assert answer and answer.get("ok"), answer
        assert answer["status"]["asking"] is None
        rig.kill_table()
        rig.start_table()
        st = rig.wait_for(lambda: settled(rig), WAIT)
        assert st is not None and st["asking"] is None and st["mode"] == "turn", st
        answers = [r.data["answer"] for r in read_journal(rig.state / "match.journal").records
                   if r.kind == "note" and "answer" in r.data]
        assert answers == [{"drop": 1, "answer": "Board is right"}]
    finally:
        rig.close()


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_the_filed_matchs_open_question_is_asked_by_coindrel_run_and_answered_into_the_history(tmp_path):
    from .test_filing import table_at_the_last_drop

    rig = KillRig(tmp_path, drops=1, first=600.0, seed=4)
    # the match ended on a flagged drop and was filed at once; then the table was killed
    t, m, _entry, _now = table_at_the_last_drop(rig.state)
    t.store.close()
    turns = len(m.results)
    try:
        rig.start_board()
        rig.start_table()
        st = rig.wait_for(lambda: asked(rig), WAIT)
        assert st is not None, f"the filed match's question was not asked; see {tmp_path / 'table.log'}"
        assert st["asking"]["drop"] == turns and st["over"] and st["mode"] == "mismatch"
        answer = rig.ask({"cmd": "press", "button": "back"})  # "Board is right"
        assert answer and answer.get("ok") and answer["status"]["asking"] is None, answer
        filed = next((rig.state / "history").iterdir())
        answers = [r.data["answer"] for r in read_journal(filed).records if r.kind == "note" and "answer" in r.data]
        assert answers == [{"drop": turns, "answer": "Board is right"}]
        rig.kill_table()
        rig.start_table()
        st = rig.wait_for(lambda: (s := rig.status()) and s.get("link", {}).get("up") and s, WAIT)
        assert st is not None and st["asking"] is None and st["phase"] == "menu", st
    finally:
        rig.close()
