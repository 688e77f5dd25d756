"""A board3 session: two people playing on board3's wood, the hub reading it,
the faults asked for acting from the drop they are given. ``run()`` returns
the observation log (sensing.md section 3, as the controller records it from
the hub) and the ground truth lines benchmarks/scoring.py reads.

Players: each has a pace (0.8 s to 20 s between turns, most a few seconds),
now and then drops before the last cascade ended, now and then two coins at
once (one entry or two), now and then pauses for a while; a stream mode drops
coins at a fixed rate for as long as asked.
"""

from __future__ import annotations

import random

from . import truth as truthmod
from .faults import Faults
from .geometry import Board, Physical, cascade
from .physics import Wood
from .sensors import Hall, Scanner, beam_events, hall_events

QUIET_NAMES = ("moved_by_hand", "coin_added", "coin_removed", "hall_fault")


class Player:
    def __init__(self, rng: random.Random):
        self.median = min(12.0, max(0.9, rng.lognormvariate(0.9, 0.55)))
        w = [rng.random() ** 2 + 0.05 for _ in range(8)]
        self.weights = w

    def gap(self, rng: random.Random) -> float:
        return min(20.0, max(0.8, rng.lognormvariate(0, 0.6) * self.median))


class Session:
    def __init__(self, seed: int, drops: int = 60, faults=(), stream: float | None = None, holes: bool | None = None):
        self.rng = random.Random(seed)
        self.n = drops
        self.stream = stream
        self.holes = (seed % 5 == 4) if holes is None else holes
        self.specs = []
        for i, f in enumerate(faults):
            name, where, from_drop, rate, opts = f
            self.specs.append({"id": i + 1, "fault": name, "where": where, "from_drop": from_drop, "rate": rate,
                               **({"mode": opts["mode"]} if opts.get("mode") else {})})

    def plan(self, rng: random.Random) -> list:
        """(t, entry, drop number) for every coin: the players' turns."""
        players = [Player(rng), Player(rng)]
        quiet = {f["from_drop"] for f in self.specs if f["fault"] in QUIET_NAMES or f["fault"] == "switch_unseated"
                 or f.get("mode") == "blocked"}
        out, t, k, turn = [], 1.0 + rng.uniform(0, 1), 1, 0
        while k <= self.n:
            p = players[turn % 2]
            entry = rng.choices(range(8), p.weights)[0]
            out.append((t, entry, k))
            k += 1
            if self.stream is None and k <= self.n and rng.random() < 0.035:  # two coins nearly together
                if rng.random() < 0.5:
                    out.append((t + rng.uniform(0.004, 0.09), entry, k))
                else:
                    out.append((t + rng.uniform(0.0, 0.15), rng.choices(range(8), p.weights)[0], k))
                k += 1
            turn += 1
            if self.stream:
                t += rng.uniform(0.8, 1.2) / self.stream
                continue
            r = rng.random()
            gap = rng.uniform(0.25, 0.75) if r < 0.07 else players[turn % 2].gap(rng)
            if rng.random() < 0.025:
                gap += rng.uniform(20, 90)  # a pause: a drink, a phone call
            if k in quiet or (k - 1) in quiet:
                gap = max(gap, 4.5)
            t += gap
        return sorted(out)

    def start_state(self, board: Board, rng: random.Random) -> Physical:
        n = len(board.switches)
        st = Physical([rng.randrange(2) for _ in range(n)], [0] * n)
        if rng.random() < 0.4:  # the log starts in the middle of a match: coins rest, known
            for _ in range(rng.randrange(5, 30)):
                cascade(board, st, [rng.randrange(8)])
        for h in board.holes:
            st.side[h], st.coin[h] = 0, 0
        return st

    def run(self):
        rng = self.rng
        board = Board(self.holes)
        state = self.start_state(board, rng)
        header = {"kind": "header", "board": "standard", "variants": {"holes": self.holes}, "state": state.text(board)}
        start = state.copy()
        faults = Faults(board, self.specs, rng)
        wood = Wood(board, state, rng, faults)
        halls = [Hall(rng, present=i not in board.holes) for i in range(len(board.switches))]
        scanner = Scanner(rng)
        plan = self.plan(rng)
        due = {f["from_drop"]: [] for f in self.specs}
        for f in self.specs:
            due[f["from_drop"]].append(f)
        waiting = []  # hand faults that found nothing to do yet (no coin to take, a full pad)
        entry_t = {}
        extra = {}
        for t, entry, k in plan:
            todo = waiting + due.pop(k, [])
            waiting = []
            for f in todo:
                ta = t - rng.uniform(1.0, 2.5)
                wood.run_until(ta)
                if not self.quiet_act(f, ta, t, wood, halls, board, extra, rng):
                    waiting.append(f)
            wood.run_until(t)
            entry_t[k] = wood.drop(t, entry, k)
        t_end = plan[-1][0] + 5.0
        wood.run_until(t_end)
        for f in self.specs:  # frozen readings are what the sensor said when it froze
            s = board.by_label.get(f["where"])
            if f["fault"] == "hall_fault" and halls[s].frozen_at is not None:
                h = halls[s]
                h.frozen_raw = h.reading(wood.tracks[s].at(h.frozen_at), h.frozen_at) + rng.gauss(0, 3)
        events = []
        for kind, pulses in (("entry", wood.entry_pulses), ("exit", wood.exit_pulses)):
            for n, ps in pulses.items():
                for t, tags in beam_events(faults.beam_pulses(wood, kind, n, ps, t_end), rng):
                    if t <= t_end:
                        events.append((t, {"kind": kind, kind: n + 1}, tags))
        for s, label in enumerate(board.labels):
            for t, lab, pos, raw, tags in hall_events(label, halls[s], wood.tracks[s], scanner, rng, t_end, extra.get(s, ())):
                events.append((t, {"kind": "switch", "switch": lab, "pos": pos, "raw": raw}, tags))
        events.sort(key=lambda e: e[0])
        log = [header]
        for t, d, _ in events:
            log.append({"t": round(t, 6), **d})
        truth = truthmod.ground_truth(board, start, wood, self.specs, plan, entry_t, events)
        return log, truth

    def quiet_act(self, f, ta, t_next, wood, halls, board, extra, rng) -> bool:
        """A fault's start: those that need a quiet board act at ``ta``; others arm just before the drop."""
        name = f["fault"]
        s = board.by_label.get(f["where"])
        f["t_on"] = ta
        if name == "moved_by_hand":
            if wood.busy[s] > ta:
                return False
            wood.hand_flip(ta, s, f["id"])
        elif name in ("coin_added", "coin_removed"):
            if not wood.hand_coin(ta, s, name == "coin_added", f["id"]):
                f["t_on"] = float("inf")
                return False
        elif name == "hall_fault":
            h = halls[s]
            h.faults[f["id"]] = name
            mode = f.get("mode") or rng.choice(("frozen", "drift", "inverted"))
            f["mode"] = mode
            if mode == "frozen":
                h.frozen_at = ta
            elif mode == "inverted":
                h.inverted_at = ta
                extra[s] = [(ta - 0.01, ta + 0.1)]
            else:
                t0 = ta - rng.uniform(0, 8)
                towards = -1 if wood.state.side[s] == 0 else 1
                if rng.random() < 0.5:
                    h.drift = (t0, towards * rng.uniform(8, 40), rng.uniform(170, 380))
                else:
                    h.fade = (t0, rng.uniform(0.006, 0.03), rng.uniform(0.22, 0.4))
                extra[s] = [(t0, t0 + 600.0)]
        elif name == "switch_unseated":
            halls[s].faults[f["id"]] = name
            if f.get("mode") == "bump":
                side = wood.state.side[s]
                a = rng.uniform(0.3, 0.42)
                a = a if side == 0 else 1.0 - a
                wood.tracks[s].move([(ta, float(side)), (ta + rng.uniform(0.03, 0.08), a)])
                wood.theta[s] = a
                wood.activity[wood.stray(f["id"])] = [ta, ta + 0.1]
                f["shown"] = True
            else:
                f["t_on"] = t_next - 0.2
        else:
            f["t_on"] = t_next - 0.2
            if f.get("mode") == "blocked":
                f["t_on"] = f["t_block"] = ta
        return True
