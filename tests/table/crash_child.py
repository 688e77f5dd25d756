"""A simulated match driven through the real journal, the way the daemon does:
board events as they arrive, the coin seen, the reconciler's verdict, the
drop, the next round's reveal, now and then a belief correction.

Run as a script (``python crash_child.py STATE_DIR SEED``) it resumes
whatever match the state directory holds and plays it to the end, printing a
line after every write so the crash test can kill it anywhere:

    A <records> <bytes> <actions>   after a durable write (fsync returned)
    W <records> <bytes>             after a write not yet synced (board events)
    U <records> <bytes>             a durable write that fdatasync did not cover (a bug)
    DONE <match number>             the match is finished and in the history

Everything is a function of the match state (entries come from a
RandomPlayer seeded by the turn number), so a run that is killed and resumed
any number of times must write exactly what one uninterrupted run writes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: find the package from the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "controller"))

from coindrel.ai import RandomPlayer  # noqa: E402
from coindrel.engine import Match, MatchSetup, Variants, drop, side_name  # noqa: E402
from coindrel.events import EntryEvent, ExitEvent, SwitchEvent  # noqa: E402
from coindrel.table.history import history_files  # noqa: E402
from coindrel.table.store import MatchStore  # noqa: E402

CORRECT_EVERY = 7


def setup_for(seed: int) -> MatchSetup:
    return MatchSetup(
        players=("Ann", "Bo"), seed=seed, clock=30.0,
        variants=Variants(holes=seed % 2 == 1, halved=seed % 5 == 0, shuffled=seed % 3 == 0),
    )


def base(match: Match) -> float:
    return 100.0 * (len(match.results) + 1)


def drop_plan(match: Match, seed: int) -> list[tuple]:
    entry = RandomPlayer(seed * 1_000_003 + len(match.results)).choose(match)
    g = match.geometry
    outcome = drop(match.board, [entry])
    t = base(match) + 0.5  # the hub's clock
    pads = list(match.board.pads())
    rest = []
    for k, sw in enumerate(outcome.flipped):
        pads[sw] = 1 - pads[sw]
        rest.append(SwitchEvent(t + 0.01 * k, g.labels[sw], "mid", 1900 + k))
        rest.append(SwitchEvent(t + 0.01 * k + 0.004, g.labels[sw], side_name(pads[sw])))
    for k, x in enumerate(outcome.exits):
        rest.append(ExitEvent(t + 0.5 + 0.01 * k, x))
    verdict = {"drop": len(match.results) + 1, "entry": entry + 1, "verdict": "ok",
               "expected": {"exits": [x + 1 for x in outcome.exits]}, "state": outcome.board.rows()}
    return [("ev", EntryEvent(t, entry)), ("coin",), *[("ev", e) for e in rest], ("verdict", verdict), ("play", entry)]


def correction_due(match: Match) -> bool:
    return (match.phase == "turn" and len(match.results) % CORRECT_EVERY == 3
            and match.log[-1].get("do") == "drop")


def correction_plan(match: Match) -> list[tuple]:
    board = match.board.copy()
    n = board.geometry.switch_count
    for k in range(n):
        sw = (len(match.results) * 5 + k) % n
        if not board.is_hole(sw) and not board.has_coin(sw):
            break
    label = board.geometry.labels[sw]
    board.set_pad(sw, 1 - board.pad(sw))
    why = f"{label} read {side_name(board.pad(sw))} by its hall sensor"
    return [("correction", {"after_drop": len(match.results), "switch": label, "why": why}),
            ("board", board.text(), why)]


def next_cycle(match: Match, seed: int) -> list[tuple]:
    if match.phase == "reveal":
        return [("revealed",)]
    if correction_due(match):
        return correction_plan(match)
    return drop_plan(match, seed)


def partial_count(records) -> int:
    """Records of the cycle a crash interrupted: those after the last action
    that ends a cycle (every action but "coin")."""
    k = 0
    for r in reversed(records):
        if r.kind == "act" and r.data.get("do") != "coin":
            break
        k += 1
    return k


def apply(op: tuple, match: Match, journal) -> bool:
    """Do one op; returns whether it was durable."""
    kind = op[0]
    if kind == "ev":
        journal.event(op[1])
        return False
    if kind == "coin":
        match.coin_seen(base(match) + 1)
    elif kind == "play":
        match.play(op[1], base(match) + 3)
    elif kind == "revealed":
        match.reveal_done(base(match) - 50)
    elif kind == "board":
        match.set_board(op[1], op[2], base(match) - 60)
    elif kind == "verdict":
        journal.verdict(op[1])
        return True
    elif kind == "correction":
        journal.correction(op[1])
        return True
    journal.sync_match(match)
    return True


def drive(store: MatchStore, seed: int, emit=lambda line: None, on_op=None, synced=None) -> int:
    """Resume (or start) and finish the match; returns its number.
    ``synced[0]``, when given, is the file size at the last real fdatasync:
    a durable write that did not reach it is reported as "U" (a bug)."""
    rec = store.recover()
    match, journal = rec.match, rec.journal
    skip = partial_count(rec.records)
    if match is None:
        done = history_files(store.dir)
        if done:  # finished before the crash (recovery may just have moved it)
            emit(f"DONE {int(done[-1].name.split('-')[0])}")
            return int(done[-1].name.split("-")[0])
        match = Match(setup_for(seed))
        journal = store.begin(match)
        emit(f"A {journal.next_n - 1} {journal.size} {len(match.log)}")
        skip = 0
    while not match.over:
        for op in next_cycle(match, seed)[skip:]:
            durable = apply(op, match, journal)
            tag = "A" if durable else "W"
            if durable and synced is not None and synced[0] != journal.size:
                tag = "U"
            emit(f"{tag} {journal.next_n - 1} {journal.size} {len(match.log)}")
            if on_op:
                on_op(match, journal)
        skip = 0
    number = journal.number
    store.finish(journal, match)
    emit(f"DONE {number}")
    return number


def main(argv: list[str]) -> int:
    state_dir, seed = Path(argv[1]), int(argv[2])
    synced = [0]

    def datasync(fd: int) -> None:
        os.fdatasync(fd)
        synced[0] = os.fstat(fd).st_size

    with MatchStore(state_dir, datasync=datasync) as store:
        drive(store, seed, emit=lambda line: print(line, flush=True), synced=synced)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
