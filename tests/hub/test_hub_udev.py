"""The udev rule that names the hub /dev/coindrel-hub: well-formed, matching
MicroPython's rp2 USB ids, naming what the hub source opens by default.
`udevadm verify` checks it too where the machine has it (systemd >= 254)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from coindrel.sources.hub import DEFAULT_URL

RULE = Path(__file__).resolve().parents[2] / "systemd" / "99-coindrel-hub.rules"
MATCH = {"SUBSYSTEM", "ATTRS{idVendor}", "ATTRS{idProduct}", "ATTRS{serial}", "KERNEL"}
ASSIGN = {"SYMLINK", "MODE", "GROUP", "ENV{ID_MM_DEVICE_IGNORE}"}
PAIR = re.compile(r'\s*([A-Z_]+(?:\{[^}]+\})?)\s*(==|!=|\+=|=)\s*"([^"]*)"\s*')


def rules():
    for line in RULE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            pairs = []
            for part in line.split(","):
                m = PAIR.fullmatch(part)
                assert m, f"not KEY==\"value\" or KEY=\"value\": {part!r}"
                pairs.append(m.groups())
            yield pairs


def test_rule_is_well_formed_and_names_the_hub():
    found = list(rules())
    assert len(found) == 1
    d = {}
    for key, op, value in found[0]:
        if key in MATCH:
            assert op == "==", key
        else:
            assert key in ASSIGN and op in ("=", "+="), key
        d[key] = value
    assert d["SUBSYSTEM"] == "tty"
    assert (d["ATTRS{idVendor}"], d["ATTRS{idProduct}"]) == ("2e8a", "0005")  # MicroPython on RP2040
    assert "/dev/" + d["SYMLINK"] == DEFAULT_URL
    assert d["ENV{ID_MM_DEVICE_IGNORE}"] == "1"


def test_udevadm_verify_where_available():
    udevadm = shutil.which("udevadm")
    if udevadm is None or subprocess.run([udevadm, "verify", "--help"], capture_output=True).returncode != 0:
        pytest.skip("udevadm verify needs systemd >= 254")
    proc = subprocess.run([udevadm, "verify", "--resolve-names=never", str(RULE)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
