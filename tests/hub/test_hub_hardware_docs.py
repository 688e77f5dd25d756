"""The hardware documents agree with the channel map they describe."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from coindrel.hub.channelmap import load_channel_map

HW = Path(__file__).resolve().parents[2] / "hardware"
CM = load_channel_map(HW / "channel_map.json")


def test_every_pico_pin_in_the_map_is_in_the_pico_pinout():
    doc = (HW / "pinout-pico.md").read_text()
    hub = CM.hub
    pins = [hub["beams"][k] for k in ("load_pin", "clock_pin", "data_pin")] + hub["halls"]["select_pins"] + hub["halls"]["adc_pins"]
    for gp in pins:
        assert re.search(rf"^\| GP{gp} \|", doc, re.M), f"GP{gp} missing from pinout-pico.md"


def test_small_build_table_matches_gpio_build():
    doc = (HW / "pinout-pi.md").read_text()
    rows = dict(re.findall(r"\| ((?:entry|exit) \d+) \| GPIO(\d+) \|", doc))
    for i, pin in enumerate(CM.gpio_build["entry_pins"]):
        assert rows[f"entry {i + 1}"] == str(pin)
    for i, pin in enumerate(CM.gpio_build["exit_pins"]):
        assert rows[f"exit {i + 1}"] == str(pin)


def test_mux_assignment_in_the_pinout_matches_the_map():
    doc = (HW / "pinout-pico.md").read_text()
    for mux in (1, 2, 3):
        labels = [h.label for h in CM.halls if h.mux == mux]
        assert f"{labels[0]}" in doc and f"{labels[-1]}" in doc


def test_bom_has_parts_and_quantities():
    rows = list(csv.DictReader((HW / "bom.csv").open()))
    by = {r["item"]: r for r in rows}
    assert int(by["Linear hall sensor"]["qty"]) == len(CM.halls)
    assert int(by["IR break-beam pair"]["qty"]) == len(CM.beams)
    assert int(by["Shift register"]["qty"]) == CM.hub["beams"]["registers"]
    assert int(by["Analog mux"]["qty"]) == CM.hub["halls"]["muxes"]
    assert all(r["qty"].isdigit() and r["part number"] for r in rows if r["manufacturer"] != "any")
