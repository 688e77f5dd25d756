"""The real hub firmware in the loop: ``coindrel sim --hub firmware --fast``
plays whole matches through firmware/coindrel_hub under the unix MicroPython
(its pins driven by the virtual board), the real hub link on a pty, the real
table; the same match on the Python hub model gives the same result. An
unplug and a hub reset are survived the same way. Everything runs in
lockstep on board time, so no figure here depends on the machine's speed."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coindrel.table.sim import SimOptions

ROOT = Path(__file__).resolve().parents[2]
SAME = ("over", "phase", "players", "totals", "winner", "drops", "matches", "errors")


def micropython_or_skip():
    from coindrel.engine import EngineError
    from coindrel.virtual.fwhub import micropython_binary

    try:
        return micropython_binary()
    except EngineError as e:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(e))


def sim(tmp_path, name, *args):
    out = tmp_path / f"{name}.json"
    # --until bounds a run that cannot finish (a match is about 70 s of board time)
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--players", "greedy,random",
                        "--until", "600", "--result", str(out), *args], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(out.read_text()), r.stdout


def test_a_whole_match_through_the_real_firmware_is_the_python_models_match(tmp_path):
    micropython_or_skip()
    fw, text = sim(tmp_path, "fw", "--hub", "firmware")
    py, _ = sim(tmp_path, "py")
    assert fw["over"] and fw["errors"] == [] and fw["drops"] > 20, text
    assert {k: fw[k] for k in SAME} == {k: py[k] for k in SAME}
    assert fw["mismatches"] == py["mismatches"] == 0


@pytest.mark.parametrize("what", ["unplug", "hub_reset"])
def test_an_unplug_and_a_hub_reset_through_the_real_firmware(tmp_path, what):
    micropython_or_skip()
    if what == "unplug":
        (tmp_path / "s.jsonl").write_text('{"t": 20, "unplug": 3}\n')
        extra = ["--script", str(tmp_path / "s.jsonl")]
    else:
        extra = ["--fault", "hub_reset,t=40"]
    fw, text = sim(tmp_path, "fw", "--hub", "firmware", *extra)
    py, _ = sim(tmp_path, "py", *extra)
    assert fw["over"] and fw["errors"] == [], text
    # The same match, scored the same; a drop the cut falls into may be flagged
    # on one hub and not the other (the firmware's link answers a little later,
    # so the players' coins fall at slightly other times).
    assert {k: fw[k] for k in SAME} == {k: py[k] for k in SAME}
    assert fw["unplugs"] == py["unplugs"] == (1 if what == "unplug" else 0)


def test_the_firmware_really_rebooted_and_the_link_resynced(tmp_path):
    # In process, to look inside: the MicroPython process ended with the
    # power and a new boot started (3 boots), the pty went with the cable,
    # the link saw two new boot ids and resynced board time, the match ended.
    micropython_or_skip()
    from coindrel.engine import standard_geometry
    from coindrel.table.fwsim import FirmwareRig
    from coindrel.table.script import parse_script

    opts = SimOptions(display="text", faults=("hub_reset,t=40",))
    script = parse_script('{"t": 20, "unplug": 3}\n', standard_geometry())
    rig = FirmwareRig(opts, script, state_dir=str(tmp_path / "state"))
    out = asyncio.run(rig.run(until=600, wall_limit=600))
    assert out.errors == []
    assert rig.players.finished.is_set() and out.matches and out.matches[-1].over
    assert rig.wire.boots == 3, "the first boot, after the unplug, after the reset"
    assert rig.rig.hub.unplugs == 1
    assert rig.link_source.link.tracker.stats.resets == 2
    assert rig.wire.proc is None, "the MicroPython process ends with the sim"


def test_a_stop_ends_the_firmware_sim_after_its_tick(tmp_path):
    # Ctrl-C / SIGTERM set ``stopped`` (run_fast); the firmware rig once ran on to the end.
    micropython_or_skip()
    from coindrel.table.fwsim import FirmwareRig

    rig = FirmwareRig(SimOptions(display="none"), [], state_dir=str(tmp_path / "state"))
    step = rig._atick

    async def tick_then_stop_at_10():
        await step()
        if rig.t >= 10:
            rig.stopped = True

    rig._atick = tick_then_stop_at_10
    out = asyncio.run(rig.run(until=600, wall_limit=600))
    assert out.errors == [] and 10 <= out.t < 10.5, out.t
    assert not rig.players.finished.is_set()
    assert rig.wire.proc is None, "the MicroPython process ends with the sim"


README_SCRIPT = """{"t": 12.5, "press": "select"}
{"t": 13, "drop": 4}
{"t": 14, "hand": "R3S2", "to": "L"}
{"t": 15, "place": "R1S3"}
{"t": 16, "take": "R1S3"}
{"t": 20, "unplug": 5}
{"t": 30, "restart": true}
"""
HALL_BLAME = "hall sensor disagrees"


# The firmware case was once kept out of CI: 2 of about 12 runs stalled after the unplug. The
# rig's hub left its port's name behind on an unplug, and the link reopened a pty number the
# kernel had meanwhile given to another process. 21 of 21 runs alike under load since.
@pytest.mark.parametrize("hub", ["python", "firmware"])
def test_the_readmes_script_raises_no_false_hall_alarm(tmp_path, hub):
    # The README's example on a healthy board: the unplug cuts a drop, the hub
    # reboots and the Pi reconnects seconds later, so the snapshot's news of
    # the rocker that moved unseen comes long after the link said "resync".
    # It once came out as "Not a drop ... R5S1's hall sensor disagrees" on the
    # firmware (not on the Python model), and that alert went uncounted.
    if hub == "firmware":
        micropython_or_skip()
    (tmp_path / "s.jsonl").write_text(README_SCRIPT)
    extra = ["--script", str(tmp_path / "s.jsonl")] + (["--hub", "firmware"] if hub == "firmware" else [])
    r, text = sim(tmp_path, hub, *extra)
    assert r["over"] and r["errors"] == [] and r["faults"] == [], text
    assert HALL_BLAME not in text, text
    said = [m["said"] for m in r["mismatch_drops"]] + [a["said"] for a in r["other_alerts"]]
    # the drop the unplug cut is lost, unless it was seen whole and the rebooted hub's snapshot
    # showed no rocker moved (then it is checked as it is: issue 13); the first alarm names the outage
    assert said and ("lost events" in said[0] or "while the hub's events were lost" in said[0]), text
    # a lost drop leaves its resting coins unknown (no sensor sees a coin on a pad); a later drop
    # may correct a believed coin, but nothing else may be blamed (open: name the outage, not a hand)
    assert all("lost events" in s or "coin" in s for s in said), text
    # every alert the players saw is counted, on screen and in the file
    lines = text.splitlines()
    shown = sum(x.startswith("Mismatch at drop") or x == "Not a drop" for x in lines)
    assert r["alerts"] == r["mismatches"] + len(r["other_alerts"]) == shown, text
    assert r["unplugs"] == 1 and r["restarts"] == 1


HARDWARE_FAULTS = {"switch_stuck", "hall_fault", "switch_unseated", "pad_not_holding", "exit_sensor_dead",
                   "entry_sensor_dead", "exit_sensor_chatter", "entry_sensor_chatter", "jam"}


def journal_verdicts(state_dir):
    from coindrel.table.journal import read_journal

    out = []
    for path in sorted((state_dir / "history").glob("*.journal")) + sorted(state_dir.glob("*.journal")):
        out += [r.data for r in read_journal(path).records if r.kind == "verdict" and isinstance(r.data, dict)]
    return out


# Seeds whose matches gave a healthy board false faults after the README's unplug and restart
# once sims drew their matches from --seed (issue: seeds; 9 of 30 seeds, 17 records): 7 scored
# one coin twice (the journal's t_end rounding) and blamed R1S1's hall; 8 blamed R1S3's hall and
# a stuck R1S7; 18 called the coin a hand took from R1S3 a hall fault after the restart.
@pytest.mark.parametrize("seed", [7, 8, 18])
def test_the_readmes_script_on_the_firmware_names_no_fault_on_a_healthy_board(tmp_path, seed):
    micropython_or_skip()
    (tmp_path / "s.jsonl").write_text(README_SCRIPT)
    state = tmp_path / "state"
    r, text = sim(tmp_path, "fw", "--script", str(tmp_path / "s.jsonl"), "--hub", "firmware", "--seed", str(seed),
                  "--state-dir", str(state))
    assert r["over"] and r["errors"] == [] and r["faults"] == [] and r["restarts"] == 1, text
    verdicts = journal_verdicts(state)
    drops = [v for v in verdicts if v.get("drop") is not None and v.get("revises") is None]
    assert len({v["t"] for v in drops}) == len(drops), "one coin scored as two drops"
    blamed = [(v.get("drop"), v.get("revises"), v["diagnosis"][0]) for v in verdicts
              if v.get("verdict") != "ok" and v.get("diagnosis") and v["diagnosis"][0]["fault"] in HARDWARE_FAULTS]
    assert blamed == [], text
