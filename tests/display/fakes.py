"""Stand-ins for the buses under luma's real drivers, and panels that read
back what the drivers sent, so tests check the pixels a panel would show.

``FakeI2CBus`` is an smbus-compatible object for luma's ``i2c(bus=...)``;
``SSD1306Panel`` interprets the command/data stream as an SSD1306 does
(horizontal addressing, contrast, on/off). ``FakeSpi``/``FakeGpio`` do the
same for luma's ``spi(spi=..., gpio=...)``, read by ``SSD1322Panel``.
"""

import errno

from PIL import Image

# SSD1306 commands that take argument bytes, and how many.
_ARGS = {0x81: 1, 0xD5: 1, 0xA8: 1, 0xD3: 1, 0x8D: 1, 0x20: 1, 0xDA: 1, 0xD9: 1, 0xDB: 1, 0x21: 2, 0x22: 2}


class FakeI2CBus:
    """Records writes; ``fail = True`` makes every write fail as a panel that
    stopped answering does (EREMOTEIO: no acknowledge)."""

    def __init__(self, panel=None):
        self.panel = panel
        self.fail = False
        self.writes = 0
        self.closed = False

    def write_i2c_block_data(self, addr, mode, data):
        if self.fail:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.writes += 1
        if self.panel is not None:
            self.panel.receive(addr, mode, list(data))

    def close(self):
        self.closed = True


class SSD1306Panel:
    def __init__(self, width=128, height=64):
        self.w, self.h = width, height
        self.ram = bytearray(width * height // 8)
        self.on = False
        self.contrast = None
        self.inits = 0  # charge pump commands seen: one per init sequence
        self.nops = 0
        self.frames = 0  # data transfers that started at column 0, page 0
        self.commands: list[int] = []
        self._pending: list[int] = []
        self._col = self._page = 0
        self._cols = (0, width - 1)
        self._pages = (0, height // 8 - 1)

    def receive(self, addr, mode, data):
        if mode == 0x00:
            self._command_bytes(data)
        else:
            self._data(data)

    def _command_bytes(self, data):
        for b in data:
            if self._pending:
                self._pending.append(b)
            else:
                self._pending = [b]
            cmd = self._pending[0]
            if len(self._pending) - 1 < _ARGS.get(cmd, 0):
                continue
            self._execute(self._pending)
            self._pending = []

    def _execute(self, c):
        cmd = c[0]
        self.commands.append(cmd)
        if cmd == 0xAE:
            self.on = False
        elif cmd == 0xAF:
            self.on = True
        elif cmd == 0x81:
            self.contrast = c[1]
        elif cmd == 0x8D:
            self.inits += 1
        elif cmd == 0xE3:
            self.nops += 1
        elif cmd == 0x21:
            self._cols = (c[1], c[2])
            self._col = c[1]
        elif cmd == 0x22:
            self._pages = (c[1], c[2])
            self._page = c[1]
            if (self._col, self._page) == (0, 0):
                self.frames += 1

    def _data(self, data):
        for b in data:
            self.ram[self._page * self.w + self._col] = b
            self._col += 1
            if self._col > self._cols[1]:
                self._col = self._cols[0]
                self._page += 1
                if self._page > self._pages[1]:
                    self._page = self._pages[0]

    def image(self) -> Image.Image:
        img = Image.new("1", (self.w, self.h))
        px = img.load()
        for page in range(self.h // 8):
            for x in range(self.w):
                b = self.ram[page * self.w + x]
                for bit in range(8):
                    if b >> bit & 1:
                        px[x, page * 8 + bit] = 1
        return img


class FakeGpio:
    """RPi.GPIO-compatible enough for luma's spi: remembers the D/C line."""

    OUT, IN, HIGH, LOW, BCM = "out", "in", 1, 0, "bcm"

    def __init__(self, dc_pin=24):
        self.dc_pin = dc_pin
        self.levels = {}

    def setmode(self, mode):
        pass

    def setup(self, pin, direction, **kwargs):
        self.levels[pin] = kwargs.get("initial", 0)

    def output(self, pin, level):
        self.levels[pin] = level

    def cleanup(self, *pins):
        pass


class FakeSpi:
    def __init__(self, gpio, panel):
        self.gpio, self.panel = gpio, panel
        self.max_speed_hz = None
        self.opened = None
        self.closed = False

    def open(self, port, device):
        self.opened = (port, device)

    def writebytes(self, data):
        kind = "data" if self.gpio.levels.get(self.gpio.dc_pin) == self.gpio.HIGH else "command"
        self.panel.receive(kind, list(data))

    def close(self):
        self.closed = True


class SSD1322Panel:
    """Reads back an SSD1322 (4 bits per pixel, column addresses in units of
    four pixels, a 480-pixel-wide RAM centred on the glass)."""

    def __init__(self, width=256, height=64):
        self.w, self.h = width, height
        self.offset = (480 - width) // 2
        self.ram = [[0] * 480 for _ in range(128)]
        self._cmd = None
        self._args: list[int] = []
        self._cols = (0, 119)
        self._rows = (0, 127)
        self._x = self._y = 0
        self.writes_pixels = 0

    def receive(self, kind, data):
        if kind == "command":
            for b in data:
                self._cmd, self._args = b, []
                if b == 0x5C:
                    self._x, self._y = self._cols[0] * 4, self._rows[0]
            return
        if self._cmd == 0x5C:
            for b in data:
                for nib in (b >> 4, b & 0x0F):
                    self.ram[self._y][self._x] = nib
                    self.writes_pixels += 1
                    self._x += 1
                    if self._x > self._cols[1] * 4 + 3:
                        self._x = self._cols[0] * 4
                        self._y += 1
            return
        self._args.extend(data)
        if self._cmd == 0x15 and len(self._args) >= 2:
            self._cols = (self._args[0], self._args[1])
        elif self._cmd == 0x75 and len(self._args) >= 2:
            self._rows = (self._args[0], self._args[1])

    def image(self) -> Image.Image:
        img = Image.new("1", (self.w, self.h))
        px = img.load()
        for y in range(self.h):
            for x in range(self.w):
                if self.ram[y][self.offset + x]:
                    px[x, y] = 1
        return img
