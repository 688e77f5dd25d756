"""Writes the scenario logs in this folder (run it again only to change them):

    PYTHONPATH=controller python tests/reconcile/scenarios/make.py

Each scenario is an observation log (sensing.md section 3) plus a
``.expect.json`` saying what reconciling it must give. Most start from a clean
run of the synthetic board and then change what the sensors reported, by
hand, the way the fault would: a line taken out (a dead beam), a line
repeated (a chattering beam), lines added between drops (a hand). The edits
are spelled out below, so each file says exactly what happened.
"""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.engine import BoardState, SwitchStuck
from coindrel.events import ExitEvent, SwitchEvent, event_to_json
from coindrel.reconcile.faults import CoinAdded, ExitSensorChatter, MovedByHand
from benchmarks.models.synth import Injection, synthesize

HERE = Path(__file__).parent
START = "lRlRLrLr/RlRlrLR/LlLlRrRr/rRRlLlL/LrRLlRrL"  # mid-match: coins resting


def write(name: str, header: dict, events: list, expect: dict, note: str) -> None:
    with open(HERE / f"{name}.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({**header, "note": note}) + "\n")
        for ev in events:
            f.write(json.dumps(ev if isinstance(ev, dict) else event_to_json(ev)) + "\n")
    (HERE / f"{name}.expect.json").write_text(json.dumps(expect, indent=1) + "\n", encoding="utf-8")


def clean(entries, seed=1, start=START, overlap=0.0, injections=(), calm=()):
    state = BoardState.parse(start)
    run = synthesize(state, entries, injections, seed=seed, overlap=overlap, calm=calm)
    return run.header.to_json(), list(run.events), run


def main() -> None:
    # 1. Healthy, with coins in flight together: every drop ok.
    header, events, _ = clean([3, 4, 3, 0, 7, 5, 2, 2, 6, 1, 4, 4], seed=3, overlap=0.5)
    write("healthy_overlap", header, events, {"drops": 12, "ok": "all"},
          "12 healthy drops, about half dropped before the last cascade ended")

    # 2. A dead exit beam: every event of the first exit drop 3 reaches taken out.
    header, events, run = clean([4, 4, 5, 4, 3, 4, 5, 4], seed=5)
    x = next(d.exits[0] for d in run.drops[2:] if d.exits)
    dead = [e for e in events if not (isinstance(e, ExitEvent) and e.exit == x)]
    first = next(d.index + 1 for d in run.drops if x in d.exits)
    where = f"exit {x + 1}"
    write("dead_exit", header, dead, {"drops": 8, "first_mismatch": first, "listed": [["exit_sensor_dead", where]],
                                      "health": [["exit_sensor_dead", where]]},
          f"{where}'s beam events removed: its beam is dead")

    # 3. A hand moves R2S3 over between drops 3 and 4 (the synthetic board moves
    #    the rocker: its hall reads mid for a few hundred ms, then the other side).
    header, events, run = clean([0, 1, 6, 2, 3], seed=7, injections=[Injection(MovedByHand("R2S3"), 3)])
    write("hand_move", header, events, {"drops": 5, "ok": "all", "outside": [["moved_by_hand", "R2S3"]]},
          "someone flips R2S3 by hand between drops 3 and 4; every drop still reconciles")

    # 4. Entry 4's beam misses drop 2's coin: its entry event taken out.
    header, events, run = clean([1, 3, 5, 3], seed=11, start="LLLRLLLL/RLRLRLR/LLLLRRRR/RRRLLLL/LRRLLRRL")
    t2 = run.drops[1].t
    gone = [e for e in events if not (e.kind == "entry" and abs(e.t - t2) < 1e-9)]
    write("entry_missing", header, gone, {"drops": 4, "unseen": [2], "entry_of": {"2": 4}, "listed_at": {"2": [["entry_sensor_dead", "entry 4"]]}},
          "drop 2's entry event removed: the entry is inferred from the cascade")

    # 5. A rocker that drop 2 flips is stuck from drop 1 on (the synthetic board's physics).
    entries = [3, 3, 4, 3, 3, 4, 3]
    stuck = _label(next(o.flipped[-1] for o in _healthy(entries)[1:] if o.flipped))
    header, events, run = clean(entries, seed=13, injections=[Injection(SwitchStuck(stuck), 0)])
    first = next(d.index + 1 for d in run.drops if d.affected)
    write("stuck_switch", header, events, {"drops": 7, "first_mismatch": first, "listed": [["switch_stuck", stuck]],
                                            "health": [["switch_stuck", stuck]]},
          f"{stuck}'s rocker is stuck: coins pass its lever without flipping it")

    # 6. An exit drop 2 reaches counts each coin twice (a repeat 15-45 ms after) from drop 2 on.
    entries = [2, 2, 3, 2, 5]
    x = next(o.exits[0] for o in _healthy(entries)[1:] if o.exits)
    header, events, run = clean(entries, seed=17, injections=[Injection(ExitSensorChatter(x), 1)])
    first = next(d.index + 1 for d in run.drops if d.affected)
    write("exit_chatter", header, events, {"drops": 5, "first_mismatch": first, "top": ["exit_sensor_chatter", f"exit {x + 1}"]},
          f"exit {x + 1}'s beam breaks twice for every coin from drop 2 on")

    # 7. A coin pushed into exit 12 between drops.
    header, events, run = clean([0, 7, 3], seed=19, calm=(2,))
    t = run.drops[2].t - 1.2
    write("stray_exit", header, _merge(events, [ExitEvent(t, 11)]), {"drops": 3, "ok": "all", "outside": [["stray_coin", "exit 12"]]},
          "exit 12 breaks while no drop is falling")

    # 8. R5S2's rocker knocked out of its seat between drops (reads mid from then on).
    header, events, run = clean([1, 2, 1, 0], seed=23, calm=(2,))
    t = run.drops[2].t - 1.2
    unseated = [e for e in events if not (e.kind == "switch" and e.switch == "R5S2" and e.t > t)] + [SwitchEvent(t, "R5S2", "mid")]
    write("unseated", header, _merge(unseated, []), {"drops": 4, "outside": [["switch_unseated", "R5S2"], ["hall_fault", "R5S2"]]},
          "R5S2 reads mid at rest from between drops 2 and 3")

    # 9. A coin put by hand (no sensor sees it) before drop 3 on a pad drop 3 flips.
    entries = [4, 1, 4, 4, 5]
    outs = _healthy(entries)
    spot = next(_label(sw) for k in range(2, len(outs)) for sw in outs[k].flipped if not outs[k - 1].board.has_coin(sw))
    header, events, run = clean(entries, seed=29, injections=[Injection(CoinAdded(spot), 2)])
    first = next((d.index + 1 for d in run.drops if d.affected), None)
    write("coin_added", header, events, {"drops": 5, "first_mismatch": first, "listed": [["coin_added", spot]]},
          f"a coin rests on {spot} that no sensor saw arrive")

    # 10. Damaged lines: the reconciler reports them and goes on.
    header, events, _ = clean([3, 4], seed=31)
    lines = [event_to_json(e) for e in events]
    lines.insert(2, {"t": 1.5, "kind": "exit", "exit": 99})
    lines.insert(4, "not json at all {")
    lines.insert(5, {"kind": "note", "text": "operator restarted the display"})
    with open(HERE / "damaged.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({**header, "note": "two bad lines and a note among the events"}) + "\n")
        for ln in lines:
            f.write((ln if isinstance(ln, str) else json.dumps(ln)) + "\n")
    (HERE / "damaged.expect.json").write_text(json.dumps({"drops": 2, "ok": "all", "problems": 2}, indent=1) + "\n", encoding="utf-8")


def _healthy(entries, start=START):
    """The engine's outcome of each drop in turn."""
    from coindrel.engine import drop

    state, out = BoardState.parse(start), []
    for e in entries:
        o = drop(state, [e])
        out.append(o)
        state = o.board
    return out


def _label(switch: int) -> str:
    return BoardState.parse(START).geometry.labels[switch]


def _merge(events, extra):
    return sorted(list(events) + list(extra), key=lambda e: e.t)


def _side_before(run, events, label, t):
    side = run.header.board_state().pad(label)
    pos = "LR"[side]
    for e in events:
        if e.t < t and e.kind == "switch" and e.switch == label and e.pos in ("L", "R"):
            pos = e.pos
    return pos


if __name__ == "__main__":
    main()
