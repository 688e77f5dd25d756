"""Board sources: one backend per module, one registry, chosen by name from
the configuration's ``[board] source``.

The registry is the ``coindrel.sources`` entry-point group (as gpiozero finds
its pin factories): each entry names a ``BoardSource`` subclass, and any
installed distribution can add one. coindrel's own are declared in
pyproject.toml::

    [project.entry-points."coindrel.sources"]
    hub = "coindrel.sources.hub:HubSource"

``register_source(name, target)`` adds one at run time (tests, plugins loaded
by hand). The config check (``coindrel run --check``) and the daemon both go
through ``backend(name)``: what is registered is accepted, and its
``parse(section)`` validates its ``[board.<name>]`` table. Backend modules are
imported only when named, so hardware libraries (pyserial, gpiozero) load only
where they are used.

    [board]
    source = "hub"          # or "gpio", "virtual" (in this process), "none" (keyed drops)
    [board.hub]
    url = "/dev/coindrel-hub"

Adding a backend (tests/sources/test_source_plugin.py does it end to end):
1. one module with a ``BoardSource`` subclass: ``name``, ``summary``,
   ``parse(section)`` (check ``[board.<name>]``, touch no hardware),
   ``from_settings(settings, clock=...)``, ``snapshot()``; the hardware library
   imported in ``start()``; also ``Calibrating``/``RawStreaming`` if it can;
2. its entry point in the distribution's pyproject.toml (for one of coindrel's
   own, also in ``BUILTIN`` below; a test keeps the two equal);
3. ``coindrel run --check`` with ``source = "<name>"`` then accepts it.
"""

from __future__ import annotations

import importlib

from ..config import ConfigError, Section
from .base import BoardSource, Calibrating, Capabilities, Clock, RawStreaming, Snapshot, SourceError, SystemClock

__all__ = [
    "BoardSource", "Calibrating", "Capabilities", "Clock", "RawStreaming", "Snapshot", "SourceError", "SystemClock",
    "BACKENDS", "GROUP", "backend", "backend_names", "build_source", "register_source", "make_source",
    "source_from_config",
]

GROUP = "coindrel.sources"
# What pyproject.toml declares, for a copy of coindrel run without its
# distribution metadata (tests/sources/test_source_registry.py keeps the two equal).
BUILTIN: dict[str, str] = {
    "hub": "coindrel.sources.hub:HubSource",
    "gpio": "coindrel.sources.gpio:GpioSource",
    "virtual": "coindrel.virtual.source:VirtualSource",
    "none": "coindrel.sources.keyed:KeyedSource",
}


def _entry_points() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=GROUP)}


# name -> "module:Class" (or the class itself, when registered as one)
BACKENDS: dict[str, object] = {**BUILTIN, **_entry_points()}


def register_source(name: str, target) -> None:
    """Make a backend choosable by name: ``target`` is a ``BoardSource``
    subclass or ``"package.module:Class"``."""
    if isinstance(target, str) and ":" not in target:
        raise ValueError("target is 'package.module:Class'")
    BACKENDS[name] = target


def backend_names() -> list[str]:
    """Every registered backend's name, without importing any of them."""
    return sorted(BACKENDS)


def backend(name: str) -> type[BoardSource]:
    """The backend class registered as ``name``."""
    target = BACKENDS.get(name)
    if target is None:
        raise ConfigError(f"board source {name!r} is not one of {', '.join(backend_names())}; "
                          "install the package that provides it, or choose one of those")
    if isinstance(target, str):
        module_name, _, attr = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise ConfigError(f"board source {name!r} is registered as {target}, which cannot be imported ({e}); "
                              "reinstall the package that provides it") from None
        cls = module
        for part in attr.split("."):
            cls = getattr(cls, part, None)
        target = cls
    if not (isinstance(target, type) and issubclass(target, BoardSource)):
        raise ConfigError(f"board source {name!r} is registered as {BACKENDS[name]!r}, which is not a BoardSource class")
    return target


def build_source(name: str, settings, *, clock: Clock | None = None, **options) -> BoardSource:
    """The backend ``name`` built from settings its ``parse`` returned."""
    return backend(name).from_settings(settings, clock=clock, **options)


def make_source(name: str, section: Section | dict | None = None, *, clock: Clock | None = None, **options) -> BoardSource:
    """Validate ``[board.<name>]`` (a Section, or a dict of its keys) and build the backend."""
    if not isinstance(section, Section):
        section = Section(f"board.{name}", section or {})
    cls = backend(name)
    return cls.from_settings(cls.parse(section), clock=clock, **options)


def source_from_config(section: Section, *, clock: Clock | None = None, **options) -> BoardSource:
    """``[board]`` -> a backend: ``source`` names it, ``[board.<source>]``
    configures it (the same parser as the daemon's whole configuration)."""
    from ..table.sections import parse_board

    board = parse_board(section)
    return build_source(board.source, board.backend, clock=clock, **options)
