"""How long things take on a physical board.

Every duration is a uniform range ``(lo, hi)`` in seconds, drawn afresh for
each coin and each hop, so coins fall at slightly different speeds. The
defaults are measured-board magnitudes: a coin needs 60-120 ms to fall one
row, a rocker 20-40 ms to flip, a beam is broken 5-40 ms by a passing coin.

A scenario file's ``[timing]`` table (or ``--timing key=lo:hi``) overrides
any of them, and ``scale`` makes the whole board slower or faster; ``TimingModel.from_dict`` checks every value and says which is
wrong.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

from ..engine import EngineError

Span = tuple[float, float]


@dataclass(frozen=True)
class TimingModel:
    entry_fall: Span = (0.045, 0.085)  # entry beam to the top row's switch
    row_fall: Span = (0.060, 0.120)  # one row down, per row fallen
    exit_fall: Span = (0.040, 0.080)  # bottom row's outlet to the exit beam
    catch: Span = (0.008, 0.016)  # a coin settling on an empty pad (the switch is busy)
    bounce: Span = (0.010, 0.030)  # a coin crossing a full pad to the lever
    flip: Span = (0.020, 0.040)  # rocker travel from one side to the other
    leave: Span = (0.50, 0.90)  # when in the flip the passing coin slides off (fraction)
    tip: Span = (0.005, 0.030)  # a tipped-out coin leaving after the flip ends
    settle: Span = (0.012, 0.020)  # the rocker seated and still before it can move again
    stuck_pass: Span = (0.010, 0.025)  # a coin sliding past a lever that does not move
    beam: Span = (0.005, 0.040)  # how long a passing coin breaks a beam
    beam_gap: float = 0.004  # two coins in one beam are at least this far apart
    lane_gap: float = 0.010  # two coins in one chute keep at least this distance in time
    hand_move: Span = (0.150, 0.400)  # a person moving a rocker over
    chatter_gap: Span = (0.015, 0.045)  # a chattering beam's false restore between breaks

    # -- checking -------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict | None, source: str = "timing") -> "TimingModel":
        data = dict(data or {})
        scale = data.pop("scale", 1.0)  # a whole board slower (> 1) or faster (< 1)
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise EngineError(f"{source}: unknown timing key(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
        values = {}
        for key, v in data.items():
            default = getattr(cls, key)
            if isinstance(default, tuple):
                values[key] = _span(v, f"{source}: {key}")
            else:
                values[key] = _seconds(v, f"{source}: {key}")
        model = replace(cls(), **values)
        scale = _seconds(scale, f"{source}: scale")
        if scale != 1.0:
            if scale == 0:
                raise EngineError(f"{source}: scale 0 would make everything instant; use a factor such as 1.5 or 0.8")
            model = model.scaled(scale)
        model.check(source)
        return model

    def check(self, source: str = "timing") -> None:
        if not 0.0 < self.leave[0] <= self.leave[1] <= 1.0:
            raise EngineError(f"{source}: leave {list(self.leave)} is a fraction of the flip, between 0 and 1")
        for key in ("row_fall", "exit_fall", "entry_fall", "flip", "beam", "settle", "hand_move"):
            if getattr(self, key)[0] <= 0.0:
                raise EngineError(f"{source}: {key} must be longer than 0 s: a physical coin or rocker takes time")

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}

    def scaled(self, factor: float) -> "TimingModel":
        """Everything ``factor`` times slower (>1) or faster (<1); fractions stay."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "leave":
                out[f.name] = v
            elif isinstance(v, tuple):
                out[f.name] = (v[0] * factor, v[1] * factor)
            else:
                out[f.name] = v * factor
        return replace(self, **out)


def _seconds(v, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise EngineError(f"{where}: {v!r} must be a number of seconds >= 0")
    return float(v)


def _span(v, where: str) -> Span:
    if isinstance(v, str) and ":" in v:
        parts = v.split(":")
        try:
            v = [float(p) for p in parts]
        except ValueError:
            raise EngineError(f"{where}: {v!r} must be LO:HI in seconds, e.g. 0.06:0.12") from None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = [v, v]
    if not isinstance(v, (list, tuple)) or len(v) != 2:
        raise EngineError(f"{where}: {v!r} must be [lo, hi] in seconds, e.g. [0.06, 0.12]")
    lo, hi = (_seconds(x, where) for x in v)
    if lo > hi:
        raise EngineError(f"{where}: [{lo}, {hi}] has lo above hi; write [shortest, longest]")
    return (lo, hi)
