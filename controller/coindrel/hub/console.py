"""The live actions of ``coindrel hub`` (monitor, info, snapshot, raw,
calibrate, calibration get|set, reset): a HubSource on the real clock,
printing what a person needs."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from ..engine import EngineError
from ..events import StatusEvent, event_to_json
from . import calibrate as calib
from .channelmap import load_channel_map
from .text import clean
from ..limits import SMALL, read_text_limited
from ..nesting import loads_json

CONNECT_TIMEOUT = 10.0


def _source(args):
    from ..sources.hub import DEFAULT_URL, URL_SCHEMES, HubSource

    url = args.url or DEFAULT_URL
    scheme = url.partition("://")[0] if "://" in url else None
    if scheme is not None and scheme not in URL_SCHEMES:  # as [board.hub] url: said now, not retried for ever
        raise EngineError(f"--url {url!r}: pyserial has no {scheme}:// ports; give a device such as "
                          f"{DEFAULT_URL}, or one of {', '.join(s + '://' for s in URL_SCHEMES)}")
    if scheme is None:
        _check_port_path(url, given=args.url is not None or args.action == "monitor")  # monitor waits for a plug
    cm = load_channel_map(args.map)
    return HubSource(url, cm, reconnect_delay=0.5), cm


def _check_port_path(path: str, given: bool) -> None:
    """A device path that cannot be a hub is said at once, not after waiting
    CONNECT_TIMEOUT for it (a missing one is waited for only when named: it
    may be being plugged in)."""
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if given:  # said now: ten silent seconds read as a hang
            import sys

            print(f"coindrel hub: {path} is not there yet; waiting up to {CONNECT_TIMEOUT:g} s for it "
                  "(plug the hub in, or Ctrl-C)", file=sys.stderr, flush=True)
            return
        raise EngineError(f"no hub at {path}: plug the hub in (the udev rule systemd/99-coindrel-hub.rules "
                          "gives it this name), or name its port with --url, e.g. --url /dev/ttyACM0") from None
    except OSError as e:
        raise EngineError(f"--url {path}: {e.strerror}; give the hub's serial port, e.g. /dev/ttyACM0") from None
    if not stat.S_ISCHR(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "a file" if stat.S_ISREG(mode) else "not a character device"
        raise EngineError(f"--url {path}: that is {what}, not a serial port; give the hub's port, "
                          "e.g. /dev/ttyACM0 or /dev/coindrel-hub")
    from .device import not_a_serial_port

    what = not_a_serial_port(path)
    if what:
        raise EngineError(f"--url {path}: that is {what}; give the hub's port, e.g. /dev/ttyACM0 or /dev/coindrel-hub")


async def _connected(src) -> None:
    await src.start()
    if not await src.link.wait_connected(CONNECT_TIMEOUT) or not src.link.connected:
        why = src.link.down_reason or "no answer"
        errors = [e.detail for e in src.pending() if isinstance(e, StatusEvent) and e.state == "error"]
        raise EngineError(f"no hub on {src.url} after {CONNECT_TIMEOUT:g} s: {errors[-1] if errors else why}")


async def main(args) -> int:
    src, cm = _source(args)
    try:
        if args.action == "monitor":
            return await monitor(src, args)
        await _connected(src)
        src.pending()
        if args.action == "info":
            return info(src, cm)
        if args.action == "snapshot":
            snap = await src.snapshot(CONNECT_TIMEOUT)
            print(json.dumps({"t": round(snap.t, 6), "positions": snap.positions, "raw": snap.raw,
                              "entries_blocked": sorted(e + 1 for e in snap.entries_blocked),
                              "exits_blocked": sorted(x + 1 for x in snap.exits_blocked)}, indent=1))
            return 0
        if args.action == "raw":
            return await raw(src, cm, args)
        if args.action == "calibrate":
            return await guided(src, cm, args)
        if args.action == "calibration":
            return await calibration_file(src, cm, args)
        if args.action == "reset":
            from . import protocol as p

            await src._ask(p.Reset(), wait_connected=0)
            print("the hub is restarting")
            return 0
        raise EngineError(f"unknown action {args.action!r}")
    finally:
        await src.close()


async def monitor(src, args) -> int:
    await src.start()
    seen = 0
    out = sys.stdout
    async for ev in src.events():
        if isinstance(ev, StatusEvent):
            if args.no_status:
                continue
        else:
            seen += 1
        out.write(json.dumps(event_to_json(ev)) + "\n")
        out.flush()
        if args.count is not None and seen >= args.count:
            break
    return 0


def info(src, cm) -> int:
    h = src.link.hello
    print(f"hub {clean(h.board_id, 64)} on {src.url}: firmware {clean(h.firmware, 64)}, protocol {h.proto}, boot {h.boot_id:08x}")
    print(f"uptime {h.t_us / 1e6:.1f} s; beams sampled at {h.beam_hz} Hz, halls scanned at {h.hall_hz} Hz, "
          f"heartbeat every {h.heartbeat_ms} ms")
    print(f"{h.n_beams} beams, {h.n_halls} hall sensors; hall calibration: {'yes' if h.calibrated else 'NO (run coindrel hub calibrate)'}")
    print(cm.summary())
    for note in src.capabilities.cannot_check():
        print(f"cannot check: {note}")
    print("link counters: " + json.dumps(src.link.stats))
    return 0


async def _collect(src, cm, seconds: float, interval_ms: int = 20) -> dict[int, list[int]]:
    labels = {h.label: h.switch for h in cm.halls}
    readings: dict[int, list[int]] = {h.switch: [] for h in cm.halls}
    stream = src.raw_stream(interval_ms)
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    try:
        async for _t, values in stream:
            for lab, v in values.items():
                if lab in labels:
                    readings[labels[lab]].append(v)
            if loop.time() >= end:
                break
    finally:
        await stream.aclose()
    return readings


async def raw(src, cm, args) -> int:
    n = 0
    labels = [h.label for h in cm.halls]
    print("t        " + " ".join(f"{lab:>5}" for lab in labels))
    stream = src.raw_stream(args.interval)
    try:
        async for t, values in stream:
            print(f"{t:8.3f} " + " ".join(f"{values.get(lab, 0):5d}" for lab in labels), flush=True)
            n += 1
            if args.count is not None and n >= args.count:
                break
    finally:
        await stream.aclose()
    return 0


def _ask(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:
        raise EngineError("calibration needs a person at the keyboard (stdin closed)") from None


async def guided(src, cm, args) -> int:
    print("Hall calibration (hardware/calibration.md). Readings are taken for "
          f"{args.seconds:g} s at each step; keep hands off the board while they are.")
    _ask("1/3  Set EVERY rocker to its L position (pad on the left), then press Enter: ")
    left = await _collect(src, cm, args.seconds)
    _ask("2/3  Set EVERY rocker to R, then press Enter: ")
    right = await _collect(src, cm, args.seconds)
    ans = _ask("3/3  Take out the switches you can (at least the four hole switches R2S2 R2S6 R4S3 R4S5), "
               "then press Enter; or type 'skip' to use the sensors' nominal empty reading: ")
    empty = {}
    if ans.strip().lower() != "skip":
        got = await _collect(src, cm, args.seconds)
        # A switch taken out reads near neither its L nor its R reference.
        for sw, vals in got.items():
            if vals and left[sw] and right[sw]:
                v = sorted(vals)[len(vals) // 2]
                far = min(abs(v - sorted(left[sw])[len(left[sw]) // 2]), abs(v - sorted(right[sw])[len(right[sw]) // 2]))
                if far > calib.MIN_SEPARATION // 2:
                    empty[sw] = vals
        print(f"{len(empty)} switch(es) read as taken out: " + " ".join(cm.label(s) for s in sorted(empty)))
    plan = calib.compute(cm, left, right, empty)
    print(plan.table(cm))
    print(f"hysteresis {plan.hyst}")
    for w in plan.warnings:
        print(f"warning: {w}")
    if not args.yes and _ask("Save this calibration on the hub? [y/N] ").strip().lower() not in ("y", "yes"):
        print("not saved")
        return 1
    said = await src.set_calibration(plan.halls, plan.hyst, plan.beam_filter, plan.hall_filter, save=True)
    print(f"hub: {said}")
    return 0


async def calibration_file(src, cm, args) -> int:
    if args.cal_action == "get":
        cal = await src.calibration()
        text = json.dumps(calib.to_json(cal, cm), indent=1) + "\n"
        if args.out:
            Path(args.out).write_text(text)
            print(f"wrote {args.out} ({'saved on the hub' if cal.saved else 'NOT saved on the hub: defaults or unsaved'})")
        else:
            sys.stdout.write(text)
        return 0
    path = Path(args.file)
    try:
        doc = loads_json(read_text_limited(path, SMALL))
    except OSError as e:
        raise EngineError(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise EngineError(f"{path}: not a text file (byte {e.start} is not UTF-8); a calibration file is JSON") from None
    except json.JSONDecodeError as e:
        raise EngineError(f"{path}: not valid JSON: {e.msg} at line {e.lineno}") from None
    plan = calib.from_json(doc, cm, str(path))
    said = await src.set_calibration(plan.halls, plan.hyst, plan.beam_filter, plan.hall_filter, save=not args.no_save)
    print(f"hub: {said}")
    return 0
