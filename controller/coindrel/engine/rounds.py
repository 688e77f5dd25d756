"""Rounds, targets, exit values and variants (rules.md sections 1, 5 and 6)."""

from __future__ import annotations

from .core import EXIT_COUNT, EngineError, Frozen

ROUNDS = 4
TARGETS = (10, 40, 20, 80)
HALVED_FINAL_TARGET = 40
VALUES = (
    (2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2),
    (6, 5, 4, 3, 2, 2, 1, 1, 1, 1, 2, 2, 3, 4, 5, 6),
    (8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8),
    (12, 8, 5, 3, 2, 1, 1, 1, 1, 1, 1, 2, 3, 5, 8, 12),
)
CLOCK_SETTINGS = {"30": 30.0, "60": 60.0, "120": 120.0, "turbo": 5.0}


class Variants(Frozen):
    """Holes, Halved final round, Shuffled exits (rules.md section 6)."""

    __slots__ = _fields = ("holes", "halved", "shuffled")
    _defaults = {"holes": False, "halved": False, "shuffled": False}

    @classmethod
    def from_dict(cls, data: dict | None) -> "Variants":
        data = data or {}
        unknown = set(data) - {"holes", "halved", "shuffled"}
        if unknown:
            raise EngineError(f"unknown variant(s) {sorted(unknown)}; variants are holes, halved, shuffled")
        for k, v in data.items():
            if not isinstance(v, bool):
                raise EngineError(f"variant {k!r} must be true or false, not {v!r}")
        return cls(**data)

    def to_dict(self) -> dict:
        return {"holes": self.holes, "halved": self.halved, "shuffled": self.shuffled}

    def names(self) -> list[str]:
        return [n for n, on in (("Holes", self.holes), ("Halved final round", self.halved), ("Shuffled exits", self.shuffled)) if on]


def target(round_index: int, variants: Variants) -> int:
    if round_index == ROUNDS - 1 and variants.halved:
        return HALVED_FINAL_TARGET
    return TARGETS[round_index]


def check_values(values) -> tuple[tuple[int, ...], ...]:
    """Validate a replacement table of exit values (4 rounds x 16 exits)."""
    if not isinstance(values, (list, tuple)) or len(values) != ROUNDS:
        raise EngineError(f"exit values must list {ROUNDS} rounds of {EXIT_COUNT} values each")
    out = []
    for k, row in enumerate(values):
        if (
            not isinstance(row, (list, tuple))
            or len(row) != EXIT_COUNT
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in row)
        ):
            raise EngineError(f"round {k + 1}'s exit values must be {EXIT_COUNT} whole numbers >= 0")
        out.append(tuple(row))
    return tuple(out)
