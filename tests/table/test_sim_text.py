"""``coindrel sim`` text output: each mismatch worded as the OLED words it
(what the board did against the engine, every explanation), then a summary."""

import subprocess
import sys

from coindrel.display import mismatch_view
from coindrel.engine import SwitchStuck
from coindrel.reconcile.belief import Finding
from coindrel.reconcile.report import DropReport
from coindrel.table.fastsim import mismatch_text


def test_a_mismatch_in_text_says_what_differed_and_why():
    r = DropReport(drop=15, entry=4, entry_seen=True, t=1.0, expected_exits=(0, 1, 2, 3, 4), observed_exits=(4,),
                   expected_flips={"R3S2": 1}, observed_flips={"R3S2": 0}, verdict="mismatch",
                   diagnosis=[Finding(SwitchStuck("R3S2"), 0.9)])
    text = mismatch_text(r, mismatch_view(r))
    assert text.splitlines() == [
        "Mismatch at drop 15:",
        "  Exits: expected 1 2 3 4 5; seen 5.",
        "  R3S2 should have flipped, but did not.",
        "  Likely: R3S2 did not flip when a coin passed its lever: the rocker is stuck.",
    ]


def test_a_coin_outside_any_drop_in_text_says_what_was_seen():
    from coindrel.display import stray_view
    from coindrel.events import ExitEvent

    r = DropReport(drop=None, entry=None, entry_seen=False, t=1.0, verdict="mismatch", events=[ExitEvent(1.0, 4)])
    text = mismatch_text(r, stray_view(r))
    assert text.splitlines()[:2] == ["Not a drop", "  Seen: exit 5, while no drop was falling."]


def test_sim_with_a_stuck_switch_in_text_names_the_mismatches_and_ends_with_a_summary(tmp_path):
    r = subprocess.run([sys.executable, "-m", "coindrel", "sim", "--fast", "--display", "text", "--state-dir",
                        str(tmp_path), "--fault", "switch_stuck@R3S2,t=20"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("Mismatch at drop ")]
    assert heads, r.stdout[-2000:]
    for i in heads:  # what differed, then the best explanation, each on its own line
        block = []
        for line in lines[i + 1:]:
            if not line.startswith("  "):
                break
            block.append(line)
        assert any(b.startswith("  Likely: ") for b in block), block
        assert any("R3S2" in b for b in block), block
    tail = "\n".join(lines[heads[-1]:])
    assert "Result: " in tail and "mismatch(es)" in tail
    assert lines[-1].startswith("Faults named: ") and "R3S2" in lines[-1]
