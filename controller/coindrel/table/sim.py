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

from ..config import Section
from ..engine import Variants, standard_geometry
from ..virtual import BoardConfig, Scenario, build_board, fault_from_text
from ..virtual.live import Server
from ..virtual.wire import WireHub, power_on_salt
from .daemon import Table
from .people import RETRY, SimPlayers, do_by_hand  # noqa: F401  (RETRY, SimPlayers: the sim's public names)
from .setupmenu import Choices
from .store import MatchStore

log = logging.getLogger("coindrel.sim")
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
    learn: bool = False  # simulated people play through a lesson they find on screen (instead of leaving it)
    club: object = None  # coindrel.club.config.ClubSettings: join a club's scoreboard
    hub: str = "model"  # the virtual board's hub: "model" (Python) or "firmware" (the real one under MicroPython)


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
        """Do with the virtual board's hands what the table asks for now:
        a lesson's set-up, putting the board back after an undo, clearing the
        pads or taking the Holes switches out before a match."""
        do_by_hand(self.board, self.table.flow.asking)


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


async def run_sim(opts: SimOptions, say=None, script=(), until: float | None = None) -> dict:
    """Run the simulation until the matches are played, the board's clock
    reaches ``until`` or it is stopped; the result (``simresult.result_json``)."""
    from .fastsim import Outcome, believed_start, mismatch_text, note_resumed, remember_match, watch_reports
    from .script import Do
    from .simresult import match_seeds, recovered, result_json, stop_on_signals

    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    started = time.monotonic()
    g = standard_geometry()
    state_dir = opts.state_dir or tempfile.mkdtemp(prefix="coindrel-sim-")
    start = believed_start(state_dir)  # a resumed match's board, coins on pads and all
    scn = Scenario(BoardConfig(seed=opts.seed, start=start, variants=Variants(holes=opts.variants.holes and start is None)))
    scn.faults = [fault_from_text(f, g, i + 1) for i, f in enumerate(opts.faults)]
    board, _ = build_board(scn)
    if opts.hub == "firmware":
        from ..virtual.fwhub import FirmwareWire

        wire = FirmwareWire(board, boot_salt=power_on_salt())  # the real firmware under MicroPython
    else:
        wire = WireHub(board, boot_salt=power_on_salt())  # a restarted sim is a new hub boot
    server = Server(board, wire, "pty", speed=opts.speed, say=lambda m: log.info("%s", m))
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
    choices = Choices(clock=opts.clock, variants=opts.variants, players=opts.names, opponent=opts.opponent)
    text_mode = opts.display == "text"
    out = Outcome()
    steps = sorted(script, key=lambda s: (s.t, s.line))
    done = asyncio.Event()  # the sim is over (matches played, --until, q, an error)
    players = None
    table = None
    keyboard = None
    errors = []
    restore_signals = stop_on_signals(done.set)  # Ctrl-C / SIGTERM end it as q does: summary, journal synced
    club = None
    if opts.club is not None:
        from ..club.feed import attach

        club = attach(lambda: table, opts.club, state_dir)  # the table of the current life
    try:
        seeds = match_seeds(opts.seed)
        while not done.is_set():
            # One life of the table process: a script's restart ends it without clean-up.
            store = MatchStore(state_dir, choose="give --state-dir").open()
            table = Table(g, choices, source=make_source("hub", {"url": server.url}), display=display,
                          outputs=outputs, store=store, reveal_seconds=opts.reveal_seconds, new_seed=seeds)
            table.room_probe_every = None  # a full disk stops the sim with the one message (roomwait.py)
            table.room_restart = f"run the sim again with --state-dir {state_dir}"
            table.resume(recovered(store.recover()))
            note_resumed(table, out)
            watch_reports(table, out, lambda: (lambda r, d: say(mismatch_text(r, d))) if text_mode else None)
            if players is None:
                players = SimPlayers(table, board, opts)
            players.table = table
            life = asyncio.Event()
            restart = []

            async def drive(table=table, life=life, restart=restart):
                last = ""
                while not life.is_set():
                    while steps and steps[0].t <= board.now:
                        s = steps.pop(0)
                        out.script_steps += 1
                        if s.do is Do.RESTART:
                            restart.append(s)
                            life.set()
                            return
                        _apply_live(s, table, board, wire, out)
                    players.step()
                    if dropper is not None:
                        dropper.step()
                    remember_match(table, out)
                    if text_mode and table.last_status != last:
                        last = table.last_status
                        say(last)
                    if players.finished.is_set() or (until is not None and board.now >= until):
                        done.set()
                        life.set()
                    await asyncio.sleep(0.02)

            driver = asyncio.create_task(drive())
            if keyboard is None and "keyboard" in opts.players and sys.stdin.isatty():
                keyboard = Keyboard(table, board, done)
                keyboard.start()
            elif keyboard is not None:
                keyboard.table = table
            stopper = asyncio.create_task(done.wait())
            stopper.add_done_callback(lambda _, life=life: life.set())
            control = None
            if opts.control:
                from .control import ControlServer

                control = ControlServer(table, opts.control)  # coindrel ctl --socket PATH
            try:
                await table.run(None, life, control)
            except Exception as e:  # noqa: BLE001 - a dead table ends the sim, reported in its result
                errors.append(f"{type(e).__name__}: {e}")
                done.set()
            finally:
                stopper.cancel()
                driver.cancel()
                await asyncio.gather(driver, stopper, return_exceptions=True)
                store.close()
            if restart:
                out.restarts += 1
    finally:
        restore_signals()
        if club is not None:
            await club.finish()
        if keyboard is not None:
            keyboard.close()
        server.stop()
        await asyncio.gather(server_task, return_exceptions=True)
        if hasattr(wire, "close"):
            wire.close()  # the firmware's MicroPython process
        if display is not None:
            display.close()
        if outputs is not None:
            outputs.close()
    out.t = board.now
    out.errors.extend(errors)
    from .fastsim import fault_unplugs

    out.unplugs += fault_unplugs(board)
    return result_json(table, out, time.monotonic() - started)


def _apply_live(s, table, board, wire, out) -> None:
    from ..engine.core import HOLE
    from .script import Do

    if s.do is Do.PRESS:
        table.handle_action(s.value)
    elif s.do is Do.DROP:
        board.drop(s.value)
    elif s.do is Do.HAND:
        if board.world.codes[board.geometry.index(s.value)] != HOLE:
            board.set_by_hand(s.value, s.side)
    elif s.do is Do.PLACE:
        board.place_coin(s.value)
    elif s.do is Do.TAKE:
        board.take_coin(s.value)
    elif s.do is Do.UNPLUG and board.hub.cable:
        out.unplugs += 1
        board.hub.power_off("unplug")
        wire.unplug(s.value)
        board.sched.at(board.now + s.value, board.hub.boot, "unplug")
