"""A monkey at the table: random presses, coins, hands, unplugs and restarts
at any moment, against the real flow, daemon, journal and virtual board on
one fake clock (``coindrel sim --fast``'s rig).

After every step: nothing raised, the screen renders, every coin the board
saw while a match was saved is in the journal exactly once, and the scores
are what an engine replay of the match log gives. At the end of every
example, careful simulated people take over and must bring a match to its
end within a bounded time, from wherever the monkey left the table.

More examples: ``COINDREL_MONKEY_EXAMPLES=5000 python -m pytest tests/table/test_monkey.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from coindrel.display import render
from coindrel.engine import Match, Variants, standard_geometry
from coindrel.events import EntryEvent
from coindrel.table.fastsim import FastRig
from coindrel.table.history import CURRENT, HISTORY
from coindrel.table.records import scan
from coindrel.table.script import PRESSES, Do, ScriptStep
from coindrel.table.sim import SimOptions

G = standard_geometry()
EXAMPLES = int(os.environ.get("COINDREL_MONKEY_EXAMPLES", "200"))
FINISH_WITHIN = 1500.0  # seconds of board time careful people may take to end a match from anywhere


def journal_entries(state_dir: Path) -> list[float]:
    """Board times of the entry events in every journal (current and history)."""
    times = []
    for path in [state_dir / CURRENT, *(state_dir / HISTORY).glob("*")]:
        if not path.is_file() or path.name.endswith(".tmp"):
            continue
        for r in scan(path.read_bytes()).records:
            if r.kind == "ev" and r.data.get("kind") == "entry":
                times.append(round(float(r.data["t"]), 6))
    return sorted(times)


class Monkey(RuleBasedStateMachine):
    @initialize(seed=st.integers(0, 2**16), clock=st.sampled_from(["turbo", "30", "off"]),
                holes=st.booleans(), shuffled=st.booleans(), warmup=st.floats(0, 60))
    def start(self, seed, clock, holes, shuffled, warmup):
        import tempfile

        self.dir = Path(tempfile.mkdtemp(prefix="coindrel-monkey-"))
        opts = SimOptions(seed=seed, clock=clock, variants=Variants(holes=holes, shuffled=shuffled), think=0.2,
                          pause=0.3, reveal_seconds=0.5, display="none", state_dir=str(self.dir))
        # A restart here is a kill -9, not a power cut: the kernel keeps what was written, so
        # the journal's fdatasync (tested with real power-cut semantics in test_crash.py) is skipped.
        self.rig = FastRig(opts, step=0.05, store_options={"datasync": lambda fd: None})
        self.seen: list[float] = []
        self._watch_entries()
        self.line = 0
        self.wait(warmup)

    def _watch_entries(self):
        rig, seen = self.rig, self.seen
        table = rig.table
        handle = table.handle_event

        def handle_event(ev, **kw):
            if isinstance(ev, EntryEvent) and table.journal is not None:
                seen.append(round(ev.t, 6))
            handle(ev, **kw)

        table.handle_event = handle_event

    def _do(self, do: Do, value=None, side=""):
        self.line += 1
        self.rig.apply(ScriptStep(self.rig.t, do, value, side, self.line))
        if do is Do.RESTART:
            self._watch_entries()

    # -- what the monkey does --------------------------------------------------------

    @rule(press=st.sampled_from(sorted(PRESSES.values())))
    def press(self, press):
        self._do(Do.PRESS, press)

    @rule(entry=st.integers(0, G.entry_count - 1))
    def drop(self, entry):
        self._do(Do.DROP, entry)

    @rule(switch=st.sampled_from(G.labels), side=st.sampled_from("LR"))
    def hand(self, switch, side):
        self._do(Do.HAND, switch, side)

    @rule(switch=st.sampled_from(G.labels), on=st.booleans())
    def coin_by_hand(self, switch, on):
        self._do(Do.PLACE if on else Do.TAKE, switch)

    @rule(seconds=st.floats(0.5, 20))
    def unplug(self, seconds):
        self._do(Do.UNPLUG, seconds)

    @rule()
    def restart(self):
        self._do(Do.RESTART, True)

    @rule(players=st.sampled_from([("Cy", "Di"), ("Ed", "Flo"), ("Ed", "ed"), ("Gus", "G" * 13)]),
          clock=st.sampled_from([None, 5, 30, 45]), again=st.booleans())
    def club_request(self, players, clock, again):
        """The club asks for a match (a good request, or one the table refuses):
        whatever the table was doing, a match in progress goes on untouched."""
        table, t = self.rig.table, self.rig.t
        flow = table.flow
        self.line += 0 if again else 1
        before = (flow.mode, flow.match, len(flow.match.log), flow.view(t)) if flow.match is not None else None
        table.handle_club_request({"id": f"req-{self.line}", "players": list(players), "clock": clock,
                                   "variants": {"halved": True}})
        if before is not None:
            assert (flow.mode, flow.match, len(flow.match.log), flow.view(t)) == before

    @rule(seconds=st.floats(0.05, 8))
    def wait(self, seconds):
        end = self.rig.t + seconds
        while self.rig.t < end:
            self.rig.tick()

    # -- what must always hold ------------------------------------------------------------

    @invariant()
    def nothing_failed(self):
        assert self.rig.table.failed is None, self.rig.table.failed
        assert not self.rig.errors, self.rig.errors

    @invariant()
    def the_screen_renders(self):
        flow = self.rig.table.flow
        image = render(flow.view(self.rig.t))
        assert image.size == (128, 64)

    @invariant()
    def scores_are_the_engines(self):
        m = self.rig.table.flow.match
        if m is None:
            return
        again = Match.replay(list(m.log))
        assert again.totals == m.totals and again.round == m.round and again.board.text() == m.board.text()
        assert m.totals == (sum(r.points for r in m.results if r.player == 1),
                            sum(r.points for r in m.results if r.player == 2))

    @invariant()
    def every_coin_is_journalled_once(self):
        assert journal_entries(self.dir) == sorted(self.seen)

    def teardown(self):
        rig = getattr(self, "rig", None)
        if rig is None:
            return
        try:
            rig.players.matches_done = 0
            rig.opts.matches = 1
            end = rig.t + FINISH_WITHIN
            while rig.t < end and not rig.players.finished.is_set():
                rig.tick()
                assert rig.table.failed is None and not rig.errors, rig.errors
            assert rig.players.finished.is_set(), (
                f"careful people did not end a match within {FINISH_WITHIN:g} s: the table is in "
                f"{rig.table.flow.mode!r} ({type(rig.table.flow.view(rig.t)).__name__}), "
                f"match phase {rig.table.flow.match.phase if rig.table.flow.match else None}")
            assert any(m.over for m in rig.out.matches)
        finally:
            rig.close()


# COINDREL_MONKEY_SHRINK=0 reports a failure as found, without the (slow) search for the shortest one.
PHASES = tuple(Phase) if os.environ.get("COINDREL_MONKEY_SHRINK", "1") != "0" else (Phase.explicit, Phase.reuse, Phase.generate)
# The examples are shared out over a few tests: each stays far inside pytest's per-test timeout on a
# machine busy with other work (one test of all 200 took over 3 minutes there), and xdist runs them side by side.
SHARDS = 4
for _i in range(1, SHARDS + 1):
    _shard = type(f"Monkey{_i}", (Monkey,), {})
    _shard.TestCase.settings = settings(max_examples=-(-EXAMPLES // SHARDS), stateful_step_count=25, deadline=None,
                                        phases=PHASES,
                                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    globals()[f"test_a_monkey_cannot_wedge_the_table_{_i}"] = _shard.TestCase
del _i, _shard
