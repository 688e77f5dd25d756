"""The sensor hub as its firmware behaves (firmware/coindrel_hub: beams.py,
halls.py, ring.py, hub.py), on the simulation's clock.

This is the clean boundary of the simulation: below it, signals (beam edges,
hall readings at scan ticks); above it, the board events of sensing.md
section 2, timestamped on the board's clock. The observation log (``--log``)
and the wire (the virtual hub's serial protocol) both start here.

As in the firmware: beams are sampled at ``beam_hz`` and a change counts when
the new level holds for ``beam_filter`` samples, stamped with the sample where
it began; halls are scanned at ``scan_hz`` and classified by ``classify``; a
reading at a supply rail is reported once as an error. Changes are confirmed
after they began, so they wait on a stage and leave in time order once no
earlier change can still be confirmed.

Scanning every switch every tick would cost 38 readings per scan, 250 scans a
second of virtual time; a switch is only scanned while its rocker moves or its
reading could leave the class it holds (noise is bounded, so this is exact,
and the noise of a reading depends only on its tick, not on what else was
scanned).
"""

from __future__ import annotations

import heapq
import math
from typing import Callable, Protocol

from ..events import EntryEvent, ExitEvent, SwitchEvent
from .classify import Calibration, Classifier, HallRules, initial, stable

RAIL_LO, RAIL_HI = 16, 4079  # readings this close to a rail: a broken or shorted sensor
E_HALL_RANGE = 3


class HubOutput(Protocol):
    def event(self, ev) -> None: ...
    def clear(self, t: float, kind: str, index: int, duration: float) -> None: ...
    def error(self, t: float, code: int, arg: int, text: str) -> None: ...
    def down(self, t: float, why: str) -> None: ...
    def boot(self, t: float, why: str, snapshot: list[SwitchEvent]) -> None: ...


class Sinks:
    """Fans hub output out to any number of outputs (log writer, link, tests)."""

    def __init__(self, *outputs):
        self.outputs = [o for o in outputs if o is not None]

    def add(self, output) -> None:
        self.outputs.append(output)

    def event(self, ev) -> None:
        for o in self.outputs:
            o.event(ev)

    def clear(self, t, kind, index, duration) -> None:
        for o in self.outputs:
            o.clear(t, kind, index, duration)

    def error(self, t, code, arg, text) -> None:
        for o in self.outputs:
            getattr(o, "error", _ignore)(t, code, arg, text)

    def down(self, t, why) -> None:
        for o in self.outputs:
            o.down(t, why)

    def boot(self, t, why, snapshot) -> None:
        for o in self.outputs:
            o.boot(t, why, snapshot)


def _ignore(*args) -> None:
    pass


class Collect:
    """A hub output that keeps everything in lists (tests, benchmarks)."""

    def __init__(self):
        self.events, self.clears, self.errors, self.boots, self.downs = [], [], [], [], []

    def event(self, ev) -> None:
        self.events.append(ev)

    def clear(self, t, kind, index, duration) -> None:
        self.clears.append((t, kind, index, duration))

    def error(self, t, code, arg, text) -> None:
        self.errors.append((t, code, arg, text))

    def down(self, t, why) -> None:
        self.downs.append((t, why))

    def boot(self, t, why, snapshot) -> None:
        self.boots.append((t, why, snapshot))


class HubModel:
    def __init__(self, sched, labels, calibration: list[Calibration], rules: HallRules, period: float, out: HubOutput,
                 beam_hz: int = 10000, beam_filter: int = 5, record: Callable | None = None):
        self.sched = sched
        self.labels = labels
        self.cal = list(calibration)
        self.rules = rules
        self.period = period  # hall scan period (1 / scan_hz)
        self.beam_hz = beam_hz
        self.beam_filter = beam_filter
        self.out = out
        self.record = record
        self.world = None  # set by attach()
        self.on = True
        self.cable = True  # the USB cable powers the hub: while it is out, nothing boots it
        self.boot_time = 0.0
        self.boots = 0
        self.tick_base = 0  # ticks before the last boot, so noise never repeats
        self.last_tick = -1
        self.scan_due = False
        self.scan_tick = -1
        self.token = 0  # only the latest scheduled scan runs
        self.active: set[int] = set()
        self.classifiers: list[Classifier] = []
        self.rail: set[int] = set()  # switches whose reading sits at a rail (reported once)
        self.last_raw: list[int] = []
        self.beam_level: dict = {}  # the physical beam now
        self.beam_raw: dict = {}  # as the last sample saw it
        self.sample_due: dict = {}  # key -> the sample that will look at it
        self.beam_gen: dict = {}
        self.beam_pending: dict = {}  # key -> time the unconfirmed change began
        self.beam_state: dict = {}  # as the firmware has counted it
        self.broken_at: dict = {}
        self.stage: list = []  # (t, order, kind, payload): confirmed, not yet released
        self.order = 0

    def attach(self, world) -> None:
        self.world = world
        self.last_raw = [self._read(s, 0.0, 0) for s in range(len(self.cal))]
        self.classifiers = [Classifier(c, self.rules, initial(c, self.rules, self.last_raw[s])) for s, c in enumerate(self.cal)]

    def set_calibration(self, calibration: list[Calibration], rules: HallRules, beam_filter: int | None = None) -> None:
        """New calibration from the controller: reported classes stay, bands change."""
        self.cal = list(calibration)
        self.rules = rules
        if beam_filter:
            self.beam_filter = beam_filter
        for s, c in enumerate(self.classifiers):
            c.cal, c.rules = self.cal[s], rules
            self.watch(s, self.sched.now)

    # -- hall scanning ---------------------------------------------------------------

    def _read(self, s: int, t: float, tick: int) -> int:
        w = self.world
        return w.sensors[s].read(w.rockers[s], t, tick)

    def read_now(self, s: int) -> int:
        """A reading of switch ``s`` now (a raw stream for calibration)."""
        t = self.sched.now
        return self._read(s, t, self.tick_base + 500_000 + int((t - self.boot_time) / self.period))

    def watch(self, s: int, t: float) -> None:
        """Switch ``s``'s reading may change from ``t``: scan it until it settles."""
        self.active.add(s)
        if self.on:
            self._schedule(t)

    def _schedule(self, t: float) -> None:
        k = max(self.last_tick + 1, math.ceil((t - self.boot_time) / self.period - 1e-9))
        if self.scan_due and self.scan_tick <= k:
            return  # an earlier scan is coming; it keeps the scan going
        self.scan_due, self.scan_tick = True, k
        self.token += 1
        self.sched.at(self.boot_time + k * self.period, self._scan, k, self.token)

    def _scan(self, k: int, token: int) -> None:
        if not self.on or token != self.token:
            return
        self.scan_due = False
        self.last_tick = k
        t = self.sched.now
        tick = self.tick_base + k
        w, rec = self.world, self.record
        done = []
        for s in sorted(self.active):
            raw = w.sensors[s].read(w.rockers[s], t, tick)
            self.last_raw[s] = raw
            if rec is not None:
                rec(("hall", t, s, raw))
            if raw < RAIL_LO or raw > RAIL_HI:
                if s not in self.rail:
                    self.rail.add(s)
                    self._put(t, "error", (E_HALL_RANGE, s, f"{self.labels[s]} hall reads {raw}, at a supply rail: "
                                                           "sensor unplugged, miswired or shorted"))
            else:
                self.rail.discard(s)
            c = self.classifiers[s]
            changes = c.update(raw, t)
            if changes:
                for when, pos, value in changes:
                    self._put(when, "hall", SwitchEvent(when, self.labels[s], pos, value))
            if c.settled and not w.rockers[s].moving(t) and s not in self.rail:
                lo, hi = w.sensors[s].bounds(w.rockers[s])
                if stable(c.cal, self.rules, c.held, lo, hi):
                    done.append(s)
        for s in done:
            self.active.discard(s)
        self._release()
        if self.active:
            self._schedule(t + self.period)

    # -- beams -----------------------------------------------------------------------

    def beam(self, kind: str, index: int, broken: bool) -> None:
        """A physical beam edge now; the hub sees it at its next sample."""
        t = self.sched.now
        key = (kind, index)
        if self.record is not None:
            self.record(("beam", t, kind, index, broken))
        self.beam_level[key] = broken
        if not self.on:
            return
        k = math.ceil((t - self.boot_time) * self.beam_hz - 1e-9)
        if self.sample_due.get(key) != k:
            self.sample_due[key] = k
            self.sched.at(self.boot_time + k / self.beam_hz, self._sample, key, k)

    def _sample(self, key, k: int) -> None:
        """The sample that sees the beam's level after an edge (edges that
        come and go between two samples are never seen, as on the hub)."""
        if self.sample_due.get(key) == k:
            del self.sample_due[key]
        if not self.on:
            return
        level = self.beam_level[key]
        if level == self.beam_raw.get(key, False):
            return
        self.beam_raw[key] = level
        gen = self.beam_gen[key] = self.beam_gen.get(key, 0) + 1
        if level == self.beam_state.get(key, False):
            self.beam_pending.pop(key, None)  # back before it counted: a glitch
            self._release()
            return
        start = self.sched.now
        self.beam_pending[key] = start
        # it counts once ``beam_filter`` samples in a row have seen it (half a sample of slack, as the firmware)
        self.sched.at(start + (self.beam_filter - 0.5) / self.beam_hz, self._beam_counts, key, level, gen, start)

    def _beam_counts(self, key, broken: bool, gen: int, start: float) -> None:
        if gen != self.beam_gen[key] or not self.on:
            return
        self.beam_pending.pop(key, None)
        self.beam_state[key] = broken
        kind, index = key
        if broken:
            self.broken_at[key] = start
            self._put(start, "beam", EntryEvent(start, index) if kind == "entry" else ExitEvent(start, index))
        else:
            self._put(start, "clear", (kind, index, start - self.broken_at.get(key, start)))
        self._release()

    def beams_broken(self) -> list[tuple[str, int]]:
        return sorted(k for k, v in self.beam_state.items() if v)

    # -- the stage: confirmed changes leave in time order -------------------------------

    def _put(self, t: float, kind: str, payload) -> None:
        self.order += 1
        heapq.heappush(self.stage, (t, self.order, kind, payload))

    def horizon(self) -> float:
        """The earliest time a change not yet confirmed can carry."""
        h = self.sched.now
        for start in self.beam_pending.values():
            h = min(h, start)
        for s in self.active:
            c = self.classifiers[s]
            if c.leaving:
                h = min(h, c.left_t)
        return h

    def _release(self) -> None:
        stage = self.stage
        if not stage:
            return
        h = self.horizon()
        out = self.out
        while stage and stage[0][0] <= h:
            t, _, kind, payload = heapq.heappop(stage)
            if kind == "hall" or kind == "beam":
                out.event(payload)
            elif kind == "clear":
                out.clear(t, *payload)
            else:
                out.error(t, *payload)

    # -- power ----------------------------------------------------------------------

    def power_off(self, why: str) -> None:
        if why == "unplug":
            if not self.cable:
                return
            self.cable = False
            if not self.on:  # pulled while it was restarting: the port goes now
                self.out.down(self.sched.now, why)
                return
        if not self.on:
            return
        self.on = False
        self.stage.clear()  # confirmed but not yet sent: gone with the power
        self.beam_pending.clear()
        self.sample_due.clear()
        self.out.down(self.sched.now, why)

    def boot(self, why: str) -> None:
        """The hub starts again: new clock, every channel classified afresh
        (``why`` "unplug": the cable is back; a reset's end cannot start a
        hub whose cable is out: it boots when the cable comes back)."""
        if why == "unplug":
            self.cable = True
        if self.on or not self.cable:
            return
        t = self.sched.now
        self.on = True
        self.boots += 1
        self.tick_base += self.last_tick + 1 + 1_000_000
        self.boot_time = t
        self.last_tick = -1
        self.scan_due = False
        self.token += 1
        self.rail.clear()
        snapshot = []
        for s, c in enumerate(self.cal):
            raw = self.last_raw[s] = self._read(s, t, self.tick_base)
            pos = initial(c, self.rules, raw)
            self.classifiers[s] = Classifier(c, self.rules, pos)
            snapshot.append(SwitchEvent(t, self.labels[s], pos, raw))
        self.beam_state = dict(self.beam_level)  # the firmware starts from what it sees
        self.beam_raw = dict(self.beam_level)
        self.sample_due.clear()
        self.broken_at = {k: t for k, v in self.beam_state.items() if v}
        self.out.boot(t, why, snapshot)
        self.active = set(range(len(self.cal)))  # settle every channel once
        self._schedule(t + self.period)

    def snapshot(self) -> list[SwitchEvent]:
        """Every switch's reported class and last reading now."""
        t = self.sched.now
        return [SwitchEvent(t, self.labels[s], c.held, self.last_raw[s]) for s, c in enumerate(self.classifiers)]
