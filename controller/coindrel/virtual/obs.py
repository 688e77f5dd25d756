"""The observation log of sensing.md section 3, written straight from the
virtual hub (``--log FILE``), so reconciliation can be developed and measured
without a link in between.

The header's ``state`` is the board the run starts from (what a controller
that read the hall sensors and knows every pad is empty believes), plus
``source`` and ``seed`` so a log says where it came from. Board events follow
in time order, exactly as the hub reported them. A virtual hub that restarts
reads as the hub link reports it: an unplugged cable gives ``disconnected``,
then ``connected`` when it is back; any restart gives ``resync`` and a switch
event for every switch whose reading changed while nobody was looking (a
reset alone never closes the port, so the link notices only the new hello).
"""

from __future__ import annotations

from ..events import StatusEvent, SwitchEvent
from ..obslog import LogHeader, LogWriter


def down_events(t: float, why: str) -> list[StatusEvent]:
    """What the controller learns when the virtual hub loses power."""
    if why == "unplug":
        return [StatusEvent(t, "disconnected", "the hub's port went away (virtual hub unplugged)")]
    return []  # a reset keeps the port open: nothing to see until the hub says hello again


def restart_events(t: float, why: str, snapshot: list[SwitchEvent], last: dict) -> list:
    """What the controller learns when the virtual hub is back: the statuses
    the hub link gives, then every switch that reads differently now."""
    out = []
    if why == "unplug":
        out.append(StatusEvent(t, "connected", "the hub's port is back (virtual hub plugged in)"))
    out.append(StatusEvent(t, "resync", f"the virtual hub restarted ({why}); events while it was down are unknown"))
    out += [ev for ev in snapshot if last.get(ev.switch) != ev.pos]
    return out


def log_header(board) -> LogHeader:
    c = board.config
    return LogHeader(board=c.board, variants=c.variants, state=tuple(board.start.rows()),
                     extra={"source": "virtual-board", "seed": c.seed})


class ObservationOutput:
    """A hub output writing board events through ``coindrel.obslog.LogWriter``."""

    def __init__(self, writer: LogWriter, snapshot: list[SwitchEvent]):
        self.writer = writer
        self.last = {ev.switch: ev.pos for ev in snapshot}
        self.count = 0

    @classmethod
    def open(cls, path, board, durable: bool = False) -> "ObservationOutput":
        """Start a log for ``board`` and attach it as one of the hub's outputs."""
        out = cls(LogWriter(path, log_header(board), durable), board.hub.snapshot())
        board.sinks.add(out)
        return out

    def event(self, ev) -> None:
        if isinstance(ev, SwitchEvent):
            self.last[ev.switch] = ev.pos
        self.writer.event(ev)
        self.count += 1

    def clear(self, t: float, kind: str, index: int, duration: float) -> None:
        pass  # a beam clearing is not a board event

    def error(self, t: float, code: int, arg: int, text: str) -> None:
        self.writer.event(StatusEvent(t, "error", text))

    def down(self, t: float, why: str) -> None:
        for ev in down_events(t, why):
            self.writer.event(ev)

    def boot(self, t: float, why: str, snapshot: list[SwitchEvent]) -> None:
        for ev in restart_events(t, why, snapshot, self.last):
            self.event(ev)

    def close(self) -> None:
        self.writer.close()
