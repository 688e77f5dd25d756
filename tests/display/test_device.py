"""The [display] section and the luma devices it builds: real drivers over
fake buses (read back as a panel would show them), dummy and emulators."""

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from coindrel.config import ConfigError, Section
from coindrel.display import DeviceOpener, DisplayConfig, open_display, render

from .fakes import FakeGpio, FakeI2CBus, FakeSpi, SSD1306Panel, SSD1322Panel
from .samples import SAMPLES

CONTROLLER = Path(__file__).resolve().parents[2] / "controller"


def cfg(**data) -> DisplayConfig:
    return DisplayConfig.from_section(Section("display", data, "coindrel.toml"))


# -- the section --------------------------------------------------------------------


def test_defaults_are_a_128x64_ssd1306_on_i2c_bus_1_at_0x3c():
    c = cfg()
    assert (c.driver, c.interface, c.port, c.address, c.size, c.persist) == ("ssd1306", "i2c", 1, 0x3C, (128, 64), True)
    assert c.describe() == "ssd1306 on I2C bus 1 at 0x3C"
    assert set(c.pins()) == {2, 3}


@pytest.mark.parametrize("data,key,words", [
    ({"driver": "ssd9999"}, "driver", "not a display luma knows"),
    ({"driver": "ws0010"}, "driver", "character module"),
    ({"address": 0x90}, "address", "0x03..0x77"),
    ({"address": "sixty"}, "address", "like 0x3C"),
    ({"width": 96}, "width", "at least 128x64"),
    ({"driver": "sh1107", "width": 64, "height": 128}, "rotate", "rotate = 1"),
    ({"interface": "spi", "spi_speed_hz": 12345}, "spi_speed_hz", "speed"),
    ({"driver": "ssd1306", "file": "x.png"}, "file", "capture"),
    ({"driver": "capture"}, "file", "writes a PNG per frame: say where"),  # luma's default: the working folder
    ({"driver": "gifanim"}, "file", "out/table.gif"),
    ({"idle_after": 100, "sleep_after": 50}, "sleep_after", "dims before"),
    ({"retry_every": 10, "retry_max": 5}, "retry_max", "at least"),
    ({"rotate": 4}, "rotate", "out of range"),
    ({"contrast": 300}, "contrast", "out of range"),
    ({"colour": "blue"}, "unknown key", "colour"),
])
def test_bad_sections_name_the_key_and_the_fix(data, key, words):
    with pytest.raises(ConfigError) as e:
        cfg(**data)
    msg = str(e.value)
    assert "coindrel.toml: [display]" in msg and key in msg and words in msg


def test_address_may_be_written_as_text_and_rotation_swaps_the_size():
    assert cfg(address="0x3D").address == 0x3D
    c = cfg(driver="sh1107", width=64, height=128, rotate=1)
    assert c.size == (128, 64)


def test_spi_pins_are_reported_for_conflict_checks():
    c = cfg(interface="spi", port=0, dc_pin=23, reset_pin=5)
    assert {23, 5, 8, 9, 10, 11} <= set(c.pins())


# -- real drivers, fake buses ----------------------------------------------------------


@pytest.mark.parametrize("driver", ["ssd1306", "ssd1309", "ssd1315"])
def test_ssd1306_family_over_i2c_shows_exactly_the_rendered_frame(driver):
    panel = SSD1306Panel()
    bus = FakeI2CBus(panel)
    display = open_display(Section("display", {"driver": driver, "shift_every": 0}), clock=lambda: 0.0, bus=bus)
    assert display.healthy and panel.inits == 1 and panel.on
    view = SAMPLES["match_last_drop"]
    assert display.show(view, 1.0)
    assert panel.image().tobytes() == render(view).tobytes()
    assert panel.contrast == 207


def test_rotated_panel_gets_the_frame_turned():
    panel = SSD1306Panel()
    display = open_display(Section("display", {"rotate": 2, "shift_every": 0}), bus=FakeI2CBus(panel), clock=lambda: 0.0)
    view = SAMPLES["reveal"]
    display.show(view, 0.0)
    assert panel.image().tobytes() == render(view).rotate(180).tobytes()


def test_sh1106_over_i2c_accepts_frames():
    bus = FakeI2CBus()
    display = open_display(Section("display", {"driver": "sh1106"}), bus=bus, clock=lambda: 0.0)
    before = bus.writes
    assert display.show(SAMPLES["setup_menu"], 0.0)
    assert bus.writes - before >= 8 * 4  # eight pages of 128 bytes in 32-byte blocks


def test_ssd1322_256x64_over_spi_shows_the_frame():
    panel = SSD1322Panel(256, 64)
    gpio = FakeGpio(dc_pin=24)
    spi = FakeSpi(gpio, panel)
    section = Section("display", {"driver": "ssd1322", "interface": "spi", "port": 0, "width": 256, "height": 64,
                                  "shift_every": 0})
    display = open_display(section, spi=spi, gpio=gpio, clock=lambda: 0.0)
    assert display.healthy and spi.opened == (0, 0)
    view = SAMPLES["match"]
    display.show(view, 0.0)
    assert panel.image().tobytes() == render(view, (256, 64)).tobytes()
    view2 = SAMPLES["match_hit"]  # luma sends only the changed part; the panel must still match
    display.show(view2, 0.0)
    assert panel.image().tobytes() == render(view2, (256, 64)).tobytes()


def test_a_size_the_driver_cannot_drive_is_a_config_error_at_startup():
    with pytest.raises(ConfigError, match="width, height"):
        open_display(Section("display", {"driver": "ssd1306", "width": 256, "height": 128}), bus=FakeI2CBus())


def test_missing_i2c_bus_is_not_fatal_and_says_how_to_fix_it(monkeypatch):
    import smbus2

    def no_bus(port):
        raise FileNotFoundError(2, "No such file or directory", f"/dev/i2c-{port}")

    monkeypatch.setattr(smbus2, "SMBus", no_bus)
    display = open_display(Section("display", {"port": 7}), clock=lambda: 0.0)
    assert not display.healthy
    assert "raspi-config" in display.problem and "i2c-7" in display.problem
    assert display.show(SAMPLES["match"], 1.0) is False  # keeps going without a panel


# -- pseudo devices and emulators ---------------------------------------------------------


def test_dummy_keeps_the_frame():
    display = open_display(Section("display", {"driver": "dummy", "shift_every": 0}), clock=lambda: 0.0)
    display.show(SAMPLES["rules"], 0.0)
    assert display.device.image.tobytes() == render(SAMPLES["rules"]).tobytes()


def test_none_driver_has_no_panel_and_no_problem():
    display = open_display(Section("display", {"driver": "none"}), clock=lambda: 0.0)
    assert display.show(SAMPLES["match"], 0.0) is False
    assert display.device is None and display.problem is None and display.next_deadline(0.0) is None


def test_capture_writes_each_new_frame_as_a_png(tmp_path):
    template = str(tmp_path / "frame_{0:04}.png")
    section = Section("display", {"driver": "capture", "file": template, "transform": "none", "scale": 1,
                                  "shift_every": 0})
    display = open_display(section, clock=lambda: 0.0)
    display.show(SAMPLES["match"], 0.0)
    display.show(SAMPLES["match"], 0.5)  # unchanged: nothing new written
    display.show(SAMPLES["reveal"], 1.0)
    files = sorted(tmp_path.glob("frame_*.png"))
    frames = [Image.open(f).convert("1").tobytes() for f in files]
    assert frames == [render(SAMPLES["match"]).tobytes(), render(SAMPLES["reveal"]).tobytes()]


def test_gifanim_writes_the_animation_when_closed(tmp_path):
    out = tmp_path / "table.gif"
    section = Section("display", {"driver": "gifanim", "file": str(out), "shift_every": 0})
    display = open_display(section, clock=lambda: 0.0)
    for i, name in enumerate(("match", "match_hit", "round_result")):
        display.show(SAMPLES[name], float(i))
    display.close()
    gif = Image.open(out)
    assert gif.n_frames >= 3 and gif.size == (256, 128)


def test_pygame_window_emulator_headless(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    display = open_display(Section("display", {"driver": "pygame", "shift_every": 0}), clock=lambda: 0.0)
    assert display.show(SAMPLES["match"], 0.0)
    display.close()


@pytest.mark.parametrize("driver,mark", [("asciiblock", "\u2584"), ("asciiart", "\x1b[")])
def test_terminal_emulators_draw_in_a_real_terminal(driver, mark):
    # Run in a child on a pseudo-terminal: these devices take over the terminal.
    script = textwrap.dedent(f"""
        from coindrel.config import Section
        from coindrel.display import open_display, MessageView
        d = open_display(Section("display", {{"driver": "{driver}", "shift_every": 0}}), clock=lambda: 0.0)
        ok = d.show(MessageView("Hello", "terminal"), 0.0)
        d.close()
        print("SHOWN", ok)
    """)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))  # rows, columns
    env = dict(os.environ, PYTHONPATH=str(CONTROLLER), TERM="xterm-256color", COLUMNS="80", LINES="40")
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    out = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0, out[-2000:]
    assert "SHOWN True" in out and mark in out
    # luma's exit hook ran the cleanup again: asciiblock cleared the screen over what came after (the sim's summary)
    assert "\x1b[2J" not in out.split("SHOWN True")[-1]


def test_opener_reinitialises_with_luma_s_own_constructor_on_the_same_bus():
    panel = SSD1306Panel()
    bus = FakeI2CBus(panel)
    opener = DeviceOpener(cfg(), bus=bus)
    first = opener.open()
    again = opener.open()
    assert type(again) is type(first) and opener.opened == 2 and panel.inits == 2 and panel.nops == 2
    assert again._serial_interface is first._serial_interface  # one bus, opened once
    opener.close()


def test_a_panel_that_is_away_costs_probes_not_luma_devices(monkeypatch):
    """luma keeps every device it constructs (an exit hook): retrying a panel
    that does not answer must not construct one per attempt."""
    import atexit

    hooks = []
    monkeypatch.setattr(atexit, "register", lambda fn, *a, **k: hooks.append(fn) or fn)
    bus = FakeI2CBus(SSD1306Panel())
    bus.fail = True  # unplugged: every write goes unacknowledged
    opener = DeviceOpener(cfg(), bus=bus)
    from luma.core.error import DeviceNotFoundError

    for _ in range(20):
        with pytest.raises(DeviceNotFoundError):
            opener.open()
    assert opener.built == 0 and hooks == []
    bus.fail = False  # plugged back in
    assert opener.open() is not None and opener.built == 1 and len(hooks) == 1
    opener.close()


def test_no_luma_internals_rebuild_a_device():
    source = (CONTROLLER / "coindrel" / "display" / "device.py").read_text()
    assert "__new__" not in source and ".__init__(" not in source
