"""A match's log read back (rules.md section 7: a match replays exactly from
its log): ``Match.replay(log)`` and ``Match.apply(action)``, one line at a time,
through the same public calls the live match made."""

from __future__ import annotations

from .core import EngineError, MatchError, entry_label
from .setup import MatchSetup


class LogReplay:
    """What ``Match`` does with a log: every action is a public call again."""

    __slots__ = ()

    @classmethod
    def replay(cls, log: Sequence[dict]) -> "Match":
        """Rebuild a match from its log; a log that does not fit says where."""
        if not log or log[0].get("do") != "setup":
            raise MatchError("a match log starts with its setup line")
        match = cls(MatchSetup.from_dict(log[0]["setup"]))
        for n, action in enumerate(log[1:], start=2):
            try:
                match.apply(action)
            except EngineError as e:
                raise MatchError(f"match log line {n} ({action.get('do')!r}): {e}") from None
        return match

    def apply(self, a: dict) -> None:
        """Apply one logged action (as ``Match.replay`` does for each line after the setup)."""
        do, t = a.get("do"), a.get("t")
        if do == "reveal":
            if [list(self.s.values), self.round] != [a.get("values"), a.get("round")]:
                raise MatchError(f"the replay is at round {self.round} with values {list(self.s.values)}; the log has "
                                 f"round {a.get('round')} with values {a.get('values')}")
            return  # logged by the round change itself
        if do == "revealed":
            self.reveal_done(t)
        elif do == "coin":
            self.coin_seen(t)
        elif do == "lost":
            self.coin_lost(t)
        elif do == "drop":
            self.record(a["entry"], a["exits"], a.get("board"), t)
        elif do == "timeout":
            chosen = self._force_entry(t)
            if chosen != a.get("entry"):
                raise MatchError(f"the generator chose {entry_label(chosen)}, the log says {a.get('entry')!r}")
        elif do == "pause":
            self.pause(t)
        elif do == "resume":
            self.resume(t)
        elif do == "undo":
            self.undo(t)
        elif do == "board":
            self.set_board(a["board"], a.get("why", ""), t)
        else:
            raise MatchError(f"unknown action {do!r}")
