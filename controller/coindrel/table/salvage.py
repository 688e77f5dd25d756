"""What a damaged record cost, and what the records around it give back.

The scanner (``records.scan``) leaves a ``Hole`` where damaged lines were and
reads every intact record after them. Here each hole is put into words and,
where the journal holds the evidence, filled again:

- one flipped bit per line: the records as written (CRC-32 finds the bit);
- a drop's action: the reconciler's verdict is written just before it, with
  the entry, the exits that scored and the board after; the drop is rebuilt
  from it (only its time is a neighbour's);
- a clock timeout: the match generator chose its entry, so the replay that
  stops at the next timeout or shuffled reveal is mended by drawing it again
  at the hole;
- the journal's header: rebuilt around the match setup that follows it (the
  store gives it a number and records that number in a note).

Everything else that was lost (a board event, a verdict, a pause) is named
and costs only itself. All of this is a pure function of the file, so every
reader (recovery, ``coindrel history``) sees the same match.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import EngineError, Match
from .records import FORMAT, Hole, Record

KIND_WORDS = {"begin": "the journal's header", "act": "a match action", "ev": "a board event",
              "verdict": "a reconciliation verdict", "correction": "a belief correction", "note": "a note",
              "end": "the match's summary"}


@dataclass(frozen=True)
class Loss:
    """One hole and what became of it."""

    hole: Hole
    said: str  # what was lost (or repaired), in plain words
    rebuilt: tuple[Record, ...] = ()  # records put back in its place (repaired ones included)

    @property
    def nothing_lost(self) -> bool:
        return bool(self.hole.repaired) or self.hole.stray or bool(self.hole.moved)

    def to_json(self) -> dict:
        h = self.hole
        records = {"records": [], "between": [h.last, h.first]} if h.stray else {"records": [h.first, h.last]}
        if h.moved:
            records["out_of_order"] = [r.n for r in h.moved]
        return {**records, "offset": h.offset, "size": h.size, "reason": h.reason,
                "lost": self.said, "repaired": bool(h.repaired), "rebuilt": [r.kind for r in self.rebuilt]}


def fill(records: list[Record], holes: list[Hole]) -> tuple[list[Record], list[Loss]]:
    """The records with each hole filled as far as the evidence goes, and one
    ``Loss`` per hole."""
    out = list(records)
    losses = []
    for hole in holes:
        if hole.repaired:
            how = "; ".join(f"record {r.n}: {r.repaired}" for r in hole.repaired)
            losses.append(Loss(hole, f"repaired exactly ({how}); nothing lost", hole.repaired))
            continue
        if hole.moved:
            both = "both" if hole.last == hole.first + 1 else "all"
            losses.append(Loss(hole, f"{both} kept, read in their numbered order; nothing lost"))
            continue
        if hole.stray:
            losses.append(Loss(hole, "a line that is no record of this journal, written in between them (not by "
                                     "the table); no record is missing, nothing lost"))
            continue
        if hole.first == 1:
            begin = Record(1, "begin", {"format": FORMAT, "meta": {}, "rebuilt": True}, None, hole.offset, 0)
            out.insert(_index_at(out, hole.offset), begin)
            losses.append(Loss(hole, "the journal's header (the match's number and start time) was lost; "
                                     "rebuilt around the match setup after it", (begin,)))
            continue
        drop = _lost_drop(out, hole)
        if drop is not None:
            out.insert(_index_at(out, hole.offset), drop)
            d = drop.data
            exits = ", ".join(str(x + 1) for x in d["exits"]) or "none"
            losses.append(Loss(hole, f"the drop into entry {d['entry'] + 1} (exits {exits}) was rebuilt from its "
                                     "verdict; only its time is taken from the record after it", (drop,)))
            continue
        losses.append(Loss(hole, _what_was_there(out, hole)))
    return out, losses


def _index_at(records: list[Record], offset: int) -> int:
    return next((i for i, r in enumerate(records) if r.offset >= offset), len(records))


def _lost_drop(records: list[Record], hole: Hole) -> Record | None:
    """The drop action a hole held, when the verdict before the hole has no
    drop action after it (before the next verdict) and it scored a drop."""
    i = _index_at(records, hole.offset)
    verdict = None
    for r in reversed(records[:i]):
        if r.kind == "act" and isinstance(r.data, dict) and r.data.get("do") == "drop":
            return None  # the last verdict's drop is there
        if r.kind == "verdict":
            verdict = r
            break
    if verdict is None or not isinstance(verdict.data, dict):
        return None
    for r in records[i:]:
        if r.kind == "verdict":
            break
        if r.kind == "act" and isinstance(r.data, dict) and r.data.get("do") == "drop":
            return None
    v = verdict.data
    try:
        if v.get("drop") is None:
            return None
        entry = int(v["entry"]) - 1
        scored = v.get("scored")
        exits = [int(x) - 1 for x in (scored if scored is not None else v["observed"]["exits"])]
        board = "/".join(v["state"])
    except (KeyError, TypeError, ValueError):
        return None
    t = next((r.data.get("t") for r in records[i:] if r.kind == "act" and isinstance(r.data, dict)
              and isinstance(r.data.get("t"), (int, float))), None)
    if t is None:
        t = next((r.data.get("t") for r in reversed(records[:i]) if r.kind == "act" and isinstance(r.data, dict)
                  and isinstance(r.data.get("t"), (int, float))), None)
    data = {"do": "drop", "t": t, "entry": entry, "exits": sorted(exits), "board": board}
    return Record(hole.first, "act", data, None, hole.offset, 0, "rebuilt from the verdict before it")


def _what_was_there(records: list[Record], hole: Hole) -> str:
    n = hole.last - hole.first + 1
    count = "1 record" if n == 1 else f"{n} records"
    if hole.kinds:
        kinds = sorted(set(hole.kinds), key=hole.kinds.index)
        return f"{count} lost: {', '.join(KIND_WORDS.get(k, k) for k in kinds)} (by what is still legible)"
    i = _index_at(records, hole.offset)
    around = {r.kind for r in records[max(0, i - 1): i + 1]}
    guess = " (between board events: most likely a board event)" if around == {"ev"} else ""
    return f"{count} lost, unreadable{guess}"


def mend_replay(acts: list[Record], holes: list[Hole], try_replay) -> tuple[list[Record], str]:
    """When the actions do not replay past a hole, a clock timeout lost in
    the hole is the one action whose loss breaks the replay (it draws from
    the match generator): draw it again at the hole, nearest hole first.
    Returns the mended actions and what was done ('' when nothing helped)."""
    lost = [h for h in holes if h.lost and h.first > 1]
    for hole in sorted(lost, key=lambda h: -h.offset):
        i = _index_at(acts, hole.offset)
        prefix = [r.data for r in acts[:i]]
        try:
            m = Match.replay(prefix)
            t = next((a.get("t") for a in reversed(prefix) if isinstance(a.get("t"), (int, float))), None)
            entry = m._force_entry(t)
        except (EngineError, KeyError, TypeError, ValueError, AttributeError):
            continue
        rebuilt = Record(hole.first, "act", {"do": "timeout", "t": t, "entry": entry}, None, hole.offset, 0,
                         "drawn again from the match generator")
        mended = acts[:i] + [rebuilt] + acts[i:]
        if try_replay([r.data for r in mended])[0] is not None:
            return mended, f"record {hole.first}: the clock's timeout (entry {entry + 1}) was drawn again"
    return acts, ""


__all__ = ["Loss", "fill", "mend_replay"]
