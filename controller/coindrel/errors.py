"""The root of every error coindrel raises on purpose.

Each error names the problem and what to do about it; the command line prints
any ``CoindrelError`` as that message (never a traceback). Subsystems keep their
own classes (``EngineError`` for the rules engine, ``ConfigError``,
``SourceError``, ``JournalError``, ...), each directly under this root, so
catching one subsystem's errors never swallows another's. Classes that used to
be ``ValueError``s stay ``ValueError``s too, for callers that catch those.

This module imports nothing, so the engine (standard library only) can use it.
"""


class CoindrelError(Exception):
    """A problem coindrel explains in its message: what is wrong and the fix."""


class UsageError(CoindrelError, ValueError):
    """A command-line argument that cannot be used (a path, a value): the
    message names the option and what to give instead."""


def quoted(value, limit: int = 40) -> str:
    """``value`` as a message quotes it (its repr), cut so that a huge one
    (a hostile request, a 5,000-digit number) cannot fill the message."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = ["CoindrelError", "UsageError", "quoted"]
