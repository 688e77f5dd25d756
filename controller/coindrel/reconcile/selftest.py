"""Guided self-test of every beam and hall sensor.

The person is asked for one action at a time ("drop a coin in entry 1",
"flip R2S3 over and back", "pass a coin through exit 5"); the board events
that follow say whether the sensor is good, dead, chattering (one action
counted more than once) or out of band (a hall that rests between its
calibrated bands). Anything a step's coin does on its way down counts too: a
coin dropped in entry 1 that flips R1S1 and leaves by exit 2 has shown those
sensors work, so their own steps are skipped.

``SelfTest`` is pure: ``feed(event)`` with board events, ``tick(now)`` with
the board clock for time-outs, ``prompt`` for what to say next and
``report()`` at the end. ``run`` drives it from a board source.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine import Geometry
from ..engine.core import entry_label, exit_label
from ..events import EntryEvent, ExitEvent, SwitchEvent

GOOD, DEAD, CHATTER, OUT_OF_BAND, UNTESTED = "good", "dead", "chattering", "out of band", "untested"
REST = 1.0  # seconds a rocker must stay put before its reading is judged
REACH = 0.5  # a person needs at least this long to reach a switch after being asked


@dataclass(frozen=True)
class Step:
    kind: str  # entry | hall | exit
    index: int  # entry/exit number (0-based) or switch number
    label: str  # what a person reads: "entry 3", "R2S5", "exit 12"
    text: str


@dataclass
class Finding:
    sensor: str
    status: str = UNTESTED
    detail: str = ""

    def to_json(self) -> dict:
        return {"sensor": self.sensor, "status": self.status, "detail": self.detail}


@dataclass
class SelfTestReport:
    findings: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(f.status == GOOD for f in self.findings)

    def by_status(self, status: str) -> list:
        return [f.sensor for f in self.findings if f.status == status]

    def text(self) -> str:
        lines = []
        for status in (DEAD, CHATTER, OUT_OF_BAND, UNTESTED):
            bad = [f for f in self.findings if f.status == status]
            for f in bad:
                lines.append(f"{f.sensor}: {status}" + (f" ({f.detail})" if f.detail else ""))
        good = self.by_status(GOOD)
        lines.insert(0, f"{len(good)} of {len(self.findings)} sensors good.")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"kind": "selftest", "ok": self.ok, "sensors": [f.to_json() for f in self.findings]}


class SelfTest:
    def __init__(self, geometry: Geometry, *, entries=None, exits=None, halls=None, holes=(), timeout: float = 20.0,
                 repeat: float = 0.12):
        g = self.geometry = geometry
        entries = range(g.entry_count) if entries is None else entries
        exits = range(g.exit_count) if exits is None else exits
        halls = range(g.switch_count) if halls is None else [g.index(h) for h in halls]
        halls = [s for s in halls if g.labels[s] not in set(holes)]
        self.timeout = timeout  # seconds to wait for an action before calling the sensor dead
        self.repeat = repeat  # two counts of one beam closer than this are one coin counted twice
        self.steps: list[Step] = (
            [Step("entry", e, entry_label(e), f"Drop a coin in {entry_label(e)}.") for e in entries]
            + [Step("hall", s, g.labels[s], f"Push {g.labels[s]} over to its LEFT side, then to its RIGHT side.") for s in halls]
            + [Step("exit", x, exit_label(x), f"Pass a coin through {exit_label(x)}'s beam (push it in from below).") for x in exits]
        )
        self.findings = {st.label: Finding(st.label[0].upper() + st.label[1:]) for st in self.steps}
        self._beam_times: dict = {}  # label -> times seen
        self._hall: dict = {}  # switch -> list of (t, pos)
        self._i = 0
        self._since: float | None = None  # when the current step was asked

    # -- steps -------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self._i >= len(self.steps)

    @property
    def prompt(self) -> Step | None:
        self._skip_shown()
        return None if self.done else self.steps[self._i]

    def seed_positions(self, positions, t: float) -> None:
        """Where the rockers sit before the test (a snapshot): a rocker already
        on its left side then pushed right has shown both of its sides."""
        for st in self.steps:
            if st.kind == "hall" and positions.get(st.label) in ("L", "R") and st.index not in self._hall:
                self._hall[st.index] = [(t, positions[st.label])]

    def start(self, now: float) -> Step | None:
        self._since = now
        return self.prompt

    def skip(self, now: float) -> Step | None:
        """The person cannot do this step: the sensor stays untested."""
        if not self.done:
            self._i += 1
        self._since = now
        return self.prompt

    # -- events ------------------------------------------------------------------------

    def feed(self, ev) -> Step | None:
        """A board event; returns the next step when this one is settled."""
        if isinstance(ev, EntryEvent):
            self._beam(entry_label(ev.entry), ev.t)
        elif isinstance(ev, ExitEvent):
            self._beam(exit_label(ev.exit), ev.t)
        elif isinstance(ev, SwitchEvent):
            s = self.geometry.index(ev.switch)
            self._hall.setdefault(s, []).append((ev.t, ev.pos))
            self._judge_hall(s)
        before = self._i
        step = self.prompt
        if self._i != before:
            self._since = ev.t
        return step

    def tick(self, now: float) -> Step | None:
        """Time passes: a step with no answer within ``timeout`` is a dead sensor."""
        if self.done or self._since is None:
            return self.prompt
        st = self.steps[self._i]
        f = self.findings[st.label]
        if st.kind == "hall" and f.status == UNTESTED and self._hall.get(st.index):
            seq = self._hall[st.index]
            sides = [p for _, p in seq if p in ("L", "R")]
            if now - seq[-1][0] > REST:
                if seq[-1][1] == "mid":
                    f.status, f.detail = OUT_OF_BAND, "reads between its bands at rest; recalibrate (coindrel calibrate)"
                elif sides[-1] == "R" and "L" in sides:
                    f.status = GOOD
                elif sides[-1] == "L" and "R" in sides:
                    f.status, f.detail = OUT_OF_BAND, "read LEFT when pushed RIGHT: the sensor (or its calibration) is the wrong way round"
        if now - self._since > self.timeout and f.status == UNTESTED:
            f.status = DEAD
            f.detail = {"entry": "no coin seen when one was dropped", "exit": "no coin seen passing",
                        "hall": "the reading did not change when the rocker was flipped"}[st.kind]
        return self._advance_if_settled(now)

    def report(self) -> SelfTestReport:
        return SelfTestReport([self.findings[st.label] for st in self.steps])

    # -- inside ---------------------------------------------------------------------------

    def _beam(self, label: str, t: float) -> None:
        times = self._beam_times.setdefault(label, [])
        times.append(t)
        f = self.findings.get(label)
        if f is None:
            return
        if len(times) > 1 and times[-1] - times[-2] < self.repeat:
            f.status, f.detail = CHATTER, f"counted twice {1000 * (times[-1] - times[-2]):.0f} ms apart"
        elif f.status == UNTESTED:
            f.status = GOOD

    def _judge_hall(self, s: int) -> None:
        f = self.findings.get(self.geometry.labels[s])
        if f is None or f.status in (CHATTER, OUT_OF_BAND):
            return
        seq = self._hall[s]
        sides = [p for _, p in seq if p in ("L", "R")]
        if any(p == "none" for _, p in seq):
            f.status, f.detail = OUT_OF_BAND, "reads no magnet: the switch is out or the sensor unplugged"
            return
        # A side change with no mid before it, or sides flickering within a few ms: the reading chatters.
        for (t0, p0), (t1, p1) in zip(seq, seq[1:]):
            if p0 in ("L", "R") and p1 in ("L", "R") and p0 != p1:
                f.status, f.detail = CHATTER, "jumps between the sides without passing mid"
                return
            if p0 != p1 and t1 - t0 < 0.002:
                f.status, f.detail = CHATTER, "flickers between readings"
                return
        current = not self.done and self.steps[self._i].kind == "hall" and self.steps[self._i].index == s
        by_person = current and self._since is not None and seq[0][0] >= self._since + REACH
        if len(set(sides)) == 2 and not by_person:
            f.status, f.detail = GOOD, ""  # a coin flipped it both ways: the order tells nothing

    def _skip_shown(self) -> None:
        while not self.done and self.findings[self.steps[self._i].label].status != UNTESTED:
            self._i += 1

    def _advance_if_settled(self, now: float) -> Step | None:
        before = self._i
        step = self.prompt
        if self._i != before:
            self._since = now
        return step


async def run(source, test: SelfTest, say, *, poll: float = 0.2, commands=None) -> SelfTestReport:
    """Drive ``test`` from a board source: ``say(step)`` for every new step.
    Time-outs run on the board clock, carried forward by the source's own
    clock between events."""
    import asyncio

    from .calibrate import _need_ready

    await _need_ready(source)
    if getattr(getattr(source, "capabilities", None), "halls", None):
        snap = await source.snapshot()
        test.seed_positions(snap.positions, snap.t)
    clock = source.clock
    base_board, base_mono = source.board_time(), clock.monotonic()

    def now() -> float:
        return base_board + (clock.monotonic() - base_mono)

    step = test.start(now())
    if step is not None:
        say(step)
    events = source.events().__aiter__()
    # One pending read kept across time-outs: cancelling it would close the stream.
    pending = asyncio.ensure_future(events.__anext__())
    while not test.done:
        # the poll sleeps on the source's clock, so a test's fake clock moves the time-outs on
        sleeper = asyncio.ensure_future(clock.sleep(poll))
        done, _ = await asyncio.wait({pending, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        sleeper.cancel()
        if pending not in done:
            new = test.tick(now())
        else:
            try:
                ev = pending.result()
            except StopAsyncIteration:
                break
            pending = asyncio.ensure_future(events.__anext__())
            base_board, base_mono = ev.t, clock.monotonic()
            new = test.feed(ev)
        while commands is not None and not commands.empty():
            word = commands.get_nowait()
            new = test.skip(now()) if word.startswith("s") else new
            if word.startswith("q"):
                while not test.done:
                    test.skip(now())
                new = None
        if new != step:
            step = new
            if step is not None:
                say(step)
    pending.cancel()
    return test.report()
