"""The configuration sections the table itself owns: ``[storage]``,
``[match]`` and ``[board]`` (see systemd/coindrel.toml.example).

Each parser takes a ``coindrel.config.Section`` and returns a frozen value;
every error names the file, the key and what to write instead.
"""

from __future__ import annotations

import errno
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..config import ConfigError, Section, spelled
from ..engine import EngineError, Geometry, MatchSetup, Variants, geometry_by_name
from ..engine.rounds import CLOCK_SETTINGS

DEFAULT_STATE_DIR = Path("/var/lib/coindrel")
VARIANT_NAMES = ("holes", "halved", "shuffled")
CLOCK_OFF = "off"
MAX_NAME = 20
SUN_PATH = 108  # bytes in sockaddr_un.sun_path on Linux, its NUL included
SEED_LIMIT = 2**53  # exact in JSON for every reader, not only Python
DEFAULT: Any = object()  # "not given" where None is a meaningful value
# Where the daemon's reconciler runs (table/diagnosing.py): a child process
# (the default: the event loop never waits for a diagnosis), or a worker
# thread (one process, less memory; the loop may stall while it holds the GIL).
DIAGNOSIS_IN = ("process", "thread")


@dataclass(frozen=True)
class StorageSettings:
    state_dir: Path = DEFAULT_STATE_DIR
    keep_matches: int = 0  # 0: keep every finished match


def parse_storage(sec: Section) -> StorageSettings:
    raw = sec.str("state_dir", str(DEFAULT_STATE_DIR))
    if not raw.strip() or not Path(raw).is_absolute():
        sec.fail("state_dir", f"{raw!r} must be an absolute directory path, e.g. \"{DEFAULT_STATE_DIR}\"")
    keep = sec.int("keep_matches", 0, lo=0, hi=1_000_000)
    sec.check_unknown()
    return StorageSettings(Path(raw), keep)


@dataclass(frozen=True)
class ControlSettings:
    """``[control]``: the local control socket (``coindrel ctl``)."""

    enabled: bool = True
    socket: Path | None = None  # None: $RUNTIME_DIRECTORY/control.sock, else /run/coindrel/control.sock


def parse_control(sec: Section) -> ControlSettings:
    raw = sec.str("socket", "default")
    if raw == "":
        out = ControlSettings(False, None)
    elif raw == "default":
        out = ControlSettings()
    elif not Path(raw).is_absolute():
        sec.fail("socket", f"{raw!r} must be an absolute path, \"default\" (the service's RuntimeDirectory) "
                           "or \"\" (no control socket)")
    else:
        out = ControlSettings(True, Path(raw))
    sec.check_unknown()
    return out


@dataclass(frozen=True)
class MatchDefaults:
    """How a new match is set up unless the players choose otherwise."""

    clock: float | None = 60.0  # seconds per turn; None: no clock
    clock_name: str = "60"
    players: tuple[str, str] = ("Player 1", "Player 2")
    variants: Variants = Variants()
    seed: int | None = None  # None: a fresh random seed for every match

    def new_setup(self, *, players: tuple[str, str] | None = None, variants: Variants | None = None,
                  clock: Any = DEFAULT, seed: int | None = None, start: str | None = None,
                  board: str = "standard", entropy: Callable[[int], int] = secrets.randbelow) -> MatchSetup:
        """A MatchSetup from these defaults and the players' choices (``clock``:
        seconds or None for no clock; left out, the default). The seed is drawn
        here when the policy is random, and goes into the journal with the
        setup, so the match still replays exactly."""
        if seed is None:
            seed = self.seed if self.seed is not None else entropy(SEED_LIMIT)
        return MatchSetup(
            players=tuple(players or self.players), variants=variants or self.variants, seed=seed,
            clock=self.clock if clock is DEFAULT else clock, start=start, board=board,
        )


def _clock(sec: Section) -> tuple[float | None, str]:
    v = sec.get("clock", 60)
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        sec.fail("clock", f"must be 30, 60, 120, \"turbo\" or \"off\", not {spelled(v)}")
    name = str(v).strip().lower()
    if name == CLOCK_OFF:
        return None, CLOCK_OFF
    if name not in CLOCK_SETTINGS:
        sec.fail("clock", f"{spelled(v)} is not a turn clock; write 30, 60 or 120 (seconds), \"turbo\" (5 s) or \"off\"")
    return CLOCK_SETTINGS[name], name


def name_problem(name: str, which: str) -> str | None:
    """What is wrong with a player's name (already joined with single spaces), or None.

    One rule for the configuration, ``ctl new-match`` and ``sim --names``: a
    name is shown on the OLED, the club's scoreboard and in logs, so control
    characters (a NUL, an escape sequence, a newline) are refused rather than
    drawn as boxes or let out onto a terminal."""
    if not name:
        return f"{which}'s name is empty; write two names, e.g. [\"Ann\", \"Bo\"]"
    if len(name) > MAX_NAME:
        return f"{which}'s name {name[:MAX_NAME]!r}... is longer than {MAX_NAME} characters (the display shows {MAX_NAME})"
    import unicodedata

    bad = next((ch for ch in name if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")), None)
    if bad is not None:
        return (f"{which}'s name {name!r} holds the control character U+{ord(bad):04X}; "
                "use letters, digits, spaces and punctuation")
    return None


def _players(sec: Section) -> tuple[str, str]:
    v = sec.list("players", ["Player 1", "Player 2"], length=2, item=lambda x: isinstance(x, str),
                 expect="a name in quotes, e.g. [\"Ann\", \"Bo\"]")
    names = tuple(" ".join(p.split()) for p in v)
    for i, name in enumerate(names):
        problem = name_problem(name, f"player {i + 1}")
        if problem:
            sec.fail("players", problem)
    if names[0].casefold() == names[1].casefold():
        sec.fail("players", f"both players are called {names[0]!r}; give them different names")
    return names  # type: ignore[return-value]


def _variants(sec: Section) -> Variants:
    v = sec.list("variants", [], item=lambda x: isinstance(x, str), expect="a variant in quotes: \"holes\", \"halved\" or \"shuffled\"")
    chosen = {}
    for name in v:
        key = name.strip().lower()
        if key not in VARIANT_NAMES:
            sec.fail("variants", f"{name!r} is not a variant; choose from {', '.join(repr(n) for n in VARIANT_NAMES)}")
        if key in chosen:
            sec.fail("variants", f"lists {key!r} twice; name each variant once")
        chosen[key] = True
    return Variants(**chosen)


def _seed(sec: Section) -> int | None:
    v = sec.get("seed", "random")
    if v == "random":
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < SEED_LIMIT:
        sec.fail("seed", f"must be \"random\" (a new seed every match) or a whole number 0..{SEED_LIMIT - 1}, not {spelled(v)}")
    return v


def parse_match(sec: Section) -> MatchDefaults:
    clock, clock_name = _clock(sec)
    out = MatchDefaults(clock=clock, clock_name=clock_name, players=_players(sec), variants=_variants(sec),
                        seed=_seed(sec))
    sec.check_unknown()
    return out


def check_state_dir(path: Path, where: str) -> None:
    """The state directory can be used: it is (or can be made) a folder this
    user may write in. Checked by really doing it; what the check made is
    removed again, so a check changes nothing."""
    import os
    import tempfile

    made: list[Path] = []
    try:
        missing = []
        p = path
        while not p.exists() and p != p.parent:
            missing.append(p)
            p = p.parent
        for d in reversed(missing):
            d.mkdir()
            made.append(d)
        if not path.is_dir():
            raise NotADirectoryError(20, "it is a file, not a folder", str(path))
        with tempfile.TemporaryFile(dir=path):
            pass
    except NotADirectoryError:
        raise ConfigError(f"{where}: {path} is a file, not a folder (or lies under one); set state_dir to a "
                          f"folder of its own, e.g. /var/lib/coindrel") from None
    except OSError as e:
        from ..limits import made_up, why_unwritable

        who = f"the user coindrel runs as ({_user()})"
        if e.errno == errno.EROFS:  # no user's rights can help: another folder, or the disk remounted
            from ..limits import unwritable_advice

            raise ConfigError(f"{where}: cannot use {path}: {why_unwritable(path, e)}; "
                              f"{unwritable_advice(path, e, 'set state_dir to')}") from None
        if made_up(path):
            raise ConfigError(f"{where}: cannot use {path}: {why_unwritable(path, e)}; set state_dir to a folder "
                              "on a disk, e.g. /var/lib/coindrel") from None
        raise ConfigError(f"{where}: cannot use {path} ({why_unwritable(path, e)}); create it writable for {who}, "
                          f"e.g. sudo install -d -o {_user()} {path}, or set state_dir to a folder that can be") from None
    finally:
        for d in reversed(made):
            try:
                os.rmdir(d)
            except OSError:
                pass


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no name for this uid: say so
        return "this user"


@dataclass(frozen=True)
class BoardSettings:
    geometry_name: str  # what the match setup records: "standard", "mirrored" or an absolute path
    geometry: Geometry = field(repr=False)
    source: str  # a registered board source: hub, gpio, virtual, none, or one a package adds
    backends: dict[str, Any] = field(default_factory=dict)  # name -> what the backend's parse() returned
    diagnosis: str = "process"  # where the running daemon diagnoses drops: DIAGNOSIS_IN

    @property
    def backend(self) -> Any:
        """The chosen source's settings (None when its parse returns none, as for "none")."""
        return self.backends.get(self.source)


def parse_board(sec: Section, base: Path | None = None) -> BoardSettings:
    """``[board]`` and its ``[board.<name>]`` tables: the source is any
    backend in the registry (``coindrel.sources``), and each table present (or
    the chosen source's, present or not) is checked by its backend's parse."""
    from ..sources import backend, backend_names

    name = sec.str("geometry", "standard")
    if name not in ("standard", "mirrored"):
        p = Path(name).expanduser()
        if not p.is_absolute() and base is not None:
            p = base / p  # relative to the configuration file
        name = str(p)
    try:
        geometry = geometry_by_name(name)
    except EngineError as e:
        sec.fail("geometry", f"{e}; write \"standard\", \"mirrored\" or the path of a board file")
    names = backend_names()
    source = sec.str("source", "hub")
    if source not in names:
        sec.fail("source", f"{source!r} is not a board source here; write one of {', '.join(repr(n) for n in names)}"
                           " (a package that adds one registers it in the coindrel.sources entry points)")
    diagnosis = sec.str("diagnosis", "process", choices=DIAGNOSIS_IN)
    backends = {}
    for b in names:
        if sec.has(b) or b == source:
            table = sec.sub(b)
            cls = backend(b)
            backends[b] = cls.parse(table)
            table.check_unknown()
        else:
            sec.get(b)  # known here, so a misspelt table's error lists it
    sec.check_unknown()
    return BoardSettings(name, geometry, source, backends, diagnosis)


def check_control_socket(control: ControlSettings, where: str) -> None:
    """A control socket named in the config can be made there: `coindrel run`
    only warns and goes without one (the table still plays), so `--check` is
    where a wrong path is said."""
    if not control.enabled or control.socket is None:
        return  # off, or the service's RuntimeDirectory (systemd makes it)
    import os
    import stat

    from ..limits import made_up

    path = control.socket
    if len(os.fsencode(path)) >= SUN_PATH:
        raise ConfigError(f"{where}: the path is {len(os.fsencode(path))} bytes long; a unix socket's "
                          f"path must be under {SUN_PATH} bytes; choose a shorter one, e.g. /run/coindrel/control.sock")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise ConfigError(f"{where}: {path}: {e.strerror or e}; choose another path") from None
    if st is not None and not stat.S_ISSOCK(st.st_mode):
        raise ConfigError(f"{where}: {path} exists and is not a socket (it would not be replaced); "
                          "choose a path where nothing is, e.g. /run/coindrel/control.sock")
    folder = path.parent
    if not folder.is_dir():
        raise ConfigError(f"{where}: the folder {folder} does not exist; create it or choose another path")
    made = made_up(folder)
    if made:
        raise ConfigError(f"{where}: {made}, where no socket can be made; choose a folder such as /run/coindrel")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{where}: this user may not make a socket in {folder}; choose a folder it may write, "
                          "or \"\" for no control socket")
