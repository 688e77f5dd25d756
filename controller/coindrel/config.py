"""Configuration: one TOML file, validated before anything starts.

Each port (board source, display, inputs, outputs, storage, match defaults)
owns a section and a parser for it; ``Section`` gives those parsers typed
look-ups whose errors name the file, the key and the fix. Unknown keys are
errors too, because a misspelt pin number silently ignored is a wrong board.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Iterable

from .errors import CoindrelError
from .limits import CONFIG, NotAFile, TooLarge, read_text_limited
from .nesting import loads_toml

DEFAULT_PATH = Path("/etc/coindrel/coindrel.toml")
EXAMPLE = "systemd/coindrel.toml.example"  # in the source tree; README "Configuration" explains it
# Pi header pins (1..40) that are GPIOs, for names like "BOARD11" or "J8:11".
HEADER_GPIO = frozenset((3, 5, 7, 8, 10, 11, 12, 13, 15, 16, 18, 19, 21, 22, 23, 24, 26, 27, 28, 29, 31, 32, 33, 35,
                         36, 37, 38, 40))
_BCM_NAME = re.compile(r"^(?:GPIO|BCM)?([0-9]{1,6})$", re.IGNORECASE)  # int() refuses 4301 digits
_HEADER_NAME = re.compile(r"^(?:BOARD|J8:|P1:)([0-9]{1,6})$", re.IGNORECASE)


def pin_problem(v) -> str | None:
    """What is wrong with ``v`` as a GPIO pin on the Pi's 40-pin header, or None."""
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        return f"must be a BCM pin number like 17 or a name like \"GPIO17\", not {spelled(v)}"
    if isinstance(v, int):
        return None if 0 <= v <= 27 else f"{spelled(v)} is not a GPIO on the Pi's header; write a BCM number from 0 to 27"
    text = v.strip()
    bcm, header = _BCM_NAME.match(text), _HEADER_NAME.match(text)
    if bcm and not 0 <= int(bcm.group(1)) <= 27:
        return f"{spelled(v)} is not on the Pi's header; write a BCM number from 0 to 27, e.g. 17 or \"GPIO17\""
    if header and int(header.group(1)) not in HEADER_GPIO:
        return (f"{spelled(v)} is header pin {header.group(1)}, which is not a GPIO (power, ground or none); "
                f"GPIO header pins are {', '.join(map(str, sorted(HEADER_GPIO)))}")
    if not (bcm or header):
        return f"{spelled(v)} is not a pin; write a BCM number like 17, or a name like \"GPIO17\" or \"BOARD11\""
    return None


def spelled(v) -> str:
    """A value as the configuration spells it (TOML: ``true``, ``"text"``,
    ``[1, 2]``), for messages that quote what the file says (Python's
    ``True`` or ``'text'`` is not what anyone wrote)."""
    if isinstance(v, str) and len(v) > SPELLED_MAX:
        return f"{_spelled(v[:SPELLED_MAX // 2])[:-1]}...\" ({len(v):,} characters)"
    text = _spelled(v)
    # a value thousands of characters long (a pasted blob, a 5,000-digit number) is named, not echoed
    return text if len(text) <= SPELLED_MAX else f"{text[:SPELLED_MAX // 2]}... ({len(text):,} characters)"


SPELLED_MAX = 120


def _spelled(v) -> str:
    import json
    import math

    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 1000:
        return f"a {'negative ' if v < 0 else ''}number of about {int(v.bit_length() * 0.30103):,} digits"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, float):
        return ("inf" if v > 0 else "-inf") if math.isinf(v) else "nan" if math.isnan(v) else repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(spelled(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {spelled(x)}" for k, x in v.items()) + "}"
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return str(v)


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def range_text(lo, hi) -> str:
    """The allowed range in words, for a message's fix."""
    if lo is not None and hi is not None:
        return f"from {_num(lo)} to {_num(hi)}"
    if lo is not None:
        return f"{_num(lo)} or more"
    return f"{_num(hi)} or less"


class ConfigError(CoindrelError, ValueError):
    """A configuration problem; the message says where and how to fix it."""


class Section:
    """Typed, checked access to one ``[table]`` of the configuration."""

    def __init__(self, name: str, data: dict | None, source: str = "config"):
        self.name = name
        self.source = source
        self.data = dict(data or {})
        self._used: set[str] = set()

    def where(self, key: str) -> str:
        return f"{self.source}: [{self.name}] {key}"

    def fail(self, key: str, message: str) -> None:
        raise ConfigError(f"{self.where(key)}: {message}")

    def has(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, default: Any = None) -> Any:
        self._used.add(key)
        return self.data.get(key, default)

    def str(self, key: str, default: str | None = None, choices: Iterable[str] | None = None) -> str | None:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, str):
            example = f'{key} = "{default}"' if isinstance(default, str) and default else f'{key} = "..."'
            self.fail(key, f"must be text in quotes, e.g. {example}, not {spelled(v)}")
        if choices is not None:
            choices = list(choices)
            if v not in choices:
                self.fail(key, f"{spelled(v)} is not one of {', '.join(spelled(c) for c in choices)}")
        return v

    def int(self, key: str, default: int | None = None, lo: int | None = None, hi: int | None = None) -> int | None:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool):
            self.fail(key, f"must be a whole number, not {spelled(v)}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(key, f"{v} is out of range; write a whole number {range_text(lo, hi)}")
        return v

    def float(self, key: str, default: float | None = None, lo: float | None = None, hi: float | None = None) -> float | None:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            self.fail(key, f"must be a number, not {spelled(v)}")
        if v != v or v in (float("inf"), float("-inf")):
            self.fail(key, f"{v} is not a usable number; write a number {range_text(lo, hi) if lo is not None or hi is not None else 'such as 1.5'}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(key, f"{_num(v)} is out of range; write a number {range_text(lo, hi)}")
        return float(v)

    def output_path(self, key: str, default: str | None = None) -> str | None:
        """A file coindrel will write (or a socket it will make): its folder must be there and writable."""
        import os

        value = self.str(key, default)
        if value:
            folder = os.path.dirname(os.path.abspath(value))
            if os.path.isdir(value):
                self.fail(key, f"{spelled(value)} is a folder; write a file name in it, e.g. \"{os.path.join(value, 'out')}\"")
            if not os.path.isdir(folder):
                self.fail(key, f"{spelled(value)}: the folder {folder} is not there; create it (mkdir -p {folder}) "
                               "or choose another place")
            if not os.access(folder, os.W_OK | os.X_OK):
                self.fail(key, f"{spelled(value)}: cannot write in {folder} (permission denied); choose a folder "
                               "coindrel's user may write")
        return value

    def bool(self, key: str, default: bool | None = None) -> bool | None:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, bool):
            self.fail(key, f"must be true or false, not {spelled(v)}")
        return v

    def list(self, key: str, default: list | None = None, length: int | None = None, item=None,
             expect: str | None = None) -> list | None:
        """A list; ``item`` checks each entry, ``expect`` says in words what an entry must be."""
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, list):
            self.fail(key, f"must be a list in [brackets], not {spelled(v)}")
        if length is not None and len(v) != length:
            self.fail(key, f"must list {length} items, not {len(v)}")
        if item is not None:
            for i, x in enumerate(v):
                if not item(x):
                    self.fail(key, f"item {i + 1} ({spelled(x)}) is not valid here" + (f"; each item is {expect}" if expect else ""))
        return v

    def pin(self, key: str, default=None, required: bool = False):
        """A GPIO pin as gpiozero names it: a BCM number or a name like "GPIO17" / "BOARD11"."""
        v = self.get(key, default)
        if v is None:
            if required:
                self.fail(key, "is required: give the BCM pin number, e.g. 17")
            return None
        problem = pin_problem(v)
        if problem:
            self.fail(key, problem)
        return v

    def pins(self, key: str, default: list | None = None, most: int | None = None, length: int | None = None,
             what: str = "item") -> list | None:
        """A list of GPIO pins, each checked as ``pin`` checks one (``what``: "entry" names item i as entry i)."""
        v = self.list(key, default, length=length)
        if v is None:
            return None
        if most is not None and len(v) > most:
            self.fail(key, f"lists {len(v)} pins; the board has {most}")
        for i, x in enumerate(v):
            problem = pin_problem(x)
            if problem:
                self.fail(key, f"{what} {i + 1}: {problem}")
        return v

    def sub(self, key: str) -> "Section":
        v = self.get(key, {})
        if not isinstance(v, dict):
            self.fail(key, f"must be a table, not {spelled(v)}: write [{self.name}.{key}] on a line of its own, then its keys")
        return Section(f"{self.name}.{key}", v, self.source)

    def check_unknown(self) -> None:
        unknown = sorted(set(self.data) - self._used)
        if unknown:
            known = sorted(self._used)
            raise ConfigError(
                f"{self.source}: [{self.name}] has unknown key(s) {', '.join(unknown)}; remove or respell them"
                + (f" (known keys here: {', '.join(known)})" if known else "")
            )


def read_toml(path: str | Path) -> dict:
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"{p}: is a folder; give the configuration file, e.g. {p / 'coindrel.toml'}")
    try:
        text = read_text_limited(p, CONFIG)
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file; copy {EXAMPLE} there "
                          f"(sudo install -D -m 644 {EXAMPLE} {p}) and edit it, or pass --config FILE") from None
    except IsADirectoryError:
        raise ConfigError(f"{p}: is a folder; give the configuration file, e.g. {p / 'coindrel.toml'}") from None
    except NotAFile as e:
        raise ConfigError(f"{p}: cannot read the configuration ({e.strerror}); give a regular file, e.g. a copy "
                          f"of {EXAMPLE}") from None
    except TooLarge as e:
        raise ConfigError(f"{p}: cannot read the configuration ({e.strerror}); is this the right file? A "
                          f"configuration is a few kB (see {EXAMPLE})") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the configuration ({e.strerror}); check its permissions") from None
    except UnicodeDecodeError as e:
        line = text_line(p, e.start)
        raise ConfigError(f"{p}: not UTF-8 text (byte {e.start}, line {line}); save the file as UTF-8 "
                          "(e.g. iconv -f latin1 -t utf-8)") from None
    try:
        return loads_toml(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML: {e}; see {EXAMPLE} for the form") from None


def text_line(path: Path, offset: int) -> int:
    try:
        return path.read_bytes()[:offset].count(b"\n") + 1
    except OSError:
        return 0
