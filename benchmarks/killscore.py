"""Scoring a kill-rig run (benchmarks/killrig.py): every drop of the board's
``--truth`` against the drops the journal holds (``coindrel history ID
--json``), matched by entry and board time."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field

BOOT = 1.0  # seconds a virtual hub takes to come back after power returns
MATCH_WINDOW = 1.2  # seconds between the board's drop and the time the table's verdict gives it


def _timed(turns: list[dict], verdicts: list[dict]) -> list[tuple]:
    """Each turn with the board time, entry, exits (1-based) and flag of its
    verdict: the next verdict of the same entry and exits (a turn the
    players corrected keeps the corrected exits, and is flagged)."""
    out, j = [], 0
    for t in turns:
        entry, exits = t["entry"], sorted(t["exits"])  # coindrel history --json counts them from 1
        k = next((i for i in range(j, len(verdicts)) if verdicts[i].get("entry") == entry), None)
        if k is None:
            out.append((None, entry, exits, False))
            continue
        v, j = verdicts[k], k + 1
        out.append((v.get("t"), entry, exits, v.get("verdict") not in (None, "ok")))
    return out


@dataclass
class Result:
    drops: int = 0  # drops the board produced (truth)
    scored: int = 0  # drops in the journal
    exact: int = 0
    flagged: int = 0  # other exits than the board's, but flagged (a mismatch verdict)
    silent: int = 0  # other exits than the board's, not flagged
    lost: int = 0
    lost_unpowered: int = 0  # of those, drops that fell while the hub had no power (unplugged, resetting)
    lost_seen: list = field(default_factory=list)  # the truth's numbers of the others (the hub had power)
    duplicated: int = 0
    kills: int = 0
    kills_falling: int = 0
    belief_ok: bool | None = None
    between: int = 0  # drops that fell while no match was in progress (a match had just ended)
    matches: int = 0  # matches the journal holds
    problems: list = field(default_factory=list)

    def lines(self) -> list[str]:
        return [
            f"drops on the board {self.drops} ({self.between} more between matches, not scored by design), "
            f"in the journal {self.scored}",
            f"exact {self.exact}, other exits flagged {self.flagged}, other exits silent {self.silent}",
            f"lost {self.lost} ({self.lost_unpowered} fell while the hub had no power), duplicated {self.duplicated}"
            + (f"; lost with the hub powered: board drops {', '.join(map(str, self.lost_seen))}" if self.lost_seen else ""),
            f"kills {self.kills} ({self.kills_falling} while coins fell), matches {self.matches}",
            f"belief of the rockers matches the board at the end: {self.belief_ok}",
        ] + [f"problem: {p}" for p in self.problems]


def score_run(rig, res: Result, st: dict | None) -> list[str]:
    truth = [json.loads(x) for x in rig.truth.read_text().splitlines() if x.strip()]
    drops = [d for d in truth if d.get("kind") == "drop"]
    # an unplugged or resetting hub has no power: what falls then nobody sees (a boot takes about a second)
    dark = []
    for f in sorted((f for f in truth if f.get("kind") == "fault" and f.get("fault") in ("unplug", "hub_reset")),
                    key=lambda f: f["t"]):
        if dark and f["t"] < dark[-1][1] - BOOT:
            continue  # the cable is out already (or the hub is off): its own replug brings the hub back
        dark.append((f["t"], f["t"] + f.get("duration", 0.0) + BOOT))
    drops.sort(key=lambda d: d["t"])
    turns = []  # (board time, entry 1.., exits 1.., flagged) of every drop the journal holds
    refs = rig.match_refs()
    res.matches = len(refs)
    spans = []  # (board time of its first drop, of its last drop's end or inf) per match, by its journal
    for ref in refs:
        r = subprocess.run([rig.python, "-m", "coindrel", "history", ref, "--json", "--state-dir",
                            str(rig.state)], capture_output=True, text=True, env=rig.env)
        if r.returncode != 0:
            return [f"coindrel history {ref} failed: {r.stderr.strip()}"]
        detail = json.loads(r.stdout)
        scored = [v for v in detail["verdicts"] if v.get("drop") is not None]
        turns += _timed(detail["turns"], scored)
        if scored:
            over = (detail.get("summary") or {}).get("result") in ("finished", "abandoned")
            last = scored[-1]
            spans.append((scored[0]["t"], last.get("t_end", last["t"]) if over else float("inf")))
    # no match in progress (one had ended, the next had not begun): a drop then scores nothing, by design
    gaps = [(a[1], b[0] - MATCH_WINDOW / 2) for a, b in zip(spans, spans[1:])]
    if spans and spans[-1][1] != float("inf"):
        gaps.append((spans[-1][1], float("inf")))
    between = [d for d in drops if any(a < d["t"] < b for a, b in gaps)]
    res.between = len(between)
    drops = [d for d in drops if d not in between]
    res.drops = len(drops)
    res.scored = len(turns)
    # each journal drop to the board's drop at the same time (board clock) and entry. Across a
    # hub's power cut the table's board clock goes on by its estimate of the time the hub was away
    # (the hub's own clock began again), a few tenths of a second off: the offset the last drop
    # matched with is carried on
    free = list(range(len(turns)))
    offset = 0.0
    for d in drops:
        near = [k for k in free if turns[k][1] == d["entry"] and turns[k][0] is not None
                and abs(turns[k][0] - d["t"] - offset) < MATCH_WINDOW]
        if not near:
            res.lost += 1
            unpowered = any(a <= d["t"] <= b for a, b in dark)
            res.lost_unpowered += unpowered
            if not unpowered:
                res.lost_seen.append(d["drop"])
            continue
        k = min(near, key=lambda k: abs(turns[k][0] - d["t"] - offset))
        offset = turns[k][0] - d["t"]
        free.remove(k)
        _, _, exits, flagged = turns[k]
        if exits == d["exits"]:
            res.exact += 1
        elif flagged:
            res.flagged += 1
        else:
            res.silent += 1
    res.duplicated = len(free)
    problems = []
    if st is not None and drops:
        after = drops[-1]["after"]
        believed = st.get("board", "")
        sides = lambda text: [c.upper() for c in text if c.upper() in "LR"]  # noqa: E731
        res.belief_ok = sides(after) == sides(believed)
    return problems

