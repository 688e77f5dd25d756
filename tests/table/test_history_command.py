"""``coindrel history`` through the real command line."""

from __future__ import annotations

import json

import pytest

from coindrel.cli import main
from coindrel.obslog import read_log

from .support import build
from .test_history import finished


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["history", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def state(tmp_path):
    matches = finished(tmp_path, 2)
    build(tmp_path)
    return tmp_path, matches


def test_the_list(state, capsys):
    d, matches = state
    code, out, _ = run(capsys, "--state-dir", str(d))
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:4] == ["#", "started", "players", "score"]
    assert lines[1].split()[0] == "3" and "in progress, round 2" in lines[1]
    a, b = matches[1].totals
    assert lines[2].split()[0] == "2" and f"{a}-{b}" in lines[2] and "Zoë v Bo" in lines[2]
    winner = {1: "Zoë wins", 2: "Bo wins", "draw": "draw"}[matches[1].winner]
    assert winner in lines[2]
    code, out, _ = run(capsys, "--state-dir", str(d), "--limit", "1")
    assert len(out.splitlines()) == 2


def test_one_match(state, capsys):
    d, matches = state
    code, out, _ = run(capsys, "--state-dir", str(d), "1")
    assert code == 0
    assert out.startswith("Match #1 (0001-") and ": finished" in out.splitlines()[0]
    assert f"Zoë {matches[0].totals[0]}, Bo {matches[0].totals[1]}" in out
    rows = [line for line in out.splitlines() if line[:4].strip().isdigit()]
    assert len(rows) == len(matches[0].results)
    first = matches[0].results[0]
    assert rows[0].split()[3] == "Zoë" and rows[0].split()[4] == str(first.entry + 1)
    # Every round ends with a player reaching the target and the other's last drop.
    assert sum("target reached: last drop to" in r for r in rows) == 4
    assert [r.split()[2] for r in rows if "last drop of round" in r] == ["1", "2", "3", "4"]


def test_json(state, capsys):
    d, matches = state
    code, out, _ = run(capsys, "--state-dir", str(d), "--json")
    rows = json.loads(out)
    assert [r["number"] for r in rows] == [3, 2, 1] and rows[1]["totals"] == list(matches[1].totals)
    code, out, _ = run(capsys, "--state-dir", str(d), "--json", "last")
    one = json.loads(out)
    assert one["summary"]["number"] == 2 and len(one["turns"]) == len(matches[1].results)
    assert one["turns"][-1]["totals"] == list(matches[1].totals)


def test_events_for_reconcile(state, capsys):
    d, _ = state
    code, out, _ = run(capsys, "--state-dir", str(d), "current", "--events")
    log = read_log(out.splitlines())
    assert code == 0 and log.problems == [] and len(log.events) > 10
    code, _, err = run(capsys, "--state-dir", str(d), "--events")
    assert code == 2 and "--events needs a MATCH" in err


def test_the_state_directory_comes_from_the_configuration(state, capsys, tmp_path_factory):
    d, _ = state
    cfg = tmp_path_factory.mktemp("etc") / "coindrel.toml"
    cfg.write_text(f'[storage]\nstate_dir = "{d}"\n')
    code, out, _ = run(capsys, "--config", str(cfg), "--limit", "1")
    assert code == 0 and "in progress" in out
    cfg.write_text('[storage]\nstate_dir = "relative/path"\n')
    code, _, err = run(capsys, "--config", str(cfg))
    assert code == 2 and "[storage] state_dir" in err and "absolute" in err
    code, _, err = run(capsys, "--config", str(cfg.with_name("missing.toml")))
    assert code == 2 and "no such configuration file" in err


def test_errors_are_one_clear_line(tmp_path, capsys):
    code, _, err = run(capsys, "--state-dir", str(tmp_path / "nowhere"))
    assert code == 2 and "does not exist" in err and "--state-dir" in err
    (tmp_path / "a-file").write_text("x")
    code, _, err = run(capsys, "--state-dir", str(tmp_path / "a-file"))
    assert code == 2 and "a-file is not a folder" in err and "--state-dir" in err
    (tmp_path / "empty").mkdir()
    code, out, _ = run(capsys, "--state-dir", str(tmp_path / "empty"))
    assert code == 0 and out == "No matches kept yet.\n"
    code, _, err = run(capsys, "--state-dir", str(tmp_path / "empty"), "7")
    assert code == 2 and err.strip() == "coindrel history: there is no match #7; `coindrel history` lists the kept matches"


def test_a_history_file_of_random_bytes_is_named_and_left_alone(tmp_path, capsys):
    import os

    (tmp_path / "history").mkdir()
    junk = tmp_path / "history" / "0001-20260101T000000Z.journal"
    data = os.urandom(2000)
    junk.write_bytes(data)
    code, out, _ = run(capsys, "--state-dir", str(tmp_path))
    assert code == 0 and "not a coindrel journal" in out and "empty" not in out
    code, out, _ = run(capsys, "--state-dir", str(tmp_path), "1")
    assert "Match #None" not in out and "not a coindrel journal" in out and "backup" in out, out
    assert junk.read_bytes() == data


def test_a_state_directory_on_proc_is_named_as_such(capsys):
    # before: "No matches kept yet." with exit 0, as if /proc were an empty state directory
    code = main(["history", "--state-dir", "/proc"])
    err = capsys.readouterr().err
    assert code == 2 and "a file system the kernel makes up" in err and "Traceback" not in err


def test_json_counts_from_1_and_names_the_winner_as_the_text_and_ctl_status_do(state, capsys):
    d, matches = state
    m = matches[1]
    code, out, _ = run(capsys, "--state-dir", str(d), "--json", "last")
    one = json.loads(out)
    assert [t["entry"] for t in one["turns"]] == [r.entry + 1 for r in m.results]
    assert [t["exits"] for t in one["turns"]] == [[x + 1 for x in r.exits] for r in m.results]
    assert all(1 <= t["entry"] <= 8 and all(1 <= x <= 16 for x in t["exits"]) for t in one["turns"])
    assert one["turns"][0]["turn"] == 1
    from coindrel.table.simresult import winner_name

    assert one["summary"]["winner"] == winner_name(m) and one["summary"]["winner"] in (*m.setup.players, "draw")
    _, listed, _ = run(capsys, "--state-dir", str(d), "--json")
    rows = json.loads(listed)
    assert rows[1]["winner"] == winner_name(m)
    assert rows[0]["winner"] is None, "in progress: nobody has won"
    _, text, _ = run(capsys, "--state-dir", str(d), "last")
    first = one["turns"][0]
    row = next(line for line in text.splitlines() if line.startswith("   1  "))
    cells = row.split()
    assert cells[4].rstrip("*") == str(first["entry"]), (row, first)  # turn, time, round, name, entry
    assert " ".join(map(str, first["exits"])) in row if first["exits"] else " - " in row
