"""What the panel can show: one frozen dataclass per kind of screen.

A view is pure data, built by the daemon from the match, the menus and the
link; ``render(view, size)`` turns it into an image and nothing else reads it.
Numbers follow the engine: exits and entries 0-based, players 1 and 2,
rounds 1..4; the renderer writes what a person reads (1-based). Views check
their own shape on creation, so a bad view fails where it is built, not
half-way through drawing a frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

EXITS = 16


def _tuple(value, name: str, length: int | None = None) -> tuple:
    t = tuple(value)
    if length is not None and len(t) != length:
        raise ValueError(f"{name} must have {length} items, not {len(t)}")
    return t


def _ints(value, name: str, length: int | None = None, lo: int | None = None, hi: int | None = None) -> tuple[int, ...]:
    t = _tuple(value, name, length)
    for v in t:
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"{name} holds {v!r}, not a whole number")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise ValueError(f"{name} holds {v}, outside {lo}..{hi}")
    return t


def _set(obj, **fields) -> None:
    for k, v in fields.items():
        object.__setattr__(obj, k, v)


def _player(value, name: str, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if value not in (1, 2):
        raise ValueError(f"{name} must be player 1 or 2{' or None' if allow_none else ''}, not {value!r}")


def _index(selected: int, items: Sequence, name: str) -> None:
    if items and not 0 <= selected < len(items):
        raise ValueError(f"{name} {selected} is outside 0..{len(items) - 1}")


@dataclass(frozen=True)
class MatchView:
    """The screen during play: scores, round and target, clock, status line,
    and the round's sixteen exit values under the exits."""

    players: tuple[str, str]
    round: int
    target: int
    values: tuple[int, ...]
    round_scores: tuple[int, int] = (0, 0)
    totals: tuple[int, int] = (0, 0)
    to_move: int | None = 1  # whose drop it is; None while coins fall or when over
    status: str = ""
    alert: bool = False  # the status line needs a person (drawn inverted)
    clock: float | None = None  # seconds left on the turn clock; None: no clock
    paused: bool = False
    hit_exits: tuple[int, ...] = ()  # exits the last drop reached, highlighted

    def __post_init__(self) -> None:
        _set(self, players=_tuple(self.players, "players", 2), values=_ints(self.values, "values", EXITS, 0),
             round_scores=_ints(self.round_scores, "round_scores", 2), totals=_ints(self.totals, "totals", 2),
             hit_exits=_ints(self.hit_exits, "hit_exits", None, 0, EXITS - 1))
        _player(self.to_move, "to_move")


@dataclass(frozen=True)
class RevealView:
    """A new round's exit values, shown before its first clock starts;
    ``shown`` exits (from the left) are revealed so far, for an animation."""

    round: int
    target: int
    values: tuple[int, ...]
    shown: int = EXITS
    shuffled: bool = False
    hint: str = "Press to start"

    def __post_init__(self) -> None:
        _set(self, values=_ints(self.values, "values", EXITS, 0))
        if not 0 <= self.shown <= EXITS:
            raise ValueError(f"shown must be 0..{EXITS}, not {self.shown}")


@dataclass(frozen=True)
class RoundResultView:
    """A round is over: its scores, the running totals, who took it."""

    round: int
    players: tuple[str, str]
    round_scores: tuple[int, int]
    totals: tuple[int, int]
    winner: int | None = None  # 1, 2, or None for a drawn round
    next_round: int | None = None
    next_target: int | None = None
    hint: str = "Press to go on"

    def __post_init__(self) -> None:
        _set(self, players=_tuple(self.players, "players", 2), round_scores=_ints(self.round_scores, "round_scores", 2),
             totals=_ints(self.totals, "totals", 2))
        _player(self.winner, "winner")


@dataclass(frozen=True)
class MatchResultView:
    """The match is over: the winner (or a draw), totals and each round's points."""

    players: tuple[str, str]
    totals: tuple[int, int]
    winner: int | None  # 1, 2, or None for a draw
    rounds: tuple[tuple[int, int], ...] = ()  # points per round, for the table
    hint: str = "Press for the menu"

    def __post_init__(self) -> None:
        _set(self, players=_tuple(self.players, "players", 2), totals=_ints(self.totals, "totals", 2),
             rounds=tuple(_ints(r, "rounds item", 2) for r in self.rounds))
        _player(self.winner, "winner")


@dataclass(frozen=True)
class MenuItem:
    label: str
    value: str | None = None  # shown right-aligned, e.g. "60 s" or "on"
    enabled: bool = True


@dataclass(frozen=True)
class MenuView:
    """A list to choose from: the setup menu (clock, variants, names, rules,
    lessons, history, start) and any other menu."""

    title: str
    items: tuple[MenuItem, ...]
    selected: int = 0
    hint: str = ""

    def __post_init__(self) -> None:
        items = tuple(i if isinstance(i, MenuItem) else MenuItem(*i) if isinstance(i, tuple) else MenuItem(str(i)) for i in self.items)
        _set(self, items=items)
        _index(self.selected, items, "selected")


@dataclass(frozen=True)
class NameEntryView:
    """Editing a player's name one character at a time (an encoder or
    up/down choose the character under the cursor)."""

    title: str
    name: str
    cursor: int = 0
    max_length: int = 12
    hint: str = "press: next  hold: done"

    def __post_init__(self) -> None:
        if not 0 <= self.cursor <= max(len(self.name), 0) or self.cursor >= max(self.max_length, 1):
            raise ValueError(f"cursor {self.cursor} is outside the name (0..{min(len(self.name), self.max_length - 1)})")


@dataclass(frozen=True)
class TextView:
    """Scrolling text, e.g. the Rules from the setup menu; ``scroll`` is the
    first line shown (see ``render.text_lines`` for how many there are)."""

    title: str
    text: str
    scroll: int = 0

    def __post_init__(self) -> None:
        if self.scroll < 0:
            raise ValueError(f"scroll must be >= 0, not {self.scroll}")


@dataclass(frozen=True)
class LessonView:
    """One step of a lesson: words beside a board diagram, with switches,
    an entry and exits to point at."""

    title: str
    step: int  # 1-based
    steps: int
    text: str
    board: str | None = None  # rules.md section 9 one-line form
    highlight: tuple[str, ...] = ()  # switch labels, e.g. ("R3S2",)
    entry: int | None = None  # 0-based entry to point at
    exits: tuple[int, ...] = ()  # 0-based exits to mark
    scroll: int = 0

    def __post_init__(self) -> None:
        _set(self, highlight=tuple(self.highlight), exits=_ints(self.exits, "exits", None, 0, EXITS - 1))
        if not 1 <= self.step <= max(self.steps, 1):
            raise ValueError(f"step {self.step} is outside 1..{self.steps}")
        if self.entry is not None and not 0 <= self.entry < 8:
            raise ValueError(f"entry {self.entry} is outside 0..7")


@dataclass(frozen=True)
class HistoryItem:
    when: str  # as a person reads it, e.g. "12 Mar 19:40"
    players: tuple[str, str]
    totals: tuple[int, int]
    winner: int | None  # 1, 2, or None for a draw


@dataclass(frozen=True)
class HistoryView:
    title: str
    items: tuple[HistoryItem, ...]
    selected: int = 0

    def __post_init__(self) -> None:
        _set(self, items=tuple(self.items))
        _index(self.selected, self.items, "selected")


@dataclass(frozen=True)
class DiagnosisView:
    """A notice that wants a person before the match goes on, read a page at
    a time and then answered: a mismatch (the board did not do what the
    engine predicted), a coin seen outside any drop, or a revision of an
    earlier drop's explanation.

    ``facts`` say what the board did against what the engine expected, in
    words a player knows ("Exits: expected 1 2 3 4 5; seen 5.", "R3S2 should
    have flipped"); ``findings`` are the explanations, best first, shown in
    full; ``options`` what to do about it (e.g. "Board is right", "Correct
    score", "Undo last drop"). The words are paged: ``page`` 0.. are pages of
    text and the page after the last (``display.page_count(view, size) - 1``)
    holds the options, of which ``selected`` is marked. A view with only
    ``expected``/``observed`` exits states the exits itself."""

    title: str
    findings: tuple[str, ...]
    options: tuple[str, ...]
    selected: int = 0
    expected: tuple[int, ...] | None = None  # exits the engine predicted (0-based)
    observed: tuple[int, ...] | None = None  # exits the board saw
    drop: int | None = None  # 1-based drop number in the match
    facts: tuple[str, ...] = ()  # what differed, one sentence each
    page: int = 0  # text pages first, then the options (kept in range when drawn)
    clock: float | None = None  # shown over a running turn: its seconds left

    def __post_init__(self) -> None:
        _set(self, findings=tuple(self.findings), options=tuple(self.options), facts=tuple(self.facts))
        if self.expected is not None:
            _set(self, expected=_ints(self.expected, "expected", None, 0, EXITS - 1))
        if self.observed is not None:
            _set(self, observed=_ints(self.observed, "observed", None, 0, EXITS - 1))
        if not self.options:
            raise ValueError("a diagnosis needs at least one option (e.g. \"OK\")")
        if self.page < 0:
            raise ValueError(f"page must be >= 0, not {self.page}")
        _index(self.selected, self.options, "selected")


@dataclass(frozen=True)
class ConnectionView:
    """The sensor hub is gone and the daemon is trying to get it back."""

    title: str = "Hub disconnected"
    detail: str = "reconnecting"
    attempts: int = 0
    since: float = 0.0  # seconds since the link was lost
    where: str = ""  # the port being tried, e.g. "/dev/ttyACM0"


@dataclass(frozen=True)
class MessageView:
    """Anything else worth a whole screen: a title and a few words. Shown
    over a turn (a hint, a note), ``clock`` is the turn clock's seconds left,
    drawn in the title bar so the turn never runs out unseen."""

    title: str
    text: str = ""
    alert: bool = False
    clock: float | None = None
    paused: bool = False


@dataclass(frozen=True)
class ClubRequestView:
    """A club asks for a match: who plays, the clock, the variants; a
    person at the table starts it or says no."""

    players: tuple[str, str]
    clock: str  # as the setup menu says it: "60 s", "Turbo 5s", "off"
    variants: tuple[str, ...] = ()  # the ones on, e.g. ("Holes", "Halved")
    waiting: int = 0  # more requests after this one
    title: str = "Club match"
    hint: str = "press: play  back: no"

    def __post_init__(self) -> None:
        _set(self, players=_tuple(self.players, "players", 2), variants=_tuple(self.variants, "variants"))
        if self.waiting < 0:
            raise ValueError(f"waiting must be 0 or more, not {self.waiting}")


VIEW_TYPES = (MatchView, RevealView, RoundResultView, MatchResultView, MenuView, NameEntryView, TextView,
              LessonView, HistoryView, DiagnosisView, ConnectionView, MessageView, ClubRequestView)
