"""The ``[display]`` config section and the luma device it describes.

    [display]
    driver = "ssd1306"      # a luma.oled driver (ssd1306, sh1106, ssd1309, ssd1322, ...),
                            # "dummy", an emulator (capture, gifanim, pygame, asciiblock,
                            # asciiart) or "none"
    interface = "i2c"       # or "spi"
    port = 1                # I2C bus (/dev/i2c-1) or SPI port
    address = 0x3C          # I2C address
    width = 128
    height = 64
    rotate = 0              # 0..3, quarter turns clockwise
    contrast = 207          # 0..255 while in use
    idle_after = 120        # seconds without activity before dimming (0: never)
    idle_contrast = 8
    sleep_after = 1800      # seconds without activity before switching off (0: never)
    shift_every = 60        # seconds between one-pixel shifts against burn-in (0: never)
    refresh_every = 0       # seconds between full re-initialisations (0: never); for
                            # panels that reset silently on a power dip
    retry_every = 2         # a panel not answering is retried after this, doubling...
    retry_max = 60          # ...up to this
    persist = true          # keep the last frame lit when the program ends

    # SPI panels: port/spi_device pick /dev/spidevP.D
    spi_device = 0
    spi_speed_hz = 8000000
    dc_pin = 24
    reset_pin = 25

    # emulators (pip install 'coindrel-table[sim]')
    scale = 2
    transform = "scale2x"   # none, identity, scale2x, smoothscale, led_matrix, seven_segment
    file = "out/table.gif"  # capture: a file name template like "out/frame_{0:06}.png"; gifanim: the GIF
    frame_time = 0.5        # gifanim: seconds each frame shows in the GIF

Parsing touches no hardware. What luma supports is asked of luma itself
(``luma.core.cmdline``: its driver names, its emulator transforms, and its SPI
interface for the bus speeds it takes), so a newer luma needs no change here.
``DeviceOpener`` builds the device with luma's public classes (the interface
from ``luma.core.interface.serial``, the driver's own constructor), keeping
the bus open between attempts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..config import ConfigError, Section

MIN_WIDTH, MIN_HEIGHT = 128, 64
# The emulators coindrel configures (luma.emulator says at open whether it has them).
EMULATORS = ("capture", "gifanim", "pygame", "asciiblock", "asciiart")
PSEUDO = ("dummy", "none")
CHARACTER_DRIVERS = ("ws0010", "winstar_weh")  # luma.oled's text-only modules: no pixels to draw on
NOP = 0xE3  # a no-op command on SSD13xx/SH110x controllers: probes the bus without side effects


def oled_drivers() -> tuple[str, ...]:
    """The pixel OLED drivers the installed luma.oled has (luma's own list)."""
    from luma.core.cmdline import get_choices

    return tuple(sorted(set(get_choices("luma.oled.device")) - set(CHARACTER_DRIVERS)))


def transforms() -> tuple[str, ...]:
    """The emulators' scaling transforms, as luma.emulator lists them (empty without it)."""
    from luma.core.cmdline import get_transformer_choices

    try:
        return tuple(get_transformer_choices())
    except ImportError:
        return ()


class _Idle:
    """Stands in for spidev and RPi.GPIO while luma's SPI interface checks its
    arguments: every call does nothing."""

    BCM = OUT = IN = HIGH = LOW = 0

    def __getattr__(self, name):
        return lambda *a, **k: None


def spi_speed_accepted(hz: int) -> bool:
    """Whether luma's SPI interface takes this bus speed (asked of luma itself,
    on stand-in hardware)."""
    from luma.core.interface import serial

    try:
        serial.spi(spi=_Idle(), gpio=_Idle(), bus_speed_hz=hz)
    except AssertionError:
        return False
    return True


@dataclass(frozen=True)
class DisplayConfig:
    driver: str = "ssd1306"
    interface: str = "i2c"
    port: int = 1
    address: int = 0x3C
    spi_device: int = 0
    spi_speed_hz: int = 8_000_000
    dc_pin: int | str = 24
    reset_pin: int | str = 25
    width: int = 128
    height: int = 64
    rotate: int = 0
    contrast: int = 207
    idle_after: float = 120.0
    idle_contrast: int = 8
    sleep_after: float = 1800.0
    shift_every: float = 60.0
    refresh_every: float = 0.0
    retry_every: float = 2.0
    retry_max: float = 60.0
    persist: bool = True
    scale: int = 2
    transform: str = "scale2x"
    file: str | None = None
    frame_time: float = 0.5

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) as drawn on, after rotation."""
        return (self.width, self.height) if self.rotate % 2 == 0 else (self.height, self.width)

    @property
    def is_emulator(self) -> bool:
        return self.driver in EMULATORS

    @property
    def is_hardware(self) -> bool:
        return self.driver not in EMULATORS and self.driver not in PSEUDO

    def describe(self) -> str:
        """Where the panel is, as a person checking the wiring needs it."""
        if not self.is_hardware:
            return f"{self.driver} display"
        if self.interface == "i2c":
            return f"{self.driver} on I2C bus {self.port} at 0x{self.address:02X}"
        return f"{self.driver} on SPI {self.port}.{self.spi_device}"

    def pins(self) -> dict[int | str, str]:
        """GPIO pins this display takes, with the key (or bus) that takes them,
        for checking against the inputs' and outputs' pins."""
        if not self.is_hardware:
            return {}
        if self.interface == "i2c":
            return {2: f"[display] I2C bus {self.port} (SDA)", 3: f"[display] I2C bus {self.port} (SCL)"} if self.port == 1 else {}
        taken = {9: "[display] SPI (MISO)", 10: "[display] SPI (MOSI)", 11: "[display] SPI (SCLK)",
                 (8 if self.spi_device == 0 else 7): f"[display] SPI (CE{self.spi_device})"} if self.port == 0 else {}
        taken[self.dc_pin] = "[display] dc_pin"
        taken[self.reset_pin] = "[display] reset_pin"
        return taken

    @classmethod
    def from_section(cls, s: Section) -> "DisplayConfig":
        driver = s.str("driver", "ssd1306")
        drivers = () if driver in EMULATORS + PSEUDO else oled_drivers()
        choices = drivers + EMULATORS + PSEUDO
        if not drivers and driver not in EMULATORS + PSEUDO:
            s.fail("driver", f"{driver!r} needs luma.oled, which is not installed here; pip install luma.oled")
        if driver in CHARACTER_DRIVERS:
            s.fail("driver", f"{driver!r} is a character module with no pixels; use a pixel OLED such as 'ssd1306' or 'sh1106'")
        if driver not in choices:
            s.fail("driver", f"{driver!r} is not a display luma knows; use one of {', '.join(choices)}")
        d = {"driver": driver}
        d["interface"] = s.str("interface", "i2c", choices=("i2c", "spi"))
        spi = d["interface"] == "spi"
        d["port"] = s.int("port", 0 if spi else 1, lo=0, hi=20)
        address = s.get("address", 0x3C)
        if isinstance(address, str):
            try:
                address = int(address, 0)
            except ValueError:
                s.fail("address", f"{address!r} is not a number; write the I2C address like 0x3C (i2cdetect shows it)")
        if not isinstance(address, int) or isinstance(address, bool) or not 0x03 <= address <= 0x77:
            s.fail("address", f"{address!r} is not an I2C address (0x03..0x77); the usual ones are 0x3C and 0x3D")
        d["address"] = address
        d["spi_device"] = s.int("spi_device", 0, lo=0, hi=1)
        speed = s.int("spi_speed_hz", 8_000_000, lo=1)
        if d["interface"] == "spi" and not spi_speed_accepted(speed):
            s.fail("spi_speed_hz", f"{speed} is not a speed luma's SPI accepts; use a whole number of MHz it takes, "
                                   "e.g. 8000000 (8 MHz, the default), 16000000 or 32000000")
        d["spi_speed_hz"] = speed
        d["dc_pin"] = s.pin("dc_pin", 24)
        d["reset_pin"] = s.pin("reset_pin", 25)
        d["width"] = s.int("width", 128, lo=8, hi=1024)
        d["height"] = s.int("height", 64, lo=8, hi=1024)
        d["rotate"] = s.int("rotate", 0, lo=0, hi=3)
        d["contrast"] = s.int("contrast", 207, lo=0, hi=255)
        d["idle_contrast"] = s.int("idle_contrast", 8, lo=0, hi=255)
        for key, default in (("idle_after", 120.0), ("sleep_after", 1800.0), ("shift_every", 60.0),
                             ("refresh_every", 0.0), ("retry_every", 2.0), ("retry_max", 60.0), ("frame_time", 0.5)):
            d[key] = s.float(key, default, lo=0.0)
        if d["retry_every"] <= 0:
            s.fail("retry_every", "must be more than 0 seconds")
        if d["retry_max"] < d["retry_every"]:
            s.fail("retry_max", f"must be at least retry_every ({d['retry_every']:g} s)")
        if d["sleep_after"] and d["idle_after"] and d["sleep_after"] < d["idle_after"]:
            s.fail("sleep_after", f"is shorter than idle_after ({d['idle_after']:g} s); the panel dims before it sleeps")
        d["persist"] = s.bool("persist", True)
        d["scale"] = s.int("scale", 2, lo=1, hi=8)
        if driver in EMULATORS and not transforms():
            s.fail("driver", f"{driver!r} is an emulator from luma.emulator, which is not installed here; "
                             "pip install 'coindrel-table[sim]'")
        d["transform"] = s.str("transform", "scale2x", choices=transforms() if driver in EMULATORS else None)
        d["file"] = s.str("file", None)
        if d["file"] is not None and driver not in ("capture", "gifanim"):
            s.fail("file", f"only the 'capture' and 'gifanim' drivers write files, not {driver!r}")
        if d["file"] is None and driver in ("capture", "gifanim"):  # luma's default: the daemon's working folder
            example = "out/frame_{0:06}.png" if driver == "capture" else "out/table.gif"
            s.fail("file", f"the {driver!r} driver writes {'a PNG per frame' if driver == 'capture' else 'a GIF'}: "
                           f"say where, e.g. file = \"{example}\" (in a folder that exists)")
        s.check_unknown()
        cfg = cls(**d)
        w, h = cfg.size
        if driver != "none" and (w < MIN_WIDTH or h < MIN_HEIGHT):
            if cfg.width >= MIN_WIDTH or cfg.height >= MIN_WIDTH:
                fix = "turn it a quarter with rotate = 1 (or 3) so it is wide"
            else:
                fix = f"a panel needs at least {MIN_WIDTH}x{MIN_HEIGHT} pixels for the sixteen exit values"
            s.fail("rotate" if cfg.width != w else "width", f"the panel draws as {w}x{h}; {fix}")
        return cfg


def check_output_file(file: str) -> None:
    """An emulator that writes files needs its folder: without it every frame
    fails, which retrying (as for a loose wire) cannot fix."""
    from pathlib import Path

    target = Path(file)
    folder = target.parent
    if target.is_dir():
        raise ConfigError(f"[display] file: {file} is a folder; give a file name inside it")
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise ConfigError(f"[display] file: the folder {folder} {what}; create it (mkdir -p {folder}) "
                          "or write the frames somewhere else")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"[display] file: cannot write in {folder} (permission denied); choose a folder you may write")


class DeviceOpener:
    """Builds the configured luma device; ``open()`` again, after a failure or
    to refresh, builds it again on the same bus with luma's public classes.

    luma registers an exit hook holding every device it constructs, so a
    device is constructed only once the panel has answered a no-op command on
    the bus: a panel that is away for an evening costs probes, not devices.

    ``bus`` (an smbus-compatible object) or ``spi``/``gpio`` (spidev- and
    RPi.GPIO-compatible) replace the real ones, for tests and unusual hosts.
    """

    GREYSCALE = ("ssd1322", "ssd1322_nhd", "ssd1325", "ssd1327", "ssd1362", "ssd1363")

    def __init__(self, config: DisplayConfig, *, bus=None, spi=None, gpio=None):
        self.config = config
        self._bus, self._spi, self._gpio = bus, spi, gpio
        self._interface = None
        self._device = None
        self.opened = 0  # successful (re-)initialisations
        self.built = 0  # luma devices constructed

    def open(self):
        """A ready device (init sequence sent, contrast set), or an exception
        saying why not. Returns None only for driver "none"."""
        cfg = self.config
        if cfg.driver == "none":
            return None
        if cfg.is_hardware:
            # A new device for every (re-)initialisation: its constructor sends
            # the init sequence, the one public way to do that.
            self._device = self._oled()
        elif self._device is None:  # dummy and emulators: nothing on a bus to re-initialise
            if cfg.driver == "dummy":
                from luma.core.device import dummy

                self._device = dummy(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode="1")
            else:
                self._device = self._emulator()
            self.built += 1
        device = self._device
        device.persist = cfg.persist
        device.contrast(cfg.contrast)
        self.opened += 1
        return device

    def _emulator(self):
        cfg = self.config
        try:
            import luma.emulator.device as emulators
        except ImportError as e:
            raise ConfigError(f"[display] driver: {cfg.driver!r} needs luma.emulator (pip install 'coindrel-table[sim]'): {e}") from None
        if cfg.file:
            check_output_file(cfg.file)
        kwargs = dict(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode="1",
                      transform=cfg.transform, scale=cfg.scale)
        if cfg.driver == "capture" and cfg.file:
            kwargs["file_template"] = cfg.file
        if cfg.driver == "gifanim":
            kwargs["duration"] = cfg.frame_time
            if cfg.file:
                kwargs["filename"] = cfg.file
        return getattr(emulators, cfg.driver)(**kwargs)

    def _oled_args(self) -> dict:
        cfg = self.config
        # Greyscale controllers draw a 1-bit image directly in mode "1"; the
        # others take their own mode and ignore this.
        mode = "1" if cfg.driver in self.GREYSCALE else "RGB"
        return dict(serial_interface=self._interface, width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode=mode)

    def _oled(self):
        cfg = self.config
        from luma.core.cmdline import get_choices

        if cfg.driver not in get_choices("luma.oled.device"):
            raise ConfigError(f"[display] driver: the installed luma.oled has no {cfg.driver!r}; upgrade luma.oled")
        import luma.oled.device as oled

        if self._interface is None:
            self._interface = self._make_interface()
        self._interface.command(NOP)  # not answering? then stop before luma builds (and keeps) a device
        device = getattr(oled, cfg.driver)(**self._oled_args())
        self.built += 1
        return device

    def _make_interface(self):
        cfg = self.config
        from luma.core.interface import serial

        if cfg.interface == "i2c":
            if self._bus is not None:
                return serial.i2c(bus=self._bus, address=cfg.address)
            return serial.i2c(port=cfg.port, address=cfg.address)
        try:
            return serial.spi(spi=self._spi, gpio=self._gpio, port=cfg.port, device=cfg.spi_device,
                              bus_speed_hz=cfg.spi_speed_hz, gpio_DC=cfg.dc_pin, gpio_RST=cfg.reset_pin)
        except AssertionError:  # luma's own check of the bus speed
            raise ConfigError(f"[display] spi_speed_hz: luma's SPI does not take {cfg.spi_speed_hz} Hz; "
                              "use e.g. 8000000 (8 MHz)") from None

    def close(self) -> None:
        """Shut down for good: luma's cleanup (persist keeps the last frame on
        the panel), and an emulated GIF is written now rather than at exit."""
        device, self._device = self._device, None
        try:
            if device is not None:
                if self.config.driver == "gifanim":
                    device.write_animation()
                device.cleanup()
                # luma's atexit hook calls cleanup again: the terminal emulator's clears the screen
                # a second time, after the sim printed its summary there
                device.cleanup = lambda: None
            elif self._interface is not None:
                self._interface.cleanup()
        finally:
            self._interface = None
