"""The live reconciler: the daemon feeds it board events as they come and
polls it with the board's clock; it hands back a report for every finished
drop (and every group of events outside drops), keeps the belief of the board
as it really is, and the board's health. ``coindrel reconcile`` drives the
same object from a log.

    rec = Reconciler(geometry, state, variants)
    rec.feed(event)              # every board event, in time order
    for report in rec.poll(now): # now: board clock (the hub's timestamps)
        ...                      # report.to_json() is a sensing.md section 4 line
    rec.belief                   # BoardState the next drop is predicted from
    rec.health()                 # HealthReport
"""

from __future__ import annotations

import math
import time

from ..engine import catalog
from ..engine import BoardState, Geometry, Variants, standard_geometry
from ..engine.core import HOLE, PAD_R
from ..events import EntryEvent, EventError, StatusEvent, SwitchEvent
from .causal import feeders, time_candidates
from .belief import findings, next_worlds, posterior, provenance, vouched_worlds
from .grouping import Group, Predictor
from .health import HealthTracker
from .observed import SIDES, Observed, Sensors, observe_events
from .physics import Physics
from .outage import LinkOutage
from .offseat import OffSeat
from .hands import Hands
from .plainverdicts import PlainVerdicts
from .rates import Rates
from .report import DropReport, drop_times
from .revise import Reviser, Revision
from .reporting import drop_reports, stray_report
from .search import Search
from .late import note_settled
from .handful import note_flipped_in, turns_since, with_left
from .stray import explain_stray
from .timing import Timing
from .tipped import TipWatch
from .unseen import outage_codes
from .world import World, marginals, with_sides

LIVE = math.log(1e-4)  # worlds less likely than this (relative to the best) are dropped
LIVE_MAX = 4
# A group open this long (coins going in without a quiet spell) is split
# where its first coins are accounted for, so a stream of coins is scored
# coin by coin. A coin's first event comes at least LEAD after it went in.
STREAM_HORIZON = 2.0
LEAD = 0.03
# A stream the belief cannot account for (a fault not yet diagnosed) is cut
# anyway once open this long, where its first coins have surely landed.
FORCE_HORIZON = 3 * STREAM_HORIZON
FORCE_FALL = 1.5
MAX_SIZE = 4  # explanations needing more new faults than this are not offered


def initial_readings(state: BoardState) -> list[str]:
    return ["none" if c == HOLE else "LR"[c & PAD_R] for c in state.codes]


class Reconciler(PlainVerdicts, LinkOutage, OffSeat, Hands):
    # Report-only catalog rows: the step that reports them.
    REPORTS = {catalog.EVENTS_LOST: "_lost", catalog.UNEXPLAINED: "_unexplained"}
    _tail: Group | None = None  # (class defaults: a checkpoint from before they existed has neither)
    _tail_until: float | None = None

    def __init__(
        self,
        geometry: Geometry | None = None,
        state: BoardState | str | list | None = None,
        variants: Variants | None = None,
        *,
        sensors: Sensors | None = None,
        timing: Timing | None = None,
        expect_drops: bool = True,
        budget: int = 400,
    ):
        if isinstance(state, BoardState):
            geometry = geometry or state.geometry
        g = self.geometry = geometry or standard_geometry()
        if state is None:
            state = BoardState.empty(g)
        elif not isinstance(state, BoardState):
            state = BoardState.parse(state, g)
        self.variants = variants or Variants()
        if self.variants.holes and not state.holes():
            state = state.copy()
            state.make_holes_in_place()
        self.physics = Physics(g)
        self.labels = g.labels
        self.switch_index = {label: i for i, label in enumerate(g.labels)}
        self.sensors = sensors or Sensors()
        self.timing = timing or Timing()
        self.budget = budget
        self.expecting = expect_drops  # the daemon clears this while no drop can come (reveal, pause)
        self.worlds = [World(g, state.codes)]
        self.readings = initial_readings(state)
        self.proven: set[int] = set()
        self.drops = 0
        self.tracker = HealthTracker()
        self.evaluations = 0
        self._group: Group | None = None
        self._out: list[DropReport] = []
        self.reviser = Reviser(g)
        self.rates = Rates()
        self.tips = TipWatch(g)
        self._revisions: list[Revision] = []
        self._lost_at: float | None = None
        # Pads nobody saw while board events were lost: coins that fell then
        # (no sensor sees a resting coin) may rest on any of them, or have
        # knocked one off. Known again once a coin's cascade reaches the pad,
        # or the players say the pads are right.
        self.unsure: set[int] = set()
        self.away = False  # the link is down: the board is not seen (``poll``)
        # A coin still falling when the board was set anew (a new match, the
        # pads cleared by hand under it): the group its remaining events make
        # (``_tail``, until ``_tail_until``) is that coin's, not a hand's.
        self._tail = None
        self._tail_until = None

    # -- the live API --------------------------------------------------------------

    def feed(self, ev) -> None:
        """One board event (or a source's status event), in time order."""
        if isinstance(ev, StatusEvent):
            self._status(ev)
            return
        if isinstance(ev, SwitchEvent) and ev.switch not in self.switch_index:
            raise EventError(f"switch event names {ev.switch}, which is not on board {self.geometry.name!r}")
        if isinstance(ev, EntryEvent) and self.hands_busy:
            self._coin_in_hands()  # dropped before the board was put back: the hands are done
        group = self._group
        if group is not None and (
            ev.t > self._deadline()
            # A coin going in after a quiet spell is the next drop, once the open
            # group has all it expects; while it still waits for a coin (one
            # falling two rows down an edge lane, or waiting for a busy rocker),
            # the new coin joins it: coins in flight together are one cascade.
            or (isinstance(ev, EntryEvent) and ((not group.is_drop and not group.in_transit(ev.t))
                                               or ((group.complete() or (self._given_back() and ev.t > self._hold))
                                                   and ev.t - group.last_t > self.timing.quiet)
                                               or (self._given_back() and self._settled_since_back(ev.t))
                                               or group is self._tail))  # a coin of the new board's own
        ):
            self._close()
            group = None
        if group is None:
            self._group = Group(ev, self.readings, self.switch_index, self._expect())
            if self._tail_until is not None and not isinstance(ev, EntryEvent) and ev.t <= self._tail_until:
                self._tail = self._group
            self._tail_until = None
            if self._lost_at is not None and ev.t - self._lost_at <= self.timing.patience:
                self._group.lost += 1
            self._lost_at = None
        else:
            self._add(group, ev)
            if isinstance(ev, EntryEvent) and not group.lost and not self._outage() and len(group.entries) > 1 and ev.t - group.events[0].t > STREAM_HORIZON:
                self._split(group, ev.t)

    def _split(self, group: Group, now: float) -> None:
        k = group.cut(self.switch_index, LEAD, self.timing.chatter_window)
        ordered = group.ordered()
        if k:
            entries = [ev for ev in ordered if isinstance(ev, EntryEvent)]
            before = entries[k].t + LEAD
            head = [ev for ev in ordered if (ev.t < before and not isinstance(ev, EntryEvent)) or any(ev is e for e in entries[:k])]
        elif now - group.events[0].t > FORCE_HORIZON:
            k, head = group.force_cut(self.switch_index, now, max(FORCE_FALL, self.timing.patience), LEAD, self.timing.chatter_window)
            if not k:
                return
        else:
            return
        taken = {id(ev) for ev in head}
        rest = [ev for ev in ordered if id(ev) not in taken]
        self._group = self._regroup(head)
        self._close()
        self._group = self._regroup(rest)

    def _regroup(self, events: list) -> Group:
        g = Group(events[0], self.readings, self.switch_index, self._expect())
        for ev in events[1:]:
            g.add(ev, self.switch_index)
        return g

    def poll(self, now: float) -> list[DropReport]:
        """Reports of every drop finished by ``now`` (board clock)."""
        if self._group is not None and now > self._deadline() and not (self.away and self._cut()) \
                and not self._waiting(now):
            self._close()
        out, self._out = self._out, []
        return out

    def _cut(self) -> bool:
        """The open group is board changes no coin was seen to cause, cut by
        lost events. While the link is down (and through its coming back) it
        waits for the board to be seen again: the snapshot's differences are
        the rest of it (resync.py). Judged apart, a coin that went in during a
        hub reset and fell on while unplugged was two stray groups, and its
        turn was scored as the coin dropped again. (A drop is closed as
        before: its coin is known, the players are asked.)"""
        g = self._group
        return g is not None and g.lost > 0 and not g.is_drop

    def revisions(self) -> list[Revision]:
        """Revision records written since the last call (sensing.md section 4:
        later drops told apart what an earlier flagged drop could not). The
        daemon shows them; ``Revision.to_json()`` is the record."""
        out, self._revisions = self._revisions, []
        return out

    def flush(self) -> list[DropReport]:
        """Finish whatever is open (end of a log, end of a session)."""
        if self._group is not None:
            self._close()
        out, self._out = self._out, []
        return out

    @property
    def busy(self) -> bool:
        """A group of events is open (coins may still be falling)."""
        return self._group is not None

    @property
    def belief(self) -> BoardState:
        return BoardState(self.geometry, self.worlds[0].codes)

    def health(self):
        return self.tracker.report(marginals(self.worlds), self.timing, self.sensors, self.geometry)

    def reset(self, state: BoardState, keep_faults: bool = True, halls_right: bool = False, keep_open: bool = False) -> None:
        """The match set the board (new match, undo): believe ``state`` now.
        ``halls_right``: the players said the board is right, and ``state``
        has its switches as the halls read them, so no hall is faulty
        (but one whose reading ``state`` did not take: the table keeps a
        hall the diagnosis held lying at the side the cascade proved).
        ``keep_open``: a drop falling now is a drop of the same match (the
        players answered about the last one while the next coin fell): its
        events are grouped again against the new belief, never thrown away;
        otherwise (a new match) what is open is a coin from before it: its
        line flags nothing and no fault is drawn from it."""
        group = None
        if keep_open:  # (and the reports made and not yet polled stay for the poll)
            group, self._group = self._group, None
            carried, self._tail = group is not None and group is self._tail, None
        else:
            # A coin still falling now fell before the new board: its cascade,
            # cut by the reset, is checked against neither belief (the pads it
            # meets were just cleared under it), nor taken for a hand or a
            # faulty hall (``_carried``; tests/reconcile/test_carried.py).
            self._tail, self._tail_until, self._out = self._group, None, []
        self._set_belief(state, keep_faults, halls_right)
        if group is not None:
            # a board read while the coin fell has the rockers it already moved on their new side:
            # before it, they were where the readings before its group say
            moved = {self.switch_index[ev.switch] for ev in group.events if isinstance(ev, SwitchEvent)}
            sides = {s: SIDES.get(self.readings[s]) for s in moved}
            sides = {s: side for s, side in sides.items() if side is not None}
            if sides:
                self.worlds = [with_sides(w, sides) for w in self.worlds]
            for ev in group.ordered():
                self.feed(ev)
            if self._group is not None:
                self._group.lost = max(self._group.lost, group.lost)
                if carried:
                    self._tail = self._group

    def _set_belief(self, state: BoardState, keep_faults: bool, halls_right: bool) -> None:
        self.tips.clear()  # the board as set now: no coin tipped unseen before it
        self.unput = frozenset()  # (``not_put_back`` says again which rockers a put-back left)
        self.__dict__.get("fresh", {}).clear()  # nor a handful's coin left resting unseen
        if halls_right and keep_faults:
            self.worlds = vouched_worlds(self.worlds, state, self.readings, self.switch_index)
            return
        faults = self.worlds[0].faults if keep_faults else frozenset()
        if halls_right:
            faults = frozenset(f for f in faults if f.name != catalog.HALL_FAULT)
        self.worlds = [World(self.geometry, state.codes, faults)]

    def still_falling(self, last_t: float) -> None:
        """A coin this reconciler never saw go in (it fell before the board
        was set, last heard of at board time ``last_t``) may still be falling:
        its remaining events are that coin's (``_carried``)."""
        until = last_t + self.timing.patience
        self._tail_until = until if self._tail_until is None else max(self._tail_until, until)

    def pads_known(self) -> None:
        """The players checked the pads (or set up a new match): the belief's
        resting coins are right again."""
        self.unsure = set()
        self.asked = frozenset()
        self.outage_moved = False

    # -- inside ------------------------------------------------------------------------

    def _expect(self) -> Predictor:
        w = self.worlds[0]
        idx = w.index
        return Predictor(self.physics, w.codes, self.physics.table(idx.stuck, idx.slips, idx.jams),
                         idx.dead_exits, idx.chatter_exits, idx.halls | idx.unseated)

    def _close(self) -> None:
        group, self._group = self._without_leans(self._group), None
        group.lost += self._outage_lost(group)
        obs = observe_events(group.ordered(), self.readings, self.switch_index, self.geometry.switch_count, self.geometry.exit_count,
                             self.geometry.entry_count).mark_coin_like(self.timing.flip_limit, self.timing.flip_floor)
        snap = self.__dict__.pop("_snapshot_kept", 0)
        if snap and not self._healthy(obs, self.worlds[0]):
            group.lost += snap  # (not a healthy board's drop: its lost events cannot be ruled out)
        if group.lost and self.__dict__.pop("_snapshot_moved", False):
            self.outage_moved = True  # rockers moved unseen: coins fell during the outage
        if obs.changes_nothing():
            return
        started, cpu = time.perf_counter(), time.thread_time()
        work0 = self.evaluations
        if group is self._tail:
            self._tail = None
            reports = self._carried(obs)
        else:
            reports = self._lost(obs, group.lost) if group.lost else self._reconcile(obs, seen_whole=not snap)
        ms = (time.perf_counter() - started) * 1000.0
        cpu_ms = (time.thread_time() - cpu) * 1000.0
        work = self.evaluations - work0
        for r in reports:
            r.search_ms = ms
            r.cpu_ms = cpu_ms
            r.work = work
            r.t_end = obs.t1
            self.tracker.record(r)
        self._out.extend(reports)
        for s in obs.active:
            self.readings[s] = obs.final[s]

    def _reconcile(self, obs: Observed, seen_whole: bool = True) -> list[DropReport]:
        """``seen_whole``: no coin of the group fell unseen (not one checked
        through a restarted hub's snapshot: a coin that went in during the
        outage may rest on a pad its coins met, unseen)."""
        prev = self.worlds[0]
        live = [w for w in self.worlds if w.logw >= LIVE]
        searched = min(LIVE_MAX, len(live))
        search = Search(self.physics, obs, [e for _, e in obs.entries], self.sensors, self.timing.chatter_window, self.labels,
                        self.budget, self.timing.flip_limit, self.proven, self.rates.spare_cost, frozenset(self.unsure))
        search.asked, search.unput = self.asked, self.unput
        settling = search.settling = self.__dict__.setdefault("settling", {})  # (a checkpoint from before it has none)
        fresh, search.fresh = turns_since(self.__dict__.setdefault("fresh", {}), self.drops + 1)
        if obs.entries:
            cands = search.run(live, searched)
        else:
            cands = explain_stray(search, live, self.expecting, searched, settling)
        cands = [c for c in cands if c.size <= MAX_SIZE]
        time_candidates(cands, obs, self.physics, self._feeds(), self.timing.patience, search)
        self.evaluations += search.work
        ranked = posterior(cands)
        if not ranked:
            return self._unexplained(obs, prev)
        best = ranked[0][1]
        if self.unput:  # a coin of this drop met them: their side is known now, one way or the other
            self.unput = self.unput - {a >> 3 for a in best.trace.arrivals}
        if self.unsure and seen_whole and not any(m.kind in ("add", "remove") and m.s in self.unsure for m in best.moves):
            # the pads this drop's coins reached fit as believed: known again (an
            # explanation that changed unseen pads is a guess, and proves none)
            self.unsure -= {a >> 3 for a in best.trace.arrivals}
        # ok: a healthy board in the believed state does exactly this, and the
        # best explanation needs no fault (two counts 40 ms apart in one entry
        # fit two coins, but one coin and a chattering beam fit better).
        if not best.shown() and best.world is not prev and best.world.faults <= prev.faults and self._healthy(obs, best.world, best):
            # The drop fits, cleanly, a board state the controller held as the
            # less likely one after an earlier ambiguous drop: nothing went
            # wrong now; that state was the right one. (Not when that world
            # also believed a fault the likelier one did not, e.g. a beam that
            # counted one coin twice rather than two coins: then this drop is
            # the one that tells, and it says so.)
            prev = best.world
        ok = not best.shown() and self._healthy(obs, prev, best)
        before = with_left(prev.codes, best, self.geometry) if ok else prev.codes  # with a handful's coin found resting
        if not ok and self.unsure and self.__dict__.get("outage_moved"):
            outage = outage_codes(best, prev.codes)
            if outage is not None and self._healthy(obs, prev, best, with_left(outage, best, self.geometry)):
                ok, before = True, with_left(outage, best, self.geometry)
        self.rates.count(best)
        found = self.tips.extend([self.rates.rated(f) for f in findings(ranked, prev)], self.switch_index)
        self.worlds = next_worlds(ranked, self.geometry, self.drops + 1)
        provenance(self.worlds, self.physics)
        self._prove(best)
        note_settled(settling, best, obs.t1)
        note_flipped_in(fresh, best, self.geometry, self.drops + 1)
        order = drop_times(obs, best, self.timing.chatter_window)
        if not order:
            return [stray_report(self.physics, obs, best, found, ok, ranked, self.worlds[0].codes)]
        reports = drop_reports(self.physics, obs, best, order, found, before, ok, ranked, self.drops + 1, self.worlds[0].codes,
                               self.timing.silence, self.timing.journey, self.timing.chatter_window)
        self.drops += len(reports)
        self.tips.after_group(best.codes0, best.trace.flips, best.trace.visited(), self.worlds[0].codes, reports)
        for rev in self.reviser.update(self.worlds, obs.t1):
            self.tracker.revise(rev)
            self._revisions.append(rev)
        for r in reports:
            self.reviser.note(r)
        self.reviser.note_doubles(reports, found, self.timing.chatter_window)
        if ok and all(r.ok for r in reports):
            self.timing.learn(obs)
        return reports

    def _feeds(self) -> list:
        feeds = getattr(self, "_feeds_of", None)  # (a checkpoint from before it existed has none)
        if feeds is None:
            feeds = self._feeds_of = feeders(self.geometry)
        return feeds

    def _prove(self, best) -> None:
        """Coins of the best explanation met these switches, so their pad
        sides are confirmed; a hand (or a hall alone) makes them hearsay again."""
        for m in best.moves:
            if m.kind in ("hand", "hand_after", "hand_at", "pad"):
                self.proven.discard(m.s)
        for f in best.derivation.new:
            if f.name in (catalog.HALL_FAULT, catalog.SWITCH_UNSEATED):
                self.proven.discard(self.switch_index[f.switch])
        self.proven.update(a >> 3 for a in best.trace.arrivals)
