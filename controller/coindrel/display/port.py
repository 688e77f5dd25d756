"""``Display``: the port the daemon draws through.

It renders views, sends frames only when they change, and keeps the panel
alive for years of club evenings:

- a panel that stops answering (a loose I2C wire, a brown-out) never stops
  the match: the error is logged once, the frame kept, and the panel
  re-initialised on the same bus with growing pauses until it answers, then
  given the current frame;
- against burn-in, the contrast drops after ``idle_after`` seconds without
  activity and the panel switches off after ``sleep_after``; every
  ``shift_every`` seconds the whole frame moves one pixel around a small
  square (renders leave the last row and column free for that);
- time comes in as an argument (or from the injected ``clock``), so all of
  this is tested without waiting.

Activity is a call to ``wake(now)`` (the daemon calls it for every button
and every coin) or a change to a different kind of screen.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from PIL import Image

from .device import EMULATORS
from .render import render

log = logging.getLogger("coindrel.display")

ORBIT = ((0, 0), (1, 0), (1, 1), (0, 1))  # one-pixel square: renders keep the right column and bottom row free
ON, DIM, OFF = "on", "dim", "off"


def explain(where: str, error: BaseException) -> str:
    """What went wrong with the panel and what a person can do about it."""
    text = str(error)
    kind = type(error).__name__
    if "/dev/i2c" in text:
        return f"{where}: there is no such I2C bus ({text}); enable I2C (sudo raspi-config) or set [display] port"
    if "/dev/spidev" in text or (kind == "DeviceNotFoundError" and "SPI" in text):
        return f"{where}: no SPI device ({text}); enable SPI (sudo raspi-config) or set [display] port"
    if kind == "DevicePermissionError" or isinstance(error, PermissionError):
        return f"{where}: permission denied ({text}); add the service's user to the i2c/spi and gpio groups"
    if where.split()[0] in EMULATORS:  # a picture in a terminal or a file, not a panel on a bus
        if "height and width" in text:
            return (f"{where}: the terminal has no size ({text}); run it in a terminal window, "
                    "or choose --display text")
        return f"{where} could not draw ({kind}: {text}); choose --display text, or another emulator"
    return f"{where} is not answering ({kind}: {text}); check its wiring, power and address"


def _device_errors() -> tuple[type[BaseException], ...]:
    try:
        import luma.core.error

        return (OSError, luma.core.error.Error)
    except ImportError:
        return (OSError,)


def _one_at_a_time(method):
    """The panel is drawn by one caller at a time. The daemon draws new
    screens on the worker thread (``show_async``) while its loop thread ticks
    and wakes the panel: two frames written at once interleave on the bus (or
    in the terminal an emulator draws in), and rows of the older screen stay
    lit among the new one's until the next change."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return locked


class Display:
    def __init__(self, opener, size: tuple[int, int], *, contrast: int = 207, idle_after: float = 120.0,
                 idle_contrast: int = 8, sleep_after: float = 1800.0, shift_every: float = 60.0,
                 refresh_every: float = 0.0, retry_every: float = 2.0, retry_max: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, where: str = "display"):
        self.opener = opener
        self.size = tuple(size)
        self.contrast = contrast
        self.idle_after, self.idle_contrast = idle_after, idle_contrast
        self.sleep_after, self.shift_every, self.refresh_every = sleep_after, shift_every, refresh_every
        self.retry_every, self.retry_max = retry_every, retry_max
        self.clock = clock
        self.where = where
        self.device = None
        self.view = None
        self.frame: Image.Image | None = None  # the last rendered frame, unshifted
        self.sent: Image.Image | None = None  # what the panel shows (shifted, device mode)
        self.problem: str | None = None  # why the panel is not showing frames, for a person
        self.failures = 0  # times the panel stopped answering
        self.render_errors = 0
        self._level: str | None = None  # ON/DIM/OFF as last applied to the device
        self._active_since: float | None = None
        self._retry_at = 0.0
        self._retry_wait = retry_every
        self._opened_at: float | None = None
        self._closed = False
        self._errors = _device_errors()
        self._failed_view = None  # a view that would not draw: not retried (nor logged) every frame
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.RLock()  # see _one_at_a_time

    # -- what the daemon calls -------------------------------------------------

    @property
    def healthy(self) -> bool:
        return self.device is not None

    @_one_at_a_time
    def show(self, view, now: float | None = None) -> bool:
        """Draw ``view`` (if it differs from the last one) and bring the panel up
        to date. True when the panel shows it; never raises."""
        now = self._now(now)
        if self.view is None or type(view) is not type(self.view):
            self._activity(now)
        if view != self.view or self.frame is None:
            if self._failed_view is not None and view == self._failed_view:
                return False
            try:
                frame = render(view, self.size)
            except Exception:
                self.render_errors += 1
                self._failed_view = view
                log.exception("could not draw %s; the panel keeps the previous frame", type(view).__name__)
                return False
            self.view, self.frame, self._failed_view = view, frame, None
        return self.tick(now)

    @_one_at_a_time
    def wake(self, now: float | None = None) -> bool:
        """Something happened (a button, a coin): full brightness again."""
        now = self._now(now)
        self._activity(now)
        return self.tick(now)

    @_one_at_a_time
    def tick(self, now: float | None = None) -> bool:
        """Apply dimming, sleep, the pixel shift and reconnection for ``now``
        without a new view; the daemon calls it at least every few seconds
        (``next_deadline`` says when something is due)."""
        if self._closed:
            return False
        now = self._now(now)
        if self._active_since is None:
            self._active_since = now
        if self.device is None:
            if self.opener is None or now < self._retry_at:
                return False
            if not self._open(now):
                return False
        elif self.refresh_every and self._opened_at is not None and now - self._opened_at >= self.refresh_every:
            if not self._open(now):  # a silently reset panel comes back with the next frame
                return False
        return self._update(now)

    def mode(self, now: float | None = None) -> str:
        """ON, DIM or OFF for ``now``, from the time since the last activity."""
        now = self._now(now)
        idle = now - (self._active_since if self._active_since is not None else now)
        if self.sleep_after and idle >= self.sleep_after:
            return OFF
        if self.idle_after and idle >= self.idle_after:
            return DIM
        return ON

    def offset(self, now: float | None = None) -> tuple[int, int]:
        if not self.shift_every:
            return (0, 0)
        return ORBIT[int(self._now(now) // self.shift_every) % len(ORBIT)]

    def next_deadline(self, now: float | None = None) -> float | None:
        """The next time ``tick`` would change something by itself, or None."""
        now = self._now(now)
        if self._closed:
            return None
        if self.device is None:
            return self._retry_at if self.opener is not None else None
        times = []
        since = self._active_since if self._active_since is not None else now
        for after in (self.idle_after, self.sleep_after):
            if after and since + after > now:
                times.append(since + after)
        if self.shift_every:
            times.append((int(now // self.shift_every) + 1) * self.shift_every)
        if self.refresh_every and self._opened_at is not None:
            times.append(self._opened_at + self.refresh_every)
        return min(times) if times else None

    # A frame takes about 25 ms to cross a 400 kHz I2C bus. An asyncio daemon
    # that must not stall for that uses these: the same calls, run one at a
    # time on a worker thread of their own.

    async def show_async(self, view, now: float | None = None) -> bool:
        return await self._in_worker(self.show, view, now)

    async def wake_async(self, now: float | None = None) -> bool:
        return await self._in_worker(self.wake, now)

    async def tick_async(self, now: float | None = None) -> bool:
        return await self._in_worker(self.tick, now)

    async def _in_worker(self, fn, *args):
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="coindrel-display")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def close(self) -> None:
        """Let go of the panel; with persist (the default) it keeps its last frame."""
        if self._closed:
            return
        if self._executor is not None:
            self._executor.shutdown(wait=True)  # let a frame on its way finish first
        with self._lock:  # and one another thread is drawing
            self._closed = True
            if self.opener is not None:
                try:
                    self.opener.close()
                except Exception as e:  # shutting down: say so, carry on
                    log.warning("closing %s: %s", self.where, e)
            self.device = None

    @_one_at_a_time
    def startup_check(self, now: float | None = None) -> None:
        """Open the panel once, now. A problem no retry can fix (a size the
        driver cannot drive, a missing library) raises ConfigError; a panel
        that is merely not answering leaves the display retrying."""
        from ..config import ConfigError

        if self.opener is None or self.device is not None:
            return
        now = self._now(now)
        try:
            device = self.opener.open()
        except ConfigError:
            raise
        except ImportError as e:
            hint = ("pip install 'coindrel-table[spi-display]' (spidev, and rpi-lgpio for the D/C and reset lines)"
                    if "spidev" in str(e) or "RPi" in str(e) else "install the missing library")
            raise ConfigError(f"[display] {self.where}: {e}; {hint}") from None
        except Exception as e:
            fatal = type(e).__name__ in ("DeviceDisplayModeError", "DeviceAddressError", "UnsupportedPlatform")
            if fatal or isinstance(e, (TypeError, ValueError, AssertionError)):
                raise ConfigError(f"[display] {self.where}: {e}; check driver, width, height and address") from None
            self._lost(now, e, opening=True)
            return
        if device is None:
            self.opener = None
            return
        if tuple(device.size) != self.size:
            raise ConfigError(f"[display] {self.where}: the driver draws {device.size[0]}x{device.size[1]}, "
                              f"not {self.size[0]}x{self.size[1]}; check width, height and rotate")
        self.device, self._opened_at, self._level = device, now, None

    # -- inside ------------------------------------------------------------------

    def _now(self, now: float | None) -> float:
        return self.clock() if now is None else float(now)

    def _activity(self, now: float) -> None:
        self._active_since = now

    def _open(self, now: float) -> bool:
        try:
            device = self.opener.open()
        except Exception as e:
            self._lost(now, e, opening=True)
            return False
        if device is None:  # driver "none": there is no panel, and that is fine
            self.opener = None
            return False
        if tuple(device.size) != self.size:
            self._lost(now, RuntimeError(f"the driver reports {device.size[0]}x{device.size[1]}, "
                                         f"the config says {self.size[0]}x{self.size[1]}"), opening=True)
            return False
        if self.failures or self.problem:
            log.warning("%s answers again", self.where)
        self.device, self.problem = device, None
        self._retry_wait = self.retry_every
        self._opened_at = now
        self._level, self.sent = None, None  # a fresh init: send everything again
        return True

    def _lost(self, now: float, error: BaseException, opening: bool = False) -> None:
        first = self.problem is None
        self.device = None
        self.sent = None
        self._level = None
        if not opening:
            self.failures += 1
        self.problem = explain(self.where, error)
        self._retry_at = now + self._retry_wait
        if first:
            if isinstance(error, self._errors):
                log.warning("%s; retrying every %g s up to %g s", self.problem, self.retry_every, self.retry_max)
            else:  # the person reads the problem; the traceback is for whoever debugs with -v
                log.error("%s", self.problem)
                log.debug("%s failed", self.where, exc_info=error)
        else:
            log.debug("%s still not answering: %s", self.where, error)
        self._retry_wait = min(self.retry_max, self._retry_wait * 2)

    def _update(self, now: float) -> bool:
        device = self.device
        level = self.mode(now)
        try:
            if level != self._level:
                if level == OFF:
                    device.hide()
                else:
                    device.contrast(self.contrast if level == ON else self.idle_contrast)
                    if self._level == OFF or self._level is None:
                        device.show()
                self._level = level
            if level == OFF or self.frame is None:
                return level == OFF and self.frame is not None
            image = self._prepare(self.frame, now)
            if self.sent is not None and image.tobytes() == self.sent.tobytes():
                return True
            device.display(image)
            self.sent = image
            return True
        except Exception as e:
            self._lost(now, e)
            return False

    def _prepare(self, frame: Image.Image, now: float) -> Image.Image:
        dx, dy = self.offset(now)
        image = frame
        if dx or dy:
            image = Image.new(frame.mode, frame.size, 0)
            image.paste(frame, (dx, dy))
        mode = getattr(self.device, "mode", "1")
        return image if image.mode == mode else image.convert(mode)


def open_display(section, *, clock: Callable[[], float] = time.monotonic, bus=None, spi=None, gpio=None) -> Display:
    """The ``Display`` for a ``[display]`` config section (a ``coindrel.config.Section``).

    A bad section raises ConfigError. A panel that is configured right but
    does not answer yet (unplugged, I2C not enabled) does not: the display
    starts without it, says why in ``problem``, and keeps trying."""
    from .device import DisplayConfig

    return display_from_config(DisplayConfig.from_section(section), clock=clock, bus=bus, spi=spi, gpio=gpio)


def display_from_config(cfg, *, clock: Callable[[], float] = time.monotonic, bus=None, spi=None, gpio=None) -> Display:
    """The ``Display`` for an already checked ``DisplayConfig``."""
    from .device import DeviceOpener

    opener = DeviceOpener(cfg, bus=bus, spi=spi, gpio=gpio)
    display = Display(opener, cfg.size, contrast=cfg.contrast, idle_after=cfg.idle_after,
                      idle_contrast=cfg.idle_contrast, sleep_after=cfg.sleep_after, shift_every=cfg.shift_every,
                      refresh_every=cfg.refresh_every, retry_every=cfg.retry_every, retry_max=cfg.retry_max,
                      clock=clock, where=cfg.describe())
    display.startup_check()
    return display
