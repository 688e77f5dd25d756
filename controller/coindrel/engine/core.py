"""Vocabulary shared by the whole engine: sides, labels, errors.

Indices are 0-based everywhere in code and data files; what a person reads is
1-based ("Entry 3", "Exit 12", "R2S5"). The helpers here are the only place
that converts between the two.
"""

from __future__ import annotations

from ..errors import CoindrelError

L = 0
R = 1
SIDES = (L, R)
SIDE_NAMES = ("L", "R")

ENTRY_COUNT = 8
EXIT_COUNT = 16

# One byte per switch in a board state: bit 0 is the pad side, bit 1 a resting
# coin; HOLE marks a switch taken out. Small integers keep copies and table
# look-ups cheap.
PAD_R = 1
COIN = 2
HOLE = 4
STATE_CODES = (0, 1, 2, 3, HOLE)


class Frozen:
    """A small frozen value: ``_fields`` name its attributes in constructor
    order, ``_defaults`` give the trailing ones; equal, hashed and shown by
    its fields, ``replace(**changes)`` makes a changed copy, ``_check`` (run
    by the constructor) may normalise a field with ``_set``. Written out
    rather than made with ``dataclasses``, whose import alone costs a
    command's start more than the whole engine (issue 15)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _defaults: dict = {}

    def __init__(self, *args, **kwargs):
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(fields)} arguments: {', '.join(fields)}")
        given = dict(zip(fields, args))
        for k, v in kwargs.items():
            if k not in fields or k in given:
                raise TypeError(f"{type(self).__name__}() got an unexpected or repeated argument {k!r}")
            given[k] = v
        values = {**self._defaults, **given}
        missing = [f for f in fields if f not in values]
        if missing:
            raise TypeError(f"{type(self).__name__}() is missing {', '.join(missing)}")
        for f in fields:
            object.__setattr__(self, f, values[f])
        self._check()

    def _check(self) -> None:
        pass

    def _set(self, field: str, value) -> None:
        object.__setattr__(self, field, value)

    def __setattr__(self, key, value):
        raise AttributeError(f"{type(self).__name__} is frozen; use replace()")

    __delattr__ = __setattr__

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self._fields)

    def __eq__(self, other):
        return self._key() == other._key() if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._fields)})"

    def __reduce__(self):  # pickle and copy: through the constructor
        return (type(self), self._key())

    def replace(self, **changes):
        return type(self)(**{**dict(zip(self._fields, self._key())), **changes})

    __replace__ = replace  # copy.replace (Python 3.13)


class EngineError(CoindrelError, ValueError):
    """Bad input to the engine: the message names the problem and the fix."""


class GeometryError(EngineError):
    """A board geometry file that cannot describe a playable board."""


class BoardTextError(EngineError):
    """A board text form (rules.md section 9) that does not parse."""


class MatchError(EngineError):
    """An action the match cannot take in its current state."""


def side_name(side: int) -> str:
    return SIDE_NAMES[side]


def parse_side(text: str) -> int:
    if text == "L":
        return L
    if text == "R":
        return R
    raise EngineError(f"side {text!r} is not 'L' or 'R'")


def switch_label(row: int, index: int) -> str:
    """``(1, 4)`` -> ``"R2S5"``: row and switch counted from 1, as on the board."""
    return f"R{row + 1}S{index + 1}"


def parse_switch_label(label: str) -> tuple[int, int]:
    """``"R2S5"`` -> ``(1, 4)``. Only checks the form, not that the board has it."""
    row, _, index = label.strip().upper()[1:].partition("S") if isinstance(label, str) and label.strip()[:1] in "Rr" else ("", "", "")
    if not (_digits(row) and _digits(index)) or int(row) < 1 or int(index) < 1:
        raise EngineError(
            f"{label!r} is not a switch label; write R<row>S<n>, e.g. R2S5 "
            "(row 2 from the top, 5th switch from the left)"
        )
    return int(row) - 1, int(index) - 1


def _digits(text: str) -> bool:
    """One or more ASCII digits (labels are parsed by hand: importing ``re`` costs a command's start)."""
    return bool(text) and len(text) <= 6 and text.isascii() and text.isdigit()  # int() refuses 4301 digits


def entry_label(entry: int) -> str:
    return f"entry {entry + 1}"


def exit_label(exit_: int) -> str:
    return f"exit {exit_ + 1}"


def parse_exit_label(label: str) -> int | None:
    """``"exit 12"`` -> 11, or None when the text is not an exit label."""
    if not isinstance(label, str):
        return None
    text = label.strip()
    if text[:4].lower() != "exit":
        return None
    number = text[4:].lstrip()
    return int(number) - 1 if _digits(number) else None
