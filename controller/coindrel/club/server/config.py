"""The club server's configuration (``--config club.toml``); the command line
overrides the file.

    [server]
    broker = "mqtt://127.0.0.1"          # mqtts://... with ca_file for TLS
    ca_file = "/etc/coindrel/club-ca.pem"
    username = "club"
    password_file = "/etc/coindrel/club-server-password"
    http = "127.0.0.1:8080"
    db = "/var/lib/coindrel-club/club.sqlite"
    tables = ["table-1", "table-2", "table-3"]   # messages from any other table are dropped
    admin_password_hash = "scrypt$16384$8$1$..."  # from `coindrel club hash-password`
    title = "Coindrel Club"
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...config import ConfigError, Section, read_toml
from ..config import BrokerURL, parse_broker_url
from ..messages import MessageError, check_table_name
from .auth import check_hash_format
from ...limits import SMALL, read_text_limited


@dataclass(frozen=True)
class ServerSettings:
    broker: BrokerURL
    tables: tuple[str, ...]
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    db: Path = Path("club.sqlite")
    username: str | None = None
    password_file: Path | None = None
    ca_file: Path | None = None
    admin_hash: str | None = None
    title: str = "Coindrel Club"
    secret: bytes = field(default=b"", repr=False)  # signs the admin's session cookie; fresh per start

    def password(self) -> str | None:
        if self.password_file is None:
            return None
        try:
            return read_text_limited(self.password_file, SMALL).splitlines()[0].strip()
        except (OSError, IndexError) as e:
            raise ConfigError(f"club server password_file {self.password_file}: cannot read a password from it "
                              f"({getattr(e, 'strerror', None) or 'empty'})") from None


def parse_http(text: str) -> tuple[str, int]:
    host, sep, port = str(text).rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not (port.isascii() and port.isdigit() and len(port) <= 5) or not 0 < int(port) < 65536:
        raise ConfigError(f"http {text!r}: write the address to listen on as HOST:PORT, e.g. 127.0.0.1:8080")
    return host, int(port)


def load_server_settings(config: str | None = None, **overrides) -> ServerSettings:
    """The file's [server] table (if a file is given) with the command line's values over it."""
    import secrets

    data = read_toml(config).get("server", {}) if config else {}
    source = str(config) if config else "command line"
    sec = Section("server", data, source)
    raw = {k: sec.get(k) for k in ("broker", "ca_file", "username", "password_file", "http", "db", "tables",
                                   "admin_password_hash", "title")}
    sec.check_unknown()
    for k, v in overrides.items():
        if v is not None:
            raw[k] = v
    if not raw["broker"]:
        raise ConfigError(f"{source}: the club server needs a broker: --broker mqtt://HOST or broker = ... in [server]")
    broker = parse_broker_url(raw["broker"])
    tables = raw["tables"] or []
    if isinstance(tables, str):
        tables = [t.strip() for t in tables.split(",") if t.strip()]
    if not isinstance(tables, list) or not tables:
        raise ConfigError(f"{source}: list the club's tables (tables = [\"table-1\", ...] or --tables table-1,table-2); "
                          "messages from tables not listed are dropped")
    for t in tables:
        try:
            check_table_name(t)
        except MessageError as e:
            raise ConfigError(f"{source}: tables: {e}") from None
    host, port = parse_http(raw["http"] or "127.0.0.1:8080")
    admin = raw["admin_password_hash"]
    if admin is not None:
        why = check_hash_format(admin)
        if why:
            raise ConfigError(f"{source}: admin_password_hash: {why}")
    paths = {k: Path(raw[k]) if raw[k] else None for k in ("password_file", "ca_file")}
    if paths["ca_file"] is not None and not broker.tls:
        raise ConfigError(f"{source}: ca_file is for a TLS broker: write the broker as mqtts://...")
    return ServerSettings(
        broker=broker, tables=tuple(dict.fromkeys(tables)), http_host=host, http_port=port,
        db=Path(raw["db"] or "club.sqlite"), username=raw["username"], admin_hash=admin,
        title=str(raw["title"] or "Coindrel Club"), secret=secrets.token_bytes(32), **paths,
    )
