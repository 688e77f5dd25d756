"""Finished matches: their summaries, the list, one match's turns, and its
board events as an observation log (sensing.md section 3).

Everything here only reads: ``coindrel history`` may run as another user, or
while the daemon is appending to the match in progress (whose last record may
be half written at that instant; it is simply not read).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..engine import EngineError, Match, MatchSetup, Variants
from ..obslog import LogHeader
from .journal import JournalError, read_journal
from .records import read_last_line
from .sessions import continued
from .replay import Contents, read_contents

CURRENT = "match.journal"
HISTORY = "history"
DAMAGED = "damaged"
SUFFIX = ".journal"
NUMBER = re.compile(r"^(\d+)-")


@dataclass(frozen=True)
class MatchSummary:
    number: int | None
    id: str
    result: str  # "finished", "abandoned", "in progress" or "unreadable"
    players: tuple[str, ...] = ()
    variants: dict = field(default_factory=dict)
    clock: float | None = None
    seed: int | None = None
    board: str = "standard"
    totals: tuple[int, int] = (0, 0)
    rounds: tuple[tuple[int, int], ...] = ()  # points per round, per player
    round: int = 1  # the round reached
    winner: int | str | None = None  # 1, 2, "draw" or None
    turns: int = 0
    started: float | None = None  # wall clock, seconds since the epoch
    ended: float | None = None
    why: str = ""  # for an abandoned match: the reason given
    problem: str = ""  # for a damaged file: what is wrong
    path: Path | None = None

    @classmethod
    def from_dict(cls, d: dict, path: Path | None = None) -> "MatchSummary":
        return cls(
            number=d.get("number"), id=str(d.get("id", "")), result=str(d.get("result", "finished")),
            players=tuple(d.get("players") or ()), variants=dict(d.get("variants") or {}),
            clock=d.get("clock"), seed=d.get("seed"), board=str(d.get("board", "standard")),
            totals=tuple(d.get("totals") or (0, 0)), rounds=tuple(tuple(r) for r in d.get("rounds") or ()),
            round=int(d.get("round") or 1), winner=d.get("winner"), turns=int(d.get("turns") or 0),
            started=d.get("started"), ended=d.get("ended"), why=str(d.get("why", "")),
            problem=str(d.get("problem", "")), path=path,
        )

    def to_json(self) -> dict:
        return {
            "number": self.number, "id": self.id, "result": self.result, "players": list(self.players),
            "variants": self.variants, "clock": self.clock, "seed": self.seed, "board": self.board,
            "totals": list(self.totals), "rounds": [list(r) for r in self.rounds], "round": self.round,
            "winner": self.winner, "turns": self.turns, "started": self.started, "ended": self.ended,
            "why": self.why, "problem": self.problem, "file": str(self.path) if self.path else None,
        }

    @property
    def variant_names(self) -> list[str]:
        try:
            return Variants.from_dict(self.variants).names()
        except EngineError:  # written by a version with other variants
            return sorted(k for k, v in self.variants.items() if v)

    @property
    def winner_name(self) -> str:
        if self.winner == "draw":
            return "draw"
        if self.winner in (1, 2) and len(self.players) == 2:
            return self.players[self.winner - 1]
        return ""


def match_summary(match: Match, *, result: str, number: int | None, match_id: str, started: float | None,
                  ended: float | None, why: str = "") -> dict:
    """The summary a journal's ``end`` record holds (and the history lists)."""
    rounds = [[0, 0] for _ in range(match.round)]
    for r in match.results:
        rounds[r.round - 1][r.player - 1] += r.points
    setup = match.setup
    return {
        "number": number, "id": match_id, "result": result, "players": list(setup.players),
        "variants": setup.variants.to_dict(), "clock": setup.clock, "seed": setup.seed, "board": setup.board,
        "totals": list(match.totals), "rounds": rounds, "round": match.round, "winner": match.winner,
        "turns": len(match.results), "started": started, "ended": ended, "why": why,
    }


def summary_of(contents: Contents, path: Path, result: str | None = None) -> MatchSummary:
    """A summary from a journal's contents: its end record, or its replay."""
    if contents.end is not None and result is None:
        return MatchSummary.from_dict(contents.end, path)
    if contents.match is None:
        return MatchSummary(contents.number, contents.match_id or path.stem, "unreadable",
                            problem=contents.problem or "no match in it", started=contents.started, path=path)
    m = contents.match
    d = match_summary(m, result=result or ("finished" if m.over else "in progress"), number=contents.number,
                      match_id=contents.match_id or path.stem, started=contents.started, ended=None)
    d["problem"] = contents.problem or ""
    return MatchSummary.from_dict(d, path)


def read_summary(path: Path, result: str | None = None) -> MatchSummary:
    """Fast when the file ends in its ``end`` record; otherwise replays it."""
    if result is None:
        try:
            last = read_last_line(path)
        except OSError as e:
            return MatchSummary(None, path.stem, "unreadable", problem=e.strerror or str(e), path=path)
        if last is not None and last.kind == "end" and isinstance(last.data, dict):
            return MatchSummary.from_dict(last.data, path)
    try:
        contents = read_contents(read_journal(path))
    except JournalError as e:
        return MatchSummary(None, path.stem, "unreadable", problem=str(e), path=path)
    return summary_of(contents, path, result)


def history_files(state_dir: Path) -> list[Path]:
    """Finished matches' journals, oldest first (by match number)."""
    d = Path(state_dir) / HISTORY
    try:
        names = [p for p in d.iterdir() if p.name.endswith(SUFFIX)]
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise JournalError(f"{d} is a file, not a directory: coindrel keeps the finished matches there; "
                           "move it aside") from None
    except OSError as e:
        raise JournalError(f"cannot list the finished matches in {d}: {e.strerror}") from None

    def key(p: Path):
        m = NUMBER.match(p.name)
        return (int(m.group(1)) if m else -1, p.name)

    return sorted(names, key=key)


def list_matches(state_dir: str | Path, include_current: bool = True) -> list[MatchSummary]:
    """Every kept match, newest first; the match in progress first of all."""
    state_dir = Path(state_dir)
    paths = list(reversed(history_files(state_dir)))
    current = state_dir / CURRENT
    if include_current and current.exists():
        paths.insert(0, current)
    out = []
    for p in paths:
        s = read_summary(p, result="in progress" if p == current else None)
        if s.result == "unreadable" and not p.exists():
            continue  # finished and moved, or pruned, while we were reading
        out.append(s)
    return out


@dataclass
class MatchDetail:
    summary: MatchSummary
    contents: Contents

    @property
    def match(self) -> Match | None:
        return self.contents.match

    def turns(self) -> list[dict]:
        """One dict per drop that stands (undone drops are left out), with the
        wall-clock time it was recorded."""
        m = self.contents.match
        if m is None:
            return []
        stamps: list[float | None] = []
        for r in self.contents.acts[: self.contents.replayed]:
            do = r.data.get("do")
            if do == "drop":
                stamps.append(r.w)
            elif do == "undo" and stamps:
                stamps.pop()
        out = []
        for i, res in enumerate(m.results):
            d = res.to_json()
            d["turn"] = i + 1
            d["name"] = m.setup.players[res.player - 1]
            d["forced_entry"] = res.forced_entry
            d["board"] = res.board
            d["time"] = stamps[i] if i < len(stamps) else None
            out.append(d)
        return out

    def corrections(self) -> list[dict]:
        """Board corrections (belief changes) the match recorded."""
        return [r.data for r in self.contents.acts[: self.contents.replayed] if r.data.get("do") == "board"]

    def observation_log(self) -> list[str]:
        """The match's board events as an observation log (JSON Lines) that
        ``coindrel reconcile`` reads: the header holds the starting belief."""
        m = self.contents.match
        if m is None:
            raise JournalError(f"{self.summary.path}: no match to export ({self.contents.problem})")
        start = Match(MatchSetup.from_dict(m.setup.to_dict()))
        header = LogHeader(board=m.setup.board, variants=m.setup.variants, state=tuple(start.board.rows()),
                           extra={"match": self.summary.id})
        lines = [json.dumps(header.to_json())]
        evs = [r for r in self.contents.good() if r.kind == "ev"]
        events = continued(evs)  # one board clock across hub sessions
        lines += [json.dumps(e) for e in events]
        lines += [json.dumps(n) for n in self._drop_notes(evs, events)]
        return lines

    def _drop_notes(self, evs, events) -> list[dict]:
        """A note per drop the table reconciled: the match's number for it
        (null: a coin that was no drop of the match, e.g. a second coin in
        its turn), its entry and its board time on the log's clock. A
        reader reconciling the log counts its own drops; ``coindrel health``
        numbers them as the match did with these."""
        shifts = [e["t"] - r.data["t"] for r, e in zip(evs, (e for e in events if not _session_note(e)))
                  if isinstance(r.data.get("t"), (int, float))]
        kept = {id(v) for v in self.contents.verdicts}
        out, shift, k = [], 0.0, -1
        for r in self.contents.good():
            d = r.data if isinstance(r.data, dict) else {}
            if r.kind == "ev":
                k += 1
                if k < len(shifts) and (isinstance(d.get("hub"), list) or shift == 0.0):
                    shift = shifts[k]  # the session the events before the verdict belong to
                continue
            if r.kind != "verdict" or id(r.data) not in kept or d.get("revises") is not None or "drop" not in d:
                continue
            t = d.get("t")
            if not isinstance(t, (int, float)) or isinstance(t, bool):
                continue
            out.append({"kind": "note", "note": "drop", "drop": d.get("drop"), "entry": d.get("entry"),
                        "t": round(t + shift, 4)})
        return out


def _session_note(e: dict) -> bool:
    return e.get("kind") == "note" and e.get("note") == "hub session"


def find_match(state_dir: str | Path, ref: str) -> Path:
    """A journal by reference: a match number ("42" or "#42"), "last" (the
    newest finished), "current", or the start of a file name."""
    state_dir = Path(state_dir)
    files = history_files(state_dir)
    ref = ref.strip()
    if ref == "current":
        p = state_dir / CURRENT
        if not p.exists():
            raise JournalError("no match is in progress")
        return p
    if ref == "last":
        if not files:
            raise JournalError(f"no finished matches are kept in {state_dir / HISTORY}")
        return files[-1]
    digits = ref.lstrip("#")
    if digits.isdigit() and not (digits.isascii() and len(digits) <= 18):  # int() refuses or cannot print it
        raise JournalError(f"{ref[:24]!r}{'...' if len(ref) > 24 else ''} is not a match number; "
                           "`coindrel history` lists the kept matches with theirs")
    if digits.isdigit():
        for p in files:
            m = NUMBER.match(p.name)
            if m and int(m.group(1)) == int(digits):
                return p
        current = state_dir / CURRENT
        if current.exists():
            c = read_summary(current, result="in progress")
            if c.number == int(digits):
                return current
        raise JournalError(f"there is no match #{int(digits)}; `coindrel history` lists the kept matches")
    hits = [p for p in files if p.name.startswith(ref)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise JournalError(f"{ref!r} matches {len(hits)} matches; give more of the name or the match number")
    raise JournalError(f"no kept match is called {ref!r}; `coindrel history` lists them")


def load_match(state_dir: str | Path, ref: str) -> MatchDetail:
    path = find_match(state_dir, ref)
    contents = read_contents(read_journal(path))
    in_progress = path.name == CURRENT
    summary = summary_of(contents, path, "in progress" if in_progress else None)
    return MatchDetail(summary, contents)
