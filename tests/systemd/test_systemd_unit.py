"""The systemd unit: what it declares, ``systemd-analyze verify`` on it as
shipped, and ``systemd-analyze security --offline=true`` exposure below 5.

The analyzers come with the systemd package; CI installs it, so these run
there. They are skipped only where the tool is truly missing.
(No ``__init__.py`` here: a test package named ``systemd`` would shadow the
python-systemd module for the whole session.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
UNIT = SYSTEMD / "coindrel.service"
ANALYZE = shutil.which("systemd-analyze")
SYSUSERS = shutil.which("systemd-sysusers")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed here "
                                   "(CI installs the systemd package, so these checks run there)")
# Where distributions keep their unit files (the verify root needs sysinit.target & co).
UNIT_DIRS = ("/usr/lib/systemd/system", "/lib/systemd/system")


def unit_settings(path: Path = UNIT) -> dict[str, list[str]]:
    """``Section.Key`` -> every value it is given, in order."""
    out: dict[str, list[str]] = {}
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.setdefault(f"{section}.{key.strip()}", []).append(value.strip())
    return out


def one(settings, key) -> str:
    (value,) = settings[key]
    return value


def test_the_unit_declares_what_the_daemon_needs():
    s = unit_settings()
    assert one(s, "Service.Type") == "notify"
    assert one(s, "Service.ExecStart") == "/opt/coindrel/venv/bin/coindrel run"
    assert one(s, "Service.Restart") == "on-failure"
    assert re.fullmatch(r"\d+s", one(s, "Service.WatchdogSec")) and int(one(s, "Service.WatchdogSec")[:-1]) >= 10
    assert one(s, "Service.User") == "coindrel"
    assert set(one(s, "Service.SupplementaryGroups").split()) == {"gpio", "i2c", "dialout"}
    assert one(s, "Service.StateDirectory") == "coindrel"
    assert one(s, "Service.ConfigurationDirectory") == "coindrel"
    assert one(s, "Install.WantedBy") == "multi-user.target"


def test_the_hardware_stays_reachable_through_the_hardening():
    s = unit_settings()
    assert one(s, "Service.PrivateDevices") == "no"  # the real /dev: hot-plugged hub included
    assert one(s, "Service.DevicePolicy") == "closed"
    allowed = {v.split()[0]: v.split()[1] for v in s["Service.DeviceAllow"]}
    for cls in ("char-gpiochip", "char-i2c", "char-ttyACM"):  # GPIO, the OLED's bus, the hub
        assert allowed.get(cls) == "rw", cls
    # lgpio makes its notification FIFOs in the working directory: it must be writable.
    assert one(s, "Service.RuntimeDirectory") == "coindrel"
    assert one(s, "Service.WorkingDirectory") == "/run/coindrel"
    # gpiozero reads the Pi's revision from /proc/device-tree or /proc/cpuinfo.
    assert "Service.ProcSubset" not in s


def verify_root(tmp_path: Path, unit_text: str, stub: bool = True) -> Path:
    """A root with the distribution's units, ours as shipped, and (when
    ``stub``) an executable at the ExecStart path, which verify checks."""
    host = next((Path(d) for d in UNIT_DIRS if (Path(d) / "sysinit.target").exists()), None)
    if host is None:
        pytest.skip("this machine has no systemd unit directory with sysinit.target to verify against")
    root = tmp_path / "root"
    shutil.copytree(host, root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system/coindrel.service").write_text(unit_text)
    if stub:
        exe = root / "opt/coindrel/venv/bin/coindrel"
        exe.parent.mkdir(parents=True)
        exe.write_text("#!/bin/sh\nexec python3 -m coindrel \"$@\"\n")
        exe.chmod(0o755)
    return root


def verify(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([ANALYZE, "verify", f"--root={root}", "coindrel.service"], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, SYSTEMD_LOG_COLOR="0"))


@needs_analyze
def test_systemd_analyze_verify_passes_cleanly(tmp_path):
    result = verify(verify_root(tmp_path, UNIT.read_text()))
    assert result.returncode == 0 and result.stderr.strip() == "" and result.stdout.strip() == "", result.stderr


@needs_analyze
def test_verify_would_catch_a_broken_unit(tmp_path):
    """The check above is only worth something if verify looks at our unit."""
    result = verify(verify_root(tmp_path / "a", UNIT.read_text(), stub=False))
    assert result.returncode != 0 and "/opt/coindrel/venv/bin/coindrel" in result.stderr
    typo = UNIT.read_text().replace("WatchdogSec=", "WatchdogSecs=")
    result = verify(verify_root(tmp_path / "b", typo))
    assert "WatchdogSecs" in result.stderr


@needs_analyze
def test_security_exposure_is_below_5(tmp_path):
    result = subprocess.run([ANALYZE, "security", "--offline=true", "--threshold=49", "--no-pager", str(UNIT)],
                            capture_output=True, text=True, timeout=120)
    m = re.search(r"Overall exposure level for coindrel\.service:\s*([\d.]+)", result.stdout)
    assert m, result.stdout + result.stderr
    assert float(m.group(1)) < 5.0
    assert result.returncode == 0  # --threshold=49: non-zero above 4.9


def _exposure(path: Path) -> float:
    result = subprocess.run([ANALYZE, "security", "--offline=true", "--no-pager", str(path)],
                            capture_output=True, text=True, timeout=120)
    m = re.search(r"Overall exposure level for \S+:\s*([\d.]+)", result.stdout)
    assert m, result.stdout + result.stderr
    return float(m.group(1))


def test_the_diagnosis_child_may_lower_its_priority_and_nothing_else_of_resources():
    """reconcile/child.py asks for nice(10) (setpriority): the filter lets
    exactly that back in after denying @resources."""
    s = unit_settings()
    assert s["Service.SystemCallFilter"] == ["@system-service", "~@privileged @resources", "setpriority"]
    assert one(s, "Service.CapabilityBoundingSet") == "" and "Service.LimitNICE" not in s  # so only lower, never raise


@needs_analyze
def test_allowing_the_childs_nice_keeps_the_exposure_where_it_was(tmp_path):
    before = UNIT.read_text().replace("SystemCallFilter=setpriority\n", "").replace("PrivateMounts=yes\n", "")
    assert before != UNIT.read_text()
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "old" / "coindrel.service").write_text(before)
    (tmp_path / "new" / "coindrel.service").write_text(UNIT.read_text())
    assert _exposure(tmp_path / "new" / "coindrel.service") <= _exposure(tmp_path / "old" / "coindrel.service")


@pytest.mark.skipif(SYSUSERS is None, reason="systemd-sysusers is not installed here (CI installs systemd)")
def test_sysusers_creates_the_user_in_its_groups(tmp_path):
    (tmp_path / "etc").mkdir()
    subprocess.run([SYSUSERS, f"--root={tmp_path}", str(SYSTEMD / "coindrel.sysusers")], check=True,
                   capture_output=True, timeout=60)
    passwd = (tmp_path / "etc/passwd").read_text()
    group = (tmp_path / "etc/group").read_text()
    assert re.search(r"^coindrel:x:\d+:\d+:Coindrel Table daemon:/var/lib/coindrel:/usr/sbin/nologin$", passwd, re.M)
    for g in ("gpio", "i2c", "dialout"):
        assert re.search(rf"^{g}:x:\d+:(.*,)?coindrel(,.*)?$", group, re.M), g


DROPIN = SYSTEMD / "coindrel-network-hub.conf"


def test_only_the_hubs_device_class_is_allowed():
    """The Pico is a USB CDC-ACM device (ttyACM); USB-serial adapters (ttyUSB) are not the hub."""
    allowed = [v.split()[0] for v in unit_settings()["Service.DeviceAllow"]]
    assert allowed == ["char-gpiochip", "char-i2c", "char-ttyACM"]
    rules = (SYSTEMD / "99-coindrel-hub.rules").read_text()
    assert 'SUBSYSTEM=="tty"' in rules and "2e8a" in rules  # the symlink points at the Pico's ttyACM node


def test_the_shipped_unit_has_no_network_and_the_drop_in_opens_only_what_a_network_hub_needs():
    s = unit_settings()
    assert one(s, "Service.PrivateNetwork") == "yes" and one(s, "Service.RestrictAddressFamilies") == "AF_UNIX"
    d = unit_settings(DROPIN)
    assert one(d, "Service.PrivateNetwork") == "no"
    assert set(one(d, "Service.RestrictAddressFamilies").split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert one(d, "Service.IPAddressDeny") == "any" and one(d, "Service.IPAddressAllow") == "localhost"
    assert set(d) == {"Service.PrivateNetwork", "Service.RestrictAddressFamilies", "Service.IPAddressDeny",
                      "Service.IPAddressAllow"}  # nothing else of the hardening is loosened
    doc = (SYSTEMD.parent / "docs/install-pi.md").read_text()
    assert "coindrel-network-hub.conf" in doc and "coindrel.service.d" in doc


def with_dropin(tmp_path: Path) -> Path:
    root = verify_root(tmp_path, UNIT.read_text())
    d = root / "etc/systemd/system/coindrel.service.d"
    d.mkdir()
    shutil.copy(DROPIN, d / "network-hub.conf")
    return root


@needs_analyze
def test_the_network_hub_drop_in_verifies_and_stays_low_exposure(tmp_path):
    root = with_dropin(tmp_path)
    result = verify(root)
    assert result.returncode == 0 and result.stderr.strip() == "", result.stderr
    result = subprocess.run([ANALYZE, "security", "--offline=true", f"--root={root}", "--no-pager", "coindrel.service"],
                            capture_output=True, text=True, timeout=120)
    m = re.search(r"Overall exposure level for coindrel\.service:\s*([\d.]+)", result.stdout)
    assert m, result.stdout + result.stderr
    assert "Service has access to the host's network" in result.stdout  # the drop-in is what was analysed
    assert float(m.group(1)) < 2.0
