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
"""

from __future__ import annotations

from ..buttons import HOLD_SELECT, NEXT, PREV, SELECT
from ..display import TextView
from ..engine import COIN, HOLE, PHASE_REVEAL, PHASE_TURN
from . import effects as fx
from .modes import Mode, Screen


SETTLE = 2.0  # seconds after the hub is back before asking: its snapshot comes and is reconciled first


def _coins(match) -> list[int]:
    return [s for s, c in enumerate(match.board.codes) if c != HOLE and c & COIN]


def pads_text(match) -> str:
    """What the screen asks, from the match's belief of the pads."""
    g = match.board.geometry
    coins = [g.labels[s] for s in _coins(match)]
    where = ("coins on " + " ".join(coins) + " only." if coins else "no coin on any pad.")
    return (f"Coins may have fallen unseen. Table: {where} A pad that differs shows at its next drop "
            "(no fault). Press to play on.")


def ask_for_pads(flow, now: float) -> bool:
    """Go to the check when the table waits for a turn's coin (a drop or a
    notice in progress finishes first); True when it is now asked."""
    m = flow.match
    if not flow.pads_unknown or m is None or m.over or flow.mode is not Mode.TURN or m.phase != PHASE_TURN \
            or not flow.link_up or now - flow.link_since < SETTLE or not flow.board_quiet():
        return False
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
        flow.pads_unknown = False
        m = flow.match
        flow._go(Mode.REVEAL if m is not None and m.phase == PHASE_REVEAL else Mode.TURN, now)

    def view(self, flow, now):
        return TextView("Check the pads", pads_text(flow.match), flow.scroll)
