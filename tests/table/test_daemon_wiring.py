"""The daemon's wiring of issue 11 and 13: board events journalled with
their hub position and a restart resuming the hub's replay after the last
one on disk; the reconciler on its worker thread once the loop runs (a slow
diagnosis holds up only its drop's score); revision records journalled and
shown."""

from __future__ import annotations

import asyncio
import threading

from coindrel.engine import standard_geometry
from coindrel.events import EntryEvent, ExitEvent, StatusEvent
from coindrel.hub.resume import HubPosition
from coindrel.reconcile.revise import Revision
from coindrel.sources.base import Capabilities
from coindrel.table.daemon import Table
from coindrel.table.journal import read_journal
from coindrel.table.setupmenu import Choices
from coindrel.table.source_link import last_hub_position
from coindrel.table.store import MatchStore

G = standard_geometry()


class HubLike:
    """A source that numbers its events as the hub does and takes a resume position."""

    capabilities = Capabilities(entries=tuple(range(8)), exits=tuple(range(16)))

    def __init__(self):
        self.numbers: dict[int, HubPosition] = {}
        self.resume_after = None

    def number(self, ev, num: int):
        self.numbers[id(ev)] = HubPosition(7, num)
        return ev

    def hub_position(self, ev):
        return self.numbers.get(id(ev))

    def resume_from(self, pos, board_t=None) -> None:
        self.resume_after, self.resume_t = pos, board_t


def started(tmp_path, source, now):
    table = Table(G, Choices(clock="off"), source=source, store=MatchStore(tmp_path).open(), clock=lambda: now[0],
                  reveal_seconds=0.1)
    table.resume(table.store.recover())
    for _ in range(3):  # start, pads set left, past the reveal
        table.handle_action("select")
        now[0] += 0.2
        table.step()
    assert table.flow.match is not None and table.journal is not None
    return table


def test_events_are_journalled_with_their_hub_position_and_a_restart_resumes_after_the_last(tmp_path):
    now = [0.0]
    src = HubLike()
    table = started(tmp_path, src, now)
    table.handle_event(StatusEvent(1.0, "connected", "hub"))
    table.handle_event(src.number(EntryEvent(1.0, 3), 40))
    table.handle_event(src.number(ExitEvent(1.6, 3), 41))
    table.handle_event(StatusEvent(1.7, "lost", "two frames"))  # a status event has no position
    records = [r for r in read_journal(table.journal.path).records if r.kind == "ev"]
    assert [r.data.get("hub") for r in records] == [None, [7, 40], [7, 41], None]
    assert last_hub_position(records) == HubPosition(7, 41)
    # kill -9: nothing flushed, a new process on the same state directory
    table.store.close()
    src2 = HubLike()
    again = Table(G, Choices(clock="off"), source=src2, store=MatchStore(tmp_path).open(), clock=lambda: now[0])
    again.resume(again.store.recover())
    assert src2.resume_after == HubPosition(7, 41)
    assert src2.resume_t == 1.7  # board time goes on from the journal's newest event (a rebooted hub's clock began again)


def test_a_position_whose_boot_clock_the_link_moved_keeps_that_offset_across_a_restart(tmp_path):
    now = [0.0]
    src = HubLike()
    table = started(tmp_path, src, now)
    ev = EntryEvent(41.0, 3)
    src.numbers[id(ev)] = HubPosition(8, 12, offset_us=40_000_000)  # an earlier hub reset moved boot 8's clock
    table.handle_event(ev)
    records = [r for r in read_journal(table.journal.path).records if r.kind == "ev"]
    assert records[-1].data["hub"] == [8, 12, 40_000_000]
    table.store.close()
    src2 = HubLike()
    again = Table(G, Choices(clock="off"), source=src2, store=MatchStore(tmp_path).open(), clock=lambda: now[0])
    again.resume(again.store.recover())
    assert src2.resume_after == HubPosition(8, 12) and src2.resume_after.offset_us == 40_000_000


def test_a_journal_without_hub_positions_asks_for_no_replay(tmp_path):
    now = [0.0]
    src = HubLike()
    table = started(tmp_path, src, now)
    table.handle_event(EntryEvent(1.0, 3))
    table.store.close()
    src2 = HubLike()
    again = Table(G, Choices(clock="off"), source=src2, store=MatchStore(tmp_path).open(), clock=lambda: now[0])
    again.resume(again.store.recover())
    assert src2.resume_after is None


def test_revision_records_are_journalled_and_shown(tmp_path):
    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    rec = table.reconciler
    revision = Revision(revises=1, t=5.0, diagnosis=[])
    rec._revisions.append(revision)
    table.step()
    verdicts = [r.data for r in read_journal(table.journal.path).records if r.kind == "verdict"]
    assert verdicts[-1]["revises"] == 1 and verdicts[-1]["drop"] is None
    assert table.flow.note is not None and "drop 1" in table.flow.note.title.lower()


def test_on_the_loop_a_slow_diagnosis_holds_up_its_score_and_nothing_else(tmp_path):
    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    rec = table.reconciler
    gate, entered = threading.Event(), threading.Event()
    poll = rec.poll

    def slow_poll(t):
        if rec.busy:
            entered.set()
            gate.wait(60)  # a long diagnosis (bounded: only a hang reaches it)
        return poll(t)

    rec.poll = slow_poll

    async def main():
        table.diagnosis_in = "thread"  # the slow poll above is patched into this process
        table._off_loop()
        try:
            table.handle_event(EntryEvent(1.0, 3))
            table.handle_event(ExitEvent(1.5, 3))
            now[0] += 30.0  # long past the drop's quiet window
            loop = asyncio.get_running_loop()
            # A step queues a poll only once the worker has taken the events (one poll at a
            # time): step until the worker is in the diagnosis, however slow its thread is
            # to start (bounded: only a hang reaches the ceiling).
            for _ in range(1200):
                table.step()
                if await loop.run_in_executor(None, entered.wait, 0.05):
                    break
            assert entered.is_set()
            # the worker is stuck in the diagnosis; the loop's steps, presses and events are not
            for _ in range(5):
                table.step()
                table.handle_action("hold")
                table.handle_action("back")
            assert table.reports == 0 and table.diagnosing and table.flow.match.phase == "falling"
            gate.set()
            for _ in range(600):  # a bounded wait for the worker's report, not a sleep for one
                table.step()
                if table.reports:
                    break
                await asyncio.sleep(0.05)
            assert table.reports == 1 and len(table.flow.match.results) == 1
        finally:
            gate.set()
            table.close_diagnosis()

    asyncio.run(asyncio.wait_for(main(), 120))


def test_events_the_hub_could_not_give_back_are_asked_about(tmp_path):
    from coindrel.hub.resume import HubLoss

    now = [0.0]
    src = HubLike()
    src.losses = []
    table = started(tmp_path, src, now)
    table.handle_event(StatusEvent(2.0, "lost", "frames missing"))  # a gap the replay filled: nothing to ask
    assert table.flow.message is None
    src.losses.append(HubLoss(None, 1.0, 3.5, "the hub restarted since the last event kept"))
    table.handle_event(StatusEvent(4.0, "lost", "board events before 3.5 s could not be given back"))
    msg = table.flow.view(now[0])
    assert msg.title == "Events lost" and "3.5 s" in msg.text and "restarted" in msg.text
    table.handle_event(StatusEvent(5.0, "lost", "again, the same loss"))
    assert table.flow.message is msg or table.flow.message == msg  # asked once per loss
    # and the reconciler marks the next drop as having lost events: scored, flagged, asked
    table.handle_event(EntryEvent(4.1, 0))
    now[0] += 30
    table.step()
    verdicts = [r.data for r in read_journal(table.journal.path).records if r.kind == "verdict" and r.data.get("drop")]
    assert verdicts and verdicts[-1]["verdict"] != "ok"


def test_a_kill_between_a_verdict_and_its_score_carries_the_saved_verdict_out(tmp_path):
    now = [0.0]
    src = HubLike()
    table = started(tmp_path, src, now)
    table.handle_event(src.number(EntryEvent(1.0, 3), 40))
    now[0] += 30
    table.step()
    assert len(table.flow.match.results) == 1
    path = table.journal.path
    lines = path.read_bytes().splitlines(keepends=True)
    kinds = [line.split(b'"k":"')[1].split(b'"')[0] for line in lines]
    v = max(i for i, k in enumerate(kinds) if k == b"verdict")
    assert kinds[v + 1] == b"act"
    path.write_bytes(b"".join(lines[: v + 1]))  # SIGKILL after the verdict reached the disk, before the score
    table.store.close()
    again = Table(G, Choices(clock="off"), source=HubLike(), store=MatchStore(tmp_path).open(), clock=lambda: now[0])
    again.resume(again.store.recover())
    m = again.flow.match
    assert len(m.results) == 1 and m.results[0].entry == 3  # scored as it was decided, not reconciled again
    now[0] += 30
    again.step()
    assert len(m.results) == 1
    records = read_journal(path).records
    assert [r.kind for r in records if r.kind in ("verdict", "act")][-2:] == ["verdict", "act"]
    assert sum(1 for r in records if r.kind == "verdict") == 1  # one verdict for the drop


def test_after_a_resume_the_live_board_clock_replaces_the_one_the_journal_heard(tmp_path):
    # The last process heard the board at 100 s; the hub's new session counts from 0 again.
    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    table.handle_event(EntryEvent(100.0, 3))  # a drop still open when the table stops
    table.store.close()
    again = Table(G, Choices(clock="off"), source=HubLike(), store=MatchStore(tmp_path).open(), clock=lambda: now[0])
    again.resume(again.store.recover())
    assert again.board_now() >= 100.0  # the open drop's events are on the journal's clock
    again.handle_event(ExitEvent(100.5, 3), from_board=False)  # made up on that clock (resync): says nothing
    assert again.board_now() >= 100.0
    again.handle_event(ExitEvent(0.5, 4))  # the live board
    assert abs(again.board_now() - 0.5) < 1e-9, "a new drop would count as long settled"
    again.handle_event(ExitEvent(0.2, 5))  # given back late: never backwards
    assert abs(again.board_now() - 0.5) < 1e-9


def _drop(table, now, t: float) -> None:
    """A coin into entry 4 that leaves by exit 4 (a drop the reconciler reports), then time for its verdict."""
    table.handle_event(EntryEvent(t, 3))
    table.handle_event(ExitEvent(t + 0.6, 3))
    for _ in range(40):
        now[0] += 0.5
        table.step()
        if table.flow.mode not in ("turn",) and table.flow.diagnosis is not None:
            table.handle_action("select")  # past a mismatch screen, whatever it says
            table.step()


def test_drop_and_revision_numbers_are_the_matchs_after_a_restart(tmp_path):
    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    _drop(table, now, 1.0)
    _drop(table, now, 8.0)
    assert len(table.flow.match.results) == 2
    table.store.close()  # kill -9: a new process, a new reconciler (counting on from the saved faults' drops)
    again = Table(G, Choices(clock="off"), source=HubLike(), store=MatchStore(tmp_path).open(), clock=lambda: now[0])
    again.resume(again.store.recover())
    assert len(again.flow.match.results) == 2
    _drop(again, now, 40.0)
    assert len(again.flow.match.results) == 3
    verdicts = [r.data for r in read_journal(again.journal.path).records if r.kind == "verdict"]
    assert [v["drop"] for v in verdicts if v.get("drop") is not None] == [1, 2, 3]
    # a later drop re-explains the reconciler's first drop of this process: the match's drop 3
    first = again.reconciler.drops
    again.reconciler._revisions.append(Revision(revises=first, t=45.0, diagnosis=[]))
    again.step()
    verdicts = [r.data for r in read_journal(again.journal.path).records if r.kind == "verdict"]
    assert verdicts[-1]["revises"] == 3 and verdicts[-1]["drop"] is None
    assert again.flow.note is not None and again.flow.note.title == "About drop 3"
    # and one of before the restart keeps the match's number (board-faults.journal holds the map)
    again.reconciler._revisions.append(Revision(revises=1, t=46.0, diagnosis=[]))
    again.step()
    verdicts = [r.data for r in read_journal(again.journal.path).records if r.kind == "verdict"]
    assert verdicts[-1]["revises"] == 1


def test_a_second_coin_in_one_turn_is_journalled_as_no_drop_of_the_match(tmp_path):
    now = [0.0]
    table = started(tmp_path, HubLike(), now)
    table.handle_event(EntryEvent(1.0, 3))
    table.handle_event(EntryEvent(1.2, 5))  # while the turn's coin still falls: out of turn, scores nothing
    table.handle_event(ExitEvent(1.6, 3))
    table.handle_event(ExitEvent(1.8, 5))
    for _ in range(20):
        now[0] += 0.5
        table.step()
    assert len(table.flow.match.results) == 1
    verdicts = [r.data for r in read_journal(table.journal.path).records if r.kind == "verdict"]
    assert [(v["drop"], v["entry"]) for v in verdicts] == [(1, 4), (None, 6)]
    assert "scored" not in verdicts[-1]  # nothing a damaged journal could rebuild a drop from


def test_two_board_readings_close_together_feed_the_differences_once(tmp_path):
    """A restarted table meeting a rebooted hub hears "connected" and "resync"
    together; both asked for a snapshot, the second belief was read before the
    first one's differences were fed, and every difference went in twice (a
    second group of flips outside any drop, R1S1 going R twice)."""
    from coindrel.sources.base import Snapshot

    now = [0.0]
    src = HubLike()
    table = started(tmp_path, src, now)
    board = table.flow.match.board
    labels = G.labels
    seen = {lab: ("R" if board.codes[i] == 1 else "L") for i, lab in enumerate(labels) if board.codes[i] in (0, 1)}
    first = next(iter(seen))
    seen[first] = "L" if seen[first] == "R" else "R"  # one rocker moved while nobody looked
    gate = asyncio.Event()

    async def snapshot(timeout=None):
        await gate.wait()
        return Snapshot(t=2.0, positions=dict(seen))

    src.snapshot = snapshot
    table.halls_known = True
    table.positions.update({lab: pos for lab, pos in seen.items() if lab != first})

    async def main():
        table.diagnosis_in = "thread"  # the belief is read on the worker, as in the daemon: a wait
        table._off_loop()
        try:
            a = asyncio.create_task(table._read_positions())
            b = asyncio.create_task(table._read_positions())
            await asyncio.sleep(0)
            gate.set()
            await asyncio.wait_for(asyncio.gather(a, b), 60)
        finally:
            table.close_diagnosis()

    asyncio.run(main())
    notes = [r.data for r in read_journal(table.journal.path).records if r.kind == "note" and "resync" in r.data]
    assert len(notes) == 1 and [d["switch"] for d in notes[0]["resync"]] == [first], notes
