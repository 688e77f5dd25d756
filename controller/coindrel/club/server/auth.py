"""The admin's password: stored as an scrypt hash in the club's config.

    scrypt$16384$8$1$<salt, base64>$<hash, base64>

``coindrel club hash-password`` makes one; the server never sees the
password itself outside a login form.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

N, R, P = 2**14, 8, 1


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P, dklen=32)
    b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
    return f"scrypt${N}${R}${P}${b64(salt)}${b64(digest)}"


def check_hash_format(text: str) -> str:
    """'' if ``text`` is a hash this module reads; else what is wrong with it."""
    parts = text.split("$") if isinstance(text, str) else []
    if len(parts) != 6 or parts[0] != "scrypt":
        return "it is not an scrypt hash; make one with `coindrel club hash-password`"
    try:
        n, r, p = (int(x) for x in parts[1:4])
        base64.b64decode(parts[4], validate=True), base64.b64decode(parts[5], validate=True)
    except ValueError:
        return "it is damaged (a number or base64 part does not read); make a new one with `coindrel club hash-password`"
    if not (2**10 <= n <= 2**20 and n & (n - 1) == 0 and 1 <= r <= 32 and 1 <= p <= 16):
        return "its scrypt parameters are out of range; make a new one with `coindrel club hash-password`"
    return ""


def verify_password(password: str, stored: str) -> bool:
    if check_hash_format(stored):
        return False
    _, n, r, p, salt, digest = stored.split("$")
    want = base64.b64decode(digest)
    got = hashlib.scrypt(password.encode()[:1024], salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                         dklen=len(want), maxmem=2**26)
    return hmac.compare_digest(got, want)
