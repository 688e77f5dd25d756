"""People's hands on the board as the table asks (mixed into ``Reconciler``):
putting it back after an undo.

What they push over is no evidence of a fault: the faults believed when they
began are the ones kept once they are done, and the rockers they pushed last,
still one open coinless group at the press, are theirs (its readings kept),
never grouped again against the board they set. The coins they were asked to
put on or take off no sensor sees done: those pads are unsure (``unsure``,
``asked``), so a later drop that finds one otherwise tells of a step not done
(``faults.ASKED_PAD``), not of a fault. tests/table/test_awkward_hands.py.
"""

from __future__ import annotations

from ..engine.core import HOLE
from ..events import SwitchEvent
from .world import World


class Hands:
    """Part of ``reconciler.Reconciler``."""

    asked: frozenset = frozenset()  # unsure pads a put-back asked hands to change (a class default: old checkpoints)

    def hands_on(self) -> None:
        self.__dict__.setdefault("hands_from", self.worlds[0].faults)

    def hands_off(self) -> None:
        group = self._group
        if group is not None and not group.is_drop and group is not self._tail:
            for ev in group.ordered():
                if isinstance(ev, SwitchEvent) and ev.switch in self.switch_index:
                    self.readings[self.switch_index[ev.switch]] = ev.pos
            self._group = None
        faults = self.__dict__.pop("hands_from", None)
        if faults is not None and self.worlds[0].faults != faults:
            self.worlds = [World(self.geometry, self.worlds[0].codes, faults)]

    def set_by_hand(self, pads) -> None:
        """``pads`` (switch numbers): coins people were asked to put on or take off."""
        pads = {s for s in pads if self.worlds[0].codes[s] != HOLE}
        # (pads unseen since an outage keep the outage's words)
        self.asked = frozenset(pads) if not self.unsure else frozenset(self.asked | (pads - self.unsure))
        self.unsure = set(self.unsure) | pads
