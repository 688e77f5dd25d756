"""A hub hosted by a new process is a new power-on: its boot id is new
(firmware/PROTOCOL.md), though the board's seed is the same."""

from __future__ import annotations

from coindrel.virtual import BoardConfig, Scenario, build_board
from coindrel.virtual.wire import WireHub, power_on_salt


def boot_ids(salt: int) -> list[int]:
    board, _ = build_board(Scenario(BoardConfig(seed=7)))
    wire = WireHub(board, heartbeat=False, boot_salt=salt)
    ids = [wire.boot_id]
    wire.boot(0.5, "reset", [])
    ids.append(wire.boot_id)
    return ids


def test_a_restarted_hub_process_says_a_new_boot_id():
    first, second = power_on_salt(), power_on_salt()
    assert first != second
    a, b = boot_ids(first), boot_ids(second)
    assert not set(a) & set(b)  # the same seed, two processes: no boot id repeats
    assert a[0] != a[1]  # and a reset within one process is a new boot as before


def test_without_a_salt_boot_ids_stay_reproducible():
    assert boot_ids(0) == boot_ids(0)
