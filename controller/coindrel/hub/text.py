"""Text the hub sends (hello fields, error and ack texts, lines it prints),
made safe before it reaches a log, the OLED or a STATUS line: control
characters and escape sequences become visible ``\\xNN``/``\\n`` escapes, so
a hub can never forge a log line or move a terminal's cursor, and it is cut
to a bounded length."""

from __future__ import annotations

MAX_TEXT = 200

# What a served virtual board (virtual/serve.py) sends a second controller
# before it closes: a text line (no ':', so never a frame) the link
# recognises; the firmware never sends it (USB serial has one owner, the
# port's exclusive lock).
IN_USE = b"coindrel virtual board in use by another controller"


def clean(text: str | bytes | None, limit: int = MAX_TEXT) -> str:
    """``text`` as one printable line of at most ``limit`` characters."""
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    out = []
    for ch in text:
        o = ord(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append(" ")
        elif o < 0x20 or o == 0x7F or 0x80 <= o < 0xA0 or ch in "\u2028\u2029\u200e\u200f\u202a\u202b\u202c\u202d\u202e":
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")
        else:
            out.append(ch)
    s = "".join(out)
    return s if len(s) <= limit else s[:limit - 1] + "…"
