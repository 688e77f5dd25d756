"""A disk that fills while a coin's cascade is in progress (a newcomer's
finding: after the restart the next coin was judged "Extra coin" and every
later turn went to the other player). The journal's k-th write fails with
ENOSPC, and so does every write after it (the disk stays full) until the
table has stopped; it restarts on a disk with room, the hub gives back what
came after the journal's last hub position, and every drop must score as on
a table whose disk never filled, or the players must be asked.

The board is the virtual board's model; the hub is test_kill_orphans'
stand-in (frames numbered, replay from a position)."""

from __future__ import annotations

import errno
import logging
import os

import pytest

from coindrel.config import Section
from coindrel.display import open_display
from coindrel.events import StatusEvent
from coindrel.sources.base import Snapshot
from coindrel.table import journal as journal_module
from coindrel.table.daemon import Table
from coindrel.table.journal import read_journal
from coindrel.table.resync import resync
from coindrel.table.setupmenu import Choices
from coindrel.table.store import MatchStore
from coindrel.virtual import BoardConfig, Collect, Scenario, build_board

from .test_kill_orphans import G, START, STEP, ReplayingHub

# Bo's coin goes in just after Ann's cascade ended on the board, while a slow
# diagnosis still holds Ann's verdict: the table notes it as a second coin
# until Ann's report says her cascade had ended before it went in.
DROPS = [(2.0, 1), (4.4, 0), (7.0, 3), (9.4, 5), (12.0, 2), (14.4, 7)]
HOLDS = [(2.0, 5.0), (7.0, 10.0), (12.0, 15.0)]
PROBE = 0.25  # seconds between the waiting table's probes of the disk (5 s on a real table)


class Disk:
    """The state directory's writes, counted; from write ``full_at`` (or the
    data sync ``sync_full_at``) on, every one fails with ENOSPC until ``free()``."""

    def __init__(self, state_dir, full_at=None, sync_full_at=None):
        self.dir = str(state_dir)
        self.full_at, self.sync_full_at = full_at, sync_full_at
        self.writes = self.syncs = 0
        self.started = self.started_syncs = 0  # the writes (syncs) done once the match had started
        self.full = False

    def _ours(self, fd) -> bool:
        try:
            return os.readlink(f"/proc/self/fd/{fd}").startswith(self.dir)
        except OSError:
            return False

    def write_all(self, fd, data, _real=journal_module._write_all):
        if self._ours(fd):
            self.writes += 1
            if self.full or (self.full_at is not None and self.writes >= self.full_at):
                self.full = True
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        _real(fd, data)

    def datasync(self, fd):
        if self._ours(fd):
            self.syncs += 1
            if self.full or (self.sync_full_at is not None and self.syncs >= self.sync_full_at):
                self.full = True
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.fdatasync(fd)

    def free(self):
        self.full_at = self.sync_full_at = None
        self.full = False


def play(tmp_path, monkeypatch, disk=None, drops=DROPS, holds=HOLDS, down=1.0, slow_after=False):
    """The match on the board's schedule; the disk fills as ``disk`` says,
    the table stops (as its loop does once a save failed), ``down`` seconds
    pass (its shutdown, someone freeing space, the restart), and a new table
    resumes on a disk with room. ``slow_after``: the diagnoses are as slow
    after the restart. Returns (results, (totals, round scores, players of
    the drops), table, whether it restarted)."""
    out = Collect()
    board, _ = build_board(Scenario(BoardConfig(seed=8, start=START)), outputs=[out])
    for t, e in drops:
        board.drop(e, t)
    now = [0.0]
    ring: list[tuple[int, object]] = []
    state = tmp_path / "state"
    disk = disk or Disk(state)
    disk.dir = str(state)
    monkeypatch.setattr(journal_module, "_write_all", disk.write_all)

    def positions():
        return {G.labels[s]: ("none" if c == 4 else "LR"[c & 1]) for s, c in enumerate(board.world.codes)}

    def new_table(src):
        store = MatchStore(state, datasync=disk.datasync).open()
        table = Table(G, Choices(clock="off", players=("Ann", "Bo")), source=src, store=store,
                      clock=lambda: now[0], reveal_seconds=0.1)
        table.room_probe_every = PROBE
        return table, store

    def hear():
        new = out.events[len(ring):]
        for ev in new:
            ring.append((100 + len(ring), ev))
        return ring[len(ring) - len(new):]

    src = ReplayingHub()
    table, store = new_table(src)
    table.positions = positions()
    table.resume(store.recover())
    for _ in range(3):
        table.handle_action("select")
        now[0] += 0.2
        table.step()
    disk.started, disk.started_syncs = disk.writes, disk.syncs
    table.handle_event(StatusEvent(now[0], "connected", "hub"))
    restarted = False
    steps = 0
    until = drops[-1][0] + 6.0
    while now[0] < until:
        steps += 1
        assert steps < 10_000
        now[0] += STEP
        board.run_until(now[0])
        for num, ev in hear():
            src.give(table, num, ev)
        if any(a <= now[0] < b for a, b in holds) and (slow_after or not restarted):
            continue
        table.step()
        if table.flow.diagnosis is not None:
            table.handle_action("select")
            table.step()
        if table.failed is None or restarted:
            continue
        # the table waits for room (roomwait.py): what it hears meanwhile is left to the hub, nothing scores,
        # no clock runs; the disk is freed halfway through the stop, and the next probe finds room
        assert table.room_wait is not None and table.healthy
        scored, log_len, start = list(table.flow.match.results), len(table.flow.match.log), now[0]
        while now[0] < start + down or not table.check_room():
            assert now[0] < start + down + 2 * PROBE, "the probe never found room"
            if now[0] >= start + down / 2:
                disk.free()
            else:
                assert not table.check_room()
            now[0] += STEP
            board.run_until(now[0])
            for num, ev in hear():
                src.give(table, num, ev)
            table.step()
            table.handle_action("select")
        assert table.flow.match.results == scored and len(table.flow.match.log) == log_len
        assert not list(state.glob("*.tmp")), "the probes and failed writes leave no .tmp behind"
        # its run ends there, and serve() builds the table again, as run() shuts down
        table.close_diagnosis()
        table.save_timing()
        store.close()
        restarted = True
        until = max(until, now[0] + 8.0)  # what fell meanwhile is reconciled after the restart
        src = ReplayingHub()
        table, store = new_table(src)
        table.resume(store.recover())
        table.handle_event(StatusEvent(board.now, "connected", "hub"))
        after = src.resume_after
        for num, ev in ring:
            if after is None or num > after.num:
                src.give(table, num, ev)
        resync(table, Snapshot(board.now, positions()))
        table.learn_positions(positions())
    m = table.flow.match
    results = [(r.entry, tuple(r.exits)) for r in m.results]
    return results, (tuple(m.totals), tuple(m.round_scores), tuple(r.player for r in m.results)), table, restarted


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:
        return play(tmp_path_factory.mktemp("ref"), mp)
    finally:
        mp.undo()


def test_the_schedule_notes_the_next_coin_as_a_second_one_while_a_verdict_waits(tmp_path, monkeypatch, reference):
    # what makes the full disk dangerous: the coins note holds the next turn's coin as a second coin
    # until the slow verdict says the cascade before it had ended (the players alternate all the same)
    results, scores, table, restarted = reference
    assert not restarted and len(results) == len(DROPS) and scores[2] == (1, 2, 1, 2, 1, 2)
    notes = [r.data["coins_in"] for r in read_journal(table.journal.path).records
             if r.kind == "note" and "coins_in" in r.data]
    assert any(len(c) == 2 and c[1][1] for c in notes)


def _count(tmp_path, monkeypatch) -> Disk:
    disk = Disk(None)
    play(tmp_path / "count", monkeypatch, disk)
    return disk


def _sweep(tmp_path, monkeypatch, reference, disks, **kw):
    ref, ref_scores, _, _ = reference
    bad, restarts = [], 0
    for name, disk in disks:
        got, scores, table, restarted = play(tmp_path / name, monkeypatch, disk, **kw)
        restarts += restarted
        if got != ref or scores != ref_scores:
            bad.append((name, got, scores))
    return bad, restarts


@pytest.mark.slow
@pytest.mark.parametrize("down,slow_after", [(0.5, False), (2.5, False), (5.0, False), (2.5, True)])
def test_a_disk_that_fills_at_any_write_never_misscores(tmp_path, monkeypatch, reference, down, slow_after):
    # every write of the match fails in turn (notes, events, verdicts, actions alike), the table stops,
    # and comes back after a short or a long stop (a long one: the hub's "connected" comes after the
    # open drop's deadline, so it must know the table was away)
    # (a match whose start the disk refuses is not played, so the writes before it are not swept:
    # test_a_new_match_on_a_full_disk_waits_for_room_then_goes_on_by_itself)
    count = _count(tmp_path, monkeypatch)
    disks = [(f"w{k}", Disk(None, full_at=k)) for k in range(count.started + 1, count.writes + 1)]
    bad, restarts = _sweep(tmp_path, monkeypatch, reference, disks, down=down, slow_after=slow_after)
    assert restarts == len(disks)
    assert not bad, f"mis-scored after a full disk at {[b[0] for b in bad]}: {bad[:2]} (truth {reference[:2]})"


@pytest.mark.slow
def test_a_disk_whose_sync_fails_never_misscores(tmp_path, monkeypatch, reference):
    # a file system that takes the write and fails the fdatasync (delayed allocation): what was written
    # is in the file after the restart, though never confirmed; the diagnoses stay slow after it
    count = _count(tmp_path, monkeypatch)
    disks = [(f"s{k}", Disk(None, sync_full_at=k)) for k in range(count.started_syncs, count.syncs + 1)]
    bad, restarts = _sweep(tmp_path, monkeypatch, reference, disks, down=3.0, slow_after=True)
    assert restarts == len(disks)
    assert not bad, f"mis-scored after a failed sync at {[b[0] for b in bad]}: {bad[:2]} (truth {reference[:2]})"


def _drops_on_disk(table) -> int:
    return sum(1 for r in read_journal(table.journal.path).records
               if r.kind == "act" and isinstance(r.data, dict) and r.data.get("do") == "drop")


def test_a_full_disk_is_told_with_what_is_saved_and_how_to_go_on(tmp_path, monkeypatch, caplog):
    told = {}
    original = Table._cannot_save

    def at_the_failure(self, e):
        original(self, e)
        told.update(failed=self.failed, view=self.flow.view(self.now()), drops=_drops_on_disk(self))

    monkeypatch.setattr(Table, "_cannot_save", at_the_failure)
    with caplog.at_level(logging.ERROR, logger="coindrel.table"):
        play(tmp_path, monkeypatch, Disk(None, full_at=40), down=2.5)  # while a drop waits for its verdict
    n = told["drops"]
    assert n >= 1
    state = tmp_path / "state"
    assert told["failed"].startswith(f"The disk is full: nothing after drop {n} is saved")
    assert f"df -h {state}" in told["failed"] and f"once there is room the match goes on after drop {n}" in told["failed"]
    assert "Traceback" not in caplog.text and told["failed"] in caplog.text
    view = told["view"]
    assert view.title == "Disk full" and view.alert and view.text.startswith(f"Saved up to drop {n}. Free space")


def _probes_until_free(monkeypatch, disk, fails=3):
    """The disk probe, counted: after ``fails`` that found it full, space is freed."""
    from coindrel.table import roomwait

    seen = []

    def probe(where, _real=roomwait.probe_room):
        err = _real(where)
        seen.append(err)
        if len(seen) >= fails:
            disk.free()
        return err

    monkeypatch.setattr(roomwait, "probe_room", probe)
    return seen


def test_a_new_match_on_a_full_disk_waits_for_room_then_goes_on_by_itself(tmp_path, monkeypatch, caplog):
    import asyncio

    state = tmp_path / "state"
    disk = Disk(state)
    monkeypatch.setattr(journal_module, "_write_all", disk.write_all)
    now = [0.0]

    def clock():  # every look at the clock is a second later: the loop's waits are its shortest step
        now[0] += 1.0
        return now[0]

    panel = open_display(Section("display", {"driver": "dummy"}), clock=lambda: now[0])  # luma's dummy device
    shown = []
    show = panel.show_async

    async def show_async(view, t):
        shown.append(view)
        return await show(view, t)

    panel.show_async = show_async
    store = MatchStore(state, datasync=disk.datasync).open()
    table = Table(G, Choices(clock="off", players=("Ann", "Bo")), store=store, display=panel, clock=clock,
                  reveal_seconds=0.1)
    table.resume(store.recover())
    disk.full = True
    probes = _probes_until_free(monkeypatch, disk)
    with caplog.at_level(logging.INFO, logger="coindrel.table"):
        for _ in range(2):  # New match, and the pads are set: its journal cannot be created
            table.handle_action("select")
        assert table.room_wait is not None and table.healthy, "a full disk is waited out, not a restart"
        assert table.failed.startswith("The disk is full: the new match cannot be saved, so it did not start")
        table.handle_action("select")  # a press does nothing meanwhile
        asyncio.run(asyncio.wait_for(table._pump_steps(asyncio.Event()), 30))
    assert len(probes) == 4 and probes[0].errno == errno.ENOSPC and probes[-1] is None
    assert table.room_again == "Disk has room again: the table goes back to its menu, to start the match again"
    assert table.room_again in caplog.text and "Traceback" not in caplog.text
    assert table.journal is None and not (state / "match.journal").exists()
    assert not list(state.glob("*.tmp")), "no probe and no failed write is left behind"
    titles = [v.title for v in shown if hasattr(v, "title")]
    assert titles[0] == "Disk full" and titles[-1] == "Disk has room" and set(titles) == {"Disk full", "Disk has room"}
    panel.close()
    store.close()


def test_a_match_ended_on_a_full_disk_stays_to_be_resumed(tmp_path, monkeypatch, caplog):
    state = tmp_path / "state"
    disk = Disk(state)
    monkeypatch.setattr(journal_module, "_write_all", disk.write_all)
    now = [0.0]
    store = MatchStore(state, datasync=disk.datasync).open()
    table = Table(G, Choices(clock="off", players=("Ann", "Bo")), store=store, clock=lambda: now[0],
                  reveal_seconds=0.1)
    table.resume(store.recover())
    for _ in range(3):  # new match, pads set, and a coin keyed in
        table.handle_action("select")
        now[0] += 0.2
        table.step()
    assert len(table.flow.match.results) == 1
    disk.full = True
    with caplog.at_level(logging.ERROR, logger="coindrel.table"):
        for press in ("back", "next", "next", "next", "select", "next", "select"):  # pause, End match, yes
            table.handle_action(press)
            table.step()
    assert table.failed.startswith("The disk is full: nothing after drop 1 is saved")
    assert "Traceback" not in caplog.text and "could not carry out" not in caplog.text
    store.close()
    disk.free()
    again = MatchStore(state).open()
    found = again.recover()
    assert found.match is not None and len(found.match.results) == 1, "the match waits to be resumed, as saved"
    again.close()


@pytest.mark.parametrize("saved", ["drop 1", "drop 38", "the start of the match", "new", None])
def test_the_panel_says_it_in_the_lines_a_128x64_panel_has(tmp_path, saved):
    from coindrel.display import MessageView
    from coindrel.display import text as T
    from coindrel.display.render import panel, render
    from coindrel.table.roomwait import panel_text

    view = MessageView("Disk full", panel_text(saved), alert=True)
    p = panel((128, 64))
    assert len(T.wrap(view.text, p.body, p.w - 3, 2)) <= (p.h - p.line) // (p.line - 1), "cut off with an ellipsis"
    render(view, (128, 64)).save(tmp_path / "disk-full.png")  # (looked at: four whole lines under the bar)


def _one_drop(state, disk, now, **kw):
    """A table on ``state`` with a match whose first drop is keyed in."""
    store = MatchStore(state, datasync=disk.datasync).open()
    table = Table(G, Choices(clock="off", players=("Ann", "Bo")), store=store, clock=lambda: now[0],
                  reveal_seconds=0.1, **kw)
    table.resume(store.recover())
    for _ in range(3):  # new match, pads set, and a coin keyed in
        table.handle_action("select")
        now[0] += 0.2
        table.step()
    assert len(table.flow.match.results) == 1
    return table, store


def test_a_match_on_a_full_disk_waits_says_so_everywhere_and_scores_nothing(tmp_path, monkeypatch):
    import socket

    from coindrel.commands.ctl import human
    from coindrel.events import ExitEvent
    from coindrel.table.control import RequestError, handle, status_of
    from coindrel.table.notify import Notifier, WatchdogFeeder

    state = tmp_path / "state"
    disk = Disk(state)
    monkeypatch.setattr(journal_module, "_write_all", disk.write_all)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)  # systemd's notify socket, a real one
    sock.bind(str(tmp_path / "notify.sock"))
    sock.settimeout(10)
    now = [0.0]
    table, store = _one_drop(state, disk, now, notifier=Notifier(str(tmp_path / "notify.sock")))
    sock.setblocking(False)
    try:
        while True:
            sock.recv(4096)
    except BlockingIOError:
        sock.settimeout(10)
    disk.full = True
    table.handle_action("select")  # the next coin keyed in: it cannot be saved
    assert table.room_wait is not None and table.failed.startswith("The disk is full: nothing after drop 1 is saved")
    assert sock.recv(4096).decode().startswith("STATUS=Disk full: nothing after drop 1 is saved; free space in ")
    feeder = WatchdogFeeder(table.notifier, 1.0, healthy=lambda: table.healthy)
    assert feeder.tick() and sock.recv(4096) == b"WATCHDOG=1", "the watchdog is fed: a restart would find it as full"
    log_len = len(table.flow.match.log)
    for t in range(20):  # coins the hub sees and presses: nothing is taken in, no clock runs
        now[0] += 0.5
        table.handle_event(ExitEvent(now[0], t % 16))
        table.handle_action("select")
        table.step()
        assert not table.check_room() or t >= 10
    assert len(table.flow.match.log) == log_len
    st = status_of(table)
    assert st["disk"]["full"] and st["disk"]["saved"] == "drop 1" and st["disk"]["checks"] >= 1
    assert table.failed in human(st)
    with pytest.raises(RequestError, match="The disk is full"):
        handle(table, {"cmd": "press", "button": "select"})
    disk.free()
    now[0] += 5.0
    assert table.check_room()
    assert table.room_again == "Disk has room again: the match goes on after drop 1"
    assert not list(state.glob("*.tmp"))
    table.close_diagnosis()
    store.close()
    sock.close()
    again = MatchStore(state).open()
    found = again.recover()
    assert found.match is not None and len(found.match.results) == 1, "it goes on after drop 1, as saved"
    again.close()


def test_a_failed_atomic_write_leaves_no_tmp_and_a_start_clears_old_ones(tmp_path, monkeypatch):
    from coindrel.table.journal import write_durably

    state = tmp_path / "state"
    state.mkdir()
    disk = Disk(state)
    disk.full = True
    monkeypatch.setattr(journal_module, "_write_all", disk.write_all)
    for name in ("match.journal", "board-timing.json"):
        with pytest.raises(OSError):
            write_durably(state / name, b"{}")
    assert not list(state.glob("*")), "a full disk leaves no 0-byte .tmp behind"
    disk.free()
    (state / "board-timing.json.tmp").write_bytes(b"")  # a kill's, before this fix
    store = MatchStore(state).open()
    store.recover()
    assert not list(state.glob("*.tmp"))
    store.close()


def test_a_start_on_a_full_disk_waits_instead_of_exiting_then_resumes(tmp_path, monkeypatch, caplog):
    import asyncio

    from coindrel.table.notify import Notifier
    from coindrel.table.service import ROOM_AGAIN, serve
    from coindrel.table.settings import parse_settings

    state = tmp_path / "state"
    disk = Disk(state)
    now = [0.0]
    table, store = _one_drop(state, disk, now)
    table.close_diagnosis()
    store.close()
    with open(state / "match.journal", "ab") as f:
        f.write(b'{"n": 40, "k": "act", "d')  # torn by the power cut: recovery keeps a copy, on a full disk
    monkeypatch.setattr(journal_module, "_write_all", disk.write_all)
    disk.full = True
    monkeypatch.setattr(Table, "room_probe_every", 0.0)  # a probe at every turn of the loop
    probes = _probes_until_free(monkeypatch, disk)
    said = []

    class Told(Notifier):
        def __init__(self, stop=None):
            super().__init__(None)
            self.stop = stop

        def send(self, *assignments):
            said.extend(assignments)
            if self.stop is not None and "READY=1" in assignments:
                self.stop.set()
            return True

    settings = parse_settings({"storage": {"state_dir": str(state)}, "match": {"players": ["Ann", "Bo"]},
                               "board": {"source": "none"}, "display": {"driver": "dummy"},
                               "control": {"socket": str(tmp_path / "ctl.sock")}})
    with caplog.at_level(logging.INFO, logger="coindrel.table"):
        code = asyncio.run(asyncio.wait_for(serve(settings, notifier=Told(stop := asyncio.Event()), stop=stop), 60))
        assert code == 0 and "STOPPING=1" in said, "stopped while waiting (systemctl stop): a clean stop"
        assert any(a.startswith("STATUS=Disk full: nothing after drop 1 is saved") for a in said)
        said.clear()
        code = asyncio.run(asyncio.wait_for(serve(settings, notifier=Told()), 60))
        assert code == ROOM_AGAIN, "a start on a full disk waits for room (no exit, no restart loop)"
        assert len(probes) >= 4 and probes[-1] is None and all(p is not None for p in probes[:-1])
        assert any(a.startswith("STATUS=Disk full: nothing after drop 1 is saved") for a in said)
        assert "STOPPING=1" not in said, "the daemon goes on: systemd is not told it stops"

        async def again():
            stop = asyncio.Event()
            return await serve(settings, notifier=Told(stop), stop=stop, room_again=True)

        assert asyncio.run(asyncio.wait_for(again(), 60)) == 0
    assert "Disk has room again: the match goes on after drop 1" in caplog.text and "Traceback" not in caplog.text
    assert any(a.startswith("STATUS=Round 1 of") for a in said), "resumed: the match's status"
    found = MatchStore(state).open().recover()
    assert found.match is not None and len(found.match.results) == 1


def test_the_sim_stops_on_a_full_disk_with_the_one_message_and_resumes_after(tmp_path, monkeypatch):
    # coindrel sim --fast on a small disk: it must not wait (nobody frees space mid-run) nor play on unsaved
    import asyncio

    from coindrel.table.fastsim import FastRig
    from coindrel.table.sim import SimOptions

    state = tmp_path / "state"
    disk = Disk(state, full_at=60)
    monkeypatch.setattr(journal_module, "_write_all", disk.write_all)
    rig = FastRig(SimOptions(display="none", seed=5, matches=3, state_dir=str(state)), (),
                  store_options={"datasync": disk.datasync})
    out = asyncio.run(rig.run(until=600, wall_limit=600))
    assert len(out.errors) == 1, out.errors
    assert "The disk is full: nothing after drop" in out.errors[0] and f"--state-dir {state}" in out.errors[0]
    assert not list(state.glob("*.tmp"))
    saved = _drops_on_disk(rig.table)
    assert f"the match goes on after drop {saved}" in out.errors[0] and len(out.matches) == 1
    disk.free()
    again = FastRig(SimOptions(display="none", seed=5, matches=1, state_dir=str(state)), ())
    out = asyncio.run(again.run(until=600, wall_limit=600))
    assert not out.errors and out.resumed is not None and out.resumed[1] == saved
