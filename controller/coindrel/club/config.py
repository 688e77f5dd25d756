"""The ``[club]`` table of a table's configuration, and broker URLs.

    [club]
    broker = "mqtts://club.example.org"      # mqtt://host[:1883] or mqtts://host[:8883]
    ca_file = "/etc/coindrel/club-ca.pem"    # mqtts only; default: the system's CAs
    table = "table-3"                        # this table's name at the club
    username = "table-3"                     # default: the table's name
    password_file = "/etc/coindrel/club-password"   # one line; readable by the daemon only
    home_assistant = false                   # publish Home Assistant discovery too
    accept_matches = true                    # show matches the club sends (a person confirms)

The password is read when the link starts, not here, so that a configuration
can be checked by a user who may not read the secret.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..config import ConfigError, Section
from .messages import MessageError, check_table_name
from ..limits import SMALL, read_text_limited

SCHEMES = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class BrokerURL:
    scheme: str  # "mqtt" or "mqtts"
    host: str
    port: int

    @property
    def tls(self) -> bool:
        return self.scheme == "mqtts"

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def parse_broker_url(text: str) -> BrokerURL:
    """mqtt://host[:port] or mqtts://host[:port]; ConfigError saying what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ConfigError("the broker must be a URL like mqtt://192.168.1.10 or mqtts://club.example.org")
    try:
        u = urlsplit(text.strip())
        port = u.port
    except ValueError as e:
        raise ConfigError(f"broker {text!r} is not a URL ({e})") from None
    if u.scheme not in SCHEMES:
        raise ConfigError(f"broker {text!r}: the URL must start with mqtt:// or mqtts:// (TLS)")
    if not u.hostname:
        raise ConfigError(f"broker {text!r} names no host; write e.g. mqtt://192.168.1.10:1883")
    if u.username or u.password:
        raise ConfigError(f"broker {text!r}: put the user name in 'username' and the password in a password file, "
                          "not in the URL")
    if u.path not in ("", "/") or u.query or u.fragment:
        raise ConfigError(f"broker {text!r}: a broker URL has only a host and a port")
    return BrokerURL(u.scheme, unquote(u.hostname), port or SCHEMES[u.scheme])


@dataclass(frozen=True)
class ClubSettings:
    broker: BrokerURL
    table: str
    username: str
    password_file: Path | None
    ca_file: Path | None = None
    home_assistant: bool = False
    accept_matches: bool = True
    keepalive: int = 30

    def password(self) -> str | None:
        """The password, from its file (first line); ConfigError if it cannot be read."""
        if self.password_file is None:
            return None
        try:
            text = read_text_limited(self.password_file, SMALL)
        except OSError as e:
            raise ConfigError(f"[club] password_file {self.password_file}: cannot read it ({e.strerror}); "
                              "it must be readable by the user the daemon runs as") from None
        line = text.splitlines()[0].strip() if text.strip() else ""
        if not line:
            raise ConfigError(f"[club] password_file {self.password_file} is empty; write the password on its first line")
        return line


def parse_club(sec: Section) -> ClubSettings | None:
    """The ``[club]`` table; None when it is absent (the table stays off the network)."""
    if not sec.data:
        return None
    import importlib.util

    if importlib.util.find_spec("aiomqtt") is None:
        if isinstance(sec, _Options):
            raise ConfigError(f"{sec.where('broker')}: joining a club needs the MQTT client (aiomqtt), which is not "
                              "installed: install the club extra (pip install -e '.[club]' in the checkout, or "
                              "pip install 'coindrel-table[club]'), or leave out --club and --table")
        import sys

        pip = Path(sys.executable).with_name("pip")
        raise ConfigError(f"{sec.source}: [club] is set, but the MQTT client is not installed: install the club "
                          f"extra into coindrel's Python, {pip} install 'SOURCE[club]' where SOURCE is coindrel's "
                          "checkout (e.g. /opt/coindrel/src), or remove [club]")
    raw = sec.str("broker")
    if raw is None:
        sec.fail("broker", "is required: the club's broker, e.g. \"mqtt://192.168.1.10\"")
    try:
        broker = parse_broker_url(raw)
    except ConfigError as e:
        sec.fail("broker", str(e))
    table = sec.str("table")
    if table is None:
        sec.fail("table", "is required: this table's name at the club, e.g. \"table-3\"")
    try:
        check_table_name(table)
    except MessageError as e:
        sec.fail("table", str(e))
    username = sec.str("username", table)
    pw = sec.str("password_file")
    password_file = Path(pw) if pw else None
    if password_file is not None and not password_file.is_absolute():
        sec.fail("password_file", f"{pw!r} must be an absolute path, e.g. \"/etc/coindrel/club-password\"")
    ca = sec.str("ca_file")
    ca_file = Path(ca) if ca else None
    if ca_file is not None:
        if not broker.tls:
            sec.fail("ca_file", "is for a TLS broker: write the broker as mqtts://... or remove ca_file")
        if not ca_file.is_absolute():
            sec.fail("ca_file", f"{ca!r} must be an absolute path")
        if not os.access(ca_file, os.R_OK):
            sec.fail("ca_file", f"{ca_file} does not exist or cannot be read")

    settings = ClubSettings(
        broker=broker, table=table, username=username, password_file=password_file, ca_file=ca_file,
        home_assistant=bool(sec.bool("home_assistant", False)), accept_matches=bool(sec.bool("accept_matches", True)),
        keepalive=sec.int("keepalive", 30, lo=5, hi=600),
    )
    sec.check_unknown()
    return settings


class _Options(Section):
    """``[club]`` as ``coindrel sim``'s options give it: errors name the option, not a file's key."""

    OPTIONS = {"broker": "--club", "table": "--table", "password_file": "--club-password-file",
               "ca_file": "--club-ca-file"}

    def where(self, key: str) -> str:
        option = self.OPTIONS.get(key)
        return f"{option} {self.data.get(key, '')}".rstrip() if option else f"command line: {key}"


def settings_from_url(url: str, table: str, *, username: str | None = None, password_file: str | None = None,
                      ca_file: str | None = None, **more) -> ClubSettings:
    """``coindrel sim --club URL --table NAME``: the same checks as the config file."""
    data = {"broker": url, "table": table}
    for k, v in (("username", username), ("password_file", password_file), ("ca_file", ca_file)):
        if v is not None:
            data[k] = str(Path(v).resolve()) if k != "username" else v
    data.update(more)  # the other [club] keys, e.g. home_assistant=True
    return parse_club(_Options("club", data, "command line"))
