"""A session on board5: people dropping coins, the board's physics, the
hub's events, and the truth ``benchmarks/scoring.py`` reads.

People here: turns with pauses, quick players (the next coin into a
cascade still falling), two players dropping into different entries at the
same instant, two touching coins into one entry (the beam clears between
them for a millisecond or more: sensing.md, one break per coin), coins
dropped from high; between turns now and then a child taps a rocker, or
someone leans on one, without turning it; a phone laid by the board pushes
a few neighbouring readings for some milliseconds. Some sessions' hub
resets once, most often while a cascade is falling (``hub.restart``)."""

from __future__ import annotations

import math
import random

from . import layout as lay
from .faults import Faults
from .hub import Hub, render, restart
from .physics import Coin, Physics

TAP, LEAN, PHONE = 0.012, 0.005, 0.006  # chances per quiet spell (healthy behaviours, tagged)


class Session:
    def __init__(self, seed: int, drops: int = 70, stream: float | None = None, faults=(), quiet_extras: bool = True,
                 restarts: bool = True):
        self.seed, self.drops, self.stream, self.specs = seed, drops, stream, list(faults)
        self.quiet_extras, self.restarts = quiet_extras, restarts

    def run(self) -> tuple[list[dict], list[dict]]:
        rng = random.Random(self.seed)
        people = random.Random(rng.randrange(1 << 30))
        hub = Hub(random.Random(rng.randrange(1 << 30)), len(lay.SWITCHES))
        pads = [rng.randrange(2) for _ in lay.SWITCHES]
        faults = Faults(random.Random(rng.randrange(1 << 30)), self.specs)
        phys = Physics(random.Random(rng.randrange(1 << 30)), pads, faults)
        if rng.random() < 0.25:  # a session that starts with coins on some pads (the header says so)
            for s in rng.sample(range(len(lay.SWITCHES)), rng.randint(2, 7)):
                if pads[s] == lay.inlet(s):
                    phys.coins[s] = 1
        start_rows = lay.text_rows(phys.pads, phys.coins)
        coins, notes, extras = [], [], [[] for _ in lay.SWITCHES]
        t_prev = 0.5
        n = 0
        while n < self.drops:
            due = [f for f in faults.all if f.start == n + 1 and f.t is None]
            how = None
            if self.stream:
                t = t_prev + people.uniform(0.85, 1.15) / self.stream
            elif n and not due and people.random() < 0.15:
                t = t_prev + people.uniform(0.2, 0.6)
                how = "quick"
            else:
                settle = phys.quiet()
                gap = min(6.0, max(0.5, math.exp(people.gauss(math.log(1.4), 0.5))))
                t = max(settle, t_prev) + gap
                quiet = (settle + 0.15, t - 0.15)
                for f in due:
                    at = people.uniform(*quiet)
                    phys.run_until(at)
                    faults.happen(f, at, phys, hub)
                if self.quiet_extras and not due:
                    self._quiet_extras(people, quiet, phys, hub, extras, notes)
            phys.run_until(t)
            large = people.random() < 0.4
            high = people.random() < 0.1
            entry = people.randrange(lay.ENTRIES)
            n = self._drop(people, phys, hub, coins, n, t, entry, large, high, how)
            t_prev = t
            r = people.random()
            if n < self.drops and r < 0.025:  # two coins touching, into one entry
                n = self._drop(people, phys, hub, coins, n, t + 0.001, entry, large, high, "double")
            elif n < self.drops and r < 0.045:  # two players at once, two entries
                other = people.choice([e for e in range(lay.ENTRIES) if e != entry])
                n = self._drop(people, phys, hub, coins, n, t + people.uniform(0.0, 0.02), other,
                               people.random() < 0.4, False, "pair")
                coins[-2]["tags"].append("pair")
        end = phys.quiet() + 2.0
        self.physics = phys  # (tests look at what the coins did)
        return self._log(rng, phys, hub, start_rows, coins, notes, extras, faults, end)

    # -- pieces ---------------------------------------------------------------------------

    def _drop(self, people, phys, hub, coins, n, t, entry, large, high, tag=None) -> int:
        n += 1
        speed = people.uniform(0.92, 1.1) * (1.06 if large else 1.0) * (0.75 if high else 1.0)
        ms = people.uniform(14, 32) if large else people.uniform(6, 14)
        if high:
            ms = max(5.0, ms * 0.6)
        coin = Coin(n, large, speed)
        calm = not phys.heap  # nothing falling: the board as it is now is a place to start a log
        rows = lay.text_rows(phys.pads, phys.coins) if calm else None
        before = len(phys.beams)
        phys.drop_coin(t, entry, coin, ms)
        t_in = phys.beam_clear[("entry", entry)] - ms / 1000.0
        tags = [x for x, on in (("large", large), ("high", high), (tag, tag)) if on]
        coins.append({"kind": "coin", "drop": n, "t": hub.beam(t_in), "entry": entry + 1, "tags": tags,
                      "seen": len(phys.beams) > before, **({"before": rows} if rows else {})})
        return n

    def _quiet_extras(self, people, quiet, phys, hub, extras, notes) -> None:
        lo, hi = quiet
        if hi - lo < 0.5:
            return
        r = people.random()
        s = people.randrange(len(lay.SWITCHES))
        at = people.uniform(lo, hi - 0.4)
        if r < TAP:
            phys.run_until(at)
            phys.tap(at, s, people.uniform(0.25, 0.6), people.uniform(0.0, 0.08))
            notes.append({"kind": "note", "what": "tap", "where": lay.LABELS[s], "t": hub.stamp(at)})
        elif r < TAP + LEAN:
            phys.run_until(at)
            phys.tap(at, s, people.uniform(0.3, 0.5), people.uniform(0.1, min(1.2, hi - at - 0.2)))
            notes.append({"kind": "note", "what": "lean", "where": lay.LABELS[s], "t": hub.stamp(at)})
        elif r < TAP + LEAN + PHONE:
            counts = people.choice((-1, 1)) * people.uniform(150, 350)
            d = people.uniform(0.004, 0.04)
            for k in range(people.randint(1, 3)):
                if s + k < len(lay.SWITCHES):
                    extras[s + k].append((at, at + d, counts / (1 + k)))
            notes.append({"kind": "note", "what": "phone", "where": lay.LABELS[s], "t": hub.stamp(at)})

    def _log(self, rng, phys, hub, start_rows, coins, notes, extras, faults, end):
        from . import truth

        events = [(hub.beam(t), 0, {"kind": kind, kind: n + 1}) for t, kind, n, _ in phys.beams]
        for s, label in enumerate(lay.LABELS):
            fault = next((f.hall for f in faults.all if f.place == s and f.hall is not None), None)
            seed = (self.seed * 1000 + s) & 0x7FFFFFFF
            hall = render(hub.channels[s], float(_first(phys, s, start_rows)), phys.motions[s], extras[s], fault, end,
                          random.Random(seed))
            for t, pos, raw in hall:
                events.append((hub.stamp(t), 1, {"kind": "switch", "switch": label, "pos": pos, "raw": raw}))
            if fault is not None:
                healthy = render(hub.channels[s], float(_first(phys, s, start_rows)), phys.motions[s], extras[s], None,
                                 end, random.Random(seed))
                truth.hall_first_effect(faults, s, hall, healthy, hub)
        events.sort(key=lambda e: (e[0], e[1]))
        if self.restarts and not faults.all and rng.random() < 0.12 and coins:
            # the hub resets once, most often while a cascade is falling
            c = rng.choice(coins[: max(1, len(coins) - 3)])
            events, what = restart(events, c["t"] + rng.uniform(0.0, 0.9), rng.uniform(0.6, 1.8), rng.uniform(-0.005, 0.02))
            events.sort(key=lambda e: (e[0], e[1]))
            for c in coins:
                span = phys.span.get(c["drop"], [c["t"], c["t"]])
                if span[0] <= what["back"] and span[1] >= what["t"] - 0.6:
                    c["tags"].append("restart")  # its events (or its quiet spell) met the hub's reset
                if c["t"] >= what["back"]:
                    c["t"] = round(c["t"] + what["err"], 6)
            notes.append({"kind": "note", "what": "restart", "where": "hub", "t": what["t"], "end": what["back"],
                          "lost": what["lost"], "changed": what["changed"]})
        header = {"kind": "header", "board": "standard", "variants": {"holes": False}, "state": start_rows}
        log = [header] + [dict(e, t=t) for t, _, e in events]
        return log, truth.make(coins, notes, phys, hub, faults, log)


def _first(phys, s: int, rows: list[str]) -> int:
    r, j = lay.SWITCHES[s]
    return 0 if rows[r][j] in "Ll" else 1
