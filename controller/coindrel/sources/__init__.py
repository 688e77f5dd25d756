"""Board sources: one backend per module, chosen by name from the configuration.

``make_source("hub", section)`` builds a backend from its ``[board.<name>]``
table; ``source_from_config(section)`` reads ``source`` from ``[board]``
first (the daemon's settings loader does the same). Backends are imported only when chosen, so hardware libraries
(pyserial, gpiozero) load only where they are used.

    [board]
    source = "hub"          # or "gpio", or "virtual" (the virtual board in this process)
    [board.hub]
    url = "/dev/coindrel-hub"
"""

from __future__ import annotations

import importlib

from ..config import ConfigError, Section
from .base import BoardSource, Capabilities, Clock, Snapshot, SourceError, SystemClock

__all__ = [
    "BoardSource", "Capabilities", "Clock", "Snapshot", "SourceError", "SystemClock",
    "BACKENDS", "register_source", "make_source", "source_from_config",
]

# name -> "module:factory"; a factory takes (section, clock=..., **options) and returns a BoardSource.
BACKENDS: dict[str, str] = {
    "hub": "coindrel.sources.hub:from_config",
    "gpio": "coindrel.sources.gpio:from_config",
    "virtual": "coindrel.virtual.source:from_config",
}


def register_source(name: str, target: str) -> None:
    """Make a backend choosable by name: ``target`` is ``"package.module:factory"``."""
    if ":" not in target:
        raise ValueError("target is 'package.module:factory'")
    BACKENDS[name] = target


def make_source(name: str, section: Section | dict | None = None, *, clock: Clock | None = None, **options) -> BoardSource:
    """Build the backend called ``name`` from its configuration section."""
    target = BACKENDS.get(name)
    if target is None:
        raise ConfigError(f"board source {name!r} is not one of {', '.join(sorted(BACKENDS))}")
    if not isinstance(section, Section):
        section = Section(f"board.{name}", section or {})
    module_name, factory = target.split(":")
    module = importlib.import_module(module_name)
    return getattr(module, factory)(section, clock=clock, **options)


def source_from_config(section: Section, *, clock: Clock | None = None, **options) -> BoardSource:
    """``[board]`` -> a backend: ``source`` names it, ``[board.<source>]`` configures it."""
    name = section.str("source", "hub", choices=sorted(BACKENDS))
    sub = section.sub(name)
    section.get("geometry")  # the board's geometry lives here too; the caller reads it
    for other in BACKENDS:
        if other != name:
            section.get(other)  # tables for other backends may stay in the file
    section.check_unknown()
    return make_source(name, sub, clock=clock, **options)
