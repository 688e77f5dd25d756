"""sd_notify for the daemon, and the watchdog feeder that runs on its event loop.

The protocol (sd_notify(3)): newline-separated ``KEY=VALUE`` assignments in
one datagram to the unix socket named by ``$NOTIFY_SOCKET``; a name starting
with ``@`` is in the abstract namespace (a leading NUL byte). Written with the
standard ``socket`` module: a few lines, no extra dependency, and it works the
same on a developer's machine (no socket: every call is a quiet no-op).

The watchdog (``WatchdogSec=``) expects ``WATCHDOG=1`` at least every
``$WATCHDOG_USEC`` microseconds. The feeder is an asyncio task pinging at half
that period, so a blocked or dead event loop stops the pings and systemd
restarts the daemon, which then resumes the match from its journal.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from typing import Awaitable, Callable, Mapping

log = logging.getLogger(__name__)


def socket_address(value: str) -> str:
    """The ``sendto`` address for a ``$NOTIFY_SOCKET`` value."""
    if value.startswith("@"):
        return "\0" + value[1:]
    if value.startswith("/"):
        return value
    raise ValueError(f"NOTIFY_SOCKET={value!r} is neither a socket path nor an abstract name (@...)")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class Notifier:
    """Talks to the service manager; every method returns whether it was sent."""

    def __init__(self, address: str | None = None, env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        self.name = env.get("NOTIFY_SOCKET", "") if address is None else address
        self.address: str | None = None
        self.last_error: str | None = None
        self._sock: socket.socket | None = None
        if self.name:
            try:
                self.address = socket_address(self.name)
            except ValueError as e:
                self.last_error = str(e)
                log.warning("sd_notify disabled: %s", e)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *assignments: str) -> bool:
        """Send ``KEY=VALUE`` lines in one datagram."""
        if self.address is None or not assignments:
            return False
        data = "\n".join(assignments).encode("utf-8")
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                # The manager drains its socket quickly; never hang the loop on it.
                self._sock.settimeout(1.0)
            self._sock.sendto(data, self.address)
        except OSError as e:
            if self.last_error is None:
                log.warning("sd_notify to %s failed: %s", self.name, e.strerror or e)
            self.last_error = e.strerror or str(e)
            self.close()
            return False
        self.last_error = None
        return True

    def ready(self, status: str | None = None) -> bool:
        """Start-up is complete (Type=notify: the service counts as started)."""
        return self.send("READY=1", *([f"STATUS={_one_line(status)}"] if status else []))

    def status(self, text: str) -> bool:
        """The one line ``systemctl status`` shows."""
        return self.send(f"STATUS={_one_line(text)}")

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def watchdog_trigger(self) -> bool:
        """Ask the manager to treat the daemon as hung (and restart it)."""
        return self.send("WATCHDOG=trigger")

    def stopping(self, status: str | None = None) -> bool:
        return self.send("STOPPING=1", *([f"STATUS={_one_line(status)}"] if status else []))

    def reloading(self) -> bool:
        return self.send("RELOADING=1")

    def extend_timeout(self, seconds: float) -> bool:
        """More time for start-up or shutdown (e.g. replaying a long journal)."""
        return self.send(f"EXTEND_TIMEOUT_USEC={max(1, int(seconds * 1_000_000))}")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_usec(env: Mapping[str, str] | None = None, pid: int | None = None) -> int | None:
    """``$WATCHDOG_USEC`` if the manager watches this very process, else None."""
    env = os.environ if env is None else env
    raw = env.get("WATCHDOG_USEC", "")
    if not raw:
        return None
    try:
        usec = int(raw)
    except ValueError:
        log.warning("ignoring WATCHDOG_USEC=%r: not a number", raw)
        return None
    if usec <= 0:
        return None
    owner = env.get("WATCHDOG_PID", "")
    if owner:
        try:
            if int(owner) != (os.getpid() if pid is None else pid):
                return None  # meant for another process (e.g. our parent)
        except ValueError:
            return None
    return usec


class WatchdogFeeder:
    """Pings the watchdog every ``period`` seconds (half of WATCHDOG_USEC).

    Pings keep a fixed cadence (no drift from the time each ping takes); after
    the loop was held up for longer than a period, the next ping goes out at
    once and the cadence restarts from then, never in a burst. ``healthy()``
    returning False withholds the ping, so the manager restarts a daemon that
    is running but broken (for instance its journal can no longer be saved).
    ``clock`` and ``sleep`` are injectable: tests drive it with a fake clock.
    """

    def __init__(self, notifier: Notifier, period: float, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 healthy: Callable[[], bool] | None = None,
                 on_late: Callable[[float], None] | None = None):
        if not period > 0:
            raise ValueError(f"the watchdog period must be positive, not {period!r}")
        self.notifier = notifier
        self.period = period
        self.clock = clock
        self.sleep = sleep
        self.healthy = healthy or (lambda: True)
        self.on_late = on_late
        self.pings = 0
        self.withheld = 0
        self.late = 0
        self.max_lag = 0.0
        self._task: asyncio.Task | None = None

    @classmethod
    def from_env(cls, notifier: Notifier, env: Mapping[str, str] | None = None, **kw) -> "WatchdogFeeder | None":
        """A feeder at half of ``$WATCHDOG_USEC``, or None if no watchdog is set."""
        usec = watchdog_usec(env)
        if usec is None or not notifier.enabled:
            return None
        return cls(notifier, usec / 2_000_000, **kw)

    def tick(self) -> bool:
        """One ping (if healthy); returns whether it was sent."""
        if not self.healthy():
            self.withheld += 1
            log.error("watchdog ping withheld: the daemon reports itself unhealthy")
            return False
        self.notifier.watchdog()
        self.pings += 1
        return True

    async def run(self) -> None:
        due = self.clock()
        while True:
            now = self.clock()
            lag = now - due
            self.max_lag = max(self.max_lag, lag)
            if lag > self.period:
                self.late += 1
                log.warning("the event loop was held up for %.2f s (watchdog period %.2f s)", lag, self.period)
                if self.on_late:
                    self.on_late(lag)
            self.tick()
            due += self.period
            now = self.clock()
            if due <= now:
                due = now + self.period
            await self.sleep(due - now)

    def start(self) -> asyncio.Task:
        """Run on the current event loop; ``stop()`` (or cancelling) ends it."""
        self._task = asyncio.get_running_loop().create_task(self.run(), name="watchdog")
        return self._task

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
