"""Scripts for ``coindrel sim --script FILE``: what people (and the world)
do to the table at given moments, one JSON object a line.

    {"t": 12.5, "press": "select"}        # select | back | left | right | hold
    {"t": 13, "drop": 4}                  # a person's coin into entry 4 (1..8)
    {"t": 14, "hand": "R3S2", "to": "L"}  # a rocker pushed over by hand
    {"t": 15, "place": "R1S3"}            # a coin put on a pad ("take": off it)
    {"t": 20, "unplug": 5}                # the hub's cable out for 5 s
    {"t": 30, "restart": true}            # the table process dies and starts again

``t`` is seconds of board time since the sim started. Blank lines and lines
starting with ``#`` are skipped. A bad line is an error naming the line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from ..engine import EngineError, Geometry
from ..nesting import loads_json

MAX_SCRIPT_BYTES = 4 * 1024 * 1024
MAX_UNPLUG = 3600.0


class ScriptError(EngineError):
    pass


class Do(Enum):
    PRESS = "press"
    DROP = "drop"
    HAND = "hand"
    PLACE = "place"
    TAKE = "take"
    UNPLUG = "unplug"
    RESTART = "restart"


PRESSES = {"select": "select", "back": "back", "left": "prev", "right": "next", "hold": "hold-select"}


@dataclass(frozen=True)
class ScriptStep:
    t: float
    do: Do
    value: object = None  # the action name, the 0-based entry, the switch label, the seconds
    side: str = ""  # for HAND: "L" or "R"
    line: int = 0

    def text(self) -> str:
        return f"line {self.line}: {self.do.value} {self.value}{' ' + self.side if self.side else ''} at t={self.t:g}"


def parse_script(text: str, geometry: Geometry, where: str = "script") -> list[ScriptStep]:
    steps = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        steps.append(_parse_line(line, geometry, f"{where} line {n}", n))
    steps.sort(key=lambda s: (s.t, s.line))
    return steps


def load_script(path: str | Path, geometry: Geometry) -> list[ScriptStep]:
    """A script file: a regular file of UTF-8 text, at most MAX_SCRIPT_BYTES
    (a device, a pipe or a huge file is refused before much is read)."""
    from ..limits import TooLarge, read_limited

    p = Path(path)
    try:
        data = read_limited(p, MAX_SCRIPT_BYTES)
    except OSError as e:
        what = e.strerror or str(e)
        if isinstance(e, TooLarge):
            raise ScriptError(f"cannot read the script {p}: {what}; split it into shorter scripts") from None
        raise ScriptError(f"cannot read the script {p}: {what}; a script is a text file of JSON lines such as "
                          f'{{"t": 3, "drop": 4}}') from None
    zero = data.find(b"\0")
    if zero >= 0:
        raise ScriptError(f"the script {p} is binary (a zero byte at {zero}), not text; a script is "
                          f'a text file of JSON lines such as {{"t": 3, "drop": 4}}')
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScriptError(f"the script {p} is not UTF-8 text (byte {e.start}); save it as UTF-8") from None
    return parse_script(text, geometry, str(p))


def _parse_line(line: str, g: Geometry, where: str, n: int) -> ScriptStep:
    try:
        obj = loads_json(line)
    except ValueError as e:
        raise ScriptError(f"{where}: not JSON ({e.msg}); each line is one object such as "
                          f'{{"t": 3, "drop": 4}}') from None
    if not isinstance(obj, dict):
        raise ScriptError(f"{where}: a line is one JSON object such as {{\"t\": 3, \"drop\": 4}}")
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
        raise ScriptError(f"{where}: \"t\" must be the board time in seconds (a number >= 0), not {t!r}")
    kinds = [d for d in Do if d.value in obj]
    if len(kinds) != 1:
        names = ", ".join(d.value for d in Do)
        raise ScriptError(f"{where}: name exactly one action ({names}); this line has "
                          f"{', '.join(d.value for d in kinds) or 'none'}")
    do = kinds[0]
    extra = set(obj) - {"t", do.value} - ({"to"} if do is Do.HAND else set())
    if extra:
        raise ScriptError(f"{where}: unknown key {sorted(extra)[0]!r} for a {do.value!r} line")
    v = obj[do.value]
    if do is Do.PRESS:
        if v not in PRESSES:
            raise ScriptError(f"{where}: press {v!r} is not one of {', '.join(PRESSES)}")
        return ScriptStep(float(t), do, PRESSES[v], line=n)
    if do is Do.DROP:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= g.entry_count:
            raise ScriptError(f"{where}: drop {v!r} is not an entry; entries are 1..{g.entry_count}")
        return ScriptStep(float(t), do, v - 1, line=n)
    if do in (Do.HAND, Do.PLACE, Do.TAKE):
        if not isinstance(v, str) or v not in g.labels:
            raise ScriptError(f"{where}: {v!r} is not a switch of this board (R1S1..{g.labels[-1]})")
        if do is Do.HAND:
            side = obj.get("to")
            if side not in ("L", "R"):
                raise ScriptError(f"{where}: a hand line needs \"to\": \"L\" or \"R\", not {side!r}")
            return ScriptStep(float(t), do, v, side, line=n)
        return ScriptStep(float(t), do, v, line=n)
    if do is Do.UNPLUG:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= MAX_UNPLUG:
            raise ScriptError(f"{where}: unplug takes the seconds the hub stays out (0 < s <= {MAX_UNPLUG:g}), not {v!r}")
        return ScriptStep(float(t), do, float(v), line=n)
    if v is not True:
        raise ScriptError(f"{where}: write \"restart\": true")
    return ScriptStep(float(t), do, True, line=n)
