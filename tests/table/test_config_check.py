"""``coindrel run --check``: every key's type and range, the state directory
really usable, a file that is not UTF-8 or not there; each message names the
file, the table, the key and the fix, and none is a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coindrel.cli import main

GOOD = """
[storage]
state_dir = "{state}"
[board]
source = "virtual"
[display]
driver = "none"
"""


def check(tmp_path, capsys, text: str | bytes):
    path = tmp_path / "coindrel.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text.replace("{state}", str(tmp_path / "state")), encoding="utf-8")
    code = main(["run", "--check", "--config", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err, str(path)


def failed(tmp_path, capsys, text, *needles):
    code, out, err, path = check(tmp_path, capsys, text)
    assert code == 2, (out, err)
    assert err.startswith(f"coindrel run: {path}: "), err
    for n in needles:
        assert n in err, err
    assert "Traceback" not in err and "..." not in err
    return err


def test_a_good_configuration_passes_and_the_check_creates_nothing(tmp_path, capsys):
    code, out, err, path = check(tmp_path, capsys, GOOD)
    assert code == 0, err
    assert f"{path}: OK" in out and "source virtual" in out and "(writable)" in out
    # the file has [display] and no [inputs]: the check said "[inputs] configured" all the same
    assert "[display] configured" in out and "[inputs] defaults (no such table in the file)" in out
    assert not (tmp_path / "state").exists()  # the state directory was tried, then removed again


@pytest.mark.parametrize("table, key, value, needles", [
    ("inputs", "encoder_a", '"banana"', ["[inputs] encoder_a", '"banana" is not a pin', "BCM number like 17"]),
    ("inputs", "select", '"GPIO40"', ["[inputs] select", "BCM number from 0 to 27"]),
    ("inputs", "select", '"BOARD6"', ["[inputs] select", "header pin 6", "not a GPIO"]),
    ("board.hub", "url", "5", ["[board.hub] url", "text in quotes", 'url = "/dev/coindrel-hub"']),
    ("board.hub", "url", '"tcp://127.0.0.1:1"', ["[board.hub] url", "no tcp:// ports", "socket://"]),
    ("board.hub", "url", '"socket://localhost:99999"', ["[board.hub] url", "a port from 1 to 65535"]),
    ("board.hub", "url", '"socket://localhost"', ["[board.hub] url", "needs a host and a port"]),
    ("board.hub", "url", '"/etc/passwd"', ["[board.hub] url", "that is a file, not a serial device"]),
    ("board.hub", "url", '"/tmp"', ["[board.hub] url", "that is a folder, not a serial device"]),
    ("board.hub", "url", '"/dev/null"', ["[board.hub] url", "character device 1:3, not a serial port",
                                          "/dev/ttyACM0"]),
    ("board.hub", "reconnect_delay", '"fast"', ["[board.hub] reconnect_delay", "must be a number"]),
    ("board.hub", "max_reconnect_delay", "0.1", ["[board.hub] max_reconnect_delay", "at least reconnect_delay"]),
    ("board.gpio", "entry_pins", '"4"', ["[board.gpio] entry_pins", "list in [brackets]"]),
    ("match", "variants", '["holes", "Holes"]', ["[match] variants", "lists 'holes' twice"]),
    ("board.gpio", "entry_pins", '["GPIO99"]', ["[board.gpio] entry_pins", "entry 1", "GPIO99", "0 to 27"]),
    ("board.gpio", "exit_pins", '[5, "BOARD1"]', ["[board.gpio] exit_pins", "exit 2", "BOARD1", "not a GPIO"]),
    ("board.gpio", "entry_pins", '[4, "pin4"]', ["[board.gpio] entry_pins", "entry 2", "not a pin"]),
    ("board.virtual", "truth", '"/nonexistent/t.jsonl"', ["[board.virtual] truth", "/nonexistent is not there", "mkdir -p"]),
    ("board.virtual", "speed", "-1", ["[board.virtual] speed", "-1 is out of range", "0 or more"]),
    ("display", "idle_after", "-5", ["[display] idle_after", "-5 is out of range; write a number 0 or more"]),
    ("display", "contrast", "300", ["[display] contrast", "from 0 to 255"]),
    ("display", "idle_after", "nan", ["[display] idle_after", "not a usable number"]),
    ("display", "transform", "3", ["[display] transform", "text in quotes"]),
])
def test_types_and_ranges_name_file_table_key_and_fix(tmp_path, capsys, table, key, value, needles):
    text = f'[storage]\nstate_dir = "{tmp_path / "state"}"\n[display]\ndriver = "none"\n'
    if table == "display":
        text = text.replace('driver = "none"\n', f'driver = "capture"\n{key} = {value}\n')
    else:
        text += f"[{table}]\n{key} = {value}\n"
    failed(tmp_path, capsys, text, *needles)


@pytest.mark.parametrize("state, needles", [
    ("/proc/nope", ["[storage] state_dir", "cannot use /proc/nope", "a file system the kernel makes up",
                    "set state_dir to a folder on a disk"]),
    ("{tmp}/a-file/state", ["[storage] state_dir", "a-file/state", "a file, not a folder", "/var/lib/coindrel"]),
    ("{tmp}/a-file", ["[storage] state_dir", "a file, not a folder", "folder of its own"]),
])
def test_the_state_directory_must_be_usable(tmp_path, capsys, state, needles):
    (tmp_path / "a-file").write_text("x")
    text = GOOD.replace('"{state}"', '"' + state.replace("{tmp}", str(tmp_path)) + '"')
    failed(tmp_path, capsys, text, *needles)


def test_a_state_directory_that_is_not_there_yet_is_fine_when_it_can_be_made(tmp_path, capsys):
    code, out, err, _ = check(tmp_path, capsys, GOOD.replace("{state}", str(tmp_path / "a" / "b" / "c")))
    assert code == 0, err
    assert not (tmp_path / "a").exists()


def test_a_file_that_is_not_utf8_is_a_message_with_its_line(tmp_path, capsys):
    failed(tmp_path, capsys, b'[match]\nplayers = ["Ren\xe9e", "Bo"]\n', "not UTF-8 text", "line 2", "save the file as UTF-8")


def test_a_missing_file_points_at_the_shipped_example(tmp_path, capsys):
    code = main(["run", "--check", "--config", str(tmp_path / "none.toml")])
    err = capsys.readouterr().err
    assert code == 2 and "no such configuration file" in err
    assert "systemd/coindrel.toml.example" in err and "README" not in err
    assert (Path(__file__).resolve().parents[2] / "systemd" / "coindrel.toml.example").is_file()


def test_a_folder_given_as_the_file(tmp_path, capsys):
    code = main(["run", "--check", "--config", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "is a folder; give the configuration file" in err


def test_a_hub_that_is_not_plugged_in_is_noted_not_refused(tmp_path, capsys):
    """The service waits for an absent hub, so the check passes, but says so:
    a newcomer's typo in the device name was accepted without a word."""
    text = GOOD.replace('source = "virtual"', f'source = "hub"\n[board.hub]\nurl = "{tmp_path}/ttyACM9"')
    code, out, err, path = check(tmp_path, capsys, text)
    assert code == 0, err
    assert f"note: hub: {tmp_path}/ttyACM9 is not there now" in out and "plugged in" in out
    master, slave = os.openpty()  # a serial port (a pty), as the udev rule's name is
    try:
        (tmp_path / "ttyACM9").symlink_to(os.ttyname(slave))
        code, out, err, path = check(tmp_path, capsys, text)
    finally:
        os.close(master)
        os.close(slave)
    assert code == 0 and "note:" not in out, err


def test_a_device_that_is_no_serial_port_is_refused_by_the_check(tmp_path, capsys):
    """/dev/null was accepted, and the daemon then waited for ever on
    "Inappropriate ioctl for device"."""
    (tmp_path / "ttyACM9").symlink_to("/dev/null")
    text = GOOD.replace('source = "virtual"', f'source = "hub"\n[board.hub]\nurl = "{tmp_path}/ttyACM9"')
    failed(tmp_path, capsys, text, "[board.hub] url", "ttyACM9", "character device 1:3 (/dev/null), not a serial port",
           "write the hub's port")


@pytest.mark.parametrize("where, needles", [
    ("{tmp}/coindrel.toml", ["[control] socket", "exists and is not a socket", "would not be replaced"]),
    ("{tmp}/no/such/ctl.sock", ["[control] socket", "does not exist"]),
    ("/proc/ctl.sock", ["[control] socket", "the kernel makes up"]),
    ("/tmp/" + "x" * 120 + ".sock", ["[control] socket", "must be under 108 bytes"]),  # run only warned
])
def test_a_control_socket_that_run_could_not_make_is_refused(tmp_path, capsys, where, needles):
    # Before: --check passed, and `coindrel run` then only warned and ran without `coindrel ctl`.
    text = GOOD + f'[control]\nsocket = "{where.replace("{tmp}", str(tmp_path))}"\n'
    failed(tmp_path, capsys, text, *needles)
    assert (tmp_path / "coindrel.toml").read_text(encoding="utf-8").startswith("\n[storage]")  # not replaced


def test_the_check_says_where_the_control_socket_will_be(tmp_path, capsys):
    code, out, err, path = check(tmp_path, capsys, GOOD + f'[control]\nsocket = "{tmp_path}/ctl.sock"\n')
    assert code == 0, err
    assert f"control socket: {tmp_path}/ctl.sock" in out
    code, out, err, path = check(tmp_path, capsys, GOOD + '[control]\nsocket = ""\n')
    assert code == 0 and "control socket: none" in out


def test_a_byte_order_mark_is_no_error(tmp_path, capsys):
    """Found by a newcomer: a file saved with a BOM (some editors do) said
    only "Invalid statement (at line 1, column 1)"."""
    text = GOOD.replace("{state}", str(tmp_path / "state"))
    code, out, err, _ = check(tmp_path, capsys, "\ufeff".encode() + text.encode())
    assert code == 0, err


def test_keep_matches_has_a_sane_ceiling(tmp_path, capsys):
    text = GOOD.replace('state_dir = "{state}"', 'state_dir = "{state}"\nkeep_matches = 100000000000000000000000000000')
    failed(tmp_path, capsys, text, "[storage] keep_matches", "out of range", "1000000")
