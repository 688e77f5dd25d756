"""The daemon's whole configuration: one TOML file, every section validated
before anything starts.

Each top-level table belongs to one part of coindrel and is parsed by that
part's parser, a function ``parse(section: coindrel.config.Section) -> value``
that reads every key it accepts (the loader then rejects any key left unread).
The table owns ``[storage]``, ``[match]`` and ``[board]``; the display and the
pins own ``[display]``, ``[inputs]`` and ``[outputs]``, and each board source
backend (found in the one source registry, ``coindrel.sources``) owns its
``[board.<name>]`` table through its ``parse``. A pin claimed by two of them is
an error naming both. The display and pin parsers live with their code and are
found by the module paths in ``PLUGINS`` (imported only when a configuration
is loaded, so nothing here pulls in a hardware library), or registered at run
time with ``register_section``. A ``[display]`` table that no installed module
can read is an error (it would be silently ignored otherwise).
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..config import DEFAULT_PATH, ConfigError, Section, read_toml
from .sections import (BoardSettings, ControlSettings, MatchDefaults, StorageSettings, parse_board,
                       parse_control, parse_match, parse_storage)

Parser = Callable[[Section], Any]

# Owner modules of the sections other parts of coindrel define:
# "<section>": "<module>:<function>" (or "<module>:<Class>.<classmethod>").
# Board sources' tables are not here: the source registry owns them.
PLUGINS: dict[str, str] = {
    "display": "coindrel.display.device:DisplayConfig.from_section",
    "inputs": "coindrel.io.inputs:InputsConfig.from_section",
    "outputs": "coindrel.io.outputs:OutputsConfig.from_section",
    "club": "coindrel.club.config:parse_club",
}
BUILTIN_KEYS = {
    "storage": ("state_dir", "keep_matches"),
    "match": ("clock", "players", "variants", "seed"),
    "board": ("geometry", "source", "diagnosis"),  # and one table per registered board source
    "control": ("socket",),
}
_registered: dict[str, Parser] = {}


def register_section(name: str, parse: Parser | None) -> None:
    """Use ``parse`` for the table ``name`` ("display", "lights", ...);
    None removes a registration made earlier."""
    if name in BUILTIN_KEYS:
        raise ValueError(f"[{name}] is parsed by coindrel.table itself")
    if name.startswith("board."):
        raise ValueError(f"[{name}] belongs to a board source: register the source (coindrel.sources) instead")
    if parse is None:
        _registered.pop(name, None)
    else:
        _registered[name] = parse


def top_level_names() -> list[str]:
    names = set(BUILTIN_KEYS) | {n for n in list(PLUGINS) + list(_registered) if "." not in n}
    return sorted(names)


def find_parser(name: str) -> Parser | None:
    """The parser registered or installed for a table, or None."""
    if name in _registered:
        return _registered[name]
    target = PLUGINS.get(name)
    if not target:
        return None
    module_name, _, func = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        # Only "that module is not installed" means "no owner"; an import
        # error inside an existing module is a bug to show, not to hide.
        if e.name and (module_name == e.name or module_name.startswith(e.name + ".")):
            return None
        raise
    parse = module
    for attr in func.split("."):  # "function" or "Class.from_section"
        parse = getattr(parse, attr, None)
        if parse is None:
            raise RuntimeError(f"{module_name} has no {func}(); it must parse the [{name}] configuration table")
    return parse


@dataclass(frozen=True)
class Settings:
    source: str  # the file read, or "defaults"
    storage: StorageSettings = StorageSettings()
    match: MatchDefaults = MatchDefaults()
    board: BoardSettings | None = None
    sections: Mapping[str, Any] = field(default_factory=dict)  # plugin tables by name; None if absent and unowned
    control: ControlSettings = ControlSettings()
    given: frozenset[str] = frozenset()  # the tables the file has (the others are defaults)

    def __getitem__(self, name: str) -> Any:
        own = {"storage": self.storage, "match": self.match, "board": self.board, "control": self.control}
        return own.get(name, self.sections.get(name))


def _run(name: str, parse: Parser, sec: Section) -> Any:
    value = parse(sec)
    sec.check_unknown()
    return value


def _check_top_level(data: dict, source: str) -> None:
    known = top_level_names()
    for key, value in data.items():
        if key in known:
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: {key} must be a table: write [{key}] on a line of its own, then its keys")
            continue
        if not isinstance(value, dict):
            home = [t for t, keys in BUILTIN_KEYS.items() if key in keys]
            hint = f"; it belongs in [{home[0]}]" if home else f"; tables here are {', '.join(f'[{k}]' for k in known)}"
            raise ConfigError(f"{source}: {key} is outside any table{hint}")
        near = difflib.get_close_matches(key, known, n=1)
        hint = f"did you mean [{near[0]}]? " if near else ""
        raise ConfigError(f"{source}: unknown table [{key}]; {hint}the tables are {', '.join(f'[{k}]' for k in known)}")


def parse_settings(data: dict, source: str = "config", base: Path | None = None) -> Settings:
    """Validate a whole configuration (as ``tomllib`` reads it)."""
    _check_top_level(data, source)
    storage = parse_storage(Section("storage", data.get("storage"), source))
    match = parse_match(Section("match", data.get("match"), source))
    board = parse_board(Section("board", data.get("board"), source), base)
    control = parse_control(Section("control", data.get("control"), source))
    sections: dict[str, Any] = {}
    for name in top_level_names():
        if name in BUILTIN_KEYS:
            continue
        parse = find_parser(name)
        if parse is None:
            if name in data:
                where = PLUGINS.get(name, "").partition(":")[0] or "its module"
                raise ConfigError(f"{source}: [{name}] is set, but this installation of coindrel cannot read it "
                                  f"({where} is not installed); remove the table or update coindrel")
            sections[name] = None
            continue
        sections[name] = _run(name, parse, Section(name, data.get(name), source))
    _check_pins([board.backend, *sections.values()], source)
    return Settings(source, storage, match, board, sections, control,
                    frozenset(k for k, v in data.items() if isinstance(v, dict)))


def _check_pins(values: list, source: str) -> None:
    """No GPIO pin used by two parts (display, inputs, outputs, a GPIO board
    source): anything parsed with a ``pins()`` table {pin: "[table] key"}."""
    tables = [v.pins() for v in values if callable(getattr(v, "pins", None))]
    if len(tables) < 2:
        return
    from ..io.pins import check_pins  # the one definition of "the same pin"

    try:
        check_pins(*tables)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None


def load_settings(path: str | Path | None = None, *, missing_ok: bool = False) -> Settings:
    """Read and validate a configuration file (default /etc/coindrel/coindrel.toml).
    ``missing_ok``: a missing file means all defaults (for read-only commands)."""
    p = Path(path) if path is not None else DEFAULT_PATH
    if missing_ok and not p.exists():
        return parse_settings({}, source="defaults")
    data = read_toml(p)
    return parse_settings(data, source=str(p), base=p.parent)


__all__ = ["PLUGINS", "Settings", "find_parser", "load_settings", "parse_settings", "register_section"]
