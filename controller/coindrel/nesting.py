"""JSON and TOML from outside, where what the parsers cannot take is a bad
file, not a crash.

Python's parsers recurse once per level, so ``[[[[...`` a hundred thousand
deep raises RecursionError, which no ``except ValueError`` catches: a line
fed to ``coindrel engine``, a script, a board file, a control request or a
configuration could end in a traceback. And since Python 3.11 a decimal
integer of more than ``sys.get_int_max_str_digits()`` (4300) digits raises a
bare ValueError from inside the parser (no line, no ``msg``), which callers
catching ``JSONDecodeError`` missed. These raise the parser's own error
instead, at the number's line, so every caller's existing message ("not
valid JSON at line 1 ...") names the file and the fix.
"""

from __future__ import annotations

import json
import re
import sys

TOO_DEEP = "nested too deeply (brackets inside brackets hundreds of levels deep)"

# strings are skipped whole, so digits inside them are not numbers
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|(?<![\d.eE+-])(-?\d+)(?![\d.eE])')
_TOML_TOKEN = re.compile(r'"""[\s\S]*?(?:"""|$)|\'\'\'[\s\S]*?(?:\'\'\'|$)|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?|#[^\n]*'
                         r'|(?<![\w.:+-])([+-]?\d[\d_]*)(?![\w.:+-])(?!\s*=)')


def _limit() -> int:
    return sys.get_int_max_str_digits() or 4300


def too_long(limit: int | None = None) -> str:
    """The words for a number the parsers refuse."""
    limit = limit or _limit()
    return f"a number with more than {limit} digits"


def _long_number(pattern: re.Pattern, text: str) -> re.Match | None:
    limit = _limit()
    for m in pattern.finditer(text):
        digits = m.group(1)
        if digits and sum(c.isdigit() for c in digits) > limit:
            return m
    return None


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def loads_json(text: str | bytes, **kwargs):
    """``json.loads``; nesting past the interpreter's limit or an integer too
    long to convert is a ``JSONDecodeError``."""
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, _doc(text), 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError:
        doc = _doc(text)
        m = _long_number(_JSON_TOKEN, doc)
        if m is None:
            raise  # a hook's own error (parse_constant and the like)
        key = re.search(r'"((?:[^"\\]|\\.){1,60})"\s*:\s*$', doc[max(0, m.start() - 200):m.start()])
        msg = too_long() if key is None else f"{too_long()}, key {key.group(1)!r}"
        raise json.JSONDecodeError(msg, doc, m.start()) from None


def _doc(text: str | bytes) -> str:
    return text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")


def loads_toml(text: str):
    """``tomllib.loads``; nesting past the interpreter's limit or an integer
    that cannot be read or printed is a ``TOMLDecodeError`` naming its place."""
    import tomllib  # here: it imports typing, which the engine's commands do without

    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(TOO_DEEP) from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:
        m = _long_number(_TOML_TOKEN, text)
        if m is None:
            raise
        line, col = _line_col(text, m.start())
        key = text[text.rfind("\n", 0, m.start()) + 1:m.start()].partition("=")[0].strip()
        table = _toml_table(text, m.start())
        where = f"key {key}" + (f" in [{table}]" if table else "") if key else ""
        raise tomllib.TOMLDecodeError(f"{too_long()} (at line {line}, column {col}"
                                      f"{', ' + where if where else ''})") from None
    path = _unprintable(data)
    if path is not None:  # 0x..., 0o..., 0b... read at any length, then fail wherever they are shown
        raise tomllib.TOMLDecodeError(f"{too_long()} (key {path})")
    return data


def _toml_table(text: str, pos: int) -> str:
    header = None
    for header in re.finditer(r"^[ \t]*\[\[?([^\]\n]+)\]", text[:pos], re.M):
        pass
    return header.group(1).strip() if header else ""


def _unprintable(value, path: str = "") -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        if value.bit_length() > 3 * _limit():  # below that every int prints
            try:
                str(value)
            except ValueError:
                return path
        return None
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for where, v in items:
        found = _unprintable(v, where)
        if found is not None:
            return found
    return None


__all__ = ["TOO_DEEP", "loads_json", "loads_toml", "too_long"]


def json_kind(value) -> str:
    """What a decoded JSON value is, in JSON's words ("null", "an array"), for
    messages that say what came where an object was expected."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__
