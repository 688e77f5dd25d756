"""Checking the pads after board events were lost.

No sensor sees a coin resting on a pad. When the hub was away (unplugged,
reset) or could not give back what it saw, coins may have fallen unseen and
come to rest on pads, or knocked resting coins off: the table's belief of the
pads is a guess from then on. So, once what the hub saw meanwhile is
reconciled and the table waits for a turn, it asks the players to look: it
lists where it believes coins rest, and says what follows if the board
differs. Nothing on the board is moved for it (the coins that fell are part
of the game); a later drop's surprise at a pad is put down to the outage,
never to a hand or a fault (the reconciler's unseen pads), until a drop
that fits as believed reaches that pad.

Rockers the board's positions, read again when the hub came back (or the
table restarted), show elsewhere than believed are named on the same screen,
once, and believed: the reconciler's report of them (events lost, switches
only, no drop) is that question's news, not a notice of its own, so the
players read one screen at once, before the next coin, instead of "Not a
drop", then "Events lost", then the pads after a coin had fallen.
"""

from __future__ import annotations

from ..buttons import HOLD_SELECT, NEXT, PREV, SELECT
from ..display import DiagnosisView, TextView
from ..engine import COIN, HOLE, PHASE_REVEAL, PHASE_TURN
from ..engine.catalog import EVENTS_LOST
from . import effects as fx
from .modes import Mode, Screen


SETTLE = 2.0  # seconds after the hub is back before asking: its snapshot comes and is reconciled first


def _coins(match) -> list[int]:
    return [s for s, c in enumerate(match.board.codes) if c != HOLE and c & COIN]


def moved_unseen(report) -> tuple[str, ...]:
    """The rockers a report outside any drop says moved while events were
    lost (the snapshot's differences after the hub, or the table, was away):
    its only finding is lost events and it saw switches only. Empty for
    anything else (a coin, a hand seen moving a rocker)."""
    found = [getattr(getattr(f, "fault", f), "name", None) for f in getattr(report, "diagnosis", ()) or ()]
    events = list(getattr(report, "events", ()) or ())
    if getattr(report, "drop", None) is not None or not events or EVENTS_LOST not in found[:1] \
            or any(getattr(e, "kind", None) != "switch" for e in events):
        return ()
    return tuple(dict.fromkeys(e.switch for e in events))


def pads_text(match, moved: tuple[str, ...] = (), away: str = "the hub was away") -> str:
    """What the screen asks, from the match's belief of the pads; ``moved``:
    rockers found elsewhere than believed, and believed now, while ``away``."""
    g = match.board.geometry
    coins = [g.labels[s] for s in _coins(match)]
    where = ("coins on " + " ".join(coins) + " only." if coins else "no coin on any pad.")
    if moved:
        one = len(moved) == 1
        return (f"{' '.join(moved)} {'is' if one else 'are'} not where {'it was' if one else 'they were'}: moved "
                f"while {away}? The table believes {'it' if one else 'them'} as the board shows now. Check the "
                f"pads: the table believes {where} A pad that differs shows at its next drop (no fault). "
                "Press to play on.")
    return (f"Coins may have fallen unseen. Table: {where} A pad that differs shows at its next drop "
            "(no fault). Press to play on.")


def moved_view(flow) -> DiagnosisView:
    """The pads check's words as a notice (for the sims' text and summary)."""
    return DiagnosisView(title="Check the pads", findings=(pads_text(flow.match, flow.moved_unseen, flow.unseen_away),),
                         options=("Play on",))


def ask_for_pads(flow, now: float) -> bool:
    """Go to the check when the table waits for a turn's coin (a drop or a
    notice in progress finishes first); True when it is now asked."""
    m = flow.match
    # rockers found moved: the snapshot has come and been reconciled (that is their news), no need to wait
    settled = flow.moved_unseen or now - flow.link_since >= SETTLE
    if not flow.pads_unknown or m is None or m.over or flow.mode is not Mode.TURN or m.phase != PHASE_TURN \
            or not flow.link_up or not settled or not flow.board_quiet():
        return False
    if flow.message is not None and flow.message is flow.loss_asked:
        flow.message = None  # "Events lost" asked the same thing (check the board): this screen says it, once
    flow.scroll = 0
    flow._go(Mode.CHECK_PADS, now)  # the turn goes on under it: a coin now is the turn's drop
    flow._emit(fx.Sound("mismatch"))
    return True


class CheckPads(Screen):
    """The players check the pads against the table's belief (after lost events)."""

    mode = Mode.CHECK_PADS
    in_turn = True  # the player to move may drop: the question is answered by playing on

    def act(self, flow, press, now):
        if press in (NEXT, PREV):
            flow.scroll = max(0, flow.scroll + (1 if press == NEXT else -1))
        elif press in (SELECT, HOLD_SELECT):
            self._done(flow, now)

    def tick(self, flow, now, board_now):
        # the turn goes on under the question: its clock, the computer opponent's choice and its
        # dropper (without this, a computer's turn waited for a press nobody had to make: the monkey)
        flow.screen_of(Mode.TURN).tick(flow, now, board_now)
        if flow.match is None or flow.match.over or flow.match.phase != PHASE_TURN:
            self._done(flow, now)  # a coin went in (or the match moved on): that was the answer

    @staticmethod
    def _done(flow, now):
        flow.pads_unknown, flow.moved_unseen, flow.unseen_away = False, (), "the hub was away"
        m = flow.match
        flow._go(Mode.REVEAL if m is not None and m.phase == PHASE_REVEAL else Mode.TURN, now)

    def view(self, flow, now):
        return TextView("Check the pads", pads_text(flow.match, flow.moved_unseen, flow.unseen_away), flow.scroll)
