"""The diagnosis search: which changes to a world make the engine reproduce
what the sensors reported.

A *move* is one hypothesised change: a physical fault (stuck, pad not
holding, jam), a belief change (coin added or removed, a pad on the other
side because its hall was lying, a rocker a hand moved before or after the
coins passed), a known physical fault gone, a coin in an entry whose beam
missed it, or an entry's repeated counts being one coin. Sensor faults are
not moves: ``derive`` adds the ones a hypothesis needs.

The search runs in levels, cheapest first, and stops at the first level that
explains the drop: the world as it is (known faults included), one move,
then two moves. The whole search counts its work in engine evaluations and
stops at ``budget`` (the same answer on a Pi as on a fast machine); the rest
of a group's diagnosis (the moves it makes, the timing check of what it
found) is counted in the same units (``other``, about one evaluation's CPU
time each), and the whole of it stops at ``limit``. Moves are only generated
where they could matter: at switches a coin of that cascade reached, for
outlets a coin left through, for rockers that went over as slowly as a hand
moves them, so a drop touching 12 switches tries a few dozen single moves,
not 38 x 9.
"""

from __future__ import annotations

import math

from ..engine import catalog
from ..engine import EntrySensorDead, HallFault, PadNotHolding, SwitchStuck
from ..engine.core import COIN, PAD_R
from .faults import INTERMITTENT, PRIOR, EntrySensorChatter, SwitchUnseated
from .release import released
from .candidate import Candidate, Move
from .observed import Observed, Sensors
from .physics import Physics
from .sensors import _fault, derive, swapped
from .handful import handful_cost, handful_moves, handful_proven, handful_timely
from .unseen import search_unseen
from .movegen import generate

_LOG = {name: math.log(p) for name, p in PRIOR.items()}
TWO_COINS_AT_ONCE = math.log(1e-4)  # a coin no beam saw, together with one the beam saw
# Two breaks of one entry beam close together, each a coin: people drop two
# coins together now and then, more often than a beam starts to chatter. The
# cascade decides (sensing.md section 4): when it shows what two coins do, two
# coins fit and one coin with a chattering beam does not; only when it cannot
# tell (the second coin came to rest unseen) does this prior rank them.
DOUBLE = math.log(2e-3)
ANOTHER_COIN = math.log(0.3)
WORK_ARRIVALS = 24  # one unit of work: one hypothesis whose cascade has up to this many coin arrivals
MOVES_PER_UNIT = 8  # moves made for a world in about the time one unit of evaluating takes (measured: 6 us a move, 45 a unit)
WORK_LIMIT = 2  # a group's whole diagnosis (evaluations, moves made, timing checked): at most this many budgets
# A fit with no new fault but with an odd timing or a doubtful pad is not the
# end of the search: one new fault might fit better.
GOOD_ENOUGH = math.log(0.5)


# The as-if hook of every fault the diagnosis can name (the catalog's
# ``asif``): the move that supposes it (physics and belief faults), or the
# sensor derivation that finds it (sensor and count faults). The catalog test
# fails for a row with no hook here or in ``Reconciler.REPORTS``.
HOOKS = {
    catalog.SWITCH_STUCK: "stuck",
    catalog.PAD_NOT_HOLDING: "slip",
    catalog.JAM: "chute",
    catalog.COIN_ADDED: "add",
    catalog.COIN_REMOVED: "remove",
    catalog.MOVED_BY_HAND: "hand",
    catalog.HALL_FAULT: derive,
    catalog.SWITCH_UNSEATED: derive,
    catalog.EXIT_SENSOR_DEAD: derive,
    catalog.ENTRY_SENSOR_DEAD: derive,
    catalog.EXIT_SENSOR_CHATTER: derive,
    catalog.ENTRY_SENSOR_CHATTER: derive,
    catalog.STRAY_COIN: derive,
    catalog.JAM_CLEARED: "cleared",
}
MOVE_KINDS = ("handful", "left", "stuck", "sticky", "slip", "chute", "chute1", "add", "remove", "lost", "pad", "unput", "fix", "spare", "entry", "entry+rest", "missed",
              "unchatter", "hand", "hand_after", "hand_at", "cleared", "cleared+", "release", "release+", "late", "phantom")


class Search:
    """One group's search over the live worlds."""

    def __init__(self, physics: Physics, obs: Observed, entries: list[int], sensors: Sensors, chatter_window: float, labels,
                 budget: int = 400, flip_limit: float = 0.08, proven: frozenset | set = frozenset(), spare_cost=None,
                 unsure: frozenset | set = frozenset()):
        self.physics = physics
        self.obs = obs
        self.entries = list(entries)
        self.sensors = sensors
        self.chatter_window = chatter_window
        self.labels = labels
        self.budget = budget
        self.flip_limit = flip_limit
        self.spare_cost = spare_cost or (lambda f: math.log(INTERMITTENT))
        self.proven = proven  # switches whose pad side a cascade has confirmed since the hall alone last set it
        self.unsure = unsure  # switches whose pad nobody saw while events were lost (a coin may rest there, or not)
        self.asked: frozenset | set = frozenset()  # of those, pads a put-back asked people to change by hand
        self.unput: frozenset = frozenset()  # rockers a put-back held past may have left as they were (hands.not_put_back)
        self.settling: dict = {}  # switch -> when a coin came to rest there lately (it may still slide off)
        self.fresh: dict = {}  # entry switch -> turns since a coin last flipped it over to its empty inlet pad (handful.py)
        self.evaluations = 0
        self.other = 0  # units of the rest of the diagnosis: moves made, explanations timed (causal.time_candidates)
        self.limit = WORK_LIMIT * budget
        self.exhausted = False  # the search ran out of work before it tried everything
        self.candidates: list[Candidate] = []
        self._seen: set = set()
        # Two counts of one entry closer than a chattering beam re-triggers are
        # hardly two coins: nobody drops coins into one slot that fast.
        self.close_counts = {}
        for e in set(self.entries):
            times = [t for t, x in obs.entries if x == e]
            self.close_counts[e] = sum(1 for a, b in zip(times, times[1:]) if b - a <= chatter_window)

    # -- one hypothesis ---------------------------------------------------------

    def evaluate(self, world, moves: tuple):
        """Run ``world`` changed by ``moves``; returns (trace, candidate or None)."""
        idx = world.index
        codes = bytearray(world.codes)
        stuck, slips, jams = set(idx.stuck), set(idx.slips), set(idx.jams)
        entries = list(self.entries)
        assumed: set = set()
        removed = []
        spared = []
        lost: list = []
        once: list = []
        cost = 0.0
        hand: dict = {}
        tipped: list = []  # coins a hand tipped off before the drop's coins came
        after: list = []  # switches a hand moved after the coins had passed
        between: list = []  # (switch, k): a hand moved it after the first k coins went in, before the others
        freed: list = []  # jammed outlets whose stopped coins came free in this group
        sticky = None
        blocked = ()
        handful = 0
        left = False
        added: dict = {}  # entry -> coins the moves put in with its counts
        for m in moves:
            cost += m.cost
            k, s = m.kind, m.s
            if k == "stuck":
                stuck.add(s)
            elif k == "sticky":
                sticky = (s, frozenset((m.side,)))
            elif k == "slip":
                slips.add(s)
            elif k == "chute":
                jams.add((s, m.side))
            elif k == "chute1":  # a new jam that stopped one coin and let this group's later ones by
                jams.add((s, m.side))
                once.append((s, m.side))
            elif k == "add":
                codes[s] |= COIN
            elif k == "remove":
                codes[s] &= ~COIN & 0xFF
            elif k == "lost":  # the coin believed resting here jammed in the chute it came by
                codes[s] &= ~COIN & 0xFF
                lost.append(divmod(m.side, 2))
                jams.add(lost[-1])
            elif k == "pad":
                codes[s] ^= PAD_R
                assumed.add(s)
            elif k == "unput":  # a put-back held past left it as it was (its hall, held lying, said so)
                codes[s] ^= PAD_R
            elif k in ("fix", "spare"):
                (removed if k == "fix" else spared).append(m.fault)
                if isinstance(m.fault, SwitchStuck):
                    stuck.discard(s)
                elif isinstance(m.fault, PadNotHolding):
                    slips.discard(s)
                else:
                    jams.discard((s, m.side))
            elif k in ("release", "release+"):  # the coins stopped there fall on (and this group's pass)
                tipped += released(world, m, jams, freed, removed, self.physics.geometry, self.labels)
            elif k == "left":  # an earlier handful's last coin rests on this entry's pad, unseen
                codes[self.physics.geometry.entry_switches[s]] |= COIN
                left = True
            elif k == "missed":  # an earlier coin this entry's beam missed rests on its pad
                codes[self.physics.geometry.entry_switches[s]] |= COIN
            elif k in ("entry", "entry+rest"):
                if self.entries:  # a second coin at the same moment as one the beams saw
                    cost += TWO_COINS_AT_ONCE if s in self.entries else ANOTHER_COIN
                entries.append(s)
                added[s] = added.get(s, 0) + 1
                if k == "entry+rest":
                    codes[self.physics.geometry.entry_switches[s]] |= COIN
            elif k == "handful":  # m.side more coins in the beam with this entry's count
                entries.extend([s] * m.side)
                added[s] = added.get(s, 0) + m.side
                handful += m.side
                cost += handful_cost(m.side)
            elif k == "phantom":  # the beam broke with no coin: something blocks it from now on
                entries.remove(s)
                blocked = (s,)
            elif k == "unchatter":  # every repeat of this entry was the beam, not a coin
                for _ in range(self.close_counts.get(s, 0)):
                    entries.remove(s)
            elif k == "hand":
                old, coin = codes[s] & PAD_R, codes[s] & COIN
                codes[s] = 1 - old
                hand[s] = hand.get(s, 0) + 1
                if coin:
                    tipped.append(self.physics.geometry.outs[s][old])
            elif k == "hand_after":
                after.append(s)
                hand[s] = hand.get(s, 0) + 1
            elif k == "late":  # the coin that rested here lately slid off across the lever
                codes[s] &= ~COIN & 0xFF
                slips.add(s)
                tipped.append(s)
            elif k == "hand_at":
                between.append((s, m.side))
                hand[s] = hand.get(s, 0) + 1
        # Each close pair of counts the story keeps as two coins costs a
        # double; only the counts it took back (a repeat, a phantom) are not
        # coins. Coins it adds (a handful in one of those breaks, a coin the
        # beam missed) are paid for by their own moves, not as more doubles.
        for e, close in self.close_counts.items():
            if close and e in self.entries:
                taken = self.entries.count(e) - (entries.count(e) - added.get(e, 0))
                cost += max(0, close - taken) * DOUBLE
        codes0 = bytes(codes)
        table = self.physics.table(stuck, slips, jams)
        if between:
            if sticky is not None or entries[:len(self.entries)] != self.entries:
                return None, None  # (a sticky pivot or a count taken back: not with a hand between coins)
            trace = self.physics.run_between(codes, self.physics.starts(entries), tipped, table, between)
        elif sticky is None:
            trace = self.physics.run(codes, self.physics.starts(entries) + tipped, table)
        else:
            s = sticky[0]
            row = self.physics.row(s, True, s in slips, (s, 0) in jams, (s, 1) in jams)
            trace = self.physics.run_sticky(codes, self.physics.starts(entries) + tipped, table, s, row, sticky[1], [0])
        for s in after:
            old, coin = codes[s] & PAD_R, codes[s] & COIN
            codes[s] = 1 - old
            if coin:
                trace = trace.merged(self.physics.run(codes, [self.physics.geometry.outs[s][old]], table))
        for k in once:
            by = trace.jams.get(k, 0) - 1
            if by > 0:  # the coins that got by fall on from the chute's foot
                trace = trace.merged(self.physics.run(codes, [self.physics.geometry.outs[k[0]][k[1]]] * by, table))
                trace.jams = dict(trace.jams)
                trace.jams[k] = 1
        if lost:
            trace.jams = dict(trace.jams)
            for k in lost:
                trace.jams[k] = trace.jams.get(k, 0) + 1
        # Work is counted in cascades of up to WORK_ARRIVALS coin arrivals, so
        # a long group of many coins spends its budget as fast as it takes time.
        self.evaluations += 1 + len(trace.arrivals) // WORK_ARRIVALS
        counts = [0] * self.obs.entry_count
        for e in entries:
            counts[e] += 1
        if handful or left:
            if not handful_timely(self.obs, self.physics.geometry, moves, trace) or not handful_proven(self, world, moves, trace):
                return trace, None
            for m in moves:
                if m.kind == "handful":
                    counts[m.s] -= m.side  # the beam broke once for them all: it saw what it could
        d = derive(self.obs, idx, self.labels, counts, trace, assumed, self.sensors, self.chatter_window, hand_flips=hand or None,
                   blocked=blocked)
        if d is None:
            return trace, None
        cand = Candidate(world, moves, tuple(entries), trace, d, cost + d.cost, codes0=codes0,
                         stuck=frozenset(stuck), slips=frozenset(slips), jams=frozenset(jams), removed=frozenset(removed), spared=frozenset(spared),
                         sticky=sticky or (), cleared=tuple(freed))
        self._keep(cand)
        # A hall reading ``mid`` at rest: an unseated rocker, or a drifted sensor.
        for i, f in enumerate(d.new):
            if isinstance(f, SwitchUnseated):
                alt = swapped(d, f, _fault(HallFault, f.switch), _LOG[catalog.HALL_FAULT] - _LOG[catalog.SWITCH_UNSEATED])
                self._keep(Candidate(world, moves, tuple(entries), trace, alt, cost + alt.cost, codes0=codes0,
                                     stuck=cand.stuck, slips=cand.slips, jams=cand.jams, removed=cand.removed, spared=cand.spared,
                                     sticky=cand.sticky, cleared=cand.cleared), i)
        return trace, cand

    def _keep(self, cand: Candidate, variant: int = -1) -> None:
        # One world and set of moves derive one set of sensor faults (plus
        # the hall-or-unseated variants), so moves, variant and cost identify
        # a candidate without hashing every fault it names.
        key = (id(cand.world), frozenset(cand.moves), variant, round(cand.derivation.cost, 9))
        if key not in self._seen:
            self._seen.add(key)
            self.candidates.append(cand)

    # -- where moves could matter -------------------------------------------------

    def moves(self, world, trace, base: tuple = ()) -> list[Move]:
        """Every single change worth trying on ``world`` for this drop (``movegen``)."""
        out = generate(self, world, trace, base)
        self.other += 1 + len(out) // MOVES_PER_UNIT
        return out

    @property
    def work(self) -> int:
        """Units of work this group's diagnosis did (deterministic: a Pi counts the same)."""
        return self.evaluations + self.other

    def spent(self) -> bool:
        """No more hypotheses: the search's budget, or the whole diagnosis's limit, is used up."""
        return self.evaluations >= self.budget or self.evaluations + self.other >= self.limit

    # -- the levels -----------------------------------------------------------------

    def run(self, worlds: list, searched: int = 4) -> list[Candidate]:
        """Every world as it is; then single and double changes to the
        ``searched`` most likely worlds only (the others keep their chance
        to be proven right by a later drop, as long as they fit unchanged)."""
        traces = {}
        for w in worlds:
            traces[id(w)] = self.evaluate(w, ())[0]
        if self._best_size() == 0 and self._best_cost() >= GOOD_ENOUGH:
            # Another world fits as it is; a world with a known sticky rocker,
            # slipping pad or jammed chute may fit too once that fault let
            # this coin pass (or is gone): without that try, an intermittent
            # fault's world dies on the first coin it spares.
            fits = {id(c.world) for c in self.candidates if c.size == 0}
            for w in worlds[:searched]:
                if id(w) in fits or not (w.index.stuck or w.index.slips or w.index.jams):
                    continue
                for m in self.moves(w, traces[id(w)]):
                    if m.kind in ("spare", "fix") and not self.spent():
                        self.evaluate(w, (m,))
            return self.candidates
        worlds = worlds[:searched]
        if self.unsure:
            search_unseen(self, worlds, traces)  # after lost events: several unseen pads first
        singles = []
        for w in worlds:
            for m in self.moves(w, traces[id(w)]):
                if self.spent():
                    self.exhausted = True
                    return self.candidates
                trace, _ = self.evaluate(w, (m,))
                singles.append((w, m, trace))
        tried = set()
        if self._best_size() >= 1:
            # Two turns' handfuls in one group: each alone leaves the other
            # entry's coins to a fault (a hall that read a flip no coin made),
            # which stops the search at this level, or the pairs' budget runs
            # out before their turn comes; both together blame none.
            for w, m1, _ in singles:
                if m1.kind != "handful":
                    continue
                for m2 in handful_moves(self.entries):
                    pair = (id(w), frozenset((m1, m2)))
                    if m2.s == m1.s or pair in tried:
                        continue
                    tried.add(pair)
                    if self.spent():
                        self.exhausted = True
                        return self.candidates
                    self.evaluate(w, (m1, m2))
        if self._best_size() <= 1:
            return self.candidates
        for w, m1, trace in singles:
            for m2 in self.moves(w, trace, (m1,)):
                pair = (id(w), frozenset((m1, m2)))
                if pair in tried:
                    continue
                tried.add(pair)
                if self.spent():
                    self.exhausted = True
                    return self.candidates
                self.evaluate(w, (m1, m2))
        return self.candidates

    def _best_size(self) -> int:
        return min((c.size for c in self.candidates), default=99)

    def _best_cost(self) -> float:
        return max((c.logp for c in self.candidates if c.size == 0), default=-math.inf)


__all__ = ["Move", "Candidate", "Search", "EntrySensorDead", "EntrySensorChatter"]
