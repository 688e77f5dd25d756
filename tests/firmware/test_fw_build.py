"""The firmware as deployed: every file compiles for the RP2040 (armv6m), the
generated channel map matches hardware/channel_map.json and the controller's
reading of it (checked under MicroPython itself), nothing runs at import, and
the manifest names every file that must go to the Pico."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from coindrel.hub.channelmap import load_channel_map

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
SOURCES = sorted(FIRMWARE.rglob("*.py"))


def test_there_is_firmware():
    names = {p.relative_to(FIRMWARE).as_posix() for p in SOURCES}
    assert {"main.py", "manifest.py", "coindrel_hub/app.py", "coindrel_hub/chanmap.py"} <= names


@pytest.mark.parametrize("src", [p for p in SOURCES if p.name != "manifest.py"], ids=lambda p: p.relative_to(FIRMWARE).as_posix())
def test_compiles_for_the_rp2040(src, tmp_path, mpy_cross):
    out = tmp_path / (src.stem + ".mpy")
    proc = subprocess.run([mpy_cross, "-march=armv6m", "-o", str(out), str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0


def test_generated_channel_map_is_up_to_date():
    cm = load_channel_map(ROOT / "hardware" / "channel_map.json")
    assert (FIRMWARE / "coindrel_hub" / "chanmap.py").read_text() == cm.firmware_module(), (
        "firmware/coindrel_hub/chanmap.py is stale: run `coindrel hub map --write`")


def test_package_copy_of_the_channel_map_is_the_hardware_one():
    pkg = ROOT / "controller" / "coindrel" / "hub" / "channel_map.json"
    assert pkg.read_bytes() == (ROOT / "hardware" / "channel_map.json").read_bytes(), (
        "controller/coindrel/hub/channel_map.json must be a copy of hardware/channel_map.json")


def test_firmware_and_controller_agree_on_every_channel(micropython, tmp_path):
    script = tmp_path / "dump.py"
    script.write_text(
        "import json\nfrom coindrel_hub import chanmap as c\n"
        "print(json.dumps({'hash': ''.join('%02x' % b for b in c.MAP_HASH), 'bit_beam': list(c.BIT_BEAM),"
        " 'halls': [list(h) for h in c.HALLS], 'labels': list(c.LABELS), 'pins': [c.LOAD_PIN, c.CLOCK_PIN, c.DATA_PIN],"
        " 'select': list(c.SELECT_PINS), 'adc': list(c.ADC_PINS), 'hz': [c.SAMPLE_HZ, c.SCAN_HZ, c.HEARTBEAT_MS]}))\n")
    proc = micropython(script, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fw = json.loads(proc.stdout)
    cm = load_channel_map(ROOT / "hardware" / "channel_map.json")
    assert fw["hash"] == cm.hash_hex
    assert {b: beam for b, beam in enumerate(fw["bit_beam"]) if beam != 255} == {c.bit: c.beam for c in cm.beams}
    assert [tuple(h) for h in fw["halls"]] == [(h.mux - 1, h.channel, h.switch) for h in cm.halls]
    assert fw["labels"] == list(cm.geometry.labels)
    hub = cm.hub
    assert fw["pins"] == [hub["beams"]["load_pin"], hub["beams"]["clock_pin"], hub["beams"]["data_pin"]]
    assert fw["select"] == hub["halls"]["select_pins"] and fw["adc"] == hub["halls"]["adc_pins"]
    assert fw["hz"] == [cm.sample_hz, cm.scan_hz, cm.heartbeat_ms]


def test_nothing_runs_at_import(micropython_bin, tmp_path):
    # Without the fake hardware modules on the path: importing must not need machine or rp2, nor print.
    import os

    script = tmp_path / "imports.py"
    mods = [p.relative_to(FIRMWARE).with_suffix("").as_posix().replace("/", ".") for p in SOURCES
            if p.parent.name == "coindrel_hub"]
    script.write_text("".join(f"import {m}\n" for m in mods) + "print('ok')\n")
    env = {"MICROPYPATH": os.pathsep.join([".frozen", str(FIRMWARE)])}
    proc = subprocess.run([micropython_bin, "-X", "heapsize=192k", str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, **env})
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stdout + proc.stderr


def test_main_is_a_few_lines():
    lines = [ln for ln in (FIRMWARE / "main.py").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(lines) <= 3


def test_manifest_lists_every_firmware_file():
    from coindrel.commands.hub import manifest_files

    listed = {dst for _src, dst in manifest_files(FIRMWARE)}
    on_disk = {p.relative_to(FIRMWARE).as_posix() for p in SOURCES if p.name != "manifest.py"}
    assert listed == on_disk
