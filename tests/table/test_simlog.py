"""``coindrel sim`` in words: each mismatch with its explanations, and a
summary (result, mismatches, faults named) at the end of every sim."""

import argparse
import asyncio

from coindrel.commands import sim as sim_command
from coindrel.engine import Match, MatchSetup, SwitchStuck
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.report import DropReport
from coindrel.table.sim import SimOptions, run_sim
from coindrel.table.simlog import SimLog


def stuck_report(drop=15):
    return DropReport(drop=drop, entry=4, entry_seen=True, t=3.0, expected_exits=(0, 1, 2, 3, 4), observed_exits=(4,),
                      expected_flips={"R3S2": 1}, observed_flips={"R3S2": 0}, verdict="mismatch",
                      diagnosis=[Finding(SwitchStuck("R3S2"), 0.8)])


def test_each_mismatch_is_said_with_what_differed_and_its_best_explanation():
    said = []
    log = SimLog(say=said.append, injected=("switch_stuck@R3S2,t=20",))
    log.report(DropReport(drop=3, entry=1, entry_seen=True, t=1.0))  # ok: nothing to say
    log.report(stuck_report())
    assert len(said) == 1
    text = said[0]
    assert text.startswith("Drop 15: ")
    assert "Exits: expected 1 2 3 4 5; seen 5." in text and "R3S2 should have flipped" in text
    assert "Likely: R3S2 did not flip when a coin passed its lever" in text


def test_the_summary_names_result_mismatches_and_faults():
    log = SimLog(injected=("switch_stuck@R3S2,t=20",))
    assert "Mismatches: none" in log.summary() and "no match was played" in log.summary()
    m = Match(MatchSetup(players=("Ann", "Bo"), seed=1))
    log.watch(m)
    log.report(stuck_report(15))
    log.report(stuck_report(22))
    s = log.summary()
    assert "Result: not finished (round 1): Ann 0, Bo 0" in s
    assert "Mismatches: 2 (drops 15, 22)" in s
    assert "Faults named: switch_stuck at R3S2 (drops 15, 22)" in s
    assert "Faults injected: switch_stuck@R3S2,t=20" in s


def _args(**kw):
    base = dict(players="greedy,random", names="Ann,Bo", opponent="person", seed=1, clock="30", holes=False,
                halved=False, shuffled=False, fault=["switch_stuck@R3S2,t=20"], matches=1, think=0.6,
                display="text", out=None, no_dropper=False, state_dir=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_the_command_prints_mismatches_and_ends_with_the_summary(monkeypatch, capsys):
    async def fake_run_sim(opts, say=None, simlog=None):
        say("Round 1 of 4: Ann 0, Bo 0 (this round 0-0); Ann to drop")
        simlog.report(stuck_report())

    monkeypatch.setattr("coindrel.table.sim.run_sim", fake_run_sim)
    assert sim_command.run(_args()) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Round 1 of 4")
    assert any(line.startswith("Drop 15: ") for line in out)
    assert any("Likely: R3S2 did not flip" in line for line in out)
    tail = "\n".join(out[-5:])
    assert out[-5] == "Summary" and "Mismatches: 1 (drop 15)" in tail and "switch_stuck at R3S2" in tail


def test_a_sim_with_a_stuck_switch_says_so_in_text(tmp_path):
    said = []
    log = SimLog(say=said.append, injected=("switch_stuck@R3S4,t=10",))
    opts = SimOptions(think=0.05, pause=0.2, clock="turbo", display="text", state_dir=str(tmp_path), speed=10.0,
                      faults=("switch_stuck@R3S4,t=10",), reveal_seconds=0.2)
    asyncio.run(run_sim(opts, say=said.append, simlog=log))
    notices = [t for t in said if t.startswith("Drop ")]
    assert notices and any("R3S4" in t for t in notices), said[-20:]
    s = log.summary()
    assert "wins" in s or "a draw" in s
    assert "R3S4" in s.split("Faults named:")[1].split("\n")[0]
