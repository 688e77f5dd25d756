"""Reading and checking lesson files (TOML, one lesson per file).

A lesson file (``coindrel/lessons/data/<name>.toml``)::

    format = 1
    title = "Drop a coin"          # at most 21 characters (one OLED line)
    order = 1                      # place in the How to Play menu
    extra = false                  # true for the extras after the five lessons
    summary = "Entries, pads and resting coins."
    holes = false                  # true: the Holes variant's board
    round = 1                      # whose exit values the points use (1-4)

    [[step]]
    title = "Pads catch coins"     # at most 21 characters
    board = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"   # left out: the board
                                   # the previous step's drop leaves behind
    text = ["Drop a coin in", "entry 3."]   # 1-5 lines of at most 21 characters;
                                   # must name the intended entry ("entry 3")
    entry = 3                      # the intended drop (1-8)
    after = ["It rests there."]    # optional, up to 4 lines: shown when the drop went as planned
    set = ["R5S1"]                 # optional: switches to set besides those the drop reaches
                                   # ("all": every switch; hint and reply steps need all)
    round = 2                      # optional: this step's exit values
    scores = [8, 6]                # optional: round scores before the drop (players 1, 2);
                                   # left out after a scored step: carried on, next player
    player = 1                     # optional: who drops (default 1)
    last_drop = false              # optional: this is the round's last drop
    show_hint = false              # optional: show the look-ahead hint (it must name `entry`)
    show_reply = false             # optional: after the drop, say the opponent's best drop

    [step.expect]                  # what the engine must say (checked on load)
    flips = ["R1S3"]               # required: switches that flip (labels)
    exits = [5]                    # required: exits reached (1-16, one per coin)
    rests = ["R2S3"]               # optional: pads that catch a coin and keep it
    loose = ["R1S4"]               # optional: resting coins knocked loose
    swallowed = 0                  # optional: coins lost in holes
    points = 2                     # optional: points of this drop
    reply = 4                      # optional: the opponent's best single drop afterwards

Loading checks every key and every promise against the engine; a problem
raises ``LessonError`` naming the file, the step and the key.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from ..ai.hint import hint
from ..ai.search import Position, Searcher
from ..engine import HOLE, ROUNDS, TARGETS, VALUES, BoardState, EngineError, standard_geometry
from .explain import Scoring, trace
from .model import MAX_AFTER_LINES, MAX_TEXT_LINES, OLED_WIDTH, Lesson, LessonError, LessonStep
from ..nesting import loads_toml

FORMAT = 1
_TOP = {"format", "title", "order", "extra", "summary", "holes", "round", "step"}
_STEP = {"title", "text", "board", "entry", "after", "set", "round", "scores", "player", "last_drop", "show_hint", "show_reply", "expect"}
_EXPECT = {"flips", "exits", "rests", "loose", "swallowed", "points", "reply"}


def data_dir():
    return resources.files("coindrel.lessons") / "data"


def lesson_names() -> list[str]:
    """The packaged lessons, in menu order (the five lessons, then the extras)."""
    return [lesson.name for lesson in load_lessons()]


def load_lessons() -> list[Lesson]:
    files = [f for f in data_dir().iterdir() if f.name.endswith(".toml")]
    lessons = [_load_file(f.name[: -len(".toml")], f.read_text(encoding="utf-8"), f"lessons/data/{f.name}") for f in files]
    return sorted(lessons, key=lambda l: (l.extra, l.order, l.name))


def load_lesson(name: str) -> Lesson:
    """A packaged lesson by name (``drop-a-coin``) or by its number in the list
    (``1``, as ``coindrel lesson`` shows it), or a lesson file by path."""
    resource = data_dir() / f"{name}.toml"
    if "/" not in name and not name.startswith(".") and resource.is_file():
        return _load_file(name, resource.read_text(encoding="utf-8"), f"lessons/data/{name}.toml")
    number = name.removeprefix("lesson").strip()
    if number.isascii() and number.isdigit() and len(number) <= 6:
        numbered = [lesson for lesson in load_lessons() if not lesson.extra]
        for lesson in numbered:
            if lesson.order == int(number):
                return lesson
        raise LessonError(f"there is no lesson {number}; the lessons are numbered "
                          f"{', '.join(str(l.order) for l in numbered)} (coindrel lesson lists them)")
    path = Path(name)
    if path.is_dir():
        raise LessonError(f"{path} is a folder, not a lesson file; give a lesson's .toml file, or a lesson's "
                          "name or number (coindrel lesson lists them)")
    if path.exists():
        return _read_file(path)
    known = ", ".join(l.name for l in load_lessons())
    if path.suffix == ".toml" or "/" in name:
        raise LessonError(f"{path}: no such lesson file; check the path, or give a lesson's name or number: {known}")
    raise LessonError(f"no lesson called {name!r}; the lessons are: {known} (or their numbers, or a lesson .toml file)")


def _read_file(path: Path) -> Lesson:
    from ..limits import LESSON, read_limited

    try:
        data = read_limited(path, LESSON)
    except OSError as e:
        raise LessonError(f"{path}: cannot read the lesson ({e.strerror or e})") from None
    if b"\0" in data:
        raise LessonError(f"{path}: a binary file, not a TOML lesson file; a lesson is TOML text (see the "
                          "format in coindrel/lessons/loader.py)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LessonError(f"{path}: not a text file (byte {e.start} is not UTF-8), so not a TOML lesson file; "
                          "a lesson is TOML text") from None
    return _load_file(path.stem, text, str(path))


def _load_file(name: str, text: str, source: str) -> Lesson:
    try:
        data = loads_toml(text)
    except tomllib.TOMLDecodeError as e:
        raise LessonError(f"{source}: not valid TOML ({e}); see the format in coindrel/lessons/loader.py") from None
    return parse_lesson(data, name, source)


class _Where:
    """Builds messages that name the file, the step and the key."""

    def __init__(self, source: str):
        self.source, self.step = source, None

    def fail(self, key: str, problem: str):
        where = self.source if self.step is None else f"{self.source}: step {self.step}"
        raise LessonError(f"{where}, key {key!r}: {problem}")


def _lines(value, key: str, w: _Where, most: int, least: int = 1) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        w.fail(key, "must be a list of text lines, e.g. [\"Drop a coin in\", \"entry 3.\"]")
    if not least <= len(value) <= most:
        w.fail(key, f"has {len(value)} lines; give {least} to {most} (a few short lines fit the OLED)")
    for line in value:
        if len(line) > OLED_WIDTH:
            w.fail(key, f"line {line!r} has {len(line)} characters; the OLED shows {OLED_WIDTH} per line")
    return tuple(value)


def _title(value, key: str, w: _Where) -> str:
    if not isinstance(value, str) or not value.strip():
        w.fail(key, "must be a non-empty text")
    if len(value) > OLED_WIDTH:
        w.fail(key, f"{value!r} has {len(value)} characters; the OLED shows {OLED_WIDTH} per line")
    return value


def _int(value, key: str, w: _Where, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        w.fail(key, f"{value!r} must be a whole number from {lo} to {hi}")
    return value


def _bool(value, key: str, w: _Where) -> bool:
    if not isinstance(value, bool):
        w.fail(key, f"{value!r} must be true or false")
    return value


def parse_lesson(data: dict, name: str, source: str = "lesson") -> Lesson:
    w = _Where(source)
    g = standard_geometry()
    unknown = set(data) - _TOP
    if unknown:
        w.fail(sorted(unknown)[0], f"is not a lesson key; lesson keys are {', '.join(sorted(_TOP))}")
    if data.get("format") != FORMAT:
        w.fail("format", f"must be {FORMAT} (this controller reads lesson format {FORMAT})")
    title = _title(data.get("title"), "title", w)
    order = _int(data.get("order"), "order", w, 1, 99)
    extra = _bool(data.get("extra", False), "extra", w)
    summary = data.get("summary", "")
    if not isinstance(summary, str):
        w.fail("summary", "must be a text")
    holes = _bool(data.get("holes", False), "holes", w)
    lesson_round = _int(data.get("round", 1), "round", w, 1, ROUNDS)
    steps_data = data.get("step")
    if not isinstance(steps_data, list) or not steps_data or not all(isinstance(s, dict) for s in steps_data):
        w.fail("step", "a lesson needs at least one [[step]] table")
    steps: list[LessonStep] = []
    for number, sd in enumerate(steps_data, start=1):
        w.step = number
        steps.append(_parse_step(sd, number, steps[-1] if steps else None, lesson_round, holes, g, w))
    return Lesson(name, title, order, extra, summary, holes, tuple(steps), source)


def _parse_step(sd: dict, number: int, prev: LessonStep | None, lesson_round: int, holes: bool, g, w: _Where) -> LessonStep:
    unknown = set(sd) - _STEP
    if unknown:
        w.fail(sorted(unknown)[0], f"is not a step key; step keys are {', '.join(sorted(_STEP))}")
    title = _title(sd.get("title"), "title", w)
    text = _lines(sd.get("text"), "text", w, MAX_TEXT_LINES)
    entry = _int(sd.get("entry"), "entry", w, 1, g.entry_count) - 1
    if f"entry {entry + 1}" not in " ".join(text).lower():
        w.fail("text", f"must tell the player to drop in entry {entry + 1} (write \"entry {entry + 1}\")")
    after = _lines(sd.get("after", []), "after", w, MAX_AFTER_LINES, least=0)

    # The board: given, or what the previous step's drop leaves behind.
    if "board" in sd:
        if not isinstance(sd["board"], str):
            w.fail("board", "must be board text like 'LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL'")
        try:
            board = BoardState.parse(sd["board"], g)
        except EngineError as e:
            w.fail("board", str(e))
    elif prev is None:
        w.fail("board", "the first step must give its board (later steps may continue from the one before)")
    else:
        board = BoardState.parse(prev.board_after, g)
    hole_set = {i for i, c in enumerate(board.codes) if c == HOLE}
    if holes and hole_set != set(g.hole_switches):
        w.fail("board", f"a Holes lesson's board has holes exactly at {', '.join(g.holes)} (write 'o' there)")
    if not holes and hole_set:
        w.fail("board", "has holes ('o') but the lesson does not say holes = true")

    extra_set = sd.get("set", [])
    if extra_set == "all":
        extra_set = list(g.labels)
    if not isinstance(extra_set, list) or not all(isinstance(s, str) for s in extra_set):
        w.fail("set", "must be a list of switch labels, e.g. [\"R5S1\"], or \"all\"")
    try:
        extra_idx = [g.index(s.strip().upper()) for s in extra_set]
    except EngineError as e:
        w.fail("set", str(e))

    scoring = _scoring(sd, prev, lesson_round, w)
    tr = trace(board, [entry])
    show_hint = _bool(sd.get("show_hint", False), "show_hint", w)
    show_reply = _bool(sd.get("show_reply", False), "show_reply", w)
    _check_expect(sd, tr, scoring, board, entry, show_hint, w)

    # The drop reads only the switches it reaches, so only those must be set
    # (a hint or a reply reads the whole board: then every switch).
    # A pad that holds a coin must sit on its side too, or a later step that
    # needs the switch the other way tips the coin out as a hand pushes it over.
    holding = {i for i, c in enumerate(board.codes) if c != HOLE and c & 2}
    needed = sorted(tr.visited | set(extra_idx) | hole_set | holding)
    if show_hint or show_reply:
        needed = list(range(g.switch_count))
    required = tuple((g.labels[i], "none" if board.codes[i] == HOLE else "LR"[board.codes[i] & 1]) for i in needed)
    coins = tuple(g.labels[i] for i, c in enumerate(board.codes) if c != HOLE and c & 2)
    return LessonStep(number, title, text, board.text(), entry, after, scoring, show_hint, show_reply, required, coins,
                      tr.board.text())


def _scoring(sd: dict, prev: LessonStep | None, lesson_round: int, w: _Where) -> Scoring:
    rnd = _int(sd.get("round", lesson_round), "round", w, 1, ROUNDS)
    carried = prev is not None and prev.scoring.scores is not None and "scores" not in sd
    if "scores" in sd:
        s = sd["scores"]
        if not (isinstance(s, list) and len(s) == 2 and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in s)):
            w.fail("scores", f"{s!r} must be two whole numbers >= 0: [player 1, player 2]")
        scores = tuple(s)
    elif carried:
        ps = prev.scoring
        points = sum(ps.values[x] for x in prev.trace().exits)
        scores, reaches, ends = ps.after(points)
        if ends:
            w.fail("scores", "the step before ended the round; give this step's scores")
    else:
        scores = None
    default_player = 3 - prev.scoring.player if carried else 1
    player = _int(sd.get("player", default_player), "player", w, 1, 2)
    default_last = carried and reaches
    last_drop = _bool(sd.get("last_drop", default_last), "last_drop", w)
    target = TARGETS[rnd - 1]
    if scores is not None:
        if scores[player - 1] >= target:
            w.fail("scores", f"player {player} already has the target ({target}); the round would be over")
        if scores[2 - player] >= target and not last_drop:
            w.fail("last_drop", f"player {3 - player} has reached {target}: this drop is the last drop (write last_drop = true)")
    if last_drop and (scores is None or scores[2 - player] < target):
        w.fail("last_drop", f"a last drop comes after the other player reaches the target ({target}); give scores that show it")
    return Scoring(VALUES[rnd - 1], player, scores, target, last_drop, rnd)


def _labels(value, key: str, w: _Where, g) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        w.fail(key, "must be a list of switch labels, e.g. [\"R1S3\", \"R2S3\"]")
    try:
        return sorted(g.labels[g.index(v.strip().upper())] for v in value)
    except EngineError as e:
        w.fail(key, str(e))


def _check_expect(sd: dict, tr, scoring: Scoring, board: BoardState, entry: int, show_hint: bool, w: _Where) -> None:
    g = board.geometry
    expect = sd.get("expect")
    if not isinstance(expect, dict):
        w.fail("expect", "every step says what the engine will do: add [step.expect] with flips and exits")
    unknown = set(expect) - _EXPECT
    if unknown:
        w.fail(f"expect.{sorted(unknown)[0]}", f"is not an expectation; use {', '.join(sorted(_EXPECT))}")
    for key in ("flips", "exits"):
        if key not in expect:
            w.fail(f"expect.{key}", "is required (an empty list when there are none)")

    def differ(key: str, said, engine) -> None:
        w.fail(f"expect.{key}", f"the lesson says {said}, but the engine says {engine} for a drop in entry {entry + 1} "
                                f"on {board.text()}")

    label_facts = {"flips": tr.flipped, "rests": tr.rested, "loose": tr.knocked_loose}
    for key, actual in label_facts.items():
        if key in expect:
            said = _labels(expect[key], f"expect.{key}", w, g)
            if said != sorted(actual):
                differ(key, said, sorted(actual))
    said = expect["exits"]
    if not isinstance(said, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in said):
        w.fail("expect.exits", "must be a list of exit numbers 1-16, one per coin")
    if sorted(said) != [x + 1 for x in tr.exits]:
        differ("exits", sorted(said), [x + 1 for x in tr.exits])
    points = sum(scoring.values[x] for x in tr.exits)
    for key, actual in (("swallowed", tr.swallowed), ("points", points)):
        if key in expect and expect[key] != actual:
            differ(key, expect[key], actual)
    if "reply" in expect or show_hint:
        position = step_position(board, scoring)
        if "reply" in expect:
            step = position.play(entry)
            reply = 0 if step.next is None else max(p for _, _, p in Searcher(1).rate(step.next, 1))
            if expect["reply"] != reply:
                differ("reply", expect["reply"], reply)
        if show_hint:
            best = hint(position).entry
            if best != entry:
                w.fail("entry", f"the hint names entry {best + 1} on this board, so a hint step must use entry {best + 1}")


def step_position(board: BoardState, scoring: Scoring) -> Position:
    """The look-ahead's view of a lesson step's board and scores."""
    values = list(VALUES)
    values[scoring.round - 1] = scoring.values
    return Position(board=board, round=scoring.round, round_scores=scoring.scores or (0, 0),
                    totals=scoring.scores or (0, 0), to_move=scoring.player, last_drop=scoring.last_drop,
                    values=tuple(values))

