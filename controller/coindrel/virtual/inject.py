"""Injected faults at run time: when each starts and ends, what it does, and
the ground-truth lines that say so.

The physics asks this object, coin by coin, whether a switch is stuck or its
pad slips, an outlet is jammed, a beam is dead or chatters; sensor faults
change the hall sensor's output directly; actions (a hand moving a rocker,
a coin added or taken) change the board; link faults go to the hub model
and, when serving, to the link.
"""

from __future__ import annotations

from ..engine import catalog
from .faults import FaultSpec
from .hall import DRIFT, INVERTED, STUCK
from .rand import Stream
from .truth import Cascade


class FaultState:
    def __init__(self, sched, world, hub, truth, faults: list[FaultSpec], seed: int, link=None):
        self.sched = sched
        self.world = world
        self.hub = hub
        self.truth = truth
        self.link = link
        self.rng = Stream(seed, "faults")
        self.active: list[FaultSpec] = []
        self.stuck: dict[int, list] = {}
        self.slip: dict[int, list] = {}
        self.jams: dict[tuple[int, int], list] = {}
        self.dead: dict[tuple[str, int], list] = {}
        self.chatter: dict[tuple[str, int], list] = {}
        self.sensor: dict[int, list] = {}
        self.faults = list(faults)
        for f in self.faults:
            sched.at(f.t, self._start, f)
            if f.until is not None:
                sched.at(f.until, self._until, f)

    # -- questions the physics asks, coin by coin -----------------------------------------

    def switch(self, s: int):
        st, sl = self.stuck.get(s), self.slip.get(s)
        return (st[0] if st else None, sl[0] if sl else None)

    def jam(self, s: int, side: int):
        j = self.jams.get((s, side))
        return j[0] if j else None

    def beam(self, kind: str, index: int):
        key = (kind, index)
        dead = next((f for f in self.dead.get(key, ()) if self.rng.chance(f.params["chance"])), None)
        if dead is not None:
            return dead, None
        chat = next((f for f in self.chatter.get(key, ()) if self.rng.chance(f.params["chance"])), None)
        return None, chat

    def acted(self, f: FaultSpec, cascade: Cascade) -> None:
        cascade.faults.add(f.id)
        if not f.persistent:
            self._stop(f, "acted", cascade)

    def on_move(self, s: int, cascade: Cascade | None) -> None:
        """Rocker ``s`` starts moving: its sensor faults misreport this cascade;
        a one-off unseated rocker seats itself again."""
        for f in list(self.sensor.get(s, ())):
            if cascade is not None:
                cascade.faults.add(f.id)
            if f.name == catalog.SWITCH_UNSEATED and not f.persistent:
                self.world.unseat[s] = 0.0
                self._stop(f, "reseated", cascade)

    # -- starting and ending ---------------------------------------------------------------

    def _line(self, f: FaultSpec, **extra) -> None:
        d = {"kind": "fault", "id": f.id, **f.to_json(), "t": round(self.sched.now, 6)}
        d.update(extra)
        self.truth.write(d)

    def _start(self, f: FaultSpec) -> None:
        if f.name in ONE_OFF_ACTIONS:
            self.world.when_free(f.switch, self._action, f)
            return
        self.active.append(f)
        self._line(f)
        STARTS[f.name](self, f)

    # How each fault starts acting (one entry per injectable catalog row and
    # link fault; tests/reconcile/test_catalog.py checks none is missing).
    def _start_stuck(self, f):
        self.stuck.setdefault(f.switch, []).append(f)

    def _start_slip(self, f):
        self.slip.setdefault(f.switch, []).append(f)

    def _start_jam(self, f):
        self.jams.setdefault((f.switch, f.side), []).append(f)

    def _start_dead(self, f):
        self.dead.setdefault(_beam_key(f), []).append(f)

    def _start_chatter(self, f):
        self.chatter.setdefault(_beam_key(f), []).append(f)

    def _start_unseated(self, f):
        self.sensor.setdefault(f.switch, []).append(f)
        self.world.set_unseated(f.switch, f.params["offset"])

    def _start_hall(self, f):
        self.sensor.setdefault(f.switch, []).append(f)
        self._hall(f)
        if not f.persistent and f.until is None:
            self.sched.at(self.sched.now + f.params["duration"], self._stop, f, "glitch over")

    def _start_power(self, f):
        name = f.name
        down = f.params["boot"] if name == "hub_reset" else f.params["duration"]
        if name == "unplug" and not self.hub.cable:
            self._stop(f, "acted")  # the cable is out already: its own replug brings the hub back
            return
        self.hub.power_off(name)
        if name == "unplug" and self.link is not None:
            self.link.unplug(down)
        self.sched.at(self.sched.now + down, self.hub.boot, name)
        self._stop(f, "acted")

    def _start_garbage(self, f):
        if self.link is not None:
            self.link.garbage(self.rng.bytes(f.params["bytes"]))
        if f.persistent and f.params["every"]:
            self.sched.at(self.sched.now + f.params["every"], self._again, f)
        else:
            self._stop(f, "acted")

    def _start_dropped(self, f):
        if self.link is not None:
            if f.persistent:
                self.link.drop_chance(f.params["chance"], self.rng)
            else:
                self.link.drop_next(f.params["count"])
        if not f.persistent:
            self._stop(f, "acted")

    def _again(self, f: FaultSpec) -> None:
        if f in self.active and f.active(self.sched.now):
            if self.link is not None:
                self.link.garbage(self.rng.bytes(f.params["bytes"]))
            self.sched.at(self.sched.now + f.params["every"], self._again, f)

    def _action(self, f: FaultSpec) -> None:
        w, s = self.world, f.switch
        if w.codes[s] == 4:
            self._line(f, applied=False, why=f"{w.g.labels[s]} is a hole (switch removed)")
            return
        if f.name == catalog.MOVED_BY_HAND:
            to = f.params["to"]
            side = (1 - (w.codes[s] & 1)) if to == "toggle" else (0 if to == "L" else 1)
            info = w.hand_move(s, side, f)
        elif f.name == catalog.COIN_ADDED:
            info = w.add_coin(s)
        else:
            info = w.remove_coin(s)
        self._line(f, **info)

    def _hall(self, f: FaultSpec) -> None:
        w, s = self.world, f.switch
        sensor = w.sensors[s]
        mode = f.params["mode"]
        if mode == STUCK:
            v = f.params["value"]
            sensor.value = float(v) if v is not None else sensor.clean(w.rockers[s], self.sched.now)
        elif mode == DRIFT:
            off = f.params["offset"]
            sensor.offset = float(off) if off is not None else f.params["shift"] * (sensor.curve.right - sensor.curve.left)
        sensor.mode = mode if mode in (STUCK, DRIFT, INVERTED) else None
        self.hub.watch(s, self.sched.now)

    def _until(self, f: FaultSpec) -> None:
        if f.name == catalog.JAM:  # stopped coins fall on, whether the jam was one-off or not
            self._stop(f, "until")
            self.world.release_jam(f.switch, f.side, f)
            return
        self._stop(f, "until")

    def _stop(self, f: FaultSpec, why: str, cascade: Cascade | None = None) -> None:
        if f not in self.active:
            return
        self.active.remove(f)
        end = {"kind": "fault_end", "id": f.id, "t": round(self.sched.now, 6), "why": why}
        if cascade is not None:
            end["drop" if cascade.kind == "drop" else "stray"] = cascade.id
        self.truth.write(end)
        s = f.switch
        for table in (self.stuck, self.slip, self.sensor):
            if s in table and f in table[s]:
                table[s].remove(f)
        for table, key in ((self.jams, (s, f.side)), (self.dead, _beam_key(f)), (self.chatter, _beam_key(f))):
            if key in table and f in table[key]:
                table[key].remove(f)
        if f.name == catalog.SWITCH_UNSEATED and why != "reseated":
            self.world.set_unseated(s, 0.0)
        elif f.name == catalog.HALL_FAULT:
            sensor = self.world.sensors[s]
            rest = [g for g in self.sensor.get(s, ()) if g.name == catalog.HALL_FAULT]
            sensor.mode = None
            if rest:
                self._hall(rest[-1])
            self.hub.watch(s, self.sched.now)
        elif f.name == "dropped_frames" and f.persistent and self.link is not None:
            self.link.drop_chance(0.0, self.rng)


def _beam_key(f: FaultSpec):
    if f.exit is not None:
        return ("exit", f.exit)
    if f.entry is not None:
        return ("entry", f.entry)
    return None


# One-off board actions wait until the rocker is free, then change the board.
ONE_OFF_ACTIONS = catalog.names(persistent=False, injectable=True)
STARTS = {
    catalog.SWITCH_STUCK: FaultState._start_stuck,
    catalog.PAD_NOT_HOLDING: FaultState._start_slip,
    catalog.JAM: FaultState._start_jam,
    catalog.EXIT_SENSOR_DEAD: FaultState._start_dead,
    catalog.ENTRY_SENSOR_DEAD: FaultState._start_dead,
    catalog.EXIT_SENSOR_CHATTER: FaultState._start_chatter,
    catalog.ENTRY_SENSOR_CHATTER: FaultState._start_chatter,
    catalog.SWITCH_UNSEATED: FaultState._start_unseated,
    catalog.HALL_FAULT: FaultState._start_hall,
    "hub_reset": FaultState._start_power,
    "unplug": FaultState._start_power,
    "garbage": FaultState._start_garbage,
    "dropped_frames": FaultState._start_dropped,
}
