"""Configuration: one TOML file, validated before anything starts.

Each port (board source, display, inputs, outputs, storage, match defaults)
owns a section and a parser for it; ``Section`` gives those parsers typed
look-ups whose errors name the file, the key and the fix. Unknown keys are
errors too, because a misspelt pin number silently ignored is a wrong board.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Iterable

from .engine import EngineError
from .limits import CONFIG, read_text_limited

DEFAULT_PATH = Path("/etc/coindrel/coindrel.toml")


class ConfigError(EngineError):
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
            self.fail(key, f"must be text in quotes, not {v!r}")
        if choices is not None:
            choices = list(choices)
            if v not in choices:
                self.fail(key, f"{v!r} is not one of {', '.join(repr(c) for c in choices)}")
        return v

    def int(self, key: str, default: int | None = None, lo: int | None = None, hi: int | None = None) -> int | None:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool):
            self.fail(key, f"must be a whole number, not {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(key, f"{v} is out of range {lo if lo is not None else '...'}..{hi if hi is not None else '...'}")
        return v

    def float(self, key: str, default: float | None = None, lo: float | None = None, hi: float | None = None) -> float | None:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            self.fail(key, f"must be a number, not {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(key, f"{v} is out of range {lo if lo is not None else '...'}..{hi if hi is not None else '...'}")
        return float(v)

    def bool(self, key: str, default: bool | None = None) -> bool | None:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, bool):
            self.fail(key, f"must be true or false, not {v!r}")
        return v

    def list(self, key: str, default: list | None = None, length: int | None = None, item=None) -> list | None:
        v = self.get(key, default)
        if v is None:
            return None
        if not isinstance(v, list):
            self.fail(key, f"must be a list in [brackets], not {v!r}")
        if length is not None and len(v) != length:
            self.fail(key, f"must list {length} items, not {len(v)}")
        if item is not None:
            for i, x in enumerate(v):
                if not item(x):
                    self.fail(key, f"item {i + 1} ({x!r}) is not valid here")
        return v

    def pin(self, key: str, default=None, required: bool = False):
        """A GPIO pin as gpiozero names it: a BCM number or a name like "GPIO17" / "BOARD11"."""
        v = self.get(key, default)
        if v is None:
            if required:
                self.fail(key, "is required: give the BCM pin number, e.g. 17")
            return None
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            self.fail(key, f"must be a BCM pin number like 17 or a name like \"GPIO17\", not {v!r}")
        if isinstance(v, int) and not 0 <= v <= 27:
            self.fail(key, f"GPIO{v} is not on the Pi's header (BCM 0..27)")
        return v

    def sub(self, key: str) -> "Section":
        v = self.get(key, {})
        if not isinstance(v, dict):
            self.fail(key, "must be a table")
        return Section(f"{self.name}.{key}", v, self.source)

    def check_unknown(self) -> None:
        unknown = sorted(set(self.data) - self._used)
        if unknown:
            known = sorted(self._used)
            raise ConfigError(
                f"{self.source}: [{self.name}] has unknown key(s) {', '.join(unknown)}"
                + (f"; known keys here: {', '.join(known)}" if known else "")
            )


def read_toml(path: str | Path) -> dict:
    p = Path(path)
    try:
        text = read_text_limited(p, CONFIG)
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file; copy the example from the README or pass --config") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the configuration ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML: {e}") from None
