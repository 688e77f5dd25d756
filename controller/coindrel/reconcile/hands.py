"""People's hands on the board as the table asks (mixed into ``Reconciler``):
putting it back after an undo.

What they push over is no evidence of a fault: the faults believed when they
began are the ones kept once they are done, and the rockers they pushed last,
still one open coinless group at the press, are theirs (its readings kept),
never grouped again against the board they set. The coins they were asked to
put on or take off no sensor sees done: those pads are unsure (``unsure``,
``asked``), so a later drop that finds one otherwise tells of a step not done
(``faults.ASKED_PAD``), not of a fault. tests/table/test_awkward_hands.py.

A coin that goes in before they are done (they dropped before pressing)
ends the hands there: it falls through the board as far as they put it back,
so it is judged against what the sensors show of that (``_coin_in_hands``).
"""

from __future__ import annotations

from ..engine.core import COIN, HOLE, PAD_R
from ..events import SwitchEvent
from .world import World

FLIP, COIN_ON, COIN_OFF = "flip", "coin-on", "coin-off"  # (the table's ``restore.Hand`` values)
EYE = "flip-by-eye"  # a flip at a rocker whose hall is suspected (``restore.EYE``): no reading says it is done


class Hands:
    """Part of ``reconciler.Reconciler``."""

    asked: frozenset = frozenset()  # unsure pads a put-back asked hands to change (a class default: old checkpoints)
    hands_steps: tuple = ()  # what the hands were asked to do, in the list's order (``hands_on``)
    unput: frozenset = frozenset()  # rockers held lying a put-back held past may have left as they were

    @property
    def hands_busy(self) -> bool:
        return "hands_from" in self.__dict__

    def hands_on(self, steps: tuple = ()) -> None:
        """``steps``: (``"coin-off"``/``"flip"``/``"flip-by-eye"``/``"coin-on"``, switch, side), as listed."""
        self.__dict__.setdefault("hands_from", self.worlds[0].faults)
        self.hands_steps = tuple(steps)

    def hands_off(self) -> None:
        self._hands_let_go()
        faults = self.__dict__.pop("hands_from", None)
        self.__dict__.pop("hands_steps", None)
        if faults is not None and self.worlds[0].faults != faults:
            self.worlds = [World(self.geometry, self.worlds[0].codes, faults)]

    def _hands_let_go(self) -> None:
        """The open coinless group is the hands': its readings are kept, no drop is made of it."""
        group = self._group
        if group is not None and not group.is_drop and group is not self._tail:
            for ev in group.ordered():
                if isinstance(ev, SwitchEvent) and ev.switch in self.switch_index:
                    self.readings[self.switch_index[ev.switch]] = ev.pos
            self._group = None

    def _coin_in_hands(self) -> None:
        """A coin goes in while the board is being put back (``feed``, before
        its entry is grouped): the hands are done. The coin meets the rockers
        as the halls read them (the hands moved them; a hall held lying keeps
        its believed side) and the pads of the coin steps as far as the list
        was done: people work down it (coins off, rockers, coins on), so a
        coin taken off is believed off once any rocker listed is seen put
        back (or none was listed), a coin put on once every rocker listed is.
        Those pads stay unsure (nobody sees them): the drop, and later ones,
        tell a step not done from a fault."""
        steps = self.hands_steps
        faults = self.__dict__["hands_from"]
        self.hands_off()
        w = World(self.geometry, self.worlds[0].codes, faults)
        lying = w.index.halls | w.index.unseated
        codes = bytearray(w.codes)
        for s, pos in enumerate(self.readings):
            if pos in ("L", "R") and codes[s] != HOLE and s not in lying:
                codes[s] = (codes[s] & ~PAD_R & 0xFF) | (pos == "R")
        flips = [self.readings[s] == side for hand, s, side in steps if hand == FLIP]
        for hand, s, side in steps:
            if hand == EYE and codes[s] != HOLE:  # its hall cannot tell: done once the rockers seen are
                put = side == "R" if all(flips) else w.codes[s] & PAD_R
                codes[s] = (codes[s] & ~PAD_R & 0xFF) | put
        pads = set()
        for hand, s, _side in steps:
            if hand not in (COIN_ON, COIN_OFF) or codes[s] == HOLE:
                continue
            pads.add(s)
            if hand == COIN_OFF and (not flips or any(flips)):
                codes[s] &= ~COIN & 0xFF
            elif hand == COIN_ON and all(flips):
                codes[s] |= COIN
        self.worlds = [World(self.geometry, bytes(codes), faults)]
        if pads:
            self.set_by_hand(pads)

    def set_by_hand(self, pads) -> None:
        """``pads`` (switch numbers): coins people were asked to put on or take off."""
        pads = {s for s in pads if self.worlds[0].codes[s] != HOLE}
        # (pads unseen since an outage keep the outage's words)
        self.asked = frozenset(pads) if not self.unsure else frozenset(self.asked | (pads - self.unsure))
        self.unsure = set(self.unsure) | pads

    def not_put_back(self, rockers) -> None:
        """``rockers`` (switch numbers): listed by a put-back the players held
        past "Not yet", so left where their halls read them, as the board
        just set has them. A hall held lying proves nothing: its rocker is
        believed as the list asked, and a later drop that finds it otherwise
        tells of the board not put back (``faults.NOT_PUT_BACK``), not of a
        fault."""
        w = self.worlds[0]
        lying = {s for s in rockers if s in (w.index.halls | w.index.unseated) and w.codes[s] != HOLE}
        if lying:
            codes = bytearray(w.codes)
            for s in lying:
                codes[s] ^= PAD_R  # the side listed: the other one than its hall reads
            self.worlds = [World(self.geometry, bytes(codes), w.faults)]
        self.unput = frozenset(lying)
