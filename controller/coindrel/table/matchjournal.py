"""The journal of one match (``match.journal`` in the state directory, then
its file in ``history/``): the match's actions, the board events, verdicts,
corrections and notes, in the order they happened. ``store.MatchStore``
opens, recovers and files it."""

from __future__ import annotations

from ..engine import Match
from ..events import event_from_json, event_to_json
from .journal import Journal, JournalError


class MatchJournal(Journal):
    """The journal of one match: its actions, board events, verdicts and
    corrections, in the order they happened."""

    number: int = 0
    match_id: str = ""
    started: float | None = None
    acts: int = 0  # how many of ``match.log``'s actions are in the journal
    # records that must reach the disk in one write with the actions that follow
    # them (a reopened match's note, the players' answer to a question): written
    # by the next ``sync_match`` ahead of its actions, so a kill leaves both or neither
    pending: list | None = None

    def hold(self, kind: str, data) -> None:
        """Write ``data`` with the next ``sync_match``, in the same write as
        the actions it goes with."""
        if self.pending is None:
            self.pending = []
        self.pending.append((kind, data))

    def sync_match(self, match: Match) -> int:
        """Append the match's actions that are not saved yet (after any held
        records) and make them (and any events before them) durable. Call it
        after every change to the match and before anyone is shown the
        result. Returns how many actions were written."""
        log = match.log
        if len(log) < self.acts:
            raise JournalError(f"the match log has {len(log)} actions but {self.acts} are saved; "
                               "the journal and the match no longer belong together")
        new = log[self.acts:]
        held = self.pending or []
        if new or held:
            self.append_many(list(held) + [("act", a) for a in new])
            self.pending = None
            self.acts += len(new)
        elif self.unsynced:
            self.sync()
        return len(new)

    def event(self, ev, durable: bool = False, hub=None) -> int:
        """A board event (an event object, or its sensing.md JSON form).
        Written at once; durable with the next action, verdict or ``sync()``.
        ``hub``: its ``HubPosition``, kept in the same record as ``"hub":
        [boot, number]`` (``[boot, number, offset_us]`` once the link moved that
        boot's clock), so it is durable exactly when its event is."""
        data = event_to_json(ev) if not isinstance(ev, dict) else event_to_json(event_from_json(ev))
        if hub is not None:
            data["hub"] = [hub.boot_id, hub.num] + ([hub.offset_us] if hub.offset_us else [])
        return self.append("ev", data, durable)

    def verdict(self, data) -> int:
        """A reconciliation verdict (sensing.md section 4 line, or the report
        itself). A report's exits as scored are kept with it: they rebuild the
        drop should its action record be damaged (``salvage``)."""
        if hasattr(data, "to_json"):
            report, data = data, data.to_json()
            scored = getattr(report, "scored_exits", None)
            if scored is not None and report.drop is not None:
                data["scored"] = [x + 1 for x in scored]
        return self.append("verdict", data)

    def correction(self, data: dict) -> int:
        """A belief correction the reconciler made (its reasons; the board
        change itself reaches the match as ``Match.set_board``)."""
        return self.append("correction", data)

    def note(self, data: dict, durable: bool = True) -> int:
        return self.append("note", data, durable)
