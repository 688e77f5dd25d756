"""What a sim ends with: the ``--result`` JSON and the closing summary."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..engine import EngineError


def winner_name(m) -> str | None:
    if m is None or not m.over:
        return None
    w = m.winner
    return "draw" if w == "draw" else m.setup.players[w - 1]


def result_json(table, outcome, wall: float) -> dict:
    """The sim's result: the last match (or the table's state), and everything that went wrong."""
    from .fastsim import match_key

    m = outcome.matches[-1] if outcome.matches else table.flow.match
    key = match_key(m)
    mine = [(d, said) for k, d, said in outcome.mismatches if k == key]  # the last match's, as drops is
    resumed = outcome.resumed[1] if outcome.resumed is not None and outcome.resumed[0] == key else None
    faults = []
    if table.reconciler is not None:
        faults = [{"fault": f["fault"], "where": f["where"], "confidence": f["confidence"]}
                  for f in table.reconciler.health().faults]
    return {
        "over": bool(m is not None and m.over),
        "phase": m.phase if m is not None else table.flow.mode,
        "players": list(m.setup.players) if m is not None else list(table.flow.menu.choices.players),
        "totals": list(m.totals) if m is not None else [0, 0],
        "winner": winner_name(m),
        "drops": len(m.results) if m is not None else 0,
        "mismatches": len(mine),
        "mismatch_drops": [{"drop": d, "said": said} for d, said in mine],
        # drops the match already had when this run resumed it from the journal (None: this run
        # saw every drop); mismatches count only what this run saw
        "resumed_after_drop": resumed,
        "faults": faults,
        "matches": [{"players": list(x.setup.players), "totals": list(x.totals), "winner": winner_name(x),
                     "over": x.over, "drops": len(x.results)} for x in outcome.matches],
        "restarts": outcome.restarts,
        "unplugs": outcome.unplugs,
        "script_steps": outcome.script_steps,
        "board_seconds": round(outcome.t, 3),
        "wall_seconds": round(wall, 3),
        "errors": list(outcome.errors),
    }


def summary_lines(result: dict) -> list[str]:
    names, totals = result["players"], result["totals"]
    score = f"{names[0]} {totals[0]} - {names[1]} {totals[1]}"
    if result["over"]:
        w = result["winner"]
        head = f"Result: {score}, {'a draw' if w == 'draw' else w + ' wins'}."
    else:
        head = f"Not finished ({result['phase']}): {score}."
    rest = (f"{result['restarts']} restart(s), {result['unplugs']} unplug(s), "
            f"{result['board_seconds']:.0f} s of board time")
    before = result.get("resumed_after_drop")
    if before is None:
        lines = [head, f"{result['drops']} drops, {result['mismatches']} mismatch(es), {rest}."]
    else:  # never a sum of two runs' counts: what this run saw, and what the journal held before
        lines = [head, f"Resumed from the journal after drop {before}; this run: {result['drops'] - before} "
                       f"drops, {result['mismatches']} mismatch(es), {rest}. "
                       f"The match: {result['drops']} drops (coindrel history shows the earlier ones)."]
    for m in result["mismatch_drops"][:8]:
        lines.append(f"  drop {m['drop']}: {m['said']}")
    if result["faults"]:
        lines.append("Faults named: " + "; ".join(f"{f['fault']} at {f['where']} ({f['confidence']:.0%})" for f in result["faults"]))
    else:
        lines.append("Faults named: none")
    for e in result["errors"]:
        lines.append(f"ERROR: {e}")
    return lines


def write_result(path: str, result: dict) -> None:
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        tmp.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, p)
    except OSError as e:
        raise EngineError(f"cannot write the result to {p}: {e.strerror or e}; choose a folder that exists") from None
