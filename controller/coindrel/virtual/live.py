"""The live loop: a virtual board served over a pty or a socket, paced
against a real clock, driven by scripts, players, a keyboard or the
controller's own dropper command.

    server = Server(board, WireHub(board), "pty", speed=1.0, link="/tmp/coindrel-hub")
    asyncio.run(server.run())

``clock`` is injectable (tests pass a fake one or run at speed 0); nothing
else here reads the time.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from typing import Callable

from .kernel import Pace
from .serve import PtyTransport, SocketTransport, parse_url

BACKLOG = 16384  # bytes the client may be behind before the hub's own queue fills instead


class Server:
    def __init__(self, board, wire, url: str = "pty", speed: float = 1.0, link: str | None = None,
                 clock: Callable[[], float] = time.monotonic, say: Callable[[str], None] | None = None,
                 until: float | None = None, keyboard: bool = False, hold: bool = False, idle_fast: bool = False,
                 linger: bool = False, own_process: bool = False):
        self.board = board
        self.own_process = own_process  # the board is the process (virtual-board --serve): SIGTERM stops it
        self.wire = wire
        self.kind, host, port = parse_url(url)
        self.speed = speed
        self.pace = Pace(speed, clock)
        self.until = until
        self.keyboard = keyboard
        self.typed: str | None = None  # a hands line being typed after ":"
        self.held = hold  # the board waits for the controller's first bytes before time starts
        self.idle_fast = idle_fast  # speed 0 and idle: keep running flat out (tests, benchmarks) instead of real time
        self.linger = linger  # at ``until``: keep the port open (board time stands still) until stopped
        self.say = say or (lambda msg: print(msg, flush=True))
        self.transport = PtyTransport(self, link) if self.kind == "pty" else SocketTransport(self, host, port)
        self.stopping: asyncio.Event | None = None
        self.wake: asyncio.Event | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.ready = None  # a threading.Event a test may pass in, set once the port is open
        self.finished = None  # and one set once board time has reached ``until``
        self.bytes_out = 0
        self.commands = 0

    # -- control from outside (another thread in tests) --------------------------------

    def poke(self) -> None:
        """Look at the clock again now (a test moved its fake clock)."""
        self._call(lambda: self.wake.set())

    def stop(self) -> None:
        self._call(lambda: (self.stopping.set(), self.wake.set()))

    def _call(self, fn) -> None:
        loop = self.loop
        if loop is not None and self.wake is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(fn)
            except RuntimeError:
                pass  # the loop closed meanwhile: the server has already stopped

    @property
    def url(self) -> str:
        return self.transport.path if self.kind == "pty" else self.transport.url

    # -- callbacks from the transport and the wire ---------------------------------------

    def _catch_up(self) -> None:
        if self.speed or not (self.idle_fast or self.board.busy()):
            speed = self.speed or 1.0
            self.board.run_until(min(self.pace.now(speed), self._limit()))

    def _let_time_run(self) -> None:
        """Board time starts (``--wait``) at the first thing that happens: bytes, a key, a hand."""
        if self.held:
            self.held = False
            self.pace.anchor(self.board.now)

    def incoming(self, data: bytes) -> None:
        self._let_time_run()
        self._catch_up()
        self.commands += 1
        self.wire.receive(data)
        self.wake.set()

    def client_changed(self, connected: bool) -> None:
        self.say("controller connected" if connected else "controller disconnected")
        self.wake.set()

    def _plug(self, plugged: bool) -> None:
        asyncio.ensure_future(self._replug(plugged))

    async def _replug(self, plugged: bool) -> None:
        t = self.transport
        if isinstance(t, PtyTransport):
            if plugged:
                await t.open()
            else:
                await t.close()
                self.say("virtual hub unplugged")
        else:
            if plugged:
                t.replug()
                self.say("virtual hub plugged in again")
            else:
                await t.unplug()
                self.say("virtual hub unplugged")
        self.wake.set()

    def _key(self) -> None:
        import os

        # everything waiting, from the descriptor: a buffered read(1) kept the rest of a piped chunk
        # in Python's buffer, where no readiness callback would ever look ("12" dropped one coin)
        chunk = os.read(sys.stdin.fileno(), 4096)
        if not chunk:  # end of input (a pipe ran out): stop listening, keep serving
            self.loop.remove_reader(sys.stdin)
            self.keyboard = False
            return
        for ch in chunk.decode("utf-8", "replace"):
            self._press(ch)

    def _press(self, ch: str) -> None:
        if self.typed is not None:  # a hands line after ":" (handkeys), until Enter
            if ch in "\r\n":
                line, self.typed = self.typed, None
                self._hands(line)
            elif ch in "\x7f\b":
                self.typed = self.typed[:-1]
            elif ch == "\x1b":
                self.typed = None
                self.say("(hands line dropped)")
            else:
                self.typed += ch
            return
        if ch == ":":
            self.typed = ""
            return
        self._let_time_run()
        if ch in "12345678":
            self._catch_up()
            self.board.drop(int(ch) - 1)
            self.say(f"coin into entry {ch}")
        elif ch in "cC":  # a person takes every resting coin off the pads (before a new match)
            self.clear_pads()
            return
        elif ch in "qQ":
            self.stopping.set()
        self.wake.set()

    def _hands(self, line: str) -> None:
        from ..engine import EngineError
        from .handkeys import hand_action

        try:
            said, act = hand_action(line, self.board)
        except EngineError as e:
            self.say(str(e))
            return
        self._let_time_run()
        self._catch_up()
        try:
            done = act()
        except EngineError as e:
            self.say(f"{said}: {e}")
            return
        self.say(said if done is not False else f"{said}: nothing to do there (the board is already so)")
        self.wake.set()

    def clear_pads(self) -> None:
        """A person takes every resting coin off the pads (the ``c`` key, or
        SIGUSR1 for a board served with no terminal)."""
        self._let_time_run()
        self._catch_up()
        cleared = self.board.clear_pads()
        self.say(f"pads cleared by hand: {', '.join(cleared) if cleared else 'no coin was resting'}")
        self.wake.set()

    # -- the loop --------------------------------------------------------------------

    def _limit(self) -> float:
        return math.inf if self.until is None else self.until

    async def _flush(self) -> None:
        """Hand the wire's frames to the client; while it is behind (or absent)
        they stay in the hub's bounded queue, which loses events when full."""
        t = self.transport
        if t.connected() and t.backlog() < BACKLOG:
            data = self.wire.take()
            if data:
                self.bytes_out += len(data)
                t.send(data)

    async def run(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.stopping, self.wake = asyncio.Event(), asyncio.Event()
        self.wire.on_plug = self._plug
        # kill, systemctl stop: the clean way out, truth closed (a process of its own only: a sim's
        # daemon beside it has its own handler, which this one would replace)
        term = _on_signal(self.loop, "SIGTERM", self.stop) if self.own_process else _NOTHING
        await self.transport.open()
        if self.ready is not None:
            self.ready.set()
        if self.keyboard:
            self.loop.add_reader(sys.stdin, self._key)
        usr1 = _on_signal(self.loop, "SIGUSR1", self.clear_pads)
        if usr1 is not _NOTHING:
            import os

            self.say(f"to take every coin off the pads (as a person does before a new match): kill -USR1 {os.getpid()}")
        self.pace.anchor(self.board.now)
        try:
            await self._loop()
            if self.finished is not None:
                self.finished.set()
            while self.linger and not self.stopping.is_set():
                # board time stands still; commands are still answered
                await self._flush()
                self.wake.clear()
                await self._wait(0.25)
        finally:
            usr1()
            term()
            if self.keyboard:
                self.loop.remove_reader(sys.stdin)
            await self._drain()
            await self.transport.close()

    async def _drain(self, timeout: float = 5.0) -> None:
        """Deliver what the hub has already said before the port closes."""
        t = self.transport
        end = time.monotonic() + timeout
        while t.connected() and (self.wire.outbox or t.backlog()) and time.monotonic() < end:
            await self._flush()
            await t.writable(0.25)

    async def _loop(self) -> None:
        board, limit = self.board, self._limit()
        while not self.stopping.is_set() and board.now < limit:
            await self._flush()
            if self.held:
                self.wake.clear()
                await self._wait(0.25)
                continue
            if self.speed == 0 and (self.idle_fast or board.busy()):
                # flat out while something is happening; the reader sets the pace
                if not self.transport.connected():
                    self.wake.clear()
                    await self._wait(0.25)
                    continue
                if self.transport.backlog() >= BACKLOG:
                    await self.transport.writable(0.25)
                    continue
                for _ in range(500):
                    if board.next_time() > limit:
                        board.run_until(limit)
                        break
                    if not board.sched.step() or self.wire.outbox:
                        break
                self.pace.anchor(board.now)
                await asyncio.sleep(0)
                continue
            speed = self.speed or 1.0
            board.run_until(min(self.pace.now(speed), limit))
            await self._flush()
            wait = min(self.pace.delay(min(board.next_time(), limit), speed), 0.25)
            self.wake.clear()
            if wait > 0:
                await self._wait(wait)

    async def _wait(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self.wake.wait(), seconds)
        except asyncio.TimeoutError:
            pass


def _NOTHING() -> None:
    pass


def _on_signal(loop, name: str, fn) -> Callable[[], None]:
    """The signal ``name`` calls ``fn`` (only where signals can be handled: the main
    thread of a process on a system that has the signal); returns the undo."""
    import signal
    import threading

    sig = getattr(signal, name, None)
    if sig is None or threading.current_thread() is not threading.main_thread():
        return _NOTHING
    try:
        loop.add_signal_handler(sig, fn)
    except (RuntimeError, ValueError, NotImplementedError):
        return _NOTHING
    return lambda: loop.remove_signal_handler(sig)
