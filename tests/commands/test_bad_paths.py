"""No command prints a traceback for a bad path or file: a missing folder, a
folder where a file belongs, a file that is not UTF-8 text. Each is one
message naming the option or the file and what to do, before any work."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from coindrel.cli import main

BOARD = "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL"


@pytest.fixture
def place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin.dat").write_bytes(b"\xff\xfe\x00not text")
    (tmp_path / "adir").mkdir()
    return tmp_path


def run(capsys, *argv):
    start = time.monotonic()
    code = main(list(argv))
    err = capsys.readouterr().err
    return code, err, time.monotonic() - start


def test_show_png_into_a_missing_folder(place, capsys):
    code, err, _ = run(capsys, "show", BOARD, "--png", "missing/dir/x.png")
    assert code == 2 and "--png missing/dir/x.png" in err and "missing/dir does not exist" in err and "mkdir -p" in err
    assert not (place / "missing").exists()
    code, err, _ = run(capsys, "show", BOARD, "--png", "adir")
    assert code == 2 and "that is a folder" in err


@pytest.mark.parametrize("argv, needles", [
    (["--display", "capture", "--out", "missing/dir"], ["--out missing/dir", "no such folder", "mkdir -p missing/dir"]),
    (["--display", "capture", "--out", "bin.dat"], ["--out bin.dat", "a file, not a folder"]),
    (["--display", "gifanim", "--out", "missing/x.gif"], ["--out missing/x.gif", "missing does not exist"]),
    (["--display", "gifanim", "--out", "adir"], ["--out adir", "that is a folder"]),
    (["--result", "missing/r.json"], ["--result missing/r.json", "does not exist"]),
    # before: root "may write" in /proc, so the whole match was played and then the result was not written
    (["--result", "/proc/r.json"], ["--result /proc/r.json", "the kernel makes up", "choose a folder on a disk"]),
    (["--display", "capture", "--out", "/proc/sys"], ["--out /proc/sys", "the kernel makes up"]),
    (["--script", "missing.jsonl"], ["--script missing.jsonl", "no such script"]),
    (["--state-dir", "bin.dat"], ["--state-dir bin.dat", "a file, not a folder"]),
])
def test_sim_checks_its_paths_before_the_board_starts(place, capsys, argv, needles):
    # Before: the capture display failed on every frame (a traceback, then a
    # match played for minutes with nothing shown: it looked hung).
    code, err, took = run(capsys, "sim", *argv)
    assert code == 2, err
    for n in needles:
        assert n in err, err
    assert "Traceback" not in err and "virtual board on" not in err


def test_an_emulator_writing_into_a_missing_folder_is_a_config_error_not_a_retry(place):
    from coindrel.config import ConfigError, Section
    from coindrel.display import open_display

    with pytest.raises(ConfigError, match=r"\[display\] file: the folder missing does not exist"):
        open_display(Section("display", {"driver": "capture", "file": "missing/f_{0:06}.png"}))


@pytest.mark.parametrize("argv, needles", [
    (["run", "--check", "--config", "bin.dat"], ["bin.dat: not UTF-8 text"]),
    (["history", "--config", "bin.dat"], ["bin.dat: not UTF-8 text"]),
    (["history", "--config", "adir"], ["adir: is a folder"]),
    (["show", BOARD, "--geometry", "bin.dat"], ["bin.dat: not a text file", "board file is JSON"]),
    (["hint", BOARD, "--geometry", "adir"], ["adir: cannot read the board file"]),
    (["virtual-board", "--scenario", "bin.dat"], ["bin.dat: not a text file", "scenario"]),
    (["virtual-board", "--script", "bin.dat"], ["bin.dat: not a text file", "drop script"]),
    (["virtual-board", "--drop", "1", "--channel-map", "missing.json"], ["missing.json: no such channel map"]),
    (["virtual-board", "--drop", "1", "--channel-map", "bin.dat"], ["bin.dat: not a text file", "channel map"]),
    (["virtual-board", "--drop", "1", "--log", "missing/log.jsonl"], ["--log missing/log.jsonl", "does not exist"]),
    (["virtual-board", "--drop", "1", "--truth", "adir"], ["--truth adir", "that is a folder"]),
    (["virtual-board", "--serve", "pty", "--link", "bin.dat"], ["--link bin.dat", "not a symlink", "choose another path"]),
    (["hub", "map", "--map", "adir"], ["adir: cannot read the channel map"]),
    (["hub", "calibration", "set", "missing.json", "--url", "socket://127.0.0.1:9"], ["missing.json: no such calibration file"]),
    (["hub", "calibration", "get", "--out", "missing/c.json", "--url", "socket://127.0.0.1:9"], ["--out missing/c.json"]),
    (["reconcile", "missing.jsonl"], ["missing.jsonl: no such observation log"]),
    (["reconcile", "bin.dat"], ["bin.dat: not a text file"]),
    (["reconcile", "adir", "-o", "x.jsonl"], ["adir is a folder"]),
    (["reconcile", "-", "-o", "missing/out.jsonl"], ["--out missing/out.jsonl", "does not exist"]),
    (["health", "adir"], ["adir is a folder"]),
    (["lesson", "bin.dat.toml"], ["bin.dat.toml: no such lesson file", "check the path"]),
    (["show", "LLLLLLLL/LLLLLLL/LLLLLLLL/LLLLLLL/LLLLLLLL", "--png", "/proc/x.png"], ["--png /proc/x.png", "the kernel makes up"]),
])
def test_every_command_s_file_arguments(place, capsys, argv, needles):
    code, err, took = run(capsys, *argv)
    assert code == 2, err
    for n in needles:
        assert n in err, err
    assert "Traceback" not in err
    assert took < 5  # said before trying a hub or running a board (10 s hub waits otherwise)


def test_a_lesson_file_that_is_not_utf8(place, capsys):
    (place / "mine.toml").write_bytes(b"title = \"\xe9\"\n")
    code, err, _ = run(capsys, "lesson", "mine.toml")
    assert code == 2 and "mine.toml: not a text file" in err and "lesson is TOML" in err


def test_an_os_error_anywhere_is_a_message_naming_the_path(place, capsys, monkeypatch):
    import coindrel.commands.show as show

    def boom(args):
        raise PermissionError(13, "Permission denied", "/etc/secret")

    monkeypatch.setattr(show, "run", boom)
    code, err, _ = run(capsys, "show", BOARD)
    assert code == 2 and err.strip() == ("coindrel show: /etc/secret: Permission denied "
                                         "(choose a place this user may write, or fix its permissions)")


def test_link_never_replaces_a_file_that_is_not_a_symlink(place, capsys):
    """Found by a newcomer: --link /etc/passwd replaced the file with a symlink to the pty."""
    before = (place / "bin.dat").read_bytes()
    code, err, _ = run(capsys, "virtual-board", "--serve", "pty", "--link", "bin.dat")
    assert code == 2 and (place / "bin.dat").read_bytes() == before and not (place / "bin.dat").is_symlink()


# -- a file written over the file being read ------------------------------------------
# Found by a newcomer: `coindrel reconcile LOG -o LOG` left a 470-line log as its 57
# drop lines, exit 0.

LOG = ('{"kind": "header", "board": "standard", "state": ["LLLLLLLL", "LLLLLLL", "LLLLLLLL", "LLLLLLL", "LLLLLLLL"]}\n'
       '{"t": 0.5, "kind": "entry", "entry": 3}\n')


@pytest.fixture
def files(place):
    (place / "log.jsonl").write_text(LOG)
    (place / "link.jsonl").symlink_to("log.jsonl")
    os.link(place / "log.jsonl", place / "hard.jsonl")
    (place / "script.jsonl").write_text('{"t": 1, "press": "select"}\n')
    (place / "drops.jsonl").write_text('{"t": 0.5, "entry": 3}\n')
    import shutil

    from coindrel.engine.geometry import __file__ as geometry_py

    shutil.copy(Path(geometry_py).parent.parent / "boards" / "standard.json", place / "board.json")
    return place


@pytest.mark.parametrize("argv, needles", [
    (["reconcile", "log.jsonl", "-o", "log.jsonl"], ["--out log.jsonl: that is the observation log being reconciled",
                                                     "Write to another file, e.g. log.out.jsonl"]),
    (["reconcile", "log.jsonl", "--out", "link.jsonl"], ["--out link.jsonl", "link.jsonl and log.jsonl are one file"]),
    (["reconcile", "link.jsonl", "-o", "hard.jsonl"], ["--out hard.jsonl", "hard.jsonl and link.jsonl are one file"]),
    (["reconcile", "./log.jsonl", "-o", "log.jsonl"], ["--out log.jsonl: that is the observation log"]),
    (["sim", "--fast", "--script", "script.jsonl", "--result", "script.jsonl"], ["--result script.jsonl: that is the --script file"]),
    (["sim", "--fast", "--display", "gifanim", "--out", "r.gif", "--result", "r.gif"], ["--result r.gif and --out r.gif are one file"]),
    (["virtual-board", "--script", "drops.jsonl", "--log", "drops.jsonl"], ["--log drops.jsonl: that is the --script file"]),
    (["virtual-board", "--drop", "1", "--truth", "board.json", "--board", "board.json"], ["--truth board.json: that is the --board file"]),
    (["virtual-board", "--drop", "1", "--log", "x.jsonl", "--truth", "x.jsonl"], ["--log x.jsonl and --truth x.jsonl are one file"]),
    (["show", BOARD, "--geometry", "board.json", "--png", "board.json"], ["--png board.json: that is the --geometry board file"]),
    (["hub", "calibration", "get", "--map", "board.json", "--out", "board.json", "--url", "socket://127.0.0.1:9"],
     ["--out board.json: that is the --map channel map"]),
])
def test_no_command_writes_over_the_file_it_reads(files, capsys, argv, needles):
    before = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()}
    code, err, _ = run(capsys, *argv)
    assert code == 2, err
    for n in needles:
        assert n in err, err
    assert {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()} == before
    assert not (files / "x.jsonl").exists() and not (files / "r.gif").exists()


def test_reconcile_from_standard_input_onto_the_log(files):
    import subprocess
    import sys

    with open(files / "log.jsonl", encoding="utf-8") as inp:  # reconcile - -o LOG < LOG
        proc = subprocess.run([sys.executable, "-m", "coindrel", "reconcile", "-", "-o", "link.jsonl"], stdin=inp,
                              capture_output=True, text=True, cwd=files, timeout=120)
    assert proc.returncode == 2 and "--out link.jsonl: that is the observation log being reconciled" in proc.stderr
    assert (files / "log.jsonl").read_text() == LOG


@pytest.mark.parametrize("argv, stdin, needle", [
    (["reconcile", "log.jsonl"], None, "standard output is the observation log log.jsonl itself"),
    (["health", "link.jsonl"], None, "standard output is the observation log link.jsonl itself"),
    (["engine"], "log.jsonl", "standard input and standard output are the same file"),  # it read its own answers
    (["reconcile", "-"], "log.jsonl", "standard input and standard output are the same file"),
])
def test_standard_output_appended_to_the_file_being_read(files, argv, stdin, needle):
    import subprocess
    import sys

    with open(files / "log.jsonl", "a", encoding="utf-8") as out, open(files / (stdin or "script.jsonl")) as inp:
        proc = subprocess.run([sys.executable, "-m", "coindrel", *argv], stdin=inp, stdout=out, stderr=subprocess.PIPE,
                              text=True, cwd=files, timeout=120)
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert (files / "log.jsonl").read_text() == LOG


def test_standard_output_that_the_shell_emptied_says_so(files):
    import subprocess
    import sys

    with open(files / "log.jsonl", "w", encoding="utf-8") as out:  # reconcile LOG > LOG
        proc = subprocess.run([sys.executable, "-m", "coindrel", "reconcile", "log.jsonl"], stdout=out,
                              stderr=subprocess.PIPE, text=True, cwd=files, timeout=120)
    assert proc.returncode == 2 and "the shell has already emptied it" in proc.stderr, proc.stderr


def test_a_stream_is_a_place_to_write_drop_lines_and_logs(files, capsys):
    """``-o /dev/null`` (keep only the health report) was refused as "a file
    system the kernel makes up"; a device or a fifo is written as it is."""
    code, err, _ = run(capsys, "reconcile", "log.jsonl", "-o", os.devnull, "--health")
    assert code == 0 and "kernel makes up" not in err, err
    code, err, _ = run(capsys, "reconcile", "log.jsonl", "-o", "/proc/x.jsonl")  # still no file there
    assert code == 2 and "kernel makes up" in err
    code, err, _ = run(capsys, "virtual-board", "--players", "random,greedy", "--until", "2", "--log", os.devnull)
    assert code == 0, err


def test_out_without_a_display_that_writes_pictures_is_refused(place, capsys):
    """Found by a newcomer: `sim --display none --out x` was silently ignored."""
    code, err, _ = run(capsys, "sim", "--display", "none", "--out", "frames")
    assert code == 2 and "--out frames: only --display capture" in err and "--display none writes none" in err
