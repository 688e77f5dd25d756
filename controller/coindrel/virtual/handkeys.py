"""A person's hands at a served board's keyboard: a line typed after ``:``.

Keys 1..8 drop coins; what a table asks a person to do with their hands
(put a rocker back after an undo, a lesson's set-up, a self-test's "push
R2S3 left") needs a switch and a side, so it is a short line instead:

    :R2S3 L        push R2S3's rocker to its left side
    :on R1S4       put a coin on R1S4's pad        :off R1S4   take it off
    :exit 5        pass a coin through exit 5's beam by hand (entry 2 likewise)
    :out R2S3      take the switch out (Holes)     :in R2S3 L  put it back, left

Parsing is separate from doing so that every mistake is said before the
board is touched.
"""

from __future__ import annotations

from typing import Callable

from ..engine import EngineError

HELP = ("type : then R2S3 L (push a rocker), on R1S4 / off R1S4 (a coin on or off a pad), exit 5 / entry 2 "
        "(a coin through that beam by hand), out R2S3 / in R2S3 L (Holes), and Enter")


def hand_action(line: str, board) -> tuple[str, Callable[[], object]]:
    """What the typed ``line`` does to ``board`` (a VirtualBoard): a sentence
    for the terminal and the action; EngineError naming the mistake."""
    words = line.split()
    g = board.geometry
    if not words:
        raise EngineError(f"nothing typed: {HELP}")

    def switch(word: str) -> str:
        try:
            return g.labels[g.index(word.upper())]
        except (EngineError, KeyError, ValueError, IndexError):
            raise EngineError(f"{word!r} is no switch of this board (R1S1 .. {g.labels[-1]}): {HELP}") from None

    def side(word: str) -> str:
        if word.upper() not in ("L", "R"):
            raise EngineError(f"{word!r} is no side: L or R")
        return word.upper()

    verb = words[0].lower()
    if verb in ("entry", "exit") and len(words) == 2:
        count = g.entry_count if verb == "entry" else g.exit_count
        if not words[1].isdigit() or not 1 <= int(words[1]) <= count:
            raise EngineError(f"{verb} {words[1]!r}: {'entries' if verb == 'entry' else 'exits'} are 1..{count}")
        n = int(words[1])
        return f"a coin pushed through {verb} {n}'s beam by hand", lambda: board.pass_coin_through(verb, n - 1)
    if verb in ("on", "off") and len(words) == 2:
        s = switch(words[1])
        if verb == "on":
            return f"a coin put on {s}'s pad", lambda: board.place_coin(s)
        return f"the coin taken off {s}'s pad", lambda: board.take_coin(s)
    if verb == "out" and len(words) == 2:
        s = switch(words[1])
        return f"{s} taken out of the board", lambda: board.take_out_switch(s)
    if verb == "in" and len(words) in (2, 3):
        s, to = switch(words[1]), side(words[2]) if len(words) == 3 else "L"
        return f"{s} put back, {to}", lambda: board.put_back_switch(s, to)
    if len(words) == 2 and words[0][:1].upper() == "R":
        s, to = switch(words[0]), side(words[1])
        return f"{s} pushed to {to} by hand", lambda: board.set_by_hand(s, to)
    raise EngineError(f"{line.strip()!r} is not understood: {HELP}")
