"""The hub's side of the protocol without hardware or I/O: for anything that
must behave like a hub (the virtual board, test doubles, a replay tool).

``HubSide`` numbers frames, keeps what a snapshot reports (beam states,
switch positions, raw readings, calibration), answers every command the
controller sends, and refuses to send time backwards. Feed it the bytes the
controller wrote; write out the bytes it returns.

    hub = HubSide(load_channel_map(), clock_us=lambda: sim.now_us)
    port.write(hub.boot())                        # the unsolicited hello, seq 0
    port.write(hub.feed(port.read_available()))   # answers (hello, snapshot, calibration, acks)
    port.write(hub.beam(t_us, beam=3, broken=True))
    port.write(hub.hall(t_us, switch=3, pos="mid", raw=2650))
"""

from __future__ import annotations

import os
from typing import Callable

from . import protocol as p
from .channelmap import ChannelMap

DEFAULT_REF = (2980, 2330, 2048, 120)  # as the firmware's uncalibrated defaults


class HubSide:
    def __init__(self, cm: ChannelMap, *, clock_us: Callable[[], int], firmware: str = "virtual",
                 board_id: str = "virtual", boot_id: int | None = None, calibrated: bool = True,
                 map_hash: bytes | None = None, proto: int = p.PROTOCOL_VERSION,
                 on_outputs: Callable[[int, int, int], int] | None = None, on_reset: Callable[[], None] | None = None):
        self.cm = cm
        self.clock_us = clock_us
        self.firmware = firmware
        self.board_id = board_id
        self.map_hash = map_hash if map_hash is not None else cm.map_hash
        self.proto = proto
        self.on_outputs = on_outputs  # (leds, drop, pulse_ms) -> ACK status
        self.on_reset = on_reset
        self.decoder = p.Decoder("pi")
        self.calibrated = calibrated
        self.calibration = p.Calibration(0, calibrated, 40, 5, 2, tuple(p.HallCal(h.switch, *DEFAULT_REF) for h in cm.halls))
        self.positions = {h.switch: ("L", DEFAULT_REF[0]) for h in cm.halls}
        self.beams = 0
        self.raw_interval_ms = 0
        self.commands: list[p.Frame] = []  # everything the controller sent, for tests
        self.reboot(boot_id)

    def reboot(self, boot_id: int | None = None) -> None:
        """Forget the link state as a reset hub would: new boot id, seq from 0, no time sent yet."""
        self.boot_id = boot_id if boot_id is not None else int.from_bytes(os.urandom(4), "little")
        self.seq = 0
        self.last_t = 0
        self.decoder.reset()

    # -- framing -----------------------------------------------------------------
    def frame(self, msg: p.Message) -> bytes:
        t = getattr(msg, "t_us", None)
        if t is not None:
            if t < self.last_t:
                raise ValueError(f"{msg.NAME} at {t} us would send time backwards (last {self.last_t} us): send events in time order")
            self.last_t = t
        line = p.encode(msg, self.seq)
        self.seq = (self.seq + 1) & 0xFFFF
        return line

    def _now(self) -> int:
        return max(self.clock_us(), self.last_t)

    def hello(self, req: int = 0) -> bytes:
        return self.frame(p.Hello(req, self.proto, self.boot_id, self._now(), self.map_hash, self.cm.sample_hz,
                                  self.cm.scan_hz, self.cm.heartbeat_ms, self.calibrated, self.cm.entry_leds,
                                  self.cm.dropper, len(self.cm.beams), len(self.cm.halls), self.firmware, self.board_id))

    def boot(self) -> bytes:
        """The hello a hub sends by itself when it starts (seq 0, req 0)."""
        return self.hello(0)

    # -- events --------------------------------------------------------------------
    def beam(self, t_us: int, beam: int, broken: bool, duration_us: int = 0) -> bytes:
        self.beams = self.beams | (1 << beam) if broken else self.beams & ~(1 << beam)
        return self.frame(p.Beam(t_us, beam, broken, duration_us))

    def coin(self, t_us: int, beam: int, duration_us: int = 10_000) -> bytes:
        """Both edges of one coin through a beam."""
        return self.beam(t_us, beam, True) + self.beam(t_us + duration_us, beam, False, duration_us)

    def hall(self, t_us: int, switch: int, pos: str, raw: int) -> bytes:
        self.positions[switch] = (pos, raw)
        return self.frame(p.Hall(t_us, switch, pos, raw))

    def heartbeat(self, t_us: int | None = None, **stats) -> bytes:
        t = self._now() if t_us is None else t_us
        return self.frame(p.Heartbeat(t, stats.get("hall_hz", self.cm.scan_hz), stats.get("loop_max_us", 0),
                                      stats.get("queue_peak", 0), stats.get("lost_total", 0), stats.get("rx_bad", 0)))

    def lost(self, t_us: int, count: int, where: str = "queue") -> bytes:
        return self.frame(p.Lost(t_us, count, where))

    def error(self, t_us: int, code: int, arg: int = 0, text: str = "") -> bytes:
        return self.frame(p.Error(t_us, code, arg, text))

    def raw(self, t_us: int | None = None) -> bytes:
        return self.frame(p.Raw(self._now() if t_us is None else t_us,
                                tuple((sw, raw) for sw, (_pos, raw) in sorted(self.positions.items()))))

    def snapshot(self, req: int = 0) -> bytes:
        halls = tuple(p.HallState(sw, pos, raw) for sw, (pos, raw) in sorted(self.positions.items()))
        return self.frame(p.Snapshot(req, self._now(), self.beams, halls))

    # -- commands ------------------------------------------------------------------
    def feed(self, data: bytes) -> bytes:
        """Bytes from the controller -> the bytes to answer with."""
        out = b""
        for item in self.decoder.feed(data):
            if isinstance(item, p.Frame):
                self.commands.append(item)
                out += self.answer(item.seq, item.msg)
        return out

    def answer(self, seq: int, msg: p.Message) -> bytes:
        if isinstance(msg, p.HelloReq):
            return self.hello(seq)
        if isinstance(msg, p.SnapshotReq):
            return self.snapshot(seq)
        if isinstance(msg, p.CalGet):
            c = self.calibration
            return self.frame(p.Calibration(seq, c.saved, c.hyst, c.beam_filter, c.hall_filter, c.halls))
        if isinstance(msg, p.CalSet):
            wired = {h.switch for h in self.cm.halls}
            bad = [c.switch for c in msg.halls if c.switch not in wired]
            if bad:
                return self.frame(p.Ack(seq, msg.TYPE, p.BAD_REQUEST, f"switch {bad[0]} has no hall sensor on this hub"))
            by = {c.switch: c for c in self.calibration.halls}
            by.update({c.switch: c for c in msg.halls})
            self.calibration = p.Calibration(0, msg.save, msg.hyst, msg.beam_filter, msg.hall_filter,
                                             tuple(by[k] for k in sorted(by)))
            self.calibrated = self.calibrated or len(msg.halls) == len(wired)
            return self.frame(p.Ack(seq, msg.TYPE, p.OK, "saved" if msg.save else "applied, not saved"))
        if isinstance(msg, p.RawStream):
            self.raw_interval_ms = msg.interval_ms
            return self.frame(p.Ack(seq, msg.TYPE, p.OK, ""))
        if isinstance(msg, p.Outputs):
            status = p.OK
            if (msg.leds and not self.cm.entry_leds) or (msg.drop != p.NO_DROP and not self.cm.dropper):
                status = p.NOT_WIRED
            elif self.on_outputs is not None:
                status = self.on_outputs(msg.leds, msg.drop, msg.pulse_ms)
            return self.frame(p.Ack(seq, msg.TYPE, status, "" if status == p.OK else p.ACK_STATUS.get(status, "")))
        if isinstance(msg, p.Reset):
            ack = self.frame(p.Ack(seq, msg.TYPE, p.OK, "resetting"))
            if self.on_reset:
                self.on_reset()
            return ack
        kind = getattr(msg, "type_code", 0)
        return self.frame(p.Ack(seq, kind, p.UNKNOWN_COMMAND, f"unknown command 0x{kind:02x}"))
