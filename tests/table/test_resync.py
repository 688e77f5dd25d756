"""Resume against the board (table/resync.py): after a restart the hub's
snapshot is compared with the journal's belief; a drop that was falling
completes with what the board shows and is flagged, a rocker moved while the
table was down is flagged and the belief follows the board."""

from __future__ import annotations

import random

from coindrel.engine import standard_geometry
from coindrel.events import SwitchEvent
from coindrel.sources.base import Capabilities, Snapshot
from coindrel.table.daemon import Table
from coindrel.table.resync import believed_positions, differences, resync
from coindrel.table.setupmenu import Choices
from coindrel.table.sim import SimOptions, SimPlayers
from coindrel.table.store import MatchStore
from coindrel.virtual import BoardConfig, Collect, Scenario, build_board

G = standard_geometry()
STEP = 0.05


class HubLike:
    """A source with hall sensors that answers snapshots (the test hands them over)."""

    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)), halls=G.labels)

    async def snapshot(self):  # pragma: no cover - the test calls resync itself
        raise NotImplementedError


def sides(board) -> dict[str, str]:
    return {G.labels[s]: ("none" if c == 4 else "LR"[c & 1]) for s, c in enumerate(board.world.codes)}


def test_differences_name_each_switch():
    believed = {"R1S1": "L", "R1S2": "R", "R3S2": "L"}
    d = differences(believed, {"R1S1": "L", "R1S2": "L", "R3S2": "mid", "R9S9": "L"})
    assert [x.say() for x in d] == ["R1S2 R->L", "R3S2 is between its sides (believed L)"]


class Rig:
    def __init__(self, tmp_path, seed=8, think=0.2):
        self.state = tmp_path / "state"
        self.out = Collect()
        self.board, _ = build_board(Scenario(BoardConfig(seed=seed)), outputs=[self.out])
        self.now = [0.0]
        self.seen = 0
        self.reports = []
        self.table, self.store = self.new_table()
        self.table.positions = sides(self.board)
        self.table.resume(self.store.recover())
        self.players = SimPlayers(self.table, self.board, SimOptions(think=think, seed=seed), clock=lambda: self.now[0])

    def new_table(self):
        store = MatchStore(self.state).open()
        table = Table(G, Choices(clock="60", players=("Ann", "Bo")), source=HubLike(), store=store,
                      clock=lambda: self.now[0], reveal_seconds=1.0)
        original = table.flow.on_report
        table.flow.on_report = lambda r, t: (self.reports.append(r), original(r, t))
        return table, store

    def tick(self, feed=True):
        self.now[0] += STEP
        self.board.run_until(self.now[0])
        if feed:
            for ev in self.out.events[self.seen:]:
                self.table.handle_event(ev)
        self.seen = len(self.out.events)  # while the table is down, the events are gone
        if feed:
            self.table.step()
            self.players.step()

    def crash(self, down: float, while_down=None):
        self.store.close()
        until = self.now[0] + down
        while self.now[0] < until:
            self.tick(feed=False)
        if while_down is not None:
            while_down()
        self.table, self.store = self.new_table()
        self.table.resume(self.store.recover())
        self.players.table = self.table
        return resync(self.table, Snapshot(self.board.now, sides(self.board)))


def test_a_drop_falling_at_a_crash_completes_and_is_flagged(tmp_path):
    rig = Rig(tmp_path)
    rnd = random.Random(3)
    crashes = 0
    while rig.now[0] < 900 and crashes < 8:
        rig.tick()
        rec = rig.table.reconciler
        group = getattr(rec, "_group", None) if rec is not None else None
        m = rig.table.flow.match
        if m is None:
            continue
        if m.over:
            break
        if group is not None and group.is_drop and len(group.events) >= 2 and rnd.random() < 0.5:
            turns = len(m.results)
            before = len(rig.reports)
            diffs = rig.crash(rnd.uniform(1.0, 3.0))
            assert rig.table.awaiting_board is False
            for _ in range(60):  # the drop closes once its quiet window has passed
                rig.tick()
                if len(rig.reports) > before:
                    break
            report = rig.reports[before]
            assert report.drop is not None and len(rig.table.flow.match.results) == turns + 1
            if [d for d in diffs if d.seen != "mid"]:
                assert report.verdict != "ok"  # flagged: the players confirm it
            # after it, the belief is the board
            believed = believed_positions(rig.table.reconciler)
            assert {k: v for k, v in believed.items()} == sides(rig.board)
            crashes += 1
            while rig.table.flow.mode == "mismatch":
                rig.table.handle_action("select")  # Board is right
    assert crashes >= 3


def test_a_rocker_moved_while_the_table_was_down_is_flagged_and_believed(tmp_path):
    rig = Rig(tmp_path, seed=5, think=8.0)  # no coin goes in while we look
    while rig.table.flow.match is None or not rig.table.flow.match.results:
        rig.tick()
    while rig.table.reconciler.busy:
        rig.tick()
    rig.players.step = lambda: None  # nobody drops while we look
    while rig.board.pending or rig.board.world.in_flight() or rig.table.reconciler.busy:
        rig.tick()
    m = rig.table.flow.match
    label = G.labels[20]
    other = "L" if sides(rig.board)[label] == "R" else "R"
    turns = len(m.results)
    before = len(rig.reports)
    diffs = rig.crash(2.0, lambda: rig.board.set_by_hand(label, other))
    assert [d.say() for d in diffs] == [f"{label} {'R' if other == 'L' else 'L'}->{other}"]
    for _ in range(100):
        rig.tick()
        if len(rig.reports) > before:
            break
    stray = rig.reports[before]
    assert stray.drop is None  # reported as events outside any drop, on the panel
    assert len(rig.table.flow.match.results) in (turns, turns + 1)
    assert believed_positions(rig.table.reconciler)[label] == other
    # named once, on the pads check, asked before the next coin (a hub back with another board alike)
    for _ in range(20):
        rig.tick()
    view = rig.table.flow.view(rig.now[0])
    assert rig.table.flow.mode == "check-pads" and view.title == "Check the pads"
    assert view.text.startswith(f"{label} is not where it was: moved while the table was down?"), view.text


def test_the_same_board_changes_nothing(tmp_path):
    rig = Rig(tmp_path, seed=5)
    while rig.table.flow.match is None or not rig.table.flow.match.results:
        rig.tick()
    while rig.table.reconciler.busy:
        rig.tick()
    rig.players.step = lambda: None  # nobody drops while we look
    while rig.board.pending or rig.board.world.in_flight() or rig.table.reconciler.busy:
        rig.tick()
    events = len(rig.table.journal.path.read_bytes())
    assert rig.crash(1.0) == []
    assert len(rig.table.journal.path.read_bytes()) == events


class QuietHub(HubLike):
    """A hub link: the board time it has vouched for is where its last frame left it."""

    vouches = True

    def __init__(self):
        self.t = 0.0

    def board_time(self):
        return self.t


def test_a_drop_the_hub_goes_quiet_in_is_not_closed_before_the_link_says_why(tmp_path):
    # The firmware sim once unplugged the hub 20 ms after a cascade's row-4 flip; the link
    # noticed the port gone a little later than the drop's quiet time ran out on the Pi's
    # clock, so the drop was closed without its row-5 flips and exits and diagnosed "R3S1's
    # hall sensor disagrees ... together with switch stuck at R3S1 and jam at R4S2".
    from coindrel.events import StatusEvent

    rig = Rig(tmp_path, seed=8)
    hub = rig.table.source = QuietHub()
    rig.table.handle_event(StatusEvent(0.0, "connected", "hub"))
    cut = False
    for _ in range(20000):
        rig.now[0] += STEP
        rig.board.run_until(rig.now[0])
        for ev in rig.out.events[rig.seen:]:
            rig.table.handle_event(ev)
        rig.seen = len(rig.out.events)
        hub.t = rig.board.now  # the hub's heartbeats vouch for the board's time so far
        rig.table.step()
        rig.players.step()
        group = getattr(rig.table.reconciler, "_group", None)
        if group is not None and group.is_drop and len(group.events) >= 6 and rig.board.world.in_flight():
            cut = True
            break
    assert cut, "no cascade long enough to cut"
    before = len(rig.reports)
    # the hub is unplugged: no frame comes, and the link has not noticed yet (silence tells it
    # at 1.5 s; a loaded Pi's reader thread may take longer): longer than the drop's patience
    assert rig.table.reconciler.timing.patience < 3.0
    for _ in range(int(3.0 / STEP)):
        rig.now[0] += STEP
        rig.board.run_until(rig.now[0])
        rig.seen = len(rig.out.events)  # lost with the hub
        rig.table.step()
    assert len(rig.reports) == before, [r.diagnosis for r in rig.reports[before:]]
    rig.table.handle_event(StatusEvent(hub.t, "disconnected", "no data from the hub for 1.5 s"))
    from coindrel.reconcile.outage import HOLD_AWAY

    for _ in range(int((HOLD_AWAY + 5.0) / STEP)):  # the link stays down: the drop waits for it, then closes
        rig.now[0] += STEP
        rig.table.step()
        if len(rig.reports) > before:
            break
    report = rig.reports[before]
    assert report.drop is not None and report.verdict != "ok"
    assert [type(f.fault).__name__ for f in report.diagnosis] == ["EventsLost"], report.diagnosis


def test_nothing_is_judged_between_a_reconnect_and_the_snapshot_compared(tmp_path):
    # the daemon's pump: a reconnect asks for a snapshot; until it is compared the
    # table closes no drop (a group the outage cut takes its differences, resync.py);
    # a snapshot that does not come leaves the table as it was
    import asyncio

    from coindrel.events import StatusEvent

    rig = Rig(tmp_path)
    asked = []

    class Reconnecting(HubLike):
        def __init__(self, answer):
            self.answer = answer

        async def events(self):
            yield StatusEvent(rig.board.now, "connected", "hub")

        async def snapshot(self):
            asked.append(rig.table.awaiting_board)
            if self.answer is None:
                raise OSError("the hub went away again")
            return self.answer

    async def pump(source):
        rig.table.source = source
        await rig.table._pump_events()
        for _ in range(10):  # the snapshot's task: a few turns of the loop, bounded
            await asyncio.sleep(0)

    asyncio.run(pump(Reconnecting(None)))
    assert asked == [True] and rig.table.awaiting_board is False
    asyncio.run(pump(Reconnecting(Snapshot(rig.board.now, sides(rig.board)))))
    assert asked == [True, True] and rig.table.awaiting_board is False
