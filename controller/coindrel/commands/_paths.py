"""Checks for the files and folders named on a command line, made before any
work starts, so a bad path is one clear message (the option, the path, what is
wrong and what to do) instead of a traceback or an hour of lost output."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UsageError
from ..limits import made_up


def _not_made_up(option: str, path: str, folder: Path) -> None:
    # root may "write" in /proc or /sys by os.access, and the write fails only at
    # the end (after a whole sim): say so before any work starts
    made = made_up(folder)
    if made:
        raise UsageError(f"{option} {path}: {made}, where nothing can be stored; choose a folder on a disk (e.g. /tmp)")


def output_file(option: str, path: str) -> Path:
    """A file the command will write: its folder must exist and be writable."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{option} {path}: that is a folder; give a file name, e.g. {target / 'out'}")
    folder = target.parent
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise UsageError(f"{option} {path}: the folder {folder} {what}; create it (mkdir -p {folder}) "
                         "or choose another place")
    _not_made_up(option, path, folder)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot write in {folder} (permission denied); choose a folder you may write")
    return target


def link_path(option: str, path: str) -> Path:
    """A symlink the command will make (or replace): never anything else that is there."""
    target = output_file(option, path)
    if os.path.lexists(target) and not os.path.islink(target):
        raise UsageError(f"{option} {path}: something that is not a symlink is there, and it would be replaced; "
                         "remove it yourself if it is not needed, or choose another path (e.g. /tmp/coindrel-hub)")
    return target


def output_folder(option: str, path: str, create: bool = False) -> Path:
    """A folder the command will write files into (made, with ``create``, when its parent exists)."""
    target = Path(path)
    if not target.exists() and create and target.parent.is_dir():
        try:
            target.mkdir()
        except OSError as e:
            raise UsageError(f"{option} {path}: cannot create the folder ({e.strerror})") from None
    if not target.exists():
        raise UsageError(f"{option} {path}: no such folder; create it first (mkdir -p {path}) or choose another")
    if not target.is_dir():
        raise UsageError(f"{option} {path}: that is a file, not a folder; give a folder")
    _not_made_up(option, path, target)
    if not os.access(target, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot write in it (permission denied); choose a folder you may write")
    return target


def input_file(option: str, path: str, what: str = "file") -> Path:
    """A file the command will read: it must exist and be a file."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{option} {path}: that is a folder; give the {what} inside it")
    if not target.exists():
        raise UsageError(f"{option} {path}: no such {what}; check the path")
    if not os.access(target, os.R_OK):
        raise UsageError(f"{option} {path}: cannot read it (permission denied)")
    return target


__all__ = ["input_file", "output_file", "output_folder"]
