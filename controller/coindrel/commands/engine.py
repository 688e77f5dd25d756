"""``coindrel engine``: answer conformance vector cases on stdin, one per line."""

from __future__ import annotations

import json
import os
import stat
import sys

from ..engine import BoardState, EngineError, Match, MatchSetup, Variants, drop
from ..nesting import loads_json

HELP = "answer rules-engine cases (conformance vectors) from stdin, one JSON line each"
DESCRIPTION = (
    "Reads case lines (drops.jsonl or matches.jsonl form) on standard input and writes, for each, "
    "the 'expect' object the engine computes plus its id. A malformed line gets "
    '{"id": ..., "error": "..."} and the run goes on.'
)


def add_arguments(parser) -> None:
    pass


def answer(case: dict) -> dict:
    """The engine's ``expect`` object for one vector case."""
    if not isinstance(case, dict):
        raise EngineError("a case is a JSON object with 'board' and 'entries' (a drop) or 'start' and 'drops' (a match)")
    if "entries" in case:
        if "board" not in case:
            raise EngineError("a drop case needs 'board' (five row strings) and 'entries'")
        entries = case["entries"]
        if not isinstance(entries, list) or any(isinstance(e, bool) for e in entries):
            raise EngineError("'entries' must be a list of entry numbers 0..7 (true and false are not numbers)")
        return drop(BoardState.parse(case["board"]), entries).to_json()
    if "drops" in case:
        if "start" not in case:
            raise EngineError("a match case needs 'start' (five row strings) and 'drops'")
        drops = case["drops"]
        if not isinstance(drops, list):
            raise EngineError("'drops' must be a list of entry numbers 0..7")
        start = case["start"]
        setup = MatchSetup(
            variants=Variants.from_dict(case.get("variants")),
            start="/".join(start) if isinstance(start, list) else start,
            values=case.get("values"),
        )
        match = Match(setup)
        turns = []
        for n, entry in enumerate(drops, start=1):
            if match.over:
                raise EngineError(f"drop {n} comes after the match ended (round 4's last drop was drop {n - 1})")
            turns.append(match.play(entry).to_json())
        return {"turns": turns, "winner": match.winner, "board": match.board.rows()}
    raise EngineError("unknown case: a drop case has 'board' and 'entries', a match case has 'start' and 'drops'")


def _same_file(a: int, b: int) -> bool:
    # as commands._paths does, without its pathlib: this command starts in a blink
    try:
        sa, sb = os.fstat(a), os.fstat(b)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(sa.st_mode) and os.path.samestat(sa, sb)


def run(args) -> int:
    if _same_file(0, 1):  # engine < F >> F would answer its own answers for ever
        from ..errors import UsageError

        raise UsageError("standard input and standard output are the same file; write the answers to another "
                         "file (e.g. > answers.jsonl)")
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        case_id = None
        try:
            case = loads_json(line)
            case_id = case.get("id") if isinstance(case, dict) else None
            result = {"id": case_id, **answer(case)}
        except json.JSONDecodeError as e:
            result = {"id": None, "error": f"not JSON: {e.msg} at column {e.colno}"}
        except (EngineError, TypeError, KeyError) as e:
            result = {"id": case_id, "error": str(e)}
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 0
