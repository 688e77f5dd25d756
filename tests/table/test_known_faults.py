"""The board's persistent faults outlive a restart (table/known_faults.py,
reconcile/knowledge.py). A newcomer's served board with a stuck hall at
R2S3 (seed 3): ``ctl status`` named hall_fault R2S3 before a restart and
nothing after it, and the next R2S3 mismatch was then blamed on a jam.

The board is the virtual board's model, played by simulated players who
drop where a coin reaches R2S3 (the table's belief says where) and answer
"Board is right" at every mismatch; a restart is a new Table on the same
state directory, nothing flushed (as kill -9 leaves it)."""

from __future__ import annotations

import copy
import logging

from coindrel.engine import standard_geometry
from coindrel.engine.drop import drop
from coindrel.sources.base import Capabilities
from coindrel.table.daemon import Table
from coindrel.table.known_faults import FILE
from coindrel.table.setupmenu import Choices
from coindrel.table.sim import SimOptions, SimPlayers
from coindrel.table.store import MatchStore
from coindrel.virtual import BoardConfig, Collect, Scenario, build_board, fault_from_text

G = standard_geometry()
STEP = 0.05
FAULT = "hall_fault@R2S3,mode=stuck,t=1"


class BoardOnly:
    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=G.labels)


class Through:
    """Drops where the believed board sends a coin past R2S3 (else as ``other`` would)."""

    def __init__(self, other):
        self.other = other

    def choose(self, m):
        for e in range(G.entry_count):
            if "R2S3" in drop(m.board, [e]).flips_by_label():
                return e
        return self.other.choose(m)


class Rig:
    def __init__(self, tmp_path, seed=3):
        self.state = tmp_path / "state"
        self.out = Collect()
        self.board, _ = build_board(Scenario(BoardConfig(seed=seed), faults=[fault_from_text(FAULT, G)]),
                                    outputs=[self.out])
        self.now = [0.0]
        self.seen = 0
        self.table, self.store = self.new_table()
        self.table.resume(self.store.recover())
        self.players = SimPlayers(self.table, self.board, SimOptions(think=0.2, seed=seed), clock=lambda: self.now[0])
        self.players.bots = [Through(b) for b in self.players.bots]
        # per drop: (the match's number, the board believed after it, the first explanation, the faults known)
        self.drops: list[tuple] = []

    def new_table(self):
        store = MatchStore(self.state).open()
        table = Table(G, Choices(clock="off", players=("Ann", "Bo")), source=BoardOnly(), store=store,
                      clock=lambda: self.now[0], reveal_seconds=1.0)
        table.positions = {G.labels[s]: ("none" if c == 4 else "LR"[c & 1]) for s, c in enumerate(self.board.world.codes)}
        return table, store

    def restart(self):
        self.store.close()  # kill -9: the lock goes with the process, nothing else is flushed or closed
        self.table, self.store = self.new_table()
        self.table.resume(self.store.recover())
        self.players.table = self.table

    def run(self, until=None, stop=None):
        steps = 0
        while until is None or self.now[0] < until:
            steps += 1
            assert steps < 20_000
            self.now[0] += STEP
            self.board.run_until(self.now[0])
            for ev in self.out.events[self.seen:]:
                self.table.handle_event(ev)
            self.seen = len(self.out.events)
            before = self.table.reports
            self.table.step()
            m = self.table.flow.match
            if self.table.reports != before and m is not None and m.results:
                d = self.table.flow.diagnosis
                faults = tuple((f["fault"], f["where"], f["confidence"], f["reports"], f["first_drop"], f["last_drop"])
                               for f in self.table.persistent_faults())
                self.drops.append((len(m.results), m.board.text(), d.findings[:1] if d is not None else (), faults))
            self.players.step()
            if stop is not None and stop(self):
                return

    def quiet_with(self, name, where) -> bool:
        t = self.table
        return (t.flow.mode.value == "turn" and not t.diagnosing and t.flow.match is not None
                and any((f["fault"], f["where"]) == (name, where) for f in t.persistent_faults()))


def test_the_faults_known_before_a_restart_are_known_after_it(tmp_path):
    rig = Rig(tmp_path)
    rig.run(stop=lambda r: r.quiet_with("hall_fault", "R2S3") and len(r.table.flow.match.results) >= 18)
    before = rig.table.persistent_faults()
    health = rig.table.reconciler.health().to_json()
    health.pop("timing")  # (board-timing.json's, saved every few drops: not these)
    # weighed against each other, until a coin tells them apart: the confidence is the worlds' weights
    assert [f["fault"] for f in before][:2] == ["hall_fault", "switch_stuck"] and before[0]["confidence"] < 1
    rig.restart()
    assert rig.table.persistent_faults() == before  # same names, confidence, counts, first and last seen
    again = rig.table.reconciler.health().to_json()
    again.pop("timing")
    assert again == health  # the drops counted, the incidents aside
    assert (tmp_path / "state" / FILE).exists()


def test_a_later_drop_is_diagnosed_as_without_the_restart(tmp_path):
    """The twin that never restarted and the one that did see the same drops
    the same way: the same boards believed, the same first explanations, the
    same faults known (counted from the same first drop)."""
    plain = Rig(tmp_path / "plain")
    plain.run(until=80.0)
    rig = Rig(tmp_path / "restarted")
    rig.run(stop=lambda r: r.quiet_with("hall_fault", "R2S3") and len(r.table.flow.match.results) >= 18)
    n = len(rig.drops)
    rig.restart()
    rig.run(until=80.0)
    later = [d for d in plain.drops[n:] if d[2]]
    assert later and any("R2S3's hall sensor" in d[2][0] for d in later), "a mismatch at R2S3 after the restart point"
    assert rig.drops[n:len(plain.drops)] == plain.drops[n:len(rig.drops)]
    assert not any("jam" in d[2][0] for d in rig.drops if d[2])


def test_a_torn_faults_record_is_named_and_the_one_before_it_read(tmp_path, caplog):
    rig = Rig(tmp_path)
    rig.run(stop=lambda r: r.quiet_with("hall_fault", "R2S3") and len(r.table.flow.match.results) >= 18)
    path = tmp_path / "state" / FILE
    data = path.read_bytes()
    path.write_bytes(data[:-40])  # the last write cut short
    caplog.set_level(logging.WARNING, logger="coindrel.table")
    rig.restart()
    assert str(path) in caplog.text and "last intact record" in caplog.text
    assert list((tmp_path / "state" / "damaged").glob("board-faults-*.journal"))
    assert ("hall_fault", "R2S3") in [(f["fault"], f["where"]) for f in rig.table.persistent_faults()]


def test_a_faults_file_that_is_not_one_is_named_and_the_table_goes_on(tmp_path, caplog):
    rig = Rig(tmp_path)
    rig.run(stop=lambda r: r.quiet_with("hall_fault", "R2S3"))
    path = tmp_path / "state" / FILE
    path.write_bytes(b"\x00garbage\n" * 20)
    caplog.set_level(logging.WARNING, logger="coindrel.table")
    rig.restart()
    assert str(path) in caplog.text
    assert rig.table.persistent_faults() == []  # nothing to go on: learned again, the match plays on
    rig.run(until=rig.now[0] + 20.0)
    assert rig.table.failed is None and len(rig.table.flow.match.results) > 0
    assert rig.table._faults_file.load()[0] is not None  # written anew


def test_a_faults_record_that_does_not_fit_the_board_is_named(tmp_path, caplog):
    from coindrel.table.known_faults import FaultsFile

    rig = Rig(tmp_path)
    rig.run(stop=lambda r: r.quiet_with("hall_fault", "R2S3"))
    f = FaultsFile(tmp_path / "state")
    saved, _ = f.load()
    saved = copy.deepcopy(saved)
    saved["faults"]["worlds"][0]["faults"].append(["switch_stuck", "R9S9"])
    f.save(saved)  # intact, checksummed, but names a switch the board has not
    caplog.set_level(logging.WARNING, logger="coindrel.table")
    rig.restart()
    assert "R9S9" in caplog.text and "learned again" in caplog.text
    assert rig.table.persistent_faults() == []
