"""JSON and TOML from outside, where nesting too deep is a bad file, not a crash.

Python's parsers recurse once per level, so ``[[[[...`` a hundred thousand
deep raises RecursionError, which no ``except ValueError`` catches: a line
fed to ``coindrel engine``, a script, a board file, a control request or a
configuration could end in a traceback. These raise the parser's own error
instead, so every caller's existing message ("not valid JSON at line 1 ...")
names the file and the fix.
"""

from __future__ import annotations

import json

TOO_DEEP = "nested too deeply (brackets inside brackets hundreds of levels deep)"


def loads_json(text: str | bytes, **kwargs):
    """``json.loads``; a structure nested past the interpreter's limit is a ``JSONDecodeError``."""
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError(TOO_DEEP, doc, 0) from None


def loads_toml(text: str):
    """``tomllib.loads``; nesting past the interpreter's limit is a ``TOMLDecodeError``."""
    import tomllib  # here: it imports typing, which the engine's commands do without

    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(TOO_DEEP) from None


__all__ = ["TOO_DEEP", "loads_json", "loads_toml"]
