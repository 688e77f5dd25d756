"""The club drop-in: outbound access to the broker only, checked by
``systemd-analyze verify`` with the drop-in in place and by
``systemd-analyze security --offline=true`` (exposure below 2.0)."""

from __future__ import annotations

import re
import subprocess

from test_systemd_unit import ANALYZE, SYSTEMD, UNIT, needs_analyze, unit_settings, verify, verify_root

DROPIN = SYSTEMD / "coindrel.service.d" / "club.conf"


def test_the_dropin_opens_only_what_mqtt_needs(tmp_path):
    merged = tmp_path / "coindrel.service"
    merged.write_text(UNIT.read_text() + "\n" + DROPIN.read_text())
    s = unit_settings(merged)
    assert s["Service.PrivateNetwork"][-1] == "no"
    assert s["Service.IPAddressDeny"] == ["any"]  # everything else stays denied
    assert s["Service.IPAddressAllow"] and "any" not in s["Service.IPAddressAllow"]
    assert set(" ".join(s["Service.RestrictAddressFamilies"]).split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert unit_settings(UNIT)["Service.PrivateNetwork"] == ["yes"]  # a table without a club has no network


@needs_analyze
def test_verify_passes_with_the_dropin_installed(tmp_path):
    root = verify_root(tmp_path, UNIT.read_text())
    d = root / "etc/systemd/system/coindrel.service.d"
    d.mkdir()
    (d / "club.conf").write_text(DROPIN.read_text())
    result = verify(root)
    assert result.returncode == 0 and result.stderr.strip() == "", result.stderr
    (d / "club.conf").write_text(DROPIN.read_text().replace("IPAddressAllow=", "IPAdressAllow="))
    assert "IPAdressAllow" in verify(root).stderr  # verify does read the drop-in


@needs_analyze
def test_exposure_with_the_dropin_stays_below_2(tmp_path):
    merged = tmp_path / "coindrel.service"  # a drop-in's lines act as if appended to the unit
    merged.write_text(UNIT.read_text() + "\n" + DROPIN.read_text())
    result = subprocess.run([ANALYZE, "security", "--offline=true", "--threshold=19", "--no-pager", str(merged)],
                            capture_output=True, text=True, timeout=120)
    m = re.search(r"Overall exposure level for coindrel\.service:\s*([\d.]+)", result.stdout)
    assert m, result.stdout + result.stderr
    assert float(m.group(1)) < 2.0 and result.returncode == 0
