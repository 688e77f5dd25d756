"""What a sim's summary counts: each mismatch once, however long its screen
stays up; a resumed match's earlier drops told apart from this run's; and a
resumed sim's virtual board standing where the journal believes it."""

from __future__ import annotations

import asyncio
import json

import pytest

from coindrel.engine import BoardState, Variants, standard_geometry
from coindrel.engine.core import COIN, HOLE
from coindrel.table.fastsim import FastRig, believed_start
from coindrel.table.script import parse_script
from coindrel.table.sim import SimOptions
from coindrel.table.simresult import result_json, summary_lines

G = standard_geometry()
FAST = {"datasync": lambda fd: None}


def person_dropping_through_mismatches(n=24):
    """Two people at the keyboard, who press on only now and then: they drop
    coins while a mismatch screen is still up, as a keyboard player does."""
    lines, t = [{"t": 2, "press": "select"}, {"t": 5, "press": "select"}], 8.0
    for i in range(n):
        lines.append({"t": t, "drop": (i * 3) % 8 + 1})
        t += 1.5
        if i % 4 == 0:
            lines.append({"t": t, "press": "back"})
            t += 0.5
    return parse_script("\n".join(json.dumps(x) for x in lines), G), t + 5


def test_a_mismatch_left_on_screen_is_counted_and_told_once(tmp_path):
    script, end = person_dropping_through_mismatches()
    opts = SimOptions(players=("keyboard", "keyboard"), display="none", clock="off", reveal_seconds=0.5,
                      faults=("switch_stuck@R3S2,t=1",))
    rig = FastRig(opts, script, state_dir=str(tmp_path), store_options=FAST)
    told = []
    rig.on_mismatch = lambda report, view: told.append(view.drop)
    out = asyncio.run(rig.run(until=end))
    result = result_json(rig.table, out, 0.0)
    drops = [m["drop"] for m in result["mismatch_drops"]]
    assert len(drops) >= 3, result  # the stuck switch and the coins out of turn were seen
    assert len(drops) == len(set(drops)) == result["mismatches"], drops
    assert sorted(told) == sorted(drops), (told, drops)
    listed = [line for line in summary_lines(result) if line.startswith("  drop ")]
    assert len(listed) == len(set(listed))


def test_a_resumed_match_says_what_this_run_saw_apart_from_the_journal(tmp_path):
    opts = SimOptions(display="none", clock="turbo", reveal_seconds=0.5, think=0.2, pause=0.3)
    first = FastRig(opts, [], state_dir=str(tmp_path), store_options=FAST)
    out = asyncio.run(first.run(until=40))
    before = len(first.table.flow.match.results)
    assert before > 5 and not first.table.flow.match.over
    again = FastRig(opts, [], state_dir=str(tmp_path), store_options=FAST)
    out = asyncio.run(again.run())
    result = result_json(again.table, out, 0.0)
    assert result["over"] and result["resumed_after_drop"] == before and result["restarts"] == 0
    text = "\n".join(summary_lines(result))
    assert f"after drop {before}; this run: {result['drops'] - before} drops" in text, text
    assert f"The match: {result['drops']} drops" in text


def test_a_match_played_in_one_run_has_one_count(tmp_path):
    opts = SimOptions(display="none", clock="turbo", reveal_seconds=0.5, think=0.2, pause=0.3)
    script = parse_script('{"t": 20, "restart": true}\n{"t": 31.3, "restart": true}', G)
    rig = FastRig(opts, script, state_dir=str(tmp_path), store_options=FAST)
    result = result_json(rig.table, asyncio.run(rig.run()), 0.0)
    assert result["over"] and result["restarts"] == 2 and result["resumed_after_drop"] is None
    assert summary_lines(result)[1].startswith(f"{result['drops']} drops, ")


@pytest.mark.parametrize("until", [30, 44, 45])  # whether a coin is falling at the stop or not
def test_a_resumed_sim_starts_its_board_where_the_journal_believes_it(tmp_path, until):
    opts = SimOptions(display="none", clock="turbo", reveal_seconds=0.5, think=0.2, pause=0.3, seed=3)
    first = FastRig(opts, [], state_dir=str(tmp_path), store_options=FAST)
    asyncio.run(first.run(until=until))
    believed = first.table.flow.match.board
    if first.table.flow.falling_entry is not None:  # it fell on while the table was down
        from coindrel.engine import drop

        believed = drop(believed, [first.table.flow.falling_entry]).board
    assert any(believed.codes[s] & COIN and believed.codes[s] != HOLE for s in range(G.switch_count)), "no coin on a pad to lose"
    assert believed_start(tmp_path) == believed.text()
    again = FastRig(opts, [], state_dir=str(tmp_path), store_options=FAST)
    assert again.board.world.codes == list(believed.codes) or \
        BoardState(G, list(again.board.world.codes)).text() == believed.text()
    told = []
    again.on_mismatch = lambda report, view: told.append(" ".join(getattr(view, "findings", ()) or ()))
    out = asyncio.run(again.run())
    assert not out.errors and out.matches[-1].over
    assert not [t for t in told if "by hand" in t or "was not there" in t or "hall sensor" in t], told


def test_a_resumed_real_time_sim_starts_its_board_where_the_journal_believes_it(tmp_path, monkeypatch):
    import coindrel.table.sim as sim

    built = []
    real = sim.build_board
    monkeypatch.setattr(sim, "build_board", lambda scn, *a, **k: built.append(scn) or real(scn, *a, **k))
    opts = SimOptions(think=0.05, pause=0.2, clock="turbo", display="none", state_dir=str(tmp_path), speed=10.0,
                      reveal_seconds=0.2, seed=3)
    asyncio.run(sim.run_sim(opts, say=lambda text: None, until=40))
    believed = believed_start(tmp_path)
    assert believed is not None and built[0].config.start is None
    told = []
    result = asyncio.run(sim.run_sim(opts, say=told.append, until=None))
    assert built[1].config.start == believed
    assert result["over"] and result["errors"] == [] and result["resumed_after_drop"]
    assert not [m for m in result["mismatch_drops"] if "by hand" in m["said"] or "was not there" in m["said"]], result


def test_a_run_of_several_matches_sums_up_each_match():
    """Found by a newcomer: --matches 3 printed only the last match's 60 drops after 170."""
    from coindrel.table.simresult import summary_lines

    played = [{"players": ["Ann", "Bo"], "totals": [185, 26], "winner": "Ann", "over": True, "drops": 52},
              {"players": ["Ann", "Bo"], "totals": [100, 100], "winner": "draw", "over": True, "drops": 58},
              {"players": ["Ann", "Bo"], "totals": [20, 8], "winner": None, "over": False, "drops": 9}]
    result = {"players": ["Ann", "Bo"], "totals": [20, 8], "over": False, "winner": None, "phase": "turn",
              "drops": 9, "mismatches": 0, "mismatch_drops": [], "other_alerts": [], "restarts": 0, "unplugs": 0,
              "board_seconds": 300.0, "resumed_after_drop": None, "faults": [], "errors": [], "matches": played}
    lines = summary_lines(result)
    assert lines[:4] == ["Match 1: Ann 185 - Bo 26, Ann wins; 52 drops.", "Match 2: Ann 100 - Bo 100, a draw; 58 drops.",
                         "Match 3: Ann 20 - Bo 8, not finished; 9 drops.", "3 matches, 119 drops in all."]
    assert lines[4].startswith("Last match: Not finished") and "9 drops in the last match" in lines[5]
    result["matches"] = played[:1]
    assert summary_lines(result)[0].startswith("Not finished")


def test_an_unplug_from_the_fault_list_is_counted(tmp_path):
    """Found by a newcomer: --fault unplug,... reported "0 unplug(s)"."""
    import asyncio

    from coindrel.table.fastsim import run_fast
    from coindrel.table.sim import SimOptions

    opts = SimOptions(display="none", state_dir=str(tmp_path), faults=("unplug,t=20,duration=3",))
    result = asyncio.run(run_fast(opts, [], until=30))
    assert result["unplugs"] == 1 and result["errors"] == []


@pytest.mark.parametrize("mode", ["inverted", "stuck"])
def test_a_lying_hall_is_named_to_the_end(tmp_path, mode):
    """Found by a newcomer: with R4S1's hall inverted (or stuck), the first
    mismatches named the hall, and the summary ended "Faults named: jam at
    R4S1 right outlet (100%)": the simulated players' "Board is right" (the
    back button) had made the table believe the lying hall."""
    opts = SimOptions(display="none", clock="turbo", reveal_seconds=0.5, think=0.2, pause=0.3,
                      faults=(f"hall_fault@R4S1,t=10,mode={mode}",))
    rig = FastRig(opts, [], state_dir=str(tmp_path), store_options=FAST)
    result = result_json(rig.table, asyncio.run(rig.run()), 0.0)
    assert result["over"] and result["mismatches"] >= 2, result
    named = [(f["fault"], f["where"]) for f in result["faults"]]
    assert named[:1] == [("hall_fault", "R4S1")], named
    assert not [m for m in result["mismatch_drops"] if "jamming" in m["said"]], result["mismatch_drops"]


def test_a_sim_with_the_tables_own_opponent_repeats_from_its_seed(tmp_path):
    """Found by a newcomer: `sim --fast --seed 1 --opponent hard` gave 40-180, then 56-191."""
    import asyncio

    from coindrel.table.fastsim import run_fast
    from coindrel.table.sim import SimOptions

    def one(k):
        opts = SimOptions(display="none", state_dir=str(tmp_path / str(k)), opponent="hard", seed=3,
                          variants=Variants(shuffled=True))
        r = asyncio.run(run_fast(opts, [], until=60))
        return r["totals"], r["drops"]

    assert one(1) == one(2)


def test_a_one_off_the_mismatch_named_is_in_the_summary(tmp_path):
    """Found by a newcomer: a mismatch said a coin was put on R2S3 by hand and
    the summary ended "Faults named: none" (it read only the faults the board
    keeps, not the one-off events a drop was explained by)."""
    opts = SimOptions(display="none", clock="turbo", reveal_seconds=0.5, think=0.2, pause=0.3,
                      faults=("coin_added@R2S3,t=20",))
    rig = FastRig(opts, [], state_dir=str(tmp_path), store_options=FAST)
    result = result_json(rig.table, asyncio.run(rig.run()), 0.0)
    assert any("R2S3" in m["said"] for m in result["mismatch_drops"]), result["mismatch_drops"]
    assert ("coin_added", "R2S3") in [(f["fault"], f["where"]) for f in result["incidents"]]
    lines = summary_lines(result)
    assert "Named once, no fault of the board: coin_added at R2S3" in lines, lines
    assert lines.index("Named once, no fault of the board: coin_added at R2S3") == 1 + next(
        i for i, line in enumerate(lines) if line.startswith("Faults named: "))
