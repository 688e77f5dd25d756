"""What a sim ends with: the ``--result`` JSON and the closing summary."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..engine import EngineError


def recovered(recovery, warn=None):
    """``recovery`` after its warnings are said as ``coindrel run`` says them
    (a journal the store cut or moved aside must not be repaired silently)."""
    import sys

    warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
    for message in recovery.messages:
        warn(f"WARNING coindrel.table: {message}")
    return recovery


def stop_on_signals(stop):
    """Ctrl-C (SIGINT) and SIGTERM call ``stop()``: the sim ends as ``q`` ends
    it, its journal synced and its summary printed, not with a traceback.
    Returns the function that puts the old handling back."""
    import asyncio
    import signal

    loop = asyncio.get_running_loop()
    added = []
    late: list = []

    def on_signal() -> None:
        stop()
        if not late:  # a sim stuck inside one step would never look at stop(): end it anyway
            late.append(loop.call_later(grace, give_up))

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, on_signal)
            added.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread (tests)
            pass

    def restore() -> None:
        for sig in added:
            loop.remove_signal_handler(sig)
        for handle in late:
            handle.cancel()

    return restore


def give_up() -> None:
    """A sim that did not end within ``grace`` seconds of Ctrl-C or SIGTERM
    ends now, as a power cut would: every journalled record is already on disk."""
    import os
    import sys

    sys.stderr.write(f"coindrel sim: did not stop within {grace:g} s of the signal; stopped without a summary "
                     "(the journal keeps every synced record)\n")
    sys.stderr.flush()
    os._exit(1)


grace = 10.0  # seconds a sim has to end after Ctrl-C or SIGTERM


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
    faults, incidents = [], []
    if table.reconciler is not None:
        health = table.reconciler.health()
        faults = [{"fault": f["fault"], "where": f["where"], "confidence": f["confidence"]} for f in health.faults]
        # one-off events a mismatch named (a coin put on by hand, a rocker pushed): no fault of the board's
        # to keep, but the summary said "Faults named: none" under the drop that named one
        incidents = [{"fault": f["fault"], "where": f["where"], "confidence": f["confidence"]} for f in health.incidents]
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
        "alerts": len(mine) + len(outcome.alerts),  # every alert the players saw: mismatches and the rest
        "other_alerts": [{"title": title, "said": said} for title, said in outcome.alerts],
        "faults": faults,
        "incidents": incidents,
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
    others = result.get("other_alerts", [])
    rest = (f"{len(others)} other alert(s), {result['restarts']} restart(s), {result['unplugs']} unplug(s), "
            f"{result['board_seconds']:.0f} s of board time")
    before = result.get("resumed_after_drop")
    if before is None:
        lines = [head, f"{result['drops']} drops, {result['mismatches']} mismatch(es), {rest}."]
    else:  # never a sum of two runs' counts: what this run saw, and what the journal held before
        lines = [head, f"Resumed from the journal after drop {before}; this run: {result['drops'] - before} "
                       f"drops, {result['mismatches']} mismatch(es), {rest}. "
                       f"The match: {result['drops']} drops (coindrel history shows the earlier ones)."]
    played = result.get("matches") or []
    if len(played) > 1:  # the counts above are the last match's: every match gets its line
        lines[0] = "Last match: " + lines[0]
        lines[1] = lines[1].replace(" drops, ", " drops in the last match, ", 1)
        for k, m in enumerate(played, 1):
            w = m.get("winner")
            end = ("a draw" if w == "draw" else f"{w} wins") if m.get("over") else "not finished"
            lines.insert(k - 1, f"Match {k}: {m['players'][0]} {m['totals'][0]} - {m['players'][1]} "
                                f"{m['totals'][1]}, {end}; {m['drops']} drops.")
        lines.insert(len(played), f"{len(played)} matches, {sum(m['drops'] for m in played)} drops in all.")
    for m in result["mismatch_drops"][:8]:
        lines.append(f"  drop {m['drop']}: {m['said']}")
    for a in others[:8]:
        lines.append(f"  {a['title']}: {a['said']}")
    named = [f"{f['fault']} at {f['where']} ({f['confidence']:.0%})" for f in result["faults"]]
    lines.append("Faults named: " + ("; ".join(named) if named else "none"))
    once = [f"{f['fault']} at {f['where']}" for f in result.get("incidents", ())]
    if once:  # what a mismatch named that is no part of the board (a hand, a coin put on)
        lines.append("Named once, no fault of the board: " + "; ".join(once))
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


def match_seeds(seed: int):
    """The seeds of a sim's matches, one after another, from ``--seed``: a
    sim repeats (the table's computer opponent and a shuffled match draw from
    them), where a table at a club draws each from the system's randomness."""
    import random

    rng = random.Random(f"coindrel-sim-matches-{seed}")
    return lambda: rng.randrange(2**53)

