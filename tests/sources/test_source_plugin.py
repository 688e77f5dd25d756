"""A board source from another distribution: declared in its own entry
points (group coindrel.sources), accepted by the config check, its table
checked by its own parse, and built through the one registry."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from coindrel.config import ConfigError, Section
from coindrel.sources import BACKENDS, BUILTIN, GROUP, Calibrating, RawStreaming, backend, make_source, register_source
from coindrel.sources.base import BoardSource, Snapshot
from coindrel.sources.hub import HubSource
from coindrel.sources.keyed import KeyedSource
from coindrel.table.settings import parse_settings

ROOT = Path(__file__).resolve().parents[2]

PLUGIN = '''
from dataclasses import dataclass

from coindrel.sources import BoardSource, Capabilities, Snapshot


@dataclass(frozen=True)
class LaserSettings:
    device: str
    lanes: int


class LaserSource(BoardSource):
    name = "laser"
    summary = "a laser curtain over the exits"

    @classmethod
    def parse(cls, section):
        settings = LaserSettings(section.str("device", "/dev/laser0"), section.int("lanes", 16, lo=1, hi=16))
        section.check_unknown()
        return settings

    @classmethod
    def from_settings(cls, settings, *, clock=None, **options):
        source = cls(clock)
        source.settings = settings
        source.capabilities = Capabilities(exits=tuple(range(settings.lanes)))
        return source

    async def snapshot(self, timeout=None):
        return Snapshot(self.board_time())
'''


@pytest.fixture
def plugin(tmp_path):
    """An installed distribution 'coindrel-laser' with one entry point, as pip would leave it."""
    (tmp_path / "coindrel_laser.py").write_text(PLUGIN)
    info = tmp_path / "coindrel_laser-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: coindrel-laser\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nlaser = coindrel_laser:LaserSource\n")
    return tmp_path


def check(plugin_dir, config: str):
    path = plugin_dir / "coindrel.toml"
    path.write_text(textwrap.dedent(config).replace("{state}", str(plugin_dir / "state")))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(plugin_dir), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "coindrel", "run", "--check", "--config", str(path)],
                          capture_output=True, text=True, env=env, timeout=120)


CONFIG = """
    [storage]
    state_dir = "{state}"
    [board]
    source = "laser"
    [board.laser]
    lanes = 12
    [display]
    driver = "none"
"""


def test_an_installed_backend_is_accepted_by_the_config_check(plugin):
    r = check(plugin, CONFIG)
    assert r.returncode == 0, r.stderr
    assert "source laser: a laser curtain over the exits" in r.stdout
    assert "board sources installed: gpio, hub, laser, none, virtual" in r.stdout


def test_its_own_parse_checks_its_table(plugin):
    r = check(plugin, CONFIG.replace("lanes = 12", "lanes = 40"))
    assert r.returncode == 2 and "[board.laser] lanes: 40 is out of range" in r.stderr and "Traceback" not in r.stderr
    r = check(plugin, CONFIG.replace("lanes = 12", "colour = 1"))
    assert r.returncode == 2 and "[board.laser] has unknown key(s) colour" in r.stderr


def test_without_the_distribution_the_name_is_refused_with_the_choices(tmp_path):
    r = check(tmp_path, CONFIG)
    assert r.returncode == 2
    assert "[board] source: 'laser' is not a board source here" in r.stderr and "'gpio', 'hub', 'none', 'virtual'" in r.stderr


def test_registered_at_run_time_the_settings_loader_and_make_source_use_it(plugin):
    sys.path.insert(0, str(plugin))
    register_source("laser", "coindrel_laser:LaserSource")
    try:
        s = parse_settings(tomllib.loads(textwrap.dedent(CONFIG).replace("{state}", "/tmp/x")), "t.toml")
        assert s.board.source == "laser" and s.board.backend.lanes == 12
        src = make_source("laser", {"lanes": 3})
        assert type(src).__name__ == "LaserSource" and src.capabilities.exits == (0, 1, 2)
    finally:
        BACKENDS.pop("laser")
        sys.path.remove(str(plugin))
        sys.modules.pop("coindrel_laser", None)


def test_the_builtin_backends_are_the_ones_pyproject_declares():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][GROUP]
    assert declared == BUILTIN
    for name in BUILTIN:
        assert backend(name).name == name


def test_a_registered_target_that_is_not_a_source_is_refused():
    register_source("bogus", "coindrel.sources.base:Snapshot")
    try:
        with pytest.raises(ConfigError, match="not a BoardSource class"):
            make_source("bogus", {})
    finally:
        BACKENDS.pop("bogus")


def test_none_is_a_real_backend_whose_drops_are_keyed():
    import asyncio

    src = make_source("none", {})
    assert isinstance(src, KeyedSource) and src.capabilities.keyed and not src.capabilities.exits
    with pytest.raises(ConfigError, match=r"\[board.none\] has unknown key\(s\) url"):
        make_source("none", {"url": "x"})

    async def lifecycle():
        await src.start()
        snap = await src.snapshot()
        await src.close()
        return snap, [ev async for ev in src.events()]

    snap, events = asyncio.run(lifecycle())
    assert snap.positions == {} and events == []


def test_the_table_without_a_source_is_a_keyed_table():
    from coindrel.engine import standard_geometry
    from coindrel.table.daemon import Table
    from coindrel.table.setupmenu import Choices

    table = Table(standard_geometry(), Choices(), clock=lambda: 5.0)
    assert isinstance(table.source, KeyedSource) and table.flow.keyed and table.board_now() == 5.0


def test_capabilities_are_types():
    assert issubclass(HubSource, Calibrating) and issubclass(HubSource, RawStreaming)
    assert not issubclass(KeyedSource, Calibrating) and issubclass(KeyedSource, BoardSource)
    assert Snapshot  # (the port's vocabulary is importable from coindrel.sources.base)
