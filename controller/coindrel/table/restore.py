"""What the table asks people to do with their hands on the board: put it
back after an undo, clear the pads before a match, take the Holes switches
out, set a lesson up. One typed step each, so the screen, the simulated
players and the sim's keyboard all read the same request. A switch is its
number on the board (``Geometry.labels[switch]`` is what people read)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ..engine import COIN, HOLE, PAD_R, BoardState


class Hand(Enum):
    FLIP = "flip"  # push the rocker over to ``side``
    COIN_ON = "coin-on"  # put a coin on the pad
    COIN_OFF = "coin-off"  # take the coin off the pad
    TAKE_OUT = "take-out"  # remove the switch (Holes)
    PUT_BACK = "put-back"  # put the switch back, pad on ``side``
    CLEAR_PADS = "clear-pads"  # take every coin off every pad (where they rest is not known)


@dataclass(frozen=True)
class HandStep:
    hand: Hand
    switch: int = -1  # the switch's number (none for CLEAR_PADS)
    side: str = ""  # "L" or "R" for FLIP and PUT_BACK
    label: str = field(default="", compare=False)  # the switch as people read it: only ``text`` uses it
    # a coin lifted off so its rocker can flip, then put back: one coin, so the words say so
    # (a newcomer read "Take coin off R3S4" and "Coin on R3S4" as two orders that undo each other)
    back: bool = field(default=False, compare=False)
    # FLIP at a rocker whose hall is suspected: listed whatever it reads (a
    # stuck hall already reading the side wanted hid the step), for people
    # to check by eye; no press waits for that hall to agree
    by_eye: bool = False

    @classmethod
    def on(cls, geometry, hand: Hand, switch: int, side: str = "", back: bool = False, by_eye: bool = False) -> "HandStep":
        return cls(hand, switch, side, geometry.labels[switch], back, by_eye)

    @property
    def text(self) -> str:
        h, s = self.hand, self.label or str(self.switch)
        if h is Hand.FLIP:
            return f"Flip {s} to {self.side}" + (" (check by eye: its sensor may be wrong)" if self.by_eye else "")
        if h is Hand.COIN_ON:
            # short enough that "3/3 Coin back on R3S4" is one line of the 128x64 panel
            return f"Coin back on {s}" if self.back else f"Put a coin on {s}"
        if h is Hand.COIN_OFF:
            return f"Lift coin off {s}" if self.back else f"Take coin off {s}"
        if h is Hand.TAKE_OUT:
            return f"Take out {s}"
        if h is Hand.CLEAR_PADS:
            return "Take every coin off the pads"
        return f"Put {s} back"


def restore_steps(target: BoardState, halls: dict[int, str], coins: tuple[BoardState, BoardState] | None,
                  suspect=frozenset()) -> list[HandStep]:
    """What makes the board match ``target``, in an order hands can follow:
    coins off first (a rocker pushed over with a coin on it tips the coin
    out), then switches the hall sensors show on the wrong side, then coins
    on (``coins`` = the belief before and after the undo). A rocker whose
    hall is in ``suspect`` (the undone drop's diagnosis named it) gets its
    step, to check by eye, unless both its hall and the belief before the
    undo have it on the side wanted: its reading alone proves nothing."""
    g = target.geometry
    before = coins[0] if coins is not None else None
    off, flips, on = [], [], []
    for s, code in enumerate(target.codes):
        if code == HOLE:
            continue
        want = "LR"[code & 1]
        seen = halls.get(s)
        if s in suspect:
            believed = "LR"[before.codes[s] & 1] if before is not None and before.codes[s] != HOLE else None
            wrong = seen != want or believed not in (None, want)
        else:
            wrong = seen in ("L", "R") and seen != want
        if wrong:
            flips.append(HandStep.on(g, Hand.FLIP, s, want, by_eye=s in suspect))
            holding = before is not None and before.codes[s] != HOLE and before.codes[s] & COIN
            if holding:  # lift it off, flip, and put it back if the board before the drop had it
                back = bool(code & COIN)
                off.append(HandStep.on(g, Hand.COIN_OFF, s, back=back))
                if back:
                    on.append(HandStep.on(g, Hand.COIN_ON, s, back=True))
    if coins is not None:
        after = coins[1]
        lifted = {step.switch for step in off}
        for s, (a, b) in enumerate(zip(before.codes, after.codes)):
            if a == HOLE or s in lifted:
                continue
            if a & COIN and b & COIN and (a ^ b) & PAD_R and halls.get(s) == "LR"[b & PAD_R]:
                # its rocker is over now, so its coin was lifted (or tipped out): the step that puts it
                # back stays listed (it vanished with the flip, the coin still in a hand)
                on.append(HandStep.on(g, Hand.COIN_ON, s, back=True))
            elif b & COIN and not a & COIN:
                on.append(HandStep.on(g, Hand.COIN_ON, s))
            elif a & COIN and not b & COIN:
                off.append(HandStep.on(g, Hand.COIN_OFF, s))
    return off + flips + on


def holes_steps(geometry, present, wanted) -> list[HandStep]:
    """Switches (numbers) to take out (or put back) so the holes are ``wanted``."""
    have, want = set(present), set(wanted)
    return ([HandStep.on(geometry, Hand.TAKE_OUT, s) for s in sorted(want - have)]
            + [HandStep.on(geometry, Hand.PUT_BACK, s, "L") for s in sorted(have - want)])


def as_asked(steps) -> tuple[tuple[str, int, str], ...]:
    """A put-back's steps as the reconciler takes them, in the list's order:
    plain data that pickles to its process, (``Hand`` value, switch, side),
    a flip to check by eye as ``EYE`` (its hall cannot say it is done)."""
    kept = (Hand.COIN_OFF, Hand.FLIP, Hand.COIN_ON)
    return tuple((EYE if s.by_eye else s.hand.value, s.switch, s.side) for s in steps if s.hand in kept)


EYE = "flip-by-eye"  # (the reconciler's ``hands.EYE``)
