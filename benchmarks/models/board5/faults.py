"""This board's faults: every name of sensing.md, with its own mechanics.

Physical ones act on coins from their start (a hook the physics calls;
``rate`` is the chance each coin it could act on is acted on):
``switch_stuck`` (a sticky pivot: the rocker stays, sometimes it gives a
little and springs back), ``pad_not_holding`` (a worn pad the coin skids
across), ``jam`` (a coin wedges in an outlet; a later coin through it knocks
it loose half the time, or slips past it), ``exit_/entry_sensor_dead`` (a
dusty beam a coin slips through unseen), ``exit_/entry_sensor_chatter`` (a
cracked solder joint: the receiver drops out again just after the coin).

The others happen once, at a quiet moment before their start drop:
``moved_by_hand``, ``coin_added`` / ``coin_removed`` (a person at the board),
``switch_unseated`` (a warped rocker that no longer seats on one side),
``hall_fault`` (modes: ``frozen`` a mux channel stuck, ``drift`` a sensor's
offset running away over seconds, ``inverted`` the reading mirrored)."""

from __future__ import annotations

from . import layout as lay

PHYSICAL = ("switch_stuck", "pad_not_holding", "jam", "exit_sensor_dead", "entry_sensor_dead",
            "exit_sensor_chatter", "entry_sensor_chatter")
ONCE = ("moved_by_hand", "coin_added", "coin_removed", "switch_unseated", "hall_fault")


class Fault:
    def __init__(self, fid: int, name: str, where: str, start: int, rate: float, opts: dict):
        if name not in PHYSICAL + ONCE:
            raise ValueError(f"board5 has no fault named {name!r}; known: {', '.join(PHYSICAL + ONCE)}")
        self.id, self.name, self.where, self.start, self.rate, self.opts = fid, name, where, start, rate, dict(opts)
        self.t_on = float("inf")  # physical: from this time
        self.t = None  # when it happened / was switched on
        self.applied = False
        self.held = []  # jam: the wedged coin
        self.cleared = False
        self.hall = None  # what the hub renders for a hall or seat fault
        s = None
        if name == "jam":
            s = lay.parse_outlet(where)
        elif where.startswith("R"):
            s = lay.LABELS.index(where)
        elif where.startswith(("exit", "entry")):
            s = int(where.split(" ")[1]) - 1
        self.place = s


class Faults:
    def __init__(self, rng, specs):
        self.rng = rng
        self.all = [Fault(i + 1, *spec) for i, spec in enumerate(specs)]

    def _on(self, name: str, place, phys):
        for f in self.all:
            if f.name == name and f.place == place and phys.now >= f.t_on and not f.cleared:
                yield f

    # -- hooks the physics calls ----------------------------------------------------

    def beam(self, kind: str, n: int, t: float, ms: float, coin, phys) -> list[float]:
        edges = [t]
        for f in self._on(f"{kind}_sensor_dead", n, phys):
            if self.rng.random() < f.rate:
                phys.act(coin, f.id)
                return []
        for f in self._on(f"{kind}_sensor_chatter", n, phys):
            if self.rng.random() < f.rate:
                phys.act(coin, f.id)
                edges.append(t + ms / 1000.0 + self.rng.uniform(0.001, 0.012))
        return edges

    def slips(self, s: int, coin, phys):
        for f in self._on("pad_not_holding", s, phys):
            if self.rng.random() < f.rate:
                return f.id
        return None

    def sticks(self, s: int, coin, phys):
        for f in self._on("switch_stuck", s, phys):
            if self.rng.random() < f.rate:
                return f.id
        return None

    def jams(self, s: int, side: int, coin, t: float, phys) -> bool:
        for f in self._on("jam", (s, side), phys):
            if not f.held:
                f.held.append(coin)
                phys.act(coin, f.id)
                return True
            if self.rng.random() < 0.5:  # knocked loose: it falls on just behind this one
                f.cleared = True
                loose = f.held.pop()
                loose.drop = coin.drop
                phys.act(coin, f.id)
                phys.push(t + self.rng.uniform(0.005, 0.02), "leave", loose, s, side)
            return False  # slips past the wedged one
        return False

    def flipped(self, s: int, coin, t: float, phys) -> None:
        for f in self.all:
            if f.place == s and f.hall is not None and t >= f.hall["t"]:
                phys.act(coin, f.id)  # its readings of this flip are not a healthy hall's

    # -- once ------------------------------------------------------------------------

    def happen(self, f: Fault, t: float, phys, hub) -> None:
        """A one-off fault at quiet time ``t`` (or a physical one switched on)."""
        f.t = t
        f.board = lay.text_rows(phys.pads, phys.coins)  # the board as it was, for the truth's shadow
        if f.name in PHYSICAL:
            f.t_on = t
            f.applied = True
            return
        s = f.place
        if f.name == "moved_by_hand":
            phys.hand_flip(t, s)
        elif f.name == "coin_added":
            if phys.coins[s]:
                return  # a full pad: there is nowhere to put it
            phys.coins[s] = 1
        elif f.name == "coin_removed":
            if not phys.coins[s]:
                return
            phys.coins[s] = 0
        elif f.name == "switch_unseated":
            side = phys.pads[s] if self.rng.random() < 0.5 else 1 - phys.pads[s]
            f.hall = {"mode": "unseated", "t": t, "side": side}
        elif f.name == "hall_fault":
            mode = f.opts.get("mode", "frozen")
            f.hall = {"mode": mode, "t": t}
            if mode == "drift":
                ch = hub.channels[s]
                total = self.rng.uniform(0.45, 0.8) * (ch.ref_l - ch.ref_r)
                f.hall.update(total=total, rate=total / self.rng.uniform(2.0, 8.0),
                              sign=1 if self.rng.random() < 0.5 else -1)
        f.applied = True
