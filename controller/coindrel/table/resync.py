"""Resume against the board: after a restart or a reconnect, the hub's
snapshot is compared with the board the table believes (the journal's
belief, and the events of a drop still open when the table stopped).

Every difference is a switch that changed while the table was not looking.
It goes in as a switch event, journalled and reconciled like any other,
behind a ``lost`` status event, because something was missed:

- while a drop is open (coins were falling when the table stopped), the
  changes join that drop, which then completes: it is reconciled with the
  flips the board shows, and marked as having lost events, so the players
  are asked to confirm its score instead of it being scored silently;
- while board changes no coin was seen to cause are held open by the
  outage that cut them (the reconciler closes no such group while the link
  is down: a coin that went in during a hub reset), the changes join them:
  the whole cascade, so the coin is found and scored, and the players asked;
- between drops, they form a group of their own, reported as events
  outside any drop (a hand in the board, or a coin that fell unseen) and
  flagged on the panel, and the reconciler's belief follows the board.

A rocker the snapshot shows between its sides is named and left alone: the
next events say where it settles.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..events import StatusEvent, SwitchEvent

log = logging.getLogger("coindrel.table")
SIDES = ("L", "R", "none")
STEP = 1e-4  # seconds between the events made from one snapshot (they keep their order)


@dataclass(frozen=True)
class Difference:
    switch: str
    believed: str  # L, R or none
    seen: str  # what the snapshot shows

    def say(self) -> str:
        if self.seen == "mid":
            return f"{self.switch} is between its sides (believed {self.believed})"
        return f"{self.switch} {self.believed}->{self.seen}"


def believed_positions(reconciler) -> dict[str, str]:
    """Each switch's side as the reconciler has it now: the readings before
    the open group of events, with that group's settled sides over them."""
    readings = list(reconciler.readings)
    group = getattr(reconciler, "_group", None)
    if group is not None:
        for s, side in getattr(group, "settled", {}).items():
            readings[s] = "LR"[side] if isinstance(side, int) else side
    return {label: readings[i] for i, label in enumerate(reconciler.labels)}


def differences(believed: dict[str, str], seen: dict[str, str]) -> list[Difference]:
    out = []
    for label, pos in seen.items():
        want = believed.get(label)
        if want is None or pos == want:
            continue
        if pos in SIDES or pos == "mid":
            out.append(Difference(label, want, pos))
    return out


@dataclass(frozen=True)
class Look:
    """What ``resync`` needs of the reconciler, read where the reconciler
    lives (its worker thread, once the daemon's loop runs)."""

    believed: dict
    newer: frozenset  # switches with an event at or after the snapshot's time in the open group
    open_drop: bool
    last_t: float | None  # the open group's last event


def look(rec, snap_t: float) -> Look:
    group = getattr(rec, "_group", None)
    # a switch event newer than the snapshot (handled while its answer was on
    # its way) knows better than the snapshot does
    newer = frozenset(ev.switch for ev in getattr(group, "events", ()) if isinstance(ev, SwitchEvent) and ev.t >= snap_t)
    return Look(believed_positions(rec), newer, group is not None and getattr(group, "is_drop", False),
                group.last_t if group is not None else None)


def resync(table, snap, seen: Look | None = None) -> list[Difference]:
    """Compare ``snap`` with the table's belief and feed what differs.
    ``seen``: ``look(reconciler, snap.t)``, taken on the reconciler's thread
    (None: read here). Returns the differences (empty when the board is as
    believed)."""
    rec, match = table.reconciler, table.flow.match
    table.awaiting_board = False
    # the first comparison of this process follows its own restart; any later one, the hub's absence
    first, table.board_compared = not getattr(table, "board_compared", False), True
    if rec is None or match is None or match.over:
        table.positions.update(snap.positions)
        return []
    seen = seen or look(rec, snap.t)
    diffs = differences(seen.believed, dict(snap.positions))
    diffs = [d for d in diffs if d.switch not in seen.newer]
    for label, pos in snap.positions.items():
        table.positions.setdefault(label, pos)
    changed = [d for d in diffs if d.seen != "mid"]
    between = [d for d in diffs if d.seen == "mid"]
    if between:
        log.warning("the board after the table resumed: %s", "; ".join(d.say() for d in between))
    taken, table.taken_unseen = getattr(table, "taken_unseen", []), []
    if not changed:
        moved = [d for d in taken if d.believed != d.seen]
        if moved:
            # the source's snapshot said so first, and its events were taken in: not "agrees"
            log.warning("the board differs from what the table believed: %s, while the hub was away (its snapshot "
                        "showed them; believed now, the players are asked); the other %d switches are as believed",
                        ", ".join(d.say() for d in moved), len(snap.positions) - len(moved))
        else:
            log.info("the board read again agrees with what the table believes now (%d switches compared)",
                     len(snap.positions))
        return diffs
    open_drop = seen.open_drop
    # Board time of the changes: inside the open drop (its coins are what moved
    # them), or the snapshot's own time; never before the last event fed.
    last = seen.last_t if seen.last_t is not None else table.last_board_t
    # A group still open was cut by the outage (none is closed while the link
    # is down): the changes are the rest of it, drop or not.
    held = seen.last_t is not None
    t = last + STEP if open_drop or held else max(snap.t, last + STEP if last > float("-inf") else snap.t)
    what = ", ".join(d.say() for d in changed)
    why = ("while the drop was falling and the table could not see it" if open_drop
           else "while the table could not see the board (moved by hand, or a coin fell unseen)")
    log.warning("the board differs from what the table believed: %s, %s", what, why)
    if table.journal is not None:
        table._save(table.journal.note, {"resync": [d.__dict__ for d in changed], "open_drop": open_drop})
    table.flow.unseen_away = "the table was down" if first else "the hub was away"  # on the pads check (modes_pads)
    table.handle_event(StatusEvent(t, "lost", f"changed unseen: {what}", len(changed)))
    for k, d in enumerate(changed):
        table.handle_event(SwitchEvent(t + (k + 1) * STEP, d.switch, d.seen), from_board=False)
    return diffs


__all__ = ["Difference", "Look", "believed_positions", "differences", "look", "resync"]
