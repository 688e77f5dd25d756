"""Board files: a geometry read from JSON and validated, every message
naming the file and the bad part (the format is in ``geometry``'s docstring).
Read at most ``MAX_BOARD_FILE`` bytes of a regular file."""

from __future__ import annotations

import os

from .core import (
    ENTRY_COUNT,
    EXIT_COUNT,
    GeometryError,
    EngineError,
    exit_label,
    parse_exit_label,
    parse_side,
    parse_switch_label,
    switch_label,
)
from .geometry import FORMAT, Geometry, SwitchSpec, falling_target

_TOP_KEYS = {"format", "name", "lanes", "entries", "holes", "rows", "description"}
_SWITCH_KEYS = {"span", "inlet", "out"}


def _fail(source: str, message: str) -> None:
    raise GeometryError(f"{source}: {message}")


def parse_geometry(data: dict, source: str) -> Geometry:
    if not isinstance(data, dict):
        _fail(source, "a board file holds one JSON object with keys format, name, lanes, entries, rows")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        _fail(source, f"unknown key(s) {sorted(unknown)}; a board file may have {sorted(_TOP_KEYS)}")
    if data.get("format", FORMAT) != FORMAT:
        _fail(source, f"format {data.get('format')!r} is not supported; this version reads format {FORMAT}")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        _fail(source, "'name' must be a non-empty string, e.g. \"standard\"")
    lanes = data.get("lanes")
    if lanes != EXIT_COUNT:
        _fail(source, f"'lanes' is {lanes!r}; a Coindrel board has {EXIT_COUNT} lanes, one above each exit")
    raw_rows = data.get("rows")
    if not isinstance(raw_rows, list) or not raw_rows:
        _fail(source, "'rows' must be a list of rows, top row first, each a list of switches")

    spans_by_row: list[list[tuple[int, int]]] = []
    parsed_rows: list[list[dict]] = []
    for r, row in enumerate(raw_rows):
        where_row = f"row {r + 1}"
        if not isinstance(row, list) or not row:
            _fail(source, f"{where_row} must be a non-empty list of switches")
        spans = []
        for j, sw in enumerate(row):
            where = switch_label(r, j)
            if not isinstance(sw, dict):
                _fail(source, f"{where}: a switch is an object with 'span', 'inlet' and optionally 'out'")
            bad = set(sw) - _SWITCH_KEYS
            if bad:
                _fail(source, f"{where}: unknown key(s) {sorted(bad)}; a switch has {sorted(_SWITCH_KEYS)}")
            span = sw.get("span")
            if (
                not isinstance(span, list)
                or len(span) != 2
                or not all(isinstance(v, int) for v in span)
                or not 0 <= span[0] < span[1] < lanes
            ):
                _fail(source, f"{where}: 'span' {span!r} must be [left lane, right lane] with 0 <= left < right <= {lanes - 1}")
            if spans and span[0] <= spans[-1][1]:
                _fail(source, f"{where}: span {span} overlaps {switch_label(r, j - 1)}'s span {list(spans[-1])}; switches in a row go left to right without overlapping")
            spans.append((span[0], span[1]))
            try:
                parse_side(sw.get("inlet"))
            except EngineError:
                _fail(source, f"{where}: 'inlet' {sw.get('inlet')!r} must be \"L\" or \"R\" (the side the funnel delivers coins to)")
        spans_by_row.append(spans)
        parsed_rows.append(row)

    labels = {switch_label(r, j) for r, row in enumerate(parsed_rows) for j in range(len(row))}

    def check_switch_ref(label, what: str) -> str:
        try:
            parse_switch_label(label)
        except EngineError as e:
            _fail(source, f"{what}: {e}")
        canon = label.strip().upper()
        if canon not in labels:
            _fail(source, f"{what} names {label}, which is not a switch on this board (rows 1..{len(parsed_rows)}, sizes {[len(r) for r in parsed_rows]})")
        return canon

    rows: list[tuple[SwitchSpec, ...]] = []
    for r, row in enumerate(parsed_rows):
        specs = []
        for j, sw in enumerate(row):
            where = switch_label(r, j)
            span = spans_by_row[r][j]
            out = sw.get("out")
            if out is None:
                out = [falling_target(spans_by_row, r, span[0]), falling_target(spans_by_row, r, span[1])]
            if not isinstance(out, list) or len(out) != 2:
                _fail(source, f"{where}: 'out' must be [left outlet target, right outlet target]")
            targets = []
            for side, t in zip(("left", "right"), out):
                what = f"{where} {side} outlet"
                if not isinstance(t, str) or not t.strip():
                    _fail(source, f"{what} leads nowhere ({t!r}); point it at a switch (R<row>S<n>) or an exit (\"exit 1\"..\"exit {lanes}\")")
                x = parse_exit_label(t)
                if x is not None:
                    if not 0 <= x < lanes:
                        _fail(source, f"{what} leads nowhere: {t!r} is not one of exit 1..exit {lanes}")
                    targets.append(exit_label(x))
                else:
                    targets.append(check_switch_ref(t, what))
            specs.append(SwitchSpec(r, j, span, parse_side(sw["inlet"]), (targets[0], targets[1])))
        rows.append(tuple(specs))

    entries = data.get("entries")
    if not isinstance(entries, list) or len(entries) != ENTRY_COUNT:
        count = len(entries) if isinstance(entries, list) else "no"
        _fail(source, f"'entries' lists {count} entries; Coindrel has {ENTRY_COUNT} (one switch label each, left to right)")
    entries = [check_switch_ref(e, f"entry {i + 1}") for i, e in enumerate(entries)]
    if len(set(entries)) != len(entries):
        _fail(source, "two entries drop onto the same switch; each entry needs its own")
    holes = data.get("holes", [])
    if not isinstance(holes, list):
        _fail(source, "'holes' must be a list of switch labels")
    holes = [check_switch_ref(h, "holes") for h in holes]

    _check_acyclic(rows, source)
    return Geometry(name=name, lanes=lanes, rows=tuple(rows), entries=tuple(entries), holes=tuple(holes))


def _check_acyclic(rows, source: str) -> None:
    graph = {s.label: [t for t in s.out if parse_exit_label(t) is None] for row in rows for s in row}
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    for start in graph:
        if state.get(start):
            continue
        path = [start]
        stack = [(start, iter(graph[start]))]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                _fail(source, f"outlets form a cycle {' -> '.join(cycle)}: a coin would never leave the board; every outlet must lead further down")
            if not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(graph[nxt])))


MAX_BOARD_FILE = 1 << 20  # bytes; a board file is a few KiB


def _read_board_file(p: str) -> str:
    """At most MAX_BOARD_FILE bytes of a regular file: ``/dev/zero`` or a
    named pipe is refused at once, not read for ever."""
    import os
    import stat

    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, "it is not a regular file (a device, a pipe or a directory)")
        data = os.read(fd, MAX_BOARD_FILE + 1) if st.st_size <= MAX_BOARD_FILE else b"x" * (MAX_BOARD_FILE + 1)
        if len(data) > MAX_BOARD_FILE:
            raise OSError(0, f"it is more than {MAX_BOARD_FILE // 1024} KiB; a board file is a few KiB")
        return data.decode("utf-8")
    finally:
        os.close(fd)


def load_geometry(path: str | os.PathLike) -> Geometry:
    """Load and validate a board file; errors name the file and the bad part."""
    import json

    from ..nesting import loads_json

    p = os.fspath(path)
    try:
        text = _read_board_file(p)
    except OSError as e:
        raise GeometryError(f"{p}: cannot read the board file ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise GeometryError(f"{p}: not a text file (byte {e.start} is not UTF-8); a board file is JSON") from None
    try:
        data = loads_json(text)
    except json.JSONDecodeError as e:
        raise GeometryError(f"{p}: not valid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    return parse_geometry(data, p)
