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


def output_file(option: str, path: str, stream_ok: bool = False) -> Path:
    """A file the command will write: its folder must exist and be writable.
    With ``stream_ok`` (the command only opens it and writes), a device or a
    pipe there is taken as it is: ``-o /dev/null``, ``-o /dev/stderr``, a fifo."""
    import stat

    target = Path(path)
    if stream_ok:
        try:
            mode = os.stat(target).st_mode
        except OSError:
            mode = 0
        if (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)) and os.access(target, os.W_OK):
            return target
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


def _same(a: str | int, b: str | int) -> bool:
    """Whether two paths (or open file descriptors) are one file, through symlinks
    and hard links: compared by device and inode, as ``os.path.samefile`` does."""
    try:
        sa = os.fstat(a) if isinstance(a, int) else os.stat(a)
        sb = os.fstat(b) if isinstance(b, int) else os.stat(b)
    except (OSError, ValueError):
        return False  # a path not there yet cannot be the file being read
    return os.path.samestat(sa, sb)


def not_an_input(option: str, path: str | None, *inputs: tuple[str, str | int | None]) -> None:
    """A file the command will write must not be one it reads: ``reconcile LOG -o LOG``
    emptied the log, then wrote its few drop lines there (exit 0). ``inputs`` are
    (what it is, its path or file descriptor) pairs."""
    if not path:
        return
    for what, source in inputs:
        if source is None or source in ("", "-") or not _same(path, source):
            continue
        same_name = isinstance(source, int) or os.path.abspath(path) == os.path.abspath(source)
        also = "" if same_name else f" ({path} and {source} are one file)"
        raise UsageError(f"{option} {path}: that is {what}{also}; writing there would destroy what is being read. "
                         f"Write to another file, e.g. {_beside(path)}")


def two_outputs(first: tuple[str, str | None], second: tuple[str, str | None], why: str) -> None:
    """Two files the command writes must be two files (also through a symlink)."""
    (a_opt, a), (b_opt, b) = first, second
    if a and b and (os.path.abspath(a) == os.path.abspath(b) or _same(a, b)):
        raise UsageError(f"{a_opt} {a} and {b_opt} {b} are one file: {why}; give them two names")


def stdout_not(what: str, path: str | None) -> None:
    """Standard output must not be the file the command reads (``coindrel reconcile LOG >> LOG``,
    or ``> LOG``, which the shell has already emptied)."""
    if not path or path == "-":
        return
    if _regular(1) and _same(1, path):
        emptied = " (the shell has already emptied it: restore it from a copy)" if os.path.getsize(path) == 0 else ""
        raise UsageError(f"standard output is {what} {path} itself{emptied}; send the output to another file, "
                         f"e.g. > {_beside(path)}")


def stdin_not_stdout(what: str = "the output") -> None:
    """``coindrel engine < F >> F`` would read its own answers for ever."""
    if _regular(0) and _same(0, 1):
        raise UsageError(f"standard input and standard output are the same file; write {what} to another file "
                         "(e.g. > out.jsonl)")


def _regular(fd: int) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def _beside(path: str) -> str:
    p = Path(path)
    return str(p.with_name(f"{p.stem}.out{p.suffix}" if p.suffix else f"{p.name}.out"))


__all__ = ["input_file", "not_an_input", "output_file", "output_folder", "stdin_not_stdout", "stdout_not",
           "two_outputs"]
