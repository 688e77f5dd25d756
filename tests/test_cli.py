"""The ``coindrel`` command line: one table of commands kept equal to the
command modules, each command importing only what it uses, and every error
coindrel raises printed as a message."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from coindrel.cli import COMMANDS, main
from coindrel.errors import CoindrelError

COMMANDS_DIR = Path(__file__).resolve().parents[1] / "controller" / "coindrel" / "commands"
BOARD = "lLLLLLLL/loLLLoL/LLLLLLLL/LLoLoLL/LLLLLLLL"
HEAVY = ("asyncio", "PIL", "luma", "gpiozero", "serial", "concurrent", "pygame", "ssl")


def _constant(tree: ast.Module, name: str):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return node.value
    return None


def test_the_command_table_lists_every_command_module_with_its_own_help():
    modules = sorted(p.stem for p in COMMANDS_DIR.glob("*.py") if not p.stem.startswith("_"))
    assert sorted(m for m, _ in COMMANDS.values()) == modules
    for name, (module_name, help_) in COMMANDS.items():
        tree = ast.parse((COMMANDS_DIR / f"{module_name}.py").read_text())
        declared = _constant(tree, "NAME")
        assert name == (ast.literal_eval(declared) if declared is not None else module_name.replace("_", "-"))
        module = __import__(f"coindrel.commands.{module_name}", fromlist=["HELP"])
        assert module.HELP == help_, f"COMMANDS[{name!r}] help differs from coindrel.commands.{module_name}.HELP"


def _loaded(*argv: str, stdin: str = "") -> dict:
    """The top-level packages a command has imported by the time it ends."""
    code = (
        "import io, json, sys, contextlib\n"
        "from coindrel.cli import main\n"
        f"sys.stdin = io.StringIO({stdin!r})\n"
        "out = io.StringIO()\n"
        "try:\n"
        "    with contextlib.redirect_stdout(out):\n"
        f"        rc = main({list(argv)!r})\n"
        "except SystemExit as e:\n"
        "    rc = e.code\n"
        "print(json.dumps({'rc': rc, 'modules': sorted({m.split('.')[0] for m in sys.modules})}))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("argv, stdin", [
    (["--help"], ""),
    (["show", BOARD], ""),
    (["show", BOARD, "--drop", "3,5"], ""),
    (["engine"], '{"id": 1, "board": ["LLLLLLLL","LLLLLLL","LLLLLLLL","LLLLLLL","LLLLLLLL"], "entries": [2]}\n'),
    (["hint", BOARD], ""),
    (["lesson"], ""),
    (["reconcile", "--help"], ""),
    (["hub", "--help"], ""),
    (["sim", "--help"], ""),
    (["run", "--help"], ""),
    (["virtual-board", "--help"], ""),
])
def test_commands_that_need_no_hardware_or_event_loop_do_not_import_them(argv, stdin):
    got = _loaded(*argv, stdin=stdin)
    assert got["rc"] in (0, None), got
    heavy = sorted(set(got["modules"]) & set(HEAVY))
    assert heavy == [], f"coindrel {' '.join(argv)} imported {heavy}"


# Standard-library modules that cost a quick command's start more than the
# command itself (issue 15: --help, show and engine within 50 ms of a bare
# interpreter, on a Pi ten times that): dataclasses pulls in inspect, ast and
# dis; argparse's own width look-up pulls in shutil with bz2 and lzma.
COSTLY = ("dataclasses", "inspect", "shutil", "pathlib", "typing", "bz2", "lzma", "asyncio")
MATCH_CASE = ('{"id": 2, "start": ["LLLLLLLL","LLLLLLL","LLLLLLLL","LLLLLLL","LLLLLLLL"], '
              '"drops": [0, 1, 2, 3, 4, 5, 6, 7]}\n')


@pytest.mark.parametrize("argv, stdin", [
    (["--help"], ""),
    (["show", BOARD], ""),
    (["show", BOARD, "--drop", "3,5"], ""),
    (["engine"], '{"id": 1, "board": ["LLLLLLLL","LLLLLLL","LLLLLLLL","LLLLLLL","LLLLLLLL"], "entries": [2]}\n' + MATCH_CASE),
])
def test_quick_commands_load_no_costly_standard_modules(argv, stdin):
    got = _loaded(*argv, stdin=stdin)
    assert got["rc"] in (0, None), got
    costly = sorted(set(got["modules"]) & set(COSTLY))
    assert costly == [], f"coindrel {' '.join(argv)} imported {costly}"


def test_the_engine_alone_loads_no_costly_standard_modules():
    code = "import sys, coindrel.engine; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    costly = sorted(set(r.stdout.split()) & set(COSTLY + ("json", "re", "enum", "argparse")))
    assert r.returncode == 0 and costly == [], costly or r.stderr


def test_help_imports_no_command_module():
    got = _loaded("--help")
    code = "import sys; from coindrel.cli import build_parser; build_parser(['--help']); " \
           "print(sorted(m for m in sys.modules if m.startswith('coindrel.commands.')))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "[]" and "coindrel" in got["modules"]


def test_show_png_loads_pillow_only_when_asked(tmp_path):
    got = _loaded("show", BOARD, "--png", str(tmp_path / "b.png"))
    assert "PIL" in got["modules"] and (tmp_path / "b.png").stat().st_size > 0


def test_every_error_the_cli_can_meet_is_a_coindrel_error():
    from coindrel.config import ConfigError
    from coindrel.engine import EngineError, GeometryError, MatchError
    from coindrel.events import EventError
    from coindrel.hub.channelmap import ChannelMapError
    from coindrel.hub.framing import FramingError
    from coindrel.hub.link import LinkError
    from coindrel.hub.messages import ProtocolError
    from coindrel.io.sounds import MelodyError
    from coindrel.lessons.model import LessonError
    from coindrel.sources import SourceError
    from coindrel.table.journal import JournalError
    from coindrel.table.records import RecordError
    from coindrel.table.store import StoreError

    for cls in (ConfigError, EngineError, GeometryError, MatchError, EventError, ChannelMapError, FramingError,
                LinkError, ProtocolError, MelodyError, LessonError, SourceError, JournalError, RecordError, StoreError):
        assert issubclass(cls, CoindrelError), cls
    # each subsystem's errors are its own: the engine's are not the config's
    for cls in (ConfigError, EventError, LessonError, SourceError, JournalError, FramingError, ProtocolError,
                RecordError, LinkError):
        assert not issubclass(cls, EngineError), cls


@pytest.mark.parametrize("module, cls", [
    ("coindrel.hub.framing", "FramingError"), ("coindrel.hub.messages", "ProtocolError"),
    ("coindrel.table.records", "RecordError"), ("coindrel.hub.link", "LinkError"),
    ("coindrel.config", "ConfigError"), ("coindrel.table.journal", "JournalError"),
])
def test_the_cli_prints_any_of_them_as_a_message(monkeypatch, capsys, module, cls):
    import importlib

    import coindrel.commands.show as show

    error = getattr(importlib.import_module(module), cls)

    def fails(args):
        raise error("what went wrong; what to do")

    monkeypatch.setattr(show, "run", fails)
    assert main(["show", BOARD]) == 2
    assert capsys.readouterr().err == "coindrel show: what went wrong; what to do\n"


def test_every_exception_class_the_package_defines_is_under_the_root():
    """Not only the list above: any exception class of any package module (a
    new one included) is a CoindrelError, so the CLI prints it as a message."""
    import importlib
    import inspect
    import pkgutil

    import coindrel

    outside, unimportable = [], []
    for info in pkgutil.walk_packages(coindrel.__path__, "coindrel."):
        if info.name.endswith("__main__"):
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError as e:  # a hardware library this machine lacks (lgpio off a Pi)
            unimportable.append(f"{info.name}: {e}")
            continue
        for name, obj in vars(mod).items():
            if (inspect.isclass(obj) and issubclass(obj, Exception) and obj.__module__ == mod.__name__
                    and not issubclass(obj, CoindrelError)):
                outside.append(f"{mod.__name__}.{name}")
    assert outside == [], f"exception classes outside CoindrelError: {outside}"
    assert len(unimportable) <= 3, unimportable


@pytest.mark.parametrize("module, cls, args, said", [
    ("coindrel.club.messages", "MessageError", ("not JSON",), "not JSON"),
    ("coindrel.club.outbox", "OutboxError", ("cannot save a club drop; free some space",), "cannot save a club drop; free some space"),
    ("coindrel.club.server.store", "StoreError", ("x.sqlite: cannot use the club database",), "x.sqlite: cannot use the club database"),
    ("coindrel.table.control", "RequestError", ("no match to end",), "no match to end"),
    ("coindrel.limits", "NotAFile", (22, "it is a directory, not a file", "/tmp"), "/tmp: it is a directory, not a file"),
])
def test_the_errors_once_outside_the_root_print_as_messages(monkeypatch, capsys, module, cls, args, said):
    import importlib

    import coindrel.commands.show as show

    error = getattr(importlib.import_module(module), cls)

    def fails(a):
        raise error(*args)

    monkeypatch.setattr(show, "run", fails)
    assert main(["show", BOARD]) == 2
    assert capsys.readouterr().err == f"coindrel show: {said}\n"


@pytest.mark.parametrize("argv, usage", [
    (["engine", "--bogus"], "usage: coindrel engine"),
    (["hub", "deploy", "--bogus"], "usage: coindrel hub deploy"),  # (--url is --port there now)
    (["club", "hash-password", "--bogus"], "usage: coindrel club hash-password"),
])
def test_an_unknown_option_is_said_with_its_commands_usage(capsys, argv, usage):
    """It printed the top level's usage (``coindrel [-h] [--version] COMMAND``)."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and usage in err and "unrecognized arguments" in err


def test_a_value_list_that_starts_with_a_minus_is_a_value(capsys):
    """``hint --values -5,...`` said "expected one argument"."""
    assert main(["hint", "--values", "-5" + ",1" * 15, "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"]) == 2
    assert "--values '-5,1" in capsys.readouterr().err
