"""The hub's channel map: which shift-register input is which beam, which mux
channel is which switch's hall sensor, which Pico pins drive what.

``hardware/channel_map.json`` is the single source of truth; the package
ships an identical copy (tests/hub/test_channelmap.py proves it) so an
installed controller needs no checkout. The firmware gets a generated module
(``firmware_module()``), deployed as ``coindrel_hub/chanmap.py``. Both sides
agree through ``map_hash``: 8 bytes of SHA-256 over the canonical JSON of the
parts that matter to the hub (comments, keys starting with ``_``, and the
``gpio_build`` section are left out); the hub says it in its hello and the
link refuses a hub whose hash differs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ..engine import EngineError, Geometry, geometry_by_name
from ..engine.core import ENTRY_COUNT, EXIT_COUNT, parse_exit_label
from .protocol import beam_name
from ..nesting import loads_json

PACKAGE_MAP = Path(__file__).with_name("channel_map.json")
HASHED_KEYS = ("format", "board", "hub", "beams", "halls")
INPUTS = "ABCDEFGH"
PICO_PINS = range(0, 29)  # GP0..GP28
ADC_PINS = (26, 27, 28)  # ADC0..ADC2


class ChannelMapError(EngineError):
    """A channel map that cannot describe a hub: the message names the entry and the fix."""


@dataclass(frozen=True, slots=True)
class BeamChannel:
    bit: int  # bit in the hub's 24-bit sample word
    register: int  # 74HC165 number, 1 = the one whose QH goes to the Pico
    input: str  # A..H
    beam: int  # beam id on the wire: 0..7 entries, 8..23 exits

    @property
    def name(self) -> str:
        return beam_name(self.beam)


@dataclass(frozen=True, slots=True)
class HallChannel:
    mux: int  # 1-based, as printed on the board
    channel: int  # 0..15
    switch: int  # switch id (index into the geometry's labels)
    label: str


def _strip_comments(value):
    if isinstance(value, dict):
        return {k: _strip_comments(v) for k, v in value.items() if not k.startswith("_")}
    if isinstance(value, list):
        return [_strip_comments(v) for v in value]
    return value


def map_hash(doc: dict) -> bytes:
    """The 8-byte hash both the controller and the hub carry."""
    core = _strip_comments({k: doc.get(k) for k in HASHED_KEYS})
    canon = json.dumps(core, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canon.encode("ascii")).digest()[:8]


def _beam_id(text, where: str) -> int:
    if isinstance(text, str):
        t = text.strip().lower()
        if t.startswith("entry"):
            try:
                n = int(t[5:])
            except ValueError:
                n = 0
            if 1 <= n <= ENTRY_COUNT:
                return n - 1
        else:
            x = parse_exit_label(t)
            if x is not None and 0 <= x < EXIT_COUNT:
                return 8 + x
    raise ChannelMapError(f"{where}: beam {text!r} is not 'entry 1'..'entry 8' or 'exit 1'..'exit 16'")


class ChannelMap:
    def __init__(self, doc: dict, source: str = "channel map"):
        self.doc = doc
        self.source = source
        if not isinstance(doc, dict) or doc.get("format") != 1:
            raise ChannelMapError(f"{source}: not a channel map of format 1 (needs \"format\": 1)")
        board = doc.get("board", "standard")
        try:
            self.geometry: Geometry = geometry_by_name(board)
        except EngineError as e:
            raise ChannelMapError(f"{source}: board {board!r}: {e}") from None
        self.board = board
        hub = doc.get("hub")
        if not isinstance(hub, dict):
            raise ChannelMapError(f"{source}: needs a \"hub\" table with the Pico's pins")
        self.hub = _strip_comments(hub)
        self.gpio_build = _strip_comments(doc.get("gpio_build") or {})
        self.beams = self._parse_beams(doc.get("beams", []))
        self.halls = self._parse_halls(doc.get("halls", []))
        self._check_pins()
        self.map_hash = map_hash(doc)

    # -- parsing ---------------------------------------------------------
    def _section(self, name: str) -> dict:
        sec = self.hub.get(name)
        if not isinstance(sec, dict):
            raise ChannelMapError(f"{self.source}: hub.{name} must be a table")
        return sec

    def _int(self, sec: str, key: str, lo: int, hi: int) -> int:
        v = self._section(sec).get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise ChannelMapError(f"{self.source}: hub.{sec}.{key} is {v!r}; it must be a whole number {lo}..{hi}")
        return v

    def _parse_beams(self, items) -> tuple[BeamChannel, ...]:
        if not isinstance(items, list):
            raise ChannelMapError(f"{self.source}: \"beams\" must be a list")
        regs = self._int("beams", "registers", 1, 4)
        out, bits, ids = [], {}, {}
        for i, item in enumerate(items):
            where = f"{self.source}: beams[{i}]"
            if not isinstance(item, dict):
                raise ChannelMapError(f"{where}: must be a table like {{\"register\": 1, \"input\": \"A\", \"beam\": \"entry 1\"}}")
            reg, inp = item.get("register"), item.get("input")
            if not isinstance(reg, int) or isinstance(reg, bool) or not 1 <= reg <= regs:
                raise ChannelMapError(f"{where}: register {reg!r} is not 1..{regs} (hub.beams.registers)")
            if not isinstance(inp, str) or inp.upper() not in INPUTS or len(inp) != 1:
                raise ChannelMapError(f"{where}: input {inp!r} is not one of the 74HC165 inputs A..H")
            bit = 8 * (regs - reg) + INPUTS.index(inp.upper())
            beam = _beam_id(item.get("beam"), where)
            if bit in bits:
                raise ChannelMapError(f"{where}: register {reg} input {inp} is already {beam_name(bits[bit])}")
            if beam in ids:
                raise ChannelMapError(f"{where}: {beam_name(beam)} is already on register {ids[beam][0]} input {ids[beam][1]}")
            bits[bit], ids[beam] = beam, (reg, inp.upper())
            out.append(BeamChannel(bit, reg, inp.upper(), beam))
        return tuple(sorted(out, key=lambda b: b.beam))

    def _parse_halls(self, items) -> tuple[HallChannel, ...]:
        if not isinstance(items, list):
            raise ChannelMapError(f"{self.source}: \"halls\" must be a list")
        muxes = self._int("halls", "muxes", 0, 3)
        labels = {lab: i for i, lab in enumerate(self.geometry.labels)}
        out, chans, seen = [], {}, {}
        for i, item in enumerate(items):
            where = f"{self.source}: halls[{i}]"
            if not isinstance(item, dict):
                raise ChannelMapError(f"{where}: must be a table like {{\"mux\": 1, \"channel\": 0, \"switch\": \"R1S1\"}}")
            mux, ch, label = item.get("mux"), item.get("channel"), item.get("switch")
            if not isinstance(mux, int) or isinstance(mux, bool) or not 1 <= mux <= muxes:
                raise ChannelMapError(f"{where}: mux {mux!r} is not 1..{muxes} (hub.halls.muxes)")
            if not isinstance(ch, int) or isinstance(ch, bool) or not 0 <= ch <= 15:
                raise ChannelMapError(f"{where}: channel {ch!r} is not 0..15 (a CD74HC4067 has 16)")
            canon = label.strip().upper() if isinstance(label, str) else label
            if canon not in labels:
                raise ChannelMapError(f"{where}: switch {label!r} is not on board {self.board!r} (R1S1..{self.geometry.labels[-1]})")
            if (mux, ch) in chans:
                raise ChannelMapError(f"{where}: mux {mux} channel {ch} already reads {chans[(mux, ch)]}")
            if canon in seen:
                raise ChannelMapError(f"{where}: {canon} is already on mux {seen[canon][0]} channel {seen[canon][1]}")
            chans[(mux, ch)], seen[canon] = canon, (mux, ch)
            out.append(HallChannel(mux, ch, labels[canon], canon))
        return tuple(sorted(out, key=lambda h: h.switch))

    def _check_pins(self) -> None:
        used: dict[int, str] = {}

        def claim(pin, what: str) -> None:
            if not isinstance(pin, int) or isinstance(pin, bool) or pin not in PICO_PINS:
                raise ChannelMapError(f"{self.source}: {what} is {pin!r}; Pico pins are GP0..GP28")
            if pin in used:
                raise ChannelMapError(f"{self.source}: GP{pin} is both {used[pin]} and {what}")
            used[pin] = what

        b = self._section("beams")
        for key in ("load_pin", "clock_pin", "data_pin"):
            claim(b.get(key), f"hub.beams.{key}")
        self.sample_hz = self._int("beams", "sample_hz", 2000, 100000)
        self.broken_level = self._int("beams", "broken_level", 0, 1)
        h = self._section("halls")
        sel, adc = h.get("select_pins"), h.get("adc_pins")
        if not isinstance(sel, list) or len(sel) != 4:
            raise ChannelMapError(f"{self.source}: hub.halls.select_pins must list the 4 mux select lines S0..S3")
        for i, p in enumerate(sel):
            claim(p, f"hub.halls.select_pins[{i}] (S{i})")
        muxes = self._int("halls", "muxes", 0, 3)
        if not isinstance(adc, list) or len(adc) != muxes:
            raise ChannelMapError(f"{self.source}: hub.halls.adc_pins must list one ADC pin per mux ({muxes})")
        for i, p in enumerate(adc):
            if p not in ADC_PINS:
                raise ChannelMapError(f"{self.source}: hub.halls.adc_pins[{i}] is {p!r}; the Pico's ADC pins are 26, 27, 28")
            claim(p, f"hub.halls.adc_pins[{i}] (mux {i + 1})")
        self.scan_hz = self._int("halls", "scan_hz", 50, 2000)
        o = self._section("outputs")
        for key in ("entry_led_pins", "dropper_pins"):
            pins = o.get(key)
            if pins is None:
                continue
            if not isinstance(pins, list) or len(pins) != ENTRY_COUNT:
                raise ChannelMapError(f"{self.source}: hub.outputs.{key} must be null or list {ENTRY_COUNT} pins, one per entry")
            for i, p in enumerate(pins):
                claim(p, f"hub.outputs.{key}[{i}] (entry {i + 1})")
        self.output_level = self._int("outputs", "active_level", 0, 1)
        led = self.hub.get("status_led_pin")
        if led is not None:
            claim(led, "hub.status_led_pin")
        hb = self.hub.get("heartbeat_ms", 500)
        if not isinstance(hb, int) or isinstance(hb, bool) or not 100 <= hb <= 5000:
            raise ChannelMapError(f"{self.source}: hub.heartbeat_ms is {hb!r}; it must be 100..5000")
        self.heartbeat_ms = hb

    # -- what the controller asks -----------------------------------------
    @property
    def hash_hex(self) -> str:
        return self.map_hash.hex()

    @cached_property
    def entries_sensed(self) -> tuple[int, ...]:
        return tuple(b.beam for b in self.beams if b.beam < 8)

    @cached_property
    def exits_sensed(self) -> tuple[int, ...]:
        return tuple(b.beam - 8 for b in self.beams if b.beam >= 8)

    @cached_property
    def switches_sensed(self) -> tuple[str, ...]:
        return tuple(h.label for h in self.halls)

    def label(self, switch: int) -> str:
        return self.geometry.labels[switch]

    @property
    def entry_leds(self) -> bool:
        return self.hub["outputs"].get("entry_led_pins") is not None

    @property
    def dropper(self) -> bool:
        return self.hub["outputs"].get("dropper_pins") is not None

    def summary(self) -> str:
        return (f"channel map {self.source}: board {self.board}, {len(self.entries_sensed)} entry beams, "
                f"{len(self.exits_sensed)} exit beams, {len(self.halls)} hall sensors, hash {self.hash_hex}")

    def firmware_module(self) -> str:
        """The firmware's form of this map (``coindrel_hub/chanmap.py``)."""
        regs = self.hub["beams"]["registers"]
        bit_beam = bytearray([255] * (8 * regs))
        for b in self.beams:
            bit_beam[b.bit] = b.beam
        hb, hh, out = self.hub["beams"], self.hub["halls"], self.hub["outputs"]

        def opt(pins):
            return "None" if pins is None else repr(tuple(pins))

        halls = ",\n    ".join(f"({h.mux - 1}, {h.channel}, {h.switch})" for h in self.halls)
        return "\n".join([
            "# Generated from hardware/channel_map.json by `coindrel hub map --firmware`: do not edit.",
            "# The controller checks MAP_HASH in the hub's hello against its own copy of the map.",
            f"MAP_HASH = {self.map_hash!r}",
            f"BOARD = {self.board!r}",
            f"REGISTERS = {regs}",
            f"LOAD_PIN = {hb['load_pin']}",
            f"CLOCK_PIN = {hb['clock_pin']}",
            f"DATA_PIN = {hb['data_pin']}",
            f"SAMPLE_HZ = {self.sample_hz}",
            f"BROKEN_LEVEL = {self.broken_level}",
            "# beam id (0-7 entries, 8-23 exits) of each bit of the sample word; 255: nothing wired",
            f"BIT_BEAM = {bytes(bit_beam)!r}",
            f"SELECT_PINS = {tuple(hh['select_pins'])!r}",
            f"ADC_PINS = {tuple(hh['adc_pins'])!r}",
            f"SCAN_HZ = {self.scan_hz}",
            "# wired hall sensors: (mux 0-based, channel, switch id)",
            f"HALLS = (\n    {halls},\n)" if self.halls else "HALLS = ()",
            "# switch id -> label (calibration on flash is kept by label)",
            f"LABELS = {tuple(self.geometry.labels)!r}",
            f"ENTRY_LED_PINS = {opt(out.get('entry_led_pins'))}",
            f"DROPPER_PINS = {opt(out.get('dropper_pins'))}",
            f"OUTPUT_LEVEL = {self.output_level}",
            f"STATUS_LED_PIN = {self.hub.get('status_led_pin')!r}",
            f"HEARTBEAT_MS = {self.heartbeat_ms}",
            "",
        ])


def load_channel_map(path: str | Path | None = None) -> ChannelMap:
    """Load and check a channel map; ``None`` is the one shipped with the controller."""
    p = Path(path) if path is not None else PACKAGE_MAP
    try:
        from ..limits import SMALL, read_text_limited

        text = read_text_limited(p, SMALL)  # a path like /dev/zero must not be read for ever
    except FileNotFoundError:
        raise ChannelMapError(f"{p}: no such channel map; the reference one is hardware/channel_map.json") from None
    except OSError as e:
        raise ChannelMapError(f"{p}: cannot read the channel map ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise ChannelMapError(f"{p}: not a text file (byte {e.start} is not UTF-8); a channel map is JSON") from None
    try:
        doc = loads_json(text)
    except json.JSONDecodeError as e:
        raise ChannelMapError(f"{p}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    return ChannelMap(doc, str(p))
