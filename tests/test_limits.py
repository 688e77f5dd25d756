"""Every file the table reads is bounded and must be a regular file
(coindrel/limits.py): /dev/zero, a pipe, a huge file get a clear message at
once; a file where a directory belongs is named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coindrel.cli import main
from coindrel.config import ConfigError, read_toml
from coindrel.engine import EngineError
from coindrel.engine.boardfile import MAX_BOARD_FILE, load_geometry
from coindrel.limits import CONFIG, NotAFile, TooLarge, read_limited
from coindrel.table.journal import JournalError, read_journal
from coindrel.table.settings import parse_settings
from coindrel.table.store import MatchStore, StoreError


def test_dev_zero_is_refused_at_once_not_read():
    with pytest.raises(NotAFile, match="character device"):
        read_limited("/dev/zero", CONFIG)
    with pytest.raises(ConfigError, match="/dev/zero: cannot read the configuration .*character device"):
        read_toml("/dev/zero")
    with pytest.raises(EngineError, match="/dev/zero: cannot read the board file .*not a regular file"):
        load_geometry("/dev/zero")
    from coindrel.hub.channelmap import ChannelMapError, load_channel_map

    with pytest.raises(ChannelMapError, match="/dev/zero: cannot read the channel map .*character device"):
        load_channel_map("/dev/zero")  # it was read for ever


def test_geometry_dev_zero_in_the_config_names_the_key():
    with pytest.raises(ConfigError, match=r"geometry.*/dev/zero.*not a regular file"):
        parse_settings({"board": {"geometry": "/dev/zero", "source": "none"}})


def test_a_named_pipe_does_not_hang(tmp_path):
    fifo = tmp_path / "board.json"
    os.mkfifo(fifo)
    with pytest.raises(EngineError, match="not a regular file"):
        load_geometry(fifo)
    with pytest.raises(ConfigError, match="named pipe"):
        read_toml(fifo)


def test_files_over_the_limit_are_refused(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_BOARD_FILE + 1))
    with pytest.raises(EngineError, match="more than 1024 KiB"):
        load_geometry(big)
    with pytest.raises(TooLarge, match="more than the 1 MiB"):
        read_limited(big, CONFIG)
    big.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_toml(big)


def test_a_journal_that_is_a_device_says_so(tmp_path):
    os.symlink("/dev/zero", tmp_path / "match.journal")
    with pytest.raises(JournalError, match="character device"):
        read_journal(tmp_path / "match.journal")


@pytest.mark.parametrize("entry", ["history", "damaged"])
def test_a_file_where_a_directory_belongs_is_named(tmp_path, entry):
    (tmp_path / entry).write_text("not a directory")
    with pytest.raises(StoreError, match=f"{tmp_path / entry} is a file, not a directory"):
        MatchStore(tmp_path).open()
    assert (tmp_path / entry).read_text() == "not a directory"  # nothing of the person's is touched


def test_coindrel_history_names_a_history_that_is_a_file(tmp_path, capsys):
    (tmp_path / "history").write_text("x")
    assert main(["history", "--state-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'history'} is a file, not a directory" in err and "Traceback" not in err


def test_an_entry_of_the_history_that_is_not_a_file_is_named(tmp_path, capsys):
    (tmp_path / "history").mkdir()
    (tmp_path / "history" / "0001-x.journal").mkdir()
    assert main(["history", "--state-dir", str(tmp_path), "--json"]) == 0
    out = capsys.readouterr().out
    assert "0001-x.journal" in out and "unreadable" in out and "directory" in out


def test_every_other_file_a_command_reads_is_refused_as_dev_zero_at_once(tmp_path):
    """Scenarios, drop scripts, club password files and calibration files were read without a limit."""
    from coindrel.club.config import ClubSettings
    from coindrel.engine import EngineError
    from coindrel.virtual.scenario import read_data, read_drops

    with pytest.raises(EngineError, match="/dev/zero: cannot read the scenario .*character device"):
        read_data("/dev/zero")
    with pytest.raises(EngineError, match="/dev/zero: cannot read the drop script .*character device"):
        read_drops("/dev/zero")
    with pytest.raises(ConfigError, match="password_file /dev/zero: cannot read it .*character device"):
        ClubSettings(broker=None, table="t", username="t", password_file=Path("/dev/zero")).password()


def test_a_config_that_is_a_pipe_or_huge_gets_the_right_hint(tmp_path):
    # before: both ended "check its permissions", which is not the problem
    import os

    pipe = tmp_path / "coindrel.toml"
    os.mkfifo(pipe)
    with pytest.raises(ConfigError, match="named pipe.*give a regular file") as e:
        read_toml(pipe)
    assert "permissions" not in str(e.value)
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (CONFIG + 1))
    with pytest.raises(ConfigError, match="more than.*is this the right file") as e:
        read_toml(big)
    assert "permissions" not in str(e.value)
