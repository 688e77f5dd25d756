"""Simulated people at the table: careful players who answer every question
the table asks the way a person would.

They read the flow's typed state (its mode, what it is ``asking`` hands to
do, the match), never the screen's words, and act through the same doors a
person has: the table's buttons (``Table.handle_action``) and their hands on
the virtual board (drops, rockers pushed over, coins put on or taken off,
switches taken out). So from any state a match with simulated players
reaches its end, whatever else happened.
"""

from __future__ import annotations

from ..ai import player_by_name
from ..engine import PHASE_TURN
from ..buttons import BACK, PREV, SELECT
from .modes import Mode
from .restore import Hand, HandStep
from .setupmenu import START

RETRY = 4.0  # seconds after which a player whose coin the table never saw drops again


def do_by_hand(board, steps: tuple[HandStep, ...] | list[HandStep]) -> int:
    """Carry out ``steps`` with the virtual board's hands; returns how many did something."""
    done = 0
    for step in steps:
        h = step.hand
        label = step.label or step.switch  # the board's hands take switches as people name them
        if isinstance(label, int) and h is not Hand.CLEAR_PADS:
            label = board.geometry.labels[label]
        if h is Hand.FLIP:
            done += bool(board.set_by_hand(label, step.side).get("applied", True))
        elif h is Hand.COIN_ON:
            done += board.place_coin(label)
        elif h is Hand.COIN_OFF:
            done += board.take_coin(label)
        elif h is Hand.TAKE_OUT:
            done += board.take_out_switch(label)
        elif h is Hand.PUT_BACK:
            done += board.put_back_switch(label, step.side or "L")
        elif h is Hand.CLEAR_PADS:
            done += bool(board.clear_pads())
    return done


class SimPlayers:
    """Plays the table's match: simulated players drop coins into the virtual
    board when the table says it is their turn, follow the clock's chosen
    entry, and work the buttons and their hands between turns. A player named
    ``keyboard`` is a person: they work the screens themselves."""

    def __init__(self, table, board, opts, clock=None):
        import time

        self.table, self.board, self.opts = table, board, opts
        self.clock = clock or time.monotonic
        self.bots = [None if k == "keyboard" else player_by_name(k, opts.seed + i + 1) for i, k in enumerate(opts.players)]
        self.people = any(b is None for b in self.bots)  # a person works the buttons themselves
        self.dropped_at = -1  # the match's turn count when we last dropped
        self.dropped_time = float("-inf")
        self.away_until = float("-inf")  # when the table last waited for the hub, in a turn
        self.ended: set = set()  # the matches the table ended (their seeds): what --matches counts
        self._before = None  # one ended before counting began (matches_done = 0)
        self.finished = _Flag()
        self._screen = None
        self._since = 0.0
        self.presses = 0

    # -- reading the table ------------------------------------------------------------

    def _waited(self, now: float) -> float:
        flow = self.table.flow
        lesson = (flow.runner.phase, flow.runner.index) if flow.runner is not None else None
        # the pads question shows over the turn, which goes on under it
        mode = Mode.TURN if flow.mode is Mode.CHECK_PADS else flow.mode
        screen = (mode, flow.message is not None, flow.note is not None, id(flow.match), flow.selected, lesson)
        if screen != self._screen:
            self._screen, self._since = screen, now
        return now - self._since

    def _press(self, action: str, now: float) -> None:
        self.presses += 1
        self._since = now  # give the table time to answer before pressing again
        self.table.handle_action(action)

    @property
    def matches_done(self) -> int:
        return len(self.ended)

    @matches_done.setter
    def matches_done(self, n: int) -> None:
        """``= 0``: count from now on (tests); a match the table ended earlier
        and has let go of is not counted again, one still on its screens is."""
        if n != 0:
            raise ValueError("matches_done can only be reset to 0")
        self.ended = set()
        m = self.table.flow.ended
        self._before = m.setup.seed if m is not None and m is not self.table.flow.match else None

    def _count_ended(self) -> None:
        """A match counts as played once the table has ended it, whoever
        pressed past its result (a script's press, a person): counting our
        own presses at the result screen played one match more (--matches 2
        played 3 when a script's hold moved past the result)."""
        m = self.table.flow.ended
        if m is not None and m.setup.seed != self._before:
            self.ended.add(m.setup.seed)

    # -- acting -------------------------------------------------------------------------

    def step(self) -> None:
        self._count_ended()
        flow, now = self.table.flow, self.clock()
        waited = self._waited(now)
        mode, m = flow.mode, flow.match
        if mode in (Mode.TURN, Mode.CHECK_PADS) and m is not None:
            self._turn(now, waited)  # players look at the pads and play on
            return
        if self.people or (m is not None and not flow.link_up):
            return  # a person at the keyboard reads the screens; or the table waits for the hub
        patience = self.opts.pause
        if flow.note is not None:
            if waited > patience:
                self._press(SELECT, now)  # read it; put it away
            return
        if mode is Mode.MENU:
            self._menu(now, waited)
        elif mode is Mode.LESSON and getattr(self.opts, "learn", False):
            self._lesson(now, waited)
        elif waited <= patience:
            return
        elif mode in (Mode.NAMES, Mode.RULES, Mode.HISTORY, Mode.LESSONS, Mode.LESSON, Mode.PAUSED, Mode.MISMATCH,
                      Mode.CORRECT):
            self._press(BACK, now)  # cancel, leave, resume; at a mismatch: "Board is right"
        elif mode is Mode.RESTORE:
            do_by_hand(self.board, flow.asking)
            self._press(SELECT, now)
        elif mode in (Mode.REVEAL, Mode.ROUND_RESULT, Mode.RESULT, Mode.CLUB_REQUEST):
            self._press(SELECT, now)  # a club's match request: careful players play what the club asks

    def _menu(self, now: float, waited: float) -> None:
        flow = self.table.flow
        if waited <= min(1.0, self.opts.pause):
            return
        if flow.message is not None:
            do_by_hand(self.board, flow.asking)  # the players fix the board as asked, then say so
            self._press(SELECT, now)
        elif self.matches_done >= self.opts.matches:
            self.finished.set()
        elif flow.menu.selected != START:
            self._press(PREV, now)  # back up to "Start match"
        else:
            self._press(SELECT, now)

    def _lesson(self, now: float, waited: float) -> None:
        """A learner: sets the board up as each step asks, drops where it
        says, reads the explanation, and goes on to the end of the lesson."""
        flow = self.table.flow
        p = flow.runner.prompt
        if waited <= self.opts.pause or p.phase == "falling":
            return
        if p.phase in ("switches", "coins"):
            if do_by_hand(self.board, flow.asking) and p.phase == "switches":
                return  # the hall sensors will say when the rockers are there
            if p.phase == "coins" or not flow.has_halls:
                self._press(SELECT, now)
        elif p.phase == "drop":
            if self.dropped_at != -2:
                self.board.drop(p.entry)
                self.dropped_at, self._since = -2, now
        else:  # explain, done
            self.dropped_at = -1
            self._press(SELECT, now)

    def _turn(self, now: float, waited: float) -> None:
        flow, m = self.table.flow, self.table.flow.match
        if m.phase != PHASE_TURN or not flow.link_up:
            self.away_until = now  # (the hub is away: what the table makes of the board comes after)
            return
        if flow.opponent is not None and m.to_move == 2:
            # the table's computer opponent: its dropper drops, or it asks a person to
            if flow.computer is None or flow.has_dropper or len(m.results) == self.dropped_at:
                return
            self._drop(flow.computer.entry, now)
            return
        bot = self.bots[m.to_move - 1]
        if bot is None:
            return  # a person's turn
        if len(m.results) == self.dropped_at and now - max(self.dropped_time, self.away_until) < RETRY:
            return  # our coin is on its way, or the table, its hub back, may yet find it
        # (a coin the table never saw, e.g. dropped as the hub went away, is dropped again,
        # as a person does when the table still asks for their drop)
        if waited < self.opts.think or now - self.dropped_time < self.opts.think:
            return  # (from the turn's screen, and from the last coin dropped: the screen stays up turn after turn)
        if m.forced_entry is not None and flow.has_dropper:
            return  # the dropper takes care of it
        entry = m.forced_entry if m.forced_entry is not None else bot.choose(m)
        self._drop(entry, now)

    def _drop(self, entry: int, now: float) -> None:
        self.board.drop(entry)
        self.dropped_at, self.dropped_time = len(self.table.flow.match.results), now


class _Flag:
    """asyncio.Event's is_set/set without needing a running loop."""

    def __init__(self):
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set
