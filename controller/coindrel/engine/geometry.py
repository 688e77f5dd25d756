"""Board geometry as data: rows of switches, their spans, inlets and outlets.

A geometry file (JSON) describes a board; the standard board ships as
``coindrel/boards/standard.json``. A mirrored board or a builder's own loads
from the same format and is validated with messages that name the bad part.

File format (``"format": 1``)::

    {"format": 1, "name": "standard", "lanes": 16,
     "entries": ["R1S1", ... 8 labels],          # entry e drops onto this switch
     "holes": ["R2S2", ...],                     # switches the Holes variant removes
     "rows": [[{"span": [0, 1], "inlet": "L",     # lanes the switch covers; funnel side
                "out": ["R3S1", "R2S1"]}, ...],   # where the left/right outlet leads
              ...]}

``out`` targets are switch labels or ``"exit N"`` (1-based). When ``out`` is
left out, each outlet falls down its lane to the first switch below that
covers the lane, or to that lane's exit (rules.md section 2).
"""

from __future__ import annotations

import os

from .core import (
    L,
    R,
    EngineError,
    exit_label,
    parse_exit_label,
    parse_switch_label,
    side_name,
    switch_label,
)

FORMAT = 1


class _Frozen:
    """Attributes are set once, in ``__init__`` (frozen values written out:
    ``dataclasses`` alone costs more to import than the whole engine)."""

    __slots__ = ()

    def __setattr__(self, key, value):
        raise AttributeError(f"{type(self).__name__} is frozen")

    __delattr__ = __setattr__

    def __setstate__(self, state):  # pickle and copy: set the fields past the frozen __setattr__
        d, slots = state if isinstance(state, tuple) else (state, None)
        for k, v in {**(d or {}), **(slots or {})}.items():
            object.__setattr__(self, k, v)


class SwitchSpec(_Frozen):
    __slots__ = ("row", "index", "span", "inlet", "out")

    def __init__(self, row: int, index: int, span: tuple[int, int], inlet: int, out: tuple[str, str]):
        for k, v in (("row", row), ("index", index), ("span", span), ("inlet", inlet), ("out", out)):
            object.__setattr__(self, k, v)  # out: targets of the left and right outlet, as labels

    def _key(self):
        return (self.row, self.index, self.span, self.inlet, self.out)

    def __eq__(self, other):
        return self._key() == other._key() if isinstance(other, SwitchSpec) else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        return f"SwitchSpec(row={self.row}, index={self.index}, span={self.span}, inlet={self.inlet}, out={self.out})"

    @property
    def label(self) -> str:
        return switch_label(self.row, self.index)


class Geometry(_Frozen):
    """An immutable board description plus its topology tables, computed once.

    Switches are numbered 0..n-1 in reading order (row by row, left to right);
    outlet targets are switch numbers, or ``n + x`` for exit ``x``. The derived
    tables (labels, row_sizes, row_of, row_start, row_slices, inlets, spans,
    outs, entry_switches, hole_switches) are flat, indexed by switch number.
    Equality is identity; ``__dict__`` also keeps what is built from it once
    (topologies, the mirrored board).
    """

    # What every drop and board text reads is kept in slots: a slot is read by
    # one specialised instruction, while this class's instance dict (frozen
    # through ``__setattr__``) kept losing its specialised look-up (CPython
    # 3.11, measured: a generic attribute look-up per drop).
    __slots__ = ("_fast", "_topology", "_cut_rows", "_split_rows", "__dict__")

    def __init__(self, name: str, lanes: int, rows, entries, holes=()):
        sets = object.__setattr__
        sets(self, "name", name)
        sets(self, "lanes", lanes)
        sets(self, "rows", tuple(tuple(r) for r in rows))
        sets(self, "entries", tuple(entries))
        sets(self, "holes", tuple(holes))
        self._derive()

    def __repr__(self) -> str:
        return f"Geometry(name={self.name!r}, lanes={self.lanes}, rows={self.row_sizes})"

    # Immutable, equal only to itself: a copy is the geometry. Copying it would
    # also copy every topology cached beside it (up to 512 fault tables once a
    # reconciler has run), so a deepcopy of a match took minutes in a long process.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        # Pickled (to a diagnosis child process) as its fields, never its caches
        # (tables, a Struct); the standard boards come back as that process's own.
        return (_unpickle_geometry, (self.name, self.lanes, self.rows, self.entries, self.holes))

    def _derive(self) -> None:
        specs = [s for row in self.rows for s in row]
        n = len(specs)
        labels = tuple(s.label for s in specs)
        index = {lab: i for i, lab in enumerate(labels)}
        starts, acc = [], 0
        for row in self.rows:
            starts.append(acc)
            acc += len(row)

        def target(spec: SwitchSpec, side: int) -> int:
            t = spec.out[side]
            x = parse_exit_label(t)
            if x is not None:
                return n + x
            return index[t]

        sets = object.__setattr__
        sets(self, "labels", labels)
        sets(self, "_index", index)
        sets(self, "row_sizes", tuple(len(r) for r in self.rows))
        sets(self, "row_start", tuple(starts))
        sets(self, "row_slices", tuple(slice(a, a + len(r)) for a, r in zip(starts, self.rows)))
        sets(self, "row_of", tuple(s.row for s in specs))
        sets(self, "inlets", tuple(s.inlet for s in specs))
        sets(self, "spans", tuple(s.span for s in specs))
        sets(self, "outs", tuple((target(s, L), target(s, R)) for s in specs))
        sets(self, "entry_switches", tuple(index[e] for e in self.entries))
        sets(self, "hole_switches", tuple(index[h] for h in self.holes))

    # -- look-ups -------------------------------------------------------------

    @property
    def switch_count(self) -> int:
        return len(self.labels)

    @property
    def exit_count(self) -> int:
        return self.lanes

    @property
    def entry_count(self) -> int:
        return len(self.entries)

    def index(self, switch: str | int | tuple[int, int]) -> int:
        """Switch number from a label ``"R2S5"``, a ``(row, index)`` pair or a number."""
        if isinstance(switch, int):
            if 0 <= switch < len(self.labels):
                return switch
            raise EngineError(f"switch number {switch} is not on board {self.name!r} (0..{len(self.labels) - 1})")
        if isinstance(switch, tuple):
            switch = switch_label(*switch)
        parse_switch_label(switch)  # a clear message for a malformed label
        try:
            return self._index[switch.strip().upper()]
        except KeyError:
            raise EngineError(
                f"{switch} is not a switch on board {self.name!r}: it has rows 1..{len(self.rows)} "
                f"with {', '.join(str(k) for k in self.row_sizes)} switches"
            ) from None

    def target_label(self, target: int) -> str:
        n = len(self.labels)
        return self.labels[target] if target < n else exit_label(target - n)

    # -- derived boards -------------------------------------------------------

    def mirrored(self) -> "Geometry":
        """The board seen in a mirror: left and right swapped everywhere (built once)."""
        m = self.__dict__.get("_mirror")
        if m is None:
            m = self.__dict__["_mirror"] = self._build_mirrored()
        return m

    def _build_mirrored(self) -> "Geometry":
        last = self.lanes - 1

        def mirror_label(label: str) -> str:
            x = parse_exit_label(label)
            if x is not None:
                return exit_label(last - x)
            r, j = parse_switch_label(label)
            return switch_label(r, len(self.rows[r]) - 1 - j)

        rows = []
        for r, row in enumerate(self.rows):
            new = []
            for s in reversed(row):
                new.append(
                    SwitchSpec(
                        row=r,
                        index=len(new),
                        span=(last - s.span[1], last - s.span[0]),
                        inlet=1 - s.inlet,
                        out=(mirror_label(s.out[R]), mirror_label(s.out[L])),
                    )
                )
            rows.append(tuple(new))
        return Geometry(
            name=f"{self.name}-mirrored",
            lanes=self.lanes,
            rows=tuple(rows),
            entries=tuple(mirror_label(e) for e in reversed(self.entries)),
            holes=tuple(sorted((mirror_label(h) for h in self.holes), key=parse_switch_label)),
        )

    def mirror_switch(self, switch: int) -> int:
        r = self.row_of[switch]
        j = switch - self.row_start[r]
        return self.row_start[r] + self.row_sizes[r] - 1 - j

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "name": self.name,
            "lanes": self.lanes,
            "entries": list(self.entries),
            "holes": list(self.holes),
            "rows": [
                [{"span": list(s.span), "inlet": side_name(s.inlet), "out": list(s.out)} for s in row]
                for row in self.rows
            ],
        }

    # -- loading --------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict, source: str = "board") -> "Geometry":
        from .boardfile import parse_geometry

        return parse_geometry(data, source)


def falling_target(rows, row: int, lane: int) -> str:
    """Where a coin leaving ``row`` down ``lane`` lands: a switch label or an exit."""
    for r in range(row + 1, len(rows)):
        for j, span in enumerate(rows[r]):
            if span[0] <= lane <= span[1]:
                return switch_label(r, j)
    return exit_label(lane)


_STANDARD: list = []


def standard_geometry() -> Geometry:
    """The standard board of rules.md section 2, from the shipped data file (read once)."""
    if not _STANDARD:
        import json

        path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "boards", "standard.json")
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:  # not a plain directory (a zip, say): ask the package loader
            from importlib import resources

            text = resources.files("coindrel.boards").joinpath("standard.json").read_text(encoding="utf-8")
        _STANDARD.append(Geometry.from_dict(json.loads(text), "standard.json"))
    return _STANDARD[0]


def _unpickle_geometry(name, lanes, rows, entries, holes) -> Geometry:
    for known in (standard_geometry(), standard_geometry().mirrored()):
        if (known.name, known.lanes, known.rows, known.entries, known.holes) == (name, lanes, rows, entries, holes):
            return known
    return Geometry(name, lanes, rows, entries, holes)


def geometry_by_name(name: str) -> Geometry:
    """``standard``, ``mirrored`` or a path to a board file."""
    if name == "standard":
        return standard_geometry()
    if name == "mirrored":
        return standard_geometry().mirrored()
    from .boardfile import load_geometry

    return load_geometry(name)
