"""Each ``test_*`` function of each ``mp_*.py`` script, run under MicroPython
with the fake hardware modules and a 192 KiB heap (see conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASES = [
    (script, name)
    for script in sorted(HERE.glob("mp_*.py"))
    for name in re.findall(r"^def (test_\w+)\(", script.read_text(), re.M)
]


@pytest.mark.parametrize("script,name", CASES, ids=[f"{s.stem}::{n}" for s, n in CASES])
def test_firmware(micropython, script, name, tmp_path):
    proc = micropython(script, name, cwd=tmp_path)
    assert proc.returncode == 0 and f"PASS {name}" in proc.stdout, (
        f"{script.name}::{name} failed under MicroPython\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}")
