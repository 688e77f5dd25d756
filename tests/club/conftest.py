"""The club tests' real broker: a Mosquitto on 127.0.0.1 with a password
file and an ACL, knowing the broker tests' tables, the club, a login that may
write anywhere (``rogue``) and Home Assistant's."""

import pytest

from .support import TABLES, Mosquitto


@pytest.fixture
def broker(tmp_path):
    b = Mosquitto(tmp_path / "broker", users=[*TABLES, "club", "rogue", "homeassistant"]).start()
    yield b
    b.stop()
