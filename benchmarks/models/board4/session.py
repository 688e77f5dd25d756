"""A session at the board: people, their turns, the hub, the faults, and the
truth the scorer reads.

People: most wait for the board to go quiet and think a few seconds; some
drop the moment the last coin is out (0.3 s), some pause for half a minute,
some drop before the last cascade ended, and now and then someone puts two
or three coins in at once (into one entry, one after the other, or into
several). Someone knocks the table now and then. Sessions may start with
coins resting on pads (a match carried on) and with the holes variant. The
hub may restart during a long pause.

Truth: every coin a person put in (its drop number, entry and time), and per
fault where its first effect shows. That is found without the engine and
without knowing the fault: the same session is run again without its faults
(the *shadow*: the same people, the same coins, the same random numbers for
everything the fault did not touch) and the first sensed event that differs
is the fault's first effect: inside a drop (its coin caused it) that drop,
otherwise that moment.
"""

from __future__ import annotations

from collections import Counter

from .faults import BY_HAND, Fault, FaultSet
from .hub import Hub
from .layout import BY_LABEL, ENTRIES, HOLE_SWITCHES, SPOTS, entry_spot, text_rows
from .physics import Coin, Motion, Physics, keyed


class World:
    """One run: the physics, the hub and what the controller logged."""

    def __init__(self, seed, faults):
        self.seed = seed
        self.faults = faults
        self.fx = FaultSet(faults)
        self.coins: list[dict] = []  # per player coin: drop, t, entry
        self.events: list[tuple] = []
        self.notes: list[tuple] = []
        self.physics: Physics | None = None


class Session:
    def __init__(self, seed: int, drops: int = 70, stream: float | None = None, faults=(), holes: bool | None = None,
                 restart: bool | None = None, touching: bool = True, held: bool = True):
        """``restart``: force (True) or forbid (False) a hub restart in a long
        pause; ``touching`` False: coins put into one entry together always
        pass its beam one by one; ``held`` False: nobody slides a coin slowly
        into a slot (the behaviours board4 found false alarms with, to count
        each on its own)."""
        self.touching, self.held = touching, held
        self.seed, self.drops, self.stream = seed, drops, stream
        self.specs = list(faults)
        r = keyed("b4session", seed)
        drawn = r.random() < 0.2 and not self.specs
        self.holes = drawn if holes is None else holes
        self.pads = [r.randrange(2) for _ in SPOTS]
        carried = r.random() < 0.5
        drawn = r.random() < 0.35  # the hub restarts once in a long pause
        self.may_restart = drawn if restart is None else restart
        self.hole_ns = {BY_LABEL[f"R{a + 1}S{b + 1}"].n for a, b in HOLE_SWITCHES} if self.holes else set()
        self.start_coins = [carried and s.n not in self.hole_ns and self.pads[s.n] == s.inlet and r.random() < 0.3
                            for s in SPOTS]
        self.world: World | None = None
        self.shadow: World | None = None

    # -- one run ----------------------------------------------------------------
    def simulate(self, enabled=None) -> World:
        """The session with the faults whose ids are in ``enabled`` (all when
        None); the others' pauses are taken all the same, so times agree."""
        faults = [Fault(i + 1, name, where, start, rate, dict(opts or {}), self.seed)
                  for i, (name, where, start, rate, opts) in enumerate(self.specs)]
        on = {f.id for f in faults} if enabled is None else set(enabled)
        w = World(self.seed, faults)
        w.fx = FaultSet([f for f in faults if f.id in on])
        phys = Physics(self.seed, self.pads, self.start_coins, self.hole_ns, w.fx)
        w.physics = phys
        hub = Hub(self.seed)
        start_theta = [r.rest() for r in phys.rockers]
        people = keyed("b4people", self.seed)
        prefer = [people.uniform(0.3, 1.0) ** 2 for _ in range(ENTRIES)]
        t = 1.0 + people.uniform(0, 2)
        burst = []  # coins still to come in this person's handful
        restarted = not self.may_restart
        held_until = 0.0
        for k in range(1, self.drops + 1):
            r = keyed(self.seed, "turn", k)
            handful = bool(burst)
            entry = r.choices(range(ENTRIES), weights=prefer)[0]
            if self.stream:
                t += r.uniform(0.6, 1.4) / self.stream
            elif burst:
                handful = True
                same, gap = burst.pop()
                entry = self.coins_entry if same else entry
                t += gap
            else:
                style = r.random()
                if style < 0.05:  # a handful: two or three coins, one after the other (into one entry: touching, or not)
                    same = r.random() < 0.45
                    gaps = (0.002, 0.015) if r.random() < 0.25 and self.touching else (0.03, 0.12)
                    burst = [(same, r.uniform(*gaps) if same else r.uniform(0.06, 0.4)) for _ in range(r.choice((1, 1, 2)))]
                if 0.05 <= style < 0.12:  # the opponent is quick: drops before the cascade ended
                    phys.run_until(t)
                    t += r.uniform(0.25, 0.8)
                else:
                    end = phys.settle()
                    if style < 0.34:
                        think = r.uniform(0.3, 0.8)
                    elif style < 0.9:
                        think = r.uniform(1.0, 6.0)
                    else:
                        think = r.uniform(8.0, 30.0)
                    t = max(t + 0.3, end + think)
                    if think > 8.0 and not restarted:
                        restarted = True
                        down = end + r.uniform(0.5, 2.0)
                        up = down + r.uniform(2.5, 4.5)
                        hub.restarts.append((down, up, r.uniform(-0.02, 0.05)))
                        t = max(t, up + 1.0)
                    if think > 1.5 and r.random() < 0.05:
                        phys.bump(end + r.uniform(0.3, think - 0.3), r)
            t = self._world_faults(w, phys, k, t, on)
            for f in faults:
                if f.start == k and f.name not in BY_HAND and f.t_on is None:
                    f.t_on = t
            t = max(t, held_until + 0.05)  # nobody drops into a slot while a hand still holds a coin in one
            phys.run_until(t)
            hold = r.uniform(0.15, 1.2) if not (self.stream or burst or handful) and r.random() < 0.02 and self.held else 0.0
            held_until = t + hold if hold else held_until
            phys.drop(t, entry, k, hold)
            notes = [f"held {hold:.2f} s in the slot"] if hold else []
            if w.coins and w.coins[-1]["entry"] == entry and t - w.coins[-1]["t"] < 0.045:
                notes.append("in the entry beam with the coin before")
            self.coins_entry = entry
            w.coins.append({"drop": k, "t": t, "entry": entry, "notes": notes})
        phys.settle()
        events = hub.halls_events(phys, start_theta, w.fx.hall_of) + hub.beam_events(phys, w.fx.beam)
        w.events = hub.deliver(events)
        w.notes = sorted(hub.notes, key=lambda n: n[0])
        for down, up, err in hub.restarts:
            w.notes.append((down, None, "hub restart"))
        shift = {c["drop"]: 0.0 for c in w.coins}
        for down, up, err in hub.restarts:
            for c in w.coins:
                if c["t"] > up:
                    shift[c["drop"]] = err
        for c in w.coins:
            c["t"] += shift[c["drop"]]
        return w

    def _world_faults(self, w: World, phys: Physics, k: int, t: float, on: set) -> float:
        """A pause before drop ``k`` for what a person does to the board then
        (taken in the shadow too, so both runs keep the same times)."""
        due = [f for f in w.faults if f.start == k and (f.name in BY_HAND or f.name == "hall_fault")]
        if not due:
            return t
        end = phys.settle()
        at = max(end, phys.last) + keyed(self.seed, "pause", k).uniform(0.6, 1.5)
        for f in due:
            f.t_on = at
            if f.id not in on:
                continue
            rocker = phys.rockers[f.switch.n] if f.switch is not None else None
            rng = keyed(self.seed, "hand", f.id)
            if f.name == "moved_by_hand":
                phys.hand_flip(at, f.switch.n, rng)
            elif f.name == "coin_added":
                if rocker.coin is None and not rocker.hole:
                    rocker.coin = Coin(f"added{f.id}", None, rng)
                else:
                    f.applied = False
            elif f.name == "coin_removed":
                if rocker.coin is not None:
                    rocker.coin = None
                else:
                    f.applied = False
            elif f.name == "switch_unseated":
                before = rocker.rest()
                rocker.unseat[rocker.pad] = rng.uniform(0.3, 0.55)
                rocker.motions.append(Motion(at, rng.uniform(0.05, 0.2), before, rocker.rest(), 0.0, 0.0, "hand", None))
        phys.settle()
        return max(t, at + 1.2)

    # -- the log and the truth ------------------------------------------------------
    def header(self) -> dict:
        return {"kind": "header", "board": "standard", "variants": {"holes": self.holes},
                "state": text_rows(self.pads, self.start_coins, self.hole_ns)}

    def run(self) -> tuple[list[dict], list[dict]]:
        self.world = w = self.simulate()
        log = [self.header()] + [{"t": round(t, 6), **ev} for t, ev, _ in w.events]
        truth = []
        # Each fault's shadow is the session without it (the others still
        # acting): its first effect is what it alone changed.
        everyone = {f.id for f in w.faults}
        self.shadows = {f.id: self.simulate(everyone - {f.id}) for f in w.faults}
        self.shadow = self.shadows.get(1)
        firsts = {f.id: self.first_effect(w, self.shadows[f.id], f) for f in w.faults}
        for c in w.coins:
            acted = sorted(f.id for f in w.faults if c["drop"] in f.acted or firsts[f.id][0] == c["drop"])
            row = {"kind": "coin", "drop": c["drop"], "t": round(c["t"], 6), "entry": c["entry"] + 1, "acted": acted}
            notes = c["notes"] + [what for _, owner, what in w.notes if owner == c["drop"]]
            if notes:
                row["notes"] = notes  # what this healthy coin did that is unusual (the scorer ignores it)
            truth.append(row)
        for t, owner, what in w.notes:
            if owner is None:
                truth.append({"kind": "note", "t": round(t, 6), "what": what})
        for f in w.faults:
            row = {"kind": "fault", "id": f.id, "fault": f.name, "where": f.where, "t": f.t_on, "rate": f.rate}
            drop, t = firsts[f.id]
            if drop is not None:
                row["first_drop"] = drop
            elif t is not None:
                row["first_effect"] = round(t, 6)
            truth.append(row)
        return log, truth

    @staticmethod
    def sensed(w: World) -> list[tuple]:
        """What the log says (time, kind, what, position), with who caused it; not raw counts."""
        return [(round(t, 6), ev["kind"], ev.get("entry", ev.get("exit", ev.get("switch"))), ev.get("pos"), owner)
                for t, ev, owner in w.events if ev["kind"] != "status"]

    @staticmethod
    def first_effect(w: World, shadow: World | None, f: Fault):
        """(drop, None) or (None, t): where this run's sensed outcome first
        differs from the shadow's. A drop's outcome is what its coins made
        the sensors say (which exits, which switch readings, how often),
        not when: a fault that only reorders a drop's events (a coin taken
        off a pad that the drop's own next coin fills again) has not shown.
        What no coin caused (a hand, a hall sensor going wrong) shows at the
        moment the readings differ. (None, None) when nothing ever differs."""
        if shadow is None or not f.applied or f.t_on is None:
            return None, None
        a, b = Session.sensed(w), Session.sensed(shadow)
        found = []
        outcome = lambda evs, k: Counter(e[1:4] for e in evs if e[4] == k)  # noqa: E731
        entry_t = {c["drop"]: c["t"] for c in w.coins}
        for c in w.coins:
            k = c["drop"]
            if outcome(a, k) != outcome(b, k):
                if not outcome(a, k):
                    # Nothing sensed this coin (its entry beam missed it and it came to rest on
                    # the pad under its entry): it shows when the next coin meets that switch.
                    label = entry_spot(c["entry"]).label
                    k = next((d["drop"] for d in w.coins if d["drop"] > k
                              and any(e[1] == "switch" and e[2] == label and e[4] == d["drop"] for e in a)), None)
                    if k is None:
                        break
                found.append((entry_t[k], k))
                break
        loose_a = [e[:4] for e in a if e[4] is None]
        loose_b = [e[:4] for e in b if e[4] is None]
        for x, y in zip(loose_a, loose_b):
            if x != y:
                found.append((min(x[0], y[0]), None))
                break
        else:
            if len(loose_a) != len(loose_b):
                found.append(((loose_a if len(loose_a) > len(loose_b) else loose_b)[min(len(loose_a), len(loose_b))][0], None))
        if not found:
            return None, None
        t, k = min(found, key=lambda x: x[0])
        if t < f.t_on - 1e-6 and k is None:
            return None, None  # a difference from before it acted cannot be its (never expected)
        return (k, None) if k is not None else (None, t)
