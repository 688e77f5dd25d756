"""The standard board as a wood-and-rocker object (rules.md section 2), and the
rules' untimed cascade (section 3-4), written for this model alone: board3
uses it for its ground truth (what a healthy board would have done from the
same physical state), never the controller's engine.

Sides are 0 (L) and 1 (R). A switch is an index into ``Board.switches``.
"""

from __future__ import annotations

from dataclasses import dataclass

HOLES = ((1, 1), (1, 5), (3, 2), (3, 4))
ROWS = 5
LANES = 16


@dataclass(frozen=True)
class Switch:
    row: int
    col: int
    left: int  # lane of the left outlet; the right outlet is left + 1
    inlet: int  # 0 L, 1 R

    @property
    def label(self) -> str:
        return f"R{self.row + 1}S{self.col + 1}"


class Board:
    def __init__(self, holes: bool = False):
        sw = []
        for r in range(ROWS):
            for j in range(8 if r % 2 == 0 else 7):
                if r % 2 == 0:
                    inlet = 0 if j < 4 else 1
                else:
                    inlet = 0 if j < 3 else 1
                    if j == 3:
                        inlet = 1 if r == 1 else 0  # R2S4 inlet R, R4S4 inlet L
                sw.append(Switch(r, j, 2 * j + (r % 2), inlet))
        self.switches = tuple(sw)
        self.index = {(s.row, s.col): i for i, s in enumerate(sw)}
        self.labels = tuple(s.label for s in sw)
        self.by_label = {s.label: i for i, s in enumerate(sw)}
        self.holes = frozenset(self.index[h] for h in HOLES) if holes else frozenset()
        # below[(row, lane)]: where a coin falling down ``lane`` under ``row`` lands
        self._below = {}
        for r in range(ROWS):
            for lane in range(LANES):
                self._below[(r, lane)] = self._find_below(r, lane)

    def _find_below(self, row: int, lane: int):
        for r in range(row + 1, ROWS):
            for j in range(8 if r % 2 == 0 else 7):
                left = 2 * j + (r % 2)
                if left <= lane <= left + 1:
                    return ("switch", self.index[(r, j)])
        return ("exit", lane)

    def entry_switch(self, entry: int) -> int:
        return self.index[(0, entry)]

    def outlet(self, s: int, side: int):
        """Where a coin leaving switch ``s`` by outlet ``side`` goes next."""
        sw = self.switches[s]
        return self._below[(sw.row, sw.left + side)]

    def outlet_label(self, s: int, side: int) -> str:
        return f"{self.labels[s]} {'left' if side == 0 else 'right'} outlet"


@dataclass
class Physical:
    """What the wood really is: rocker sides (pad side) and resting coins."""

    side: list
    coin: list

    def copy(self) -> "Physical":
        return Physical(list(self.side), list(self.coin))

    def text(self, board: Board) -> list[str]:
        rows = [[] for _ in range(ROWS)]
        for i, sw in enumerate(board.switches):
            if i in board.holes:
                ch = "o"
            else:
                ch = "LR"[self.side[i]]
                if self.coin[i]:
                    ch = ch.lower()
            rows[sw.row].append(ch)
        return ["".join(r) for r in rows]


def cascade(board: Board, state: Physical, entries: list[int]):
    """The rules' outcome of coins put in ``entries`` (untimed, abelian):
    (sorted exits, {switch: flips}, swallowed); ``state`` is changed in place."""
    todo = [("switch", board.entry_switch(e)) for e in entries]
    exits, flips, swallowed = [], {}, 0
    steps = 0
    while todo:
        steps += 1
        assert steps < 10000
        kind, where = todo.pop()
        if kind == "exit":
            exits.append(where)
            continue
        s = where
        if s in board.holes:
            swallowed += 1
            continue
        x = board.switches[s].inlet
        if state.side[s] == x:
            if not state.coin[s]:
                state.coin[s] = 1
                continue
            y = 1 - x
        else:
            y = x
        old = state.side[s]
        state.side[s] = y
        flips[s] = flips.get(s, 0) + 1
        todo.append(board.outlet(s, y))
        if state.coin[s]:
            state.coin[s] = 0
            todo.append(board.outlet(s, old))
    return sorted(exits), flips, swallowed
