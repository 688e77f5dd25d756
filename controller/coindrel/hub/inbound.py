"""What the port's reader thread hands the link (mixed into ``HubLink``,
run on the event loop): bytes through the decoder and the tracker to the
events published, the answers to requests and resumes, raw readings to
their queues, the handshake's end ("connected"), line problems and a port
that closed.
"""

from __future__ import annotations

import logging

from . import protocol as p
from .framing import Problem
from .text import IN_USE, clean

log = logging.getLogger("coindrel.hub")


class Inbound:
    def _on_data(self, ident: int, data: bytes) -> None:
        if self._conn is None or ident != self._conn.ident:
            return
        now = self.clock.monotonic()
        arrived = self._conn.arrived  # when the reader (or a drain) took these bytes off the port
        self._last_rx = max(self._last_rx, now if arrived is None else min(arrived, now))
        tr = self.tracker
        for item in self.decoder.feed(data):
            if isinstance(item, Problem):
                self._problem(item)
                continue
            if isinstance(item.msg, p.Unknown) and tr.stats.unknown < 10:
                log.warning("hub link %s: message type 0x%02x is not one this controller knows (newer firmware?); "
                            "ignored", self.url, item.msg.type_code)
            for ev in tr.feed(item, now):
                self._publish_tracked(ev)
            if not tr.need_snapshot:
                self._snapshot_asked = False
                if self._handshaking and not tr.awaiting_hello and tr.hello is not None:
                    self._mark_connected()  # before any later event in this same chunk
        for f in tr.replies:
            if f.msg.req == self._resume_seq:
                if isinstance(f.msg, p.Ack):  # a hub (or virtual board) without replay
                    self.resume_supported = False
                    tr.resumes = False
                    for ev in tr.release_held(now):
                        self._publish_tracked(ev)
                elif isinstance(f.msg, p.Resumed):
                    self.resume_supported = True
            fut = self._requests.get(f.msg.req)
            if fut is not None and not fut.done():
                fut.set_result(f.msg)
        tr.replies.clear()
        for raw in tr.raw_frames:
            for q in self._raw_queues:
                q.put_nowait(raw)
        tr.raw_frames.clear()
        self._wake()

    def _mark_connected(self) -> None:
        self._handshaking = False
        self.connected = True
        self.down_reason = None
        self._said.clear()
        self._news = None
        h = self.tracker.hello
        cal = "" if h.calibrated else "; hall sensors not calibrated (run `coindrel hub calibrate`)"
        held, self._held = self._held, []
        # "connected" comes first, at the time of the first event it vouches for
        t = min([ev.t for ev in held] + [self.tracker.board_t])
        self._status("connected", f"hub {clean(h.board_id, 64)} firmware {clean(h.firmware, 64)} on {self.url}: {len(self.cm.entries_sensed)} entry "
                                  f"beams, {len(self.cm.exits_sensed)} exit beams, {h.n_halls} hall sensors{cal}", t=t)
        for ev in held:
            self._publish(ev)
        self._wake()

    def _problem(self, item: Problem) -> None:
        self.problems += 1
        if item.kind == "text":
            if item.data.strip() == IN_USE:
                self.in_use = True  # a served board that has another controller; it closes next
                self._wake()
                return
            self.text_seen = (self.text_seen + [item.data.strip()[:80]])[-5:]
        if self.problems <= 10 or self.problems % 1000 == 0:
            log.warning("hub link %s: %s (%d problems so far; counters: %s)", self.url, item.detail,
                        self.problems, self.decoder.stats)

    def _on_lost(self, ident: int, exc) -> None:
        conn = self._conn
        if conn is None or ident != conn.ident or conn.lost:
            return
        conn.lost = f"the port closed ({exc})" if exc else "the port closed"
        self.connected = False
        self._wake()
