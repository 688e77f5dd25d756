"""A short match journalled the way the daemon does it, with a snapshot of
the match after every record: the fixture of the recovery tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from coindrel.engine import Match, MatchSetup, drop, drop_in_place, side_name
from coindrel.events import EntryEvent, ExitEvent, StatusEvent, SwitchEvent
from coindrel.table.store import MatchStore

START = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"
# Every exit pays 20, so round 1 ends on the third drop (a reveal batch).
SETUP = MatchSetup(players=("Zoë", "Bo"), seed=7, clock=30.0, start=START, values=[[20] * 16] * 4)
ENTRIES = (0, 7, 3, 4, 1)


def state(match: Match) -> tuple:
    return (match.totals, match.round_scores, match.round, match.board.text(), match.to_move, match.phase,
            len(match.results), list(match.log))


@dataclass
class Built:
    path: Path  # the journal (left in place: the match is not finished)
    data: bytes
    # after_record[n]: the match once records 1..n are on disk (None: no match yet)
    after_record: dict[int, tuple | None] = field(default_factory=dict)
    records: int = 0

    def boundaries(self) -> list[int]:
        """Byte offset just after each record (index n-1 for record n)."""
        out, pos = [], 0
        for line in self.data.splitlines(keepends=True):
            pos += len(line)
            out.append(pos)
        return out


def play_drop(match: Match, journal, entry: int, t: float) -> None:
    g = match.geometry
    outcome = drop(match.board, [entry])
    journal.event(EntryEvent(t, entry))
    match.coin_seen(t)
    journal.sync_match(match)
    pads = list(match.board.pads())
    for k, sw in enumerate(outcome.flipped):
        pads[sw] = 1 - pads[sw]
        journal.event(SwitchEvent(t + 0.1 + k / 100, g.labels[sw], "mid", 2000))
        journal.event(SwitchEvent(t + 0.104 + k / 100, g.labels[sw], side_name(pads[sw])))
    for x in outcome.exits:
        journal.event(ExitEvent(t + 0.6, x))
    after = match.board.copy()
    drop_in_place(after, [entry])
    exits = [x + 1 for x in outcome.exits]
    journal.verdict({"drop": len(match.results) + 1, "entry": entry + 1, "t": t + 0.6,
                     "expected": {"exits": exits, "flips": {}}, "observed": {"exits": exits, "flips": {}},
                     "verdict": "ok", "diagnosis": [], "state": after.rows(), "scored": exits})
    match.play(entry, t + 1)
    journal.sync_match(match)


def build(state_dir: Path, entries=ENTRIES) -> Built:
    """Journal a match of a few drops (with a round end, a correction, a note
    and a status event) and leave it in progress."""
    after: dict[int, tuple | None] = {}
    with MatchStore(state_dir) as store:
        store.recover()
        match = Match(SETUP)
        journal = store.begin(match, meta={"source": "virtual"})
        after[1] = None
        for n in range(2, journal.next_n):
            after[n] = state(match)
        write = journal.append_many

        def tracked(items, durable=True):
            numbers = write(items, durable)
            for n in numbers:  # a batch is one match change: any prefix of it replays to all of it
                after[n] = state(match)
            return numbers

        journal.append_many = tracked
        t = 10.0
        for i, entry in enumerate(entries):
            if match.phase == "reveal":
                match.reveal_done(t)
                journal.sync_match(match)
            play_drop(match, journal, entry, t)
            if i == 3:
                board = match.board.copy()
                board.set_pad(20, 1 - board.pad(20))
                journal.correction({"switch": "R3S6", "why": "hall sensor reads it moved"})
                match.set_board(board, "R3S6 moved by hand", t + 2)
                journal.sync_match(match)
                journal.event(StatusEvent(t + 3, "disconnected", "hub unplugged"))
                journal.note({"say": "hub link lost"})
            t += 10
        journal.close()
        path = journal.path
    data = path.read_bytes()
    return Built(path, data, after, data.count(b"\n"))
