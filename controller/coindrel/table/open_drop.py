"""What of a match's journal a restart takes up again beyond the last drop
scored (``source_link``): a verdict saved without its score (a kill between
the two writes) and the board events no saved verdict took in.

A saved verdict is carried out as it was decided, never reconciled again:
its drop's events may share a cascade with a drop already scored, and a
second reconciliation would give the journal two verdicts for one drop.
"""

from __future__ import annotations

from ..engine import EngineError

# A verdict's times are journalled to 1e-4 s (reconcile/report.py), its events'
# to 1e-6 s: the group's own last event may lie up to half a step after the
# rounded ``t_end``, and is still that verdict's (a hub whose clock rounded
# down gave one coin two drops after a restart: the second one "lost").
T_END_SLACK = 0.5e-4 + 1e-9


def in_match_until(records) -> int:
    """Index of the last record whose events the match has taken in for
    good: a drop action (scored from a verdict, or as a coin whose events
    were lost), or a verdict on events outside any drop (a stray group, a
    second coin in one turn) once an action after it shows that what it did
    to the board is on disk too. Events after it belong to a drop still
    open, or to one whose verdict was saved and whose score (or board
    change) was not (a kill between the two: that verdict is carried out
    as saved, ``orphan_verdicts``), and are reconciled again."""
    last, stray = -1, None
    for i, r in enumerate(records):
        d = r.data if isinstance(r.data, dict) else {}
        if r.kind == "act":
            if d.get("do") == "drop":
                last = i
            elif stray is not None:
                last = max(last, stray)
            stray = None
        elif r.kind == "verdict" and d.get("drop") is None and d.get("revises") is None:
            stray = i
    return last


def open_events(records, last: int) -> list:
    """The journal's board events no verdict on disk has taken in (``last``:
    ``in_match_until``): every one after ``last``, and before it the run of
    events later than the end of the last verdict taken in (the group it
    was reconciled in: all of a group's drops end there). While a long
    diagnosis held that verdict up, the next coin went in and its events
    were journalled before the verdict and the score (the kill rig found
    that coin's entry lost, and the rest of its cascade scored as a coin
    nobody saw)."""
    from ..events import event_from_json

    end = None
    for r in records[: last + 1]:
        d = r.data if isinstance(r.data, dict) else {}
        if r.kind == "verdict" and d.get("revises") is None:
            t = d.get("t_end", d.get("t"))  # the last verdict's: a hub that restarted counts its time anew
            if isinstance(t, (int, float)) and not isinstance(t, bool):
                end = t
    first = last + 1
    if end is not None:
        for i in range(last, -1, -1):
            r = records[i]
            if r.kind != "ev" or not isinstance(r.data, dict):
                continue
            t = r.data.get("t")
            if not isinstance(t, (int, float)) or t <= end + T_END_SLACK:
                if r.data.get("kind") != "status":  # a status event says nothing of which drop it is in
                    break
                continue
            first = i
    return [event_from_json(r.data) for i, r in enumerate(records) if r.kind == "ev" and i >= first
            and (i > last or not (isinstance(r.data, dict) and r.data.get("kind") == "status"))]


def orphan_verdicts(records, last: int) -> list[int]:
    """Indexes of the verdicts after ``last`` (``in_match_until``): saved,
    and the table stopped before it scored them (revision records aside)."""
    return [i for i in range(last + 1, len(records)) if records[i].kind == "verdict"
            and isinstance(records[i].data, dict) and records[i].data.get("revises") is None]


def saved_report(d: dict, geometry, number: int | None):
    """A ``DropReport`` from a journalled verdict (``DropReport.to_json`` and
    the exits it scored), or None when it does not fit: a drop that is not
    the match's next one (``number``), a board that does not parse."""
    from ..engine import BoardState
    from ..reconcile.report import DropReport

    try:
        drop = d.get("drop")
        if drop is not None and drop != number:
            return None
        entry = d.get("entry")
        entry = None if entry is None else int(entry) - 1
        state = list(d.get("state") or [])
        if state:
            BoardState.parse(state, geometry)
        exp, obs = d.get("expected") or {}, d.get("observed") or {}
        scored = d.get("scored")
        observed = tuple(int(x) - 1 for x in obs.get("exits", ()))
        return DropReport(
            drop, entry, bool(d.get("entry_seen")), float(d["t"]),
            expected_exits=tuple(int(x) - 1 for x in exp.get("exits", ())), expected_flips=dict(exp.get("flips") or {}),
            observed_exits=observed, observed_flips=dict(obs.get("flips") or {}), verdict=str(d.get("verdict", "ok")),
            diagnosis=[str(f.get("say", "")) if isinstance(f, dict) else str(f) for f in d.get("diagnosis") or ()],
            state=state, scored_exits=tuple(int(x) - 1 for x in scored) if scored is not None else observed,
            t_end=float(d.get("t_end") or 0.0), t_last=float(d.get("t_last") or 0.0),
        )
    except (EngineError, KeyError, TypeError, ValueError, AttributeError):
        return None


def coins_note(flow) -> list:
    """The coins seen going in and not yet reported (``flow.coins_in``) as
    the journal keeps them: ``[entry 1.., extra, dropper, board time]``.
    Whether a coin is a second one in its turn was decided when it went in
    (the turn's coin still fell); the events alone cannot tell it again."""
    m = flow.match
    return [[c[1] + 1, bool(c[2]), str(c[3]), c[4]] for c in flow.coins_in if c[0] is m]


def restore_coins(flow, records, last: int) -> int:
    """Take up the coins the journal's last ``coins_in`` note holds, less the
    ones a verdict the match took in (records up to ``last``,
    ``in_match_until``) has reported since; and the end of the last scored
    drop's cascade, which tells a second coin from the next turn's. Returns
    how many coins wait again."""
    m = flow.match
    at, saved = None, None
    for i, r in enumerate(records):
        d = r.data if isinstance(r.data, dict) else {}
        if r.kind == "note" and isinstance(d.get("coins_in"), list):
            at, saved = i, d["coins_in"]
        elif r.kind == "verdict" and i <= last and d.get("drop") is not None and d.get("revises") is None:
            t = d.get("t_last", d.get("t_end"))
            if isinstance(t, (int, float)) and not isinstance(t, bool):
                flow.turn_end = float(t)
    if saved is None or m is None:
        return 0
    reported = set()
    for r in records[at + 1: last + 1]:
        d = r.data if isinstance(r.data, dict) else {}
        if r.kind == "verdict" and d.get("revises") is None and d.get("entry") is not None:
            reported.add((d.get("entry"), round(float(d.get("t", -1)), 4)))
    coins = []
    for c in saved:
        try:
            entry, extra, who, t = int(c[0]), bool(c[1]), str(c[2]), (None if c[3] is None else float(c[3]))
        except (TypeError, ValueError, IndexError):
            continue  # not a note this version wrote: the coin is taken as the turn's, as before
        if not 1 <= entry <= flow.geometry.entry_count or (t is not None and (entry, round(t, 4)) in reported):
            continue
        coins.append((m, entry - 1, extra, who, t))
    flow.coins_in = coins
    return len(coins)


def unseen_pads(records, last: int, labels) -> set[str] | None:
    """Pads nobody has seen since the match's board events were last lost
    (a ``lost`` or ``resync`` status up to record ``last``), as far as the
    journal tells: every pad, less the switches a coin has flipped since
    (a coin reached them). None: no loss in this match. The reconciler
    keeps this set in memory only; a restarted table that forgot it blamed
    a hall sensor, a stuck rocker or a dead beam for a coin that had come
    to rest, or gone, while the hub was away."""
    since = None
    for i, r in enumerate(records[: last + 1]):
        d = r.data if isinstance(r.data, dict) else {}
        if r.kind == "ev" and d.get("kind") == "status" and d.get("state") in ("lost", "resync"):
            since = i
    if since is None:
        return None
    unseen = set(labels)
    for r in records[since + 1: last + 1]:
        d = r.data if isinstance(r.data, dict) else {}
        if r.kind == "verdict" and d.get("revises") is None:
            flips = (d.get("observed") or {}).get("flips") or {}
            if isinstance(flips, dict):
                unseen -= set(flips)
    return unseen
