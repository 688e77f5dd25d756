"""Board source: the sensor hub on USB serial (or anything that speaks its
protocol on a pty, ``socket://`` or ``rfc2217://`` URL, like the virtual board).

    [board]
    source = "hub"
    [board.hub]
    url = "/dev/coindrel-hub"        # the udev rule's stable name (systemd/99-coindrel-hub.rules)
    channel_map = "builtin"          # or a path to the builder's own channel_map.json
    reconnect_delay = 0.5            # seconds before trying again (doubles up to 5 s while absent)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Iterable, Mapping

from ..config import ConfigError, Section
from ..hub import protocol as p
from ..hub.channelmap import ChannelMap, ChannelMapError, load_channel_map
from ..hub.link import HubLink, LinkError
from ..hub.text import clean
from .base import BoardSource, Calibrating, Capabilities, Clock, RawStreaming, Snapshot, SourceError

DEFAULT_URL = "/dev/coindrel-hub"
URL_SCHEMES = ("socket", "rfc2217", "loop", "spy", "alt", "hwgrep", "cp2110")  # serial_for_url's handlers


def _url_problem(url: str, scheme: str | None) -> str:
    """What is wrong with a hub url that can be told without opening it ("" when nothing)."""
    import os
    import stat

    if scheme in ("socket", "rfc2217"):
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            port = -1
        if not parts.hostname or port is None or not 0 < port < 65536:
            return f"a {scheme}:// port needs a host and a port from 1 to 65535, e.g. \"{scheme}://127.0.0.1:8888\""
        return ""
    if scheme is None:
        try:
            mode = os.stat(url).st_mode
        except OSError:
            return ""  # not there now: an unplugged hub; `run --check` says so, the service waits for it
        if not stat.S_ISCHR(mode):
            what = "a folder" if stat.S_ISDIR(mode) else "a file"
            return (f"that is {what}, not a serial device; write the hub's port, e.g. \"{DEFAULT_URL}\" "
                    "(the udev rule's name) or /dev/ttyACM0")
        from ..hub.device import not_a_serial_port

        what = not_a_serial_port(url)
        if what:  # /dev/null, a disk: the daemon would wait on it for ever
            return (f"that is {what}; write the hub's port, e.g. \"{DEFAULT_URL}\" (the udev rule's name) "
                    "or /dev/ttyACM0")
    return ""


@dataclass(frozen=True)
class HubSettings:
    """``[board.hub]`` as checked: the port, the channel map, the link's timings."""

    url: str = DEFAULT_URL
    channel_map: ChannelMap | None = field(default=None, repr=False)
    link_options: Mapping[str, Any] = field(default_factory=dict)


class HubSource(BoardSource, Calibrating, RawStreaming):
    name = "hub"
    summary = "the sensor hub on USB serial (or a pty / socket:// URL speaking its protocol)"

    def __init__(self, url: str = DEFAULT_URL, channel_map: ChannelMap | None = None, *, clock: Clock | None = None,
                 **link_options):
        super().__init__(clock)
        self.url = url
        self.cm = channel_map or load_channel_map()
        self.link_options = link_options
        self.link: HubLink | None = None
        cm = self.cm
        self.capabilities = Capabilities(entries=cm.entries_sensed, exits=cm.exits_sensed, halls=cm.switches_sensed,
                                         entry_leds=cm.entry_leds, dropper=cm.dropper,
                                         calibration=bool(cm.halls), raw_stream=bool(cm.halls))

    @classmethod
    def parse(cls, section: Section) -> HubSettings:
        url = section.str("url", DEFAULT_URL)
        if not url.strip():
            section.fail("url", f"is empty; write the hub's port, e.g. \"{DEFAULT_URL}\" or \"socket://127.0.0.1:8888\"")
        scheme = url.partition("://")[0] if "://" in url else None
        if scheme is not None and scheme not in URL_SCHEMES:
            section.fail("url", f"{url!r}: pyserial has no {scheme}:// ports; write a device such as "
                                f"\"{DEFAULT_URL}\", or one of {', '.join(s + '://' for s in URL_SCHEMES)}")
        problem = _url_problem(url, scheme)
        if problem:
            section.fail("url", f"{url!r}: {problem}")
        path = section.str("channel_map", "builtin")
        try:
            channel_map = load_channel_map(None if path == "builtin" else path)
        except ChannelMapError as e:
            section.fail("channel_map", f"{e}; write \"builtin\" or the path of the builder's channel_map.json")
        baudrate = section.int("baudrate", 115200, lo=300, hi=12_000_000)
        if baudrate == 1200:
            section.fail("baudrate", "1200 baud reboots a Pico into its bootloader; leave it out (USB ignores the rate)")
        opts = {
            "baudrate": baudrate,
            "reconnect_delay": section.float("reconnect_delay", 0.5, lo=0.01, hi=60),
            "max_reconnect_delay": section.float("max_reconnect_delay", 5.0, lo=0.01, hi=600),
            "handshake_timeout": section.float("handshake_timeout", 2.0, lo=0.1, hi=60),
            "request_timeout": section.float("request_timeout", 3.0, lo=0.1, hi=60),
            "refuse_delay": section.float("refuse_delay", 30.0, lo=0.1, hi=3600),
        }
        if opts["max_reconnect_delay"] < opts["reconnect_delay"]:
            section.fail("max_reconnect_delay", f"must be at least reconnect_delay ({opts['reconnect_delay']:g} s)")
        section.check_unknown()
        return HubSettings(url, channel_map, opts)

    @classmethod
    def probe(cls, settings: HubSettings | None) -> list[str]:
        import os

        url = (settings or HubSettings()).url
        if "://" in url or os.path.exists(url):
            return []
        return [f"hub: {url} is not there now: is the hub plugged in (and the udev rule "
                f"systemd/99-coindrel-hub.rules installed)? The service waits for it and connects when it appears"]

    @classmethod
    def from_settings(cls, settings: HubSettings | None, *, clock: Clock | None = None,
                      channel_map: ChannelMap | None = None, **options) -> "HubSource":
        settings = settings or HubSettings()
        return cls(settings.url, channel_map or settings.channel_map, clock=clock, **{**settings.link_options, **options})

    async def start(self) -> None:
        await super().start()
        if self.link is None:
            self.link = HubLink(self.url, self.cm, self._emit, clock=self.clock, **self.link_options)
            await self.link.start()

    async def ready(self, timeout: float | None = None) -> bool:
        return await self._need_link().wait_connected(timeout)

    async def close(self) -> None:
        if self.link is not None:
            await self.link.close()
        await super().close()

    def _need_link(self) -> HubLink:
        if self.link is None or self.closed:
            raise SourceError("hub source: start() it first (or it was closed)")
        return self.link

    async def _ask(self, msg: p.Message, timeout: float | None = None, wait_connected: float | None = None):
        try:
            return await self._need_link().request(msg, timeout, wait_connected)
        except LinkError as e:
            raise SourceError(f"hub: {e}") from None

    def resume_from(self, pos, board_t: float | None = None) -> None:
        """Ask the hub, on the next connect, for every event after ``pos``
        (a ``HubPosition``: the last one the daemon's journal holds), as
        ``HubSource(..., resume_after=pos)`` does; once this source has
        events of its own, the link resumes after the newest it has.
        ``board_t``: the board time of the journal's newest event, from which
        board time goes on (``Tracker.continue_from``)."""
        self.link_options["resume_after"] = pos
        self.link_options["resume_t"] = board_t
        if self.link is not None:
            self.link.resume_after = pos
            if board_t is not None:
                self.link.tracker.continue_from(pos, board_t, self.link.clock.monotonic())

    def _emit(self, ev):
        out = super()._emit(ev)
        if out is not ev and self.link is not None:  # its time was raised: the copy keeps its hub position
            self.link.tracker.moved(ev, out)
        return out

    def hub_position(self, ev):
        """The ``HubPosition`` (hub boot and frame number) of a board event this
        source emitted: journal it with the event; give the last durable one
        back as ``HubSource(..., resume_after=pos)`` after a restart, and the hub
        sends again everything after it. None when the hub gave no position."""
        return self.link.position_of(ev) if self.link else None

    @property
    def losses(self) -> list:
        """``HubLoss`` records: board events the hub could no longer give back."""
        return self.link.losses if self.link else []

    # The hub's frames leave in time order, a heartbeat at least every half second, each
    # stamped with the time everything before it has been sent up to: board time as far
    # as the hub has vouched for it (``board_time``) is the most a drop may be closed at.
    vouches = True

    def board_time(self) -> float:
        t = super().board_time()
        return max(t, self.link.tracker.board_t) if self.link else t

    async def snapshot(self, timeout: float | None = None) -> Snapshot:
        """What the hub sees now; waits for the hub when it is away (``timeout`` None: as long as it takes)."""
        msg = await self._ask(p.SnapshotReq(), wait_connected=timeout)
        if not isinstance(msg, p.Snapshot):
            raise SourceError(f"hub answered a snapshot request with {msg.NAME}")
        tr = self.link.tracker
        labels = self.cm.label
        return Snapshot(
            t=max(0, msg.t_us + tr.offset_us) / 1e6,
            positions={labels(h.switch): h.pos for h in msg.halls},
            raw={labels(h.switch): h.raw for h in msg.halls},
            entries_blocked=frozenset(b for b in range(8) if msg.beams >> b & 1),
            exits_blocked=frozenset(x for x in range(16) if msg.beams >> (8 + x) & 1),
        )

    async def set_outputs(self, leds: Iterable[int] | None = None, drop: int | None = None, pulse_ms: int = 150) -> None:
        caps = self.capabilities
        if leds is not None and not caps.entry_leds:
            raise SourceError("hub: the entry LEDs are not wired to the hub (hub.outputs.entry_led_pins in the channel map)")
        if drop is not None and not caps.dropper:
            raise SourceError("hub: the coin dropper is not wired to the hub (hub.outputs.dropper_pins in the channel map)")
        if drop is not None and not 0 <= drop < 8:
            raise SourceError(f"hub: cannot drop into entry {drop + 1}; entries are 1..8")
        mask = 0
        for e in leds or ():
            if not 0 <= e < 8:
                raise SourceError(f"hub: there is no entry {e + 1} to light")
            mask |= 1 << e
        ack = await self._ask(p.Outputs(mask, p.NO_DROP if drop is None else drop, pulse_ms), wait_connected=0)
        if ack.status != p.OK:
            raise SourceError(f"hub: {clean(ack.text) or p.ACK_STATUS.get(ack.status, ack.status)}")

    # -- calibration (coindrel hub calibrate / calibration get|set) -------------------
    async def calibration(self) -> p.Calibration:
        msg = await self._ask(p.CalGet(), wait_connected=0)
        if not isinstance(msg, p.Calibration):
            raise SourceError(f"hub answered a calibration request with {msg.NAME}")
        return msg

    async def set_calibration(self, halls: Iterable[p.HallCal], hyst: int, beam_filter: int, hall_filter: int,
                              save: bool = True) -> str:
        ack = await self._ask(p.CalSet(save, hyst, beam_filter, hall_filter, tuple(halls)), wait_connected=0)
        if ack.status != p.OK:
            raise SourceError(f"hub refused the calibration: {clean(ack.text) or p.ACK_STATUS.get(ack.status, ack.status)}")
        return clean(ack.text)

    async def raw_stream(self, interval_ms: int = 50) -> AsyncIterator[tuple[float, dict[str, int]]]:
        """(board time, {label: raw}) every ``interval_ms`` until the iterator is closed."""
        link = self._need_link()
        q = link.raw_queue()
        try:
            ack = await self._ask(p.RawStream(interval_ms), wait_connected=0)
            if ack.status != p.OK:
                raise SourceError(f"hub: {clean(ack.text)}")
            while True:
                raw = await q.get()
                yield (max(0, raw.t_us + link.tracker.offset_us) / 1e6,
                       {self.cm.label(sw): v for sw, v in raw.values})
        finally:
            link.drop_raw_queue(q)
            if link.connected:
                try:
                    await link.request(p.RawStream(0), wait_connected=0)
                except LinkError:
                    pass


def from_config(section: Section, *, clock: Clock | None = None, channel_map: ChannelMap | None = None, **options) -> HubSource:
    """``[board.hub]`` -> a HubSource (``HubSource.parse`` then ``from_settings``)."""
    return HubSource.from_settings(HubSource.parse(section), clock=clock, channel_map=channel_map, **options)


__all__ = ["HubSettings", "HubSource", "from_config", "ConfigError"]
