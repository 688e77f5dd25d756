from __future__ import annotations

import pytest


@pytest.fixture
def hub_path(tmp_path):
    """Where the fake hub's pty appears (a symlink, as udev makes /dev/coindrel-hub)."""
    return tmp_path / "coindrel-hub"
