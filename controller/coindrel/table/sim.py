"""``coindrel sim``: the daemon against the virtual board, on one machine.

The virtual board and hub (``coindrel.virtual``) are served on a pty and the
table reads them through the real hub link, exactly as it reads
/dev/coindrel-hub. The OLED is emulated (luma.emulator in the terminal, PNG
frames or a GIF), the dropper's solenoids are gpiozero mock pins that drop
real virtual coins, and the players are simulated (``coindrel.ai``) or a
person at the keyboard.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..ai import player_by_name
from ..config import Section
from ..engine import PHASE_TURN, Variants, standard_geometry
from ..virtual import BoardConfig, Scenario, build_board, fault_from_text
from ..virtual.live import Server
from ..virtual.wire import WireHub
from .daemon import Table
from .setupmenu import Choices
from .store import MatchStore

log = logging.getLogger("coindrel.sim")
RETRY = 4.0  # seconds after which a player whose coin the table never saw drops again
SOLENOID_PINS = (4, 23, 24, 25, 8, 7, 9, 10)  # mock pins: one solenoid per entry


@dataclass
class SimOptions:
    players: tuple[str, str] = ("greedy", "random")  # computer levels, or "keyboard"
    opponent: str = "person"  # the table's own computer opponent (easy, medium, hard) plays player 2
    names: tuple[str, str] = ("Ann", "Bo")
    seed: int = 1
    clock: str = "30"
    variants: Variants = field(default_factory=Variants)
    faults: tuple[str, ...] = ()
    matches: int = 1
    think: float = 0.6  # seconds a simulated player takes to drop
    pause: float = 3.0  # seconds the simulated players look at a screen before pressing on
    speed: float = 1.0  # board seconds per real second
    dropper: bool = True
    display: str = "asciiblock"  # asciiblock, asciiart, capture, gifanim, pygame, text, none
    out: str | None = None  # capture: a folder of PNGs; gifanim: the GIF's path
    state_dir: str | None = None
    reveal_seconds: float = 2.0
    control: str | None = None  # a control socket for `coindrel ctl --socket PATH`


class SimPlayers:
    """Plays the table's match: simulated players drop coins into the virtual
    board when the table says it is their turn, follow the clock's chosen
    entry, and press through the screens between turns."""

    def __init__(self, table: Table, board, opts: SimOptions, clock=time.monotonic):
        self.table, self.board, self.opts, self.clock = table, board, opts, clock
        self.bots = [None if k == "keyboard" else player_by_name(k, opts.seed + i + 1) for i, k in enumerate(opts.players)]
        self.people = any(b is None for b in self.bots)  # a person works the buttons themselves
        self.waiting_since: float | None = None
        self.dropped_at = -1  # the match's turn count when we last dropped
        self.dropped_time = 0.0
        self.matches_done = 0
        self.finished = asyncio.Event()
        self._last_mode = None

    def step(self) -> None:
        flow, now = self.table.flow, self.clock()
        mode = flow.mode
        if mode != self._last_mode:
            self._last_mode, self.waiting_since = mode, now
        waited = now - (self.waiting_since or now)
        m = flow.match
        if self.people and mode != "turn":
            return
        if mode == "menu" and waited > min(1.0, self.opts.pause):
            if self.matches_done >= self.opts.matches:
                self.finished.set()
            elif flow.message is None:
                self.table.handle_action("select")  # Start match
            else:
                if "coins off" in flow.message.text:
                    self.board.clear_pads()  # the players tidy the board, then say so
                self.table.handle_action("select")
        elif mode in ("mismatch", "round-result", "result") and waited > self.opts.pause:
            if mode == "result":
                self.matches_done += 1
            self.table.handle_action("select")  # Board is right / go on
        elif mode == "turn" and m is not None and m.phase == PHASE_TURN and flow.message is None:
            bot = self.bots[m.to_move - 1]
            if flow.opponent is not None and m.to_move == 2:
                # the table's computer opponent: its dropper drops, or it asks a person to
                if flow.computer is None or flow.has_dropper or len(m.results) == self.dropped_at:
                    return
                self.board.drop(flow.computer.entry)
                self.dropped_at, self.dropped_time = len(m.results), now
                return
            if bot is None or not flow.link_up:
                return  # a person's turn, or the table cannot see the board
            if len(m.results) == self.dropped_at and now - self.dropped_time < RETRY:
                return  # our coin is on its way
            # (a coin the table never saw, e.g. dropped as the hub went away, is dropped again,
            # as a person does when the table still asks for their drop)
            if waited < self.opts.think:
                return
            entry = m.forced_entry if m.forced_entry is not None else bot.choose(m)
            if m.forced_entry is not None and self.table.flow.has_dropper:
                return  # the dropper takes care of it
            self.board.drop(entry)
            self.dropped_at, self.dropped_time = len(m.results), now
        elif mode == "turn":
            self.waiting_since = now if m is None or m.phase != PHASE_TURN else self.waiting_since


class Keyboard:
    """A person at the terminal: 1-8 drop a coin into the virtual board (their
    hand), arrows/Enter/Backspace/h are the table's knob and buttons, s sets
    the board up as a lesson asks (hands on the virtual board), q quits."""

    KEYS = {"\x1b[A": "prev", "\x1b[D": "prev", "\x1b[B": "next", "\x1b[C": "next", "\r": "select", "\n": "select",
            " ": "select", "\x7f": "back", "\x08": "back", "b": "back", "h": "hold-select", "H": "hold-select"}

    def __init__(self, table: Table, board, stop: asyncio.Event):
        self.table, self.board, self.stop = table, board, stop
        self.buffer = ""

    def start(self) -> None:
        import termios
        import tty

        fd = sys.stdin.fileno()
        self.saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        asyncio.get_running_loop().add_reader(fd, self._readable)

    def close(self) -> None:
        import termios

        fd = sys.stdin.fileno()
        asyncio.get_running_loop().remove_reader(fd)
        termios.tcsetattr(fd, termios.TCSADRAIN, self.saved)

    def _readable(self) -> None:
        import os

        data = os.read(sys.stdin.fileno(), 64).decode("utf-8", "replace")
        if not data:
            self.stop.set()
            return
        self.feed(data)

    def feed(self, data: str) -> None:
        self.buffer += data
        while self.buffer:
            key = next((k for k in self.KEYS if self.buffer.startswith(k)), None)
            if key is None and self.buffer.startswith("\x1b") and len(self.buffer) < 3:
                return  # the rest of an arrow key is on its way
            key = key or self.buffer[0]
            self.buffer = self.buffer[len(key):]
            self.key(key)

    def key(self, key: str) -> None:
        if key in "12345678" and len(key) == 1:
            self.board.drop(int(key) - 1)
        elif key in ("s", "S"):
            self.set_up()
        elif key in ("q", "Q"):
            self.stop.set()
        elif key in self.KEYS:
            self.table.handle_action(self.KEYS[key])


    def set_up(self) -> None:
        """Do with the virtual board's hands what the lesson on screen asks:
        rockers to their sides, coins on (or off) the pads."""
        runner = self.table.flow.runner
        if runner is None:
            return
        for label, want in runner.still_to_set():
            if want in ("L", "R"):
                self.board.set_by_hand(label, want)
        p = runner.prompt
        for label in p.coins:
            self.board.place_coin(label)
        for label in p.remove:
            self.board.take_coin(label)


class MockDropper:
    """Watches the dropper's gpiozero mock pins: a solenoid that fires drops a
    coin into that entry of the virtual board."""

    def __init__(self, pins, board):
        self.pins, self.board = pins, board
        self.was = [False] * len(pins)

    def step(self) -> None:
        for entry, pin in enumerate(self.pins):
            state = bool(pin.state)
            if state and not self.was[entry]:
                self.board.drop(entry)
            self.was[entry] = state


def display_section(opts: SimOptions) -> Section:
    d = {"driver": opts.display if opts.display not in ("text",) else "none", "persist": True}
    if opts.display in ("capture", "gifanim") and opts.out:
        d["file"] = str(Path(opts.out) / "frame_{0:06}.png") if opts.display == "capture" else opts.out
    if opts.display in ("asciiblock", "asciiart", "pygame"):
        d["idle_after"] = 0
        d["sleep_after"] = 0
    return Section("display", d, "coindrel sim")


async def run_sim(opts: SimOptions, say=None) -> Table:
    """Run the simulation until the matches are played (or it is stopped)."""
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    g = standard_geometry()
    scn = Scenario(BoardConfig(seed=opts.seed, variants=Variants(holes=opts.variants.holes)))
    scn.faults = [fault_from_text(f, g, i + 1) for i, f in enumerate(opts.faults)]
    board, _ = build_board(scn)
    server = Server(board, WireHub(board), "pty", speed=opts.speed, say=lambda m: log.info("%s", m))
    server.ready = threading.Event()
    server_task = asyncio.create_task(server.run())
    while not server.ready.is_set() and not server_task.done():
        await asyncio.sleep(0.01)  # the pty is being opened
    if server_task.done():
        server_task.result()
    say(f"virtual board on {server.url} (seed {opts.seed})")

    from ..display import open_display
    from ..io import build_outputs
    from ..sources import make_source

    display = None if opts.display == "none" else open_display(display_section(opts))
    outputs, dropper = None, None
    if opts.dropper:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
        outputs = build_outputs(Section("outputs", {"dropper": {"kind": "solenoid", "pins": list(SOLENOID_PINS)}}),
                                pin_factory=factory)
        dropper = MockDropper([factory.pin(p) for p in SOLENOID_PINS], board)
    state_dir = opts.state_dir or tempfile.mkdtemp(prefix="coindrel-sim-")
    store = MatchStore(state_dir).open()
    source = make_source("hub", {"url": server.url})
    choices = Choices(clock=opts.clock, variants=opts.variants, players=opts.names, opponent=opts.opponent)
    table = Table(g, choices, source=source, display=display, outputs=outputs, store=store,
                  reveal_seconds=opts.reveal_seconds)
    players = SimPlayers(table, board, opts)
    stop = asyncio.Event()
    text_mode = opts.display == "text"

    async def drive():
        last = ""
        while not stop.is_set():
            players.step()
            if dropper is not None:
                dropper.step()
            if text_mode and table.last_status != last:
                last = table.last_status
                say(last)
            if players.finished.is_set():
                stop.set()
            await asyncio.sleep(0.02)

    driver = asyncio.create_task(drive())
    keyboard = Keyboard(table, board, stop) if "keyboard" in opts.players and sys.stdin.isatty() else None
    if keyboard is not None:
        keyboard.start()
    control = None
    if opts.control:
        from .control import ControlServer

        control = ControlServer(table, opts.control)
    try:
        await table.run(None, stop, control)
    finally:
        if keyboard is not None:
            keyboard.close()
        driver.cancel()
        server.stop()
        await asyncio.gather(driver, server_task, return_exceptions=True)
        if display is not None:
            display.close()
        if outputs is not None:
            outputs.close()
        store.close()
    return table
