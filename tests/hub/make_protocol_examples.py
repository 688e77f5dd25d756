"""Write firmware/protocol_examples.json: the golden frames of PROTOCOL.md.

Run only when the protocol changes on purpose (then bump PROTOCOL_VERSION):
    PYTHONPATH=controller python tests/hub/make_protocol_examples.py
Both codecs are tested against the file (tests/hub/test_hub_golden.py under
CPython, tests/firmware/mp_proto.py under MicroPython), and PROTOCOL.md must
quote every frame (tests/hub/test_hub_golden.py checks that too).
"""

from __future__ import annotations

import json
from pathlib import Path

from coindrel.hub import protocol as p

EXAMPLE_HASH = bytes.fromhex("0123456789abcdef")  # not the reference map's: examples must not change with it
OUT = Path(__file__).resolve().parents[2] / "firmware" / "protocol_examples.json"


def examples():
    H = p.HallCal
    yield "boot hello", 0, p.Hello(0, 1, 0x5EED1234, 4_210, EXAMPLE_HASH, 10000, 250, 500, True, False, False, 24, 38, "1.0.0", "e6614c311b7e6d2a")
    yield "hello answering request 1", 5, p.Hello(1, 1, 0x5EED1234, 9_876_543, EXAMPLE_HASH, 10000, 250, 500, False, True, True, 24, 38, "1.0.0", "e6614c311b7e6d2a")
    yield "entry 4 broken", 7, p.Beam(12_345_600, 3, True)
    yield "entry 4 clear after 15.4 ms", 8, p.Beam(12_361_000, 3, False, 15_400)
    yield "R1S4 leaves L: mid", 9, p.Hall(12_487_100, 3, "mid", 2710)
    yield "R1S4 settles R", 10, p.Hall(12_503_100, 3, "R", 2330)
    yield "exit 12 broken", 11, p.Beam(12_902_000, 19, True)
    yield "R2S2 removed: none", 12, p.Hall(13_000_000, 9, "none", 2051)
    yield "after the 2**30 us wrap", 13, p.Hall(3 * (1 << 30) + 12_345, 37, "L", 2987)
    yield "a year of uptime", 14, p.Beam((1 << 40) + 7, 23, False, 1_073_741_823)
    yield "3 events lost in the queue", 15, p.Lost(14_000_000, 3, "queue")
    yield "1 beam change lost", 16, p.Lost(14_000_100, 1, "beams")
    yield "heartbeat", 17, p.Heartbeat(14_500_000, 251, 1830, 4, 4, 0)
    yield "snapshot", 18, p.Snapshot(2, 14_600_000, 0b1000_0000_0000_1000, (p.HallState(0, "L", 2990), p.HallState(3, "R", 2325), p.HallState(9, "none", 2049)))
    yield "calibration", 19, p.Calibration(3, True, 40, 5, 2, (H(0, 2980, 2330, 2048, 120), H(1, 3010, 2290, 2044, 130)))
    yield "raw stream", 20, p.Raw(14_700_000, ((0, 2991), (1, 3007), (2, 2046)))
    yield "ack", 21, p.Ack(4, 0x04, p.OK, "saved")
    yield "ack not wired", 22, p.Ack(6, 0x06, p.NOT_WIRED, "the coin dropper is not wired to the hub")
    yield "error beam blocked", 23, p.Error(15_000_000, 4, 17, "exit 10 beam broken for over 3 s: something is in it, or it is misaligned")
    yield "resumed: 2 events again", 24, p.Resumed(8, 15_100_000, 24, 0, 2, 11, 12_902_000, 0)
    yield "replay of exit 12 broken", 25, p.Replay(11, p.Beam(12_902_000, 19, True))
    yield "replay of R2S2 removed", 26, p.Replay(12, p.Hall(13_000_000, 9, "none", 2051))
    yield "resumed: another boot, events gone", 27, p.Resumed(9, 2_000_000, 27, 3, 0, p.NOTHING, 0, 5)
    yield "hello request", 1, p.HelloReq(1)
    yield "snapshot request", 2, p.SnapshotReq()
    yield "calibration request", 3, p.CalGet()
    yield "set calibration and save", 4, p.CalSet(True, 40, 5, 2, (H(0, 2980, 2330, 2048, 120), H(1, 3010, 2290, 2044, 130)))
    yield "raw stream every 100 ms", 5, p.RawStream(100)
    yield "light entries 1 and 4, drop into entry 4", 6, p.Outputs(0b0000_1001, 3, 150)
    yield "reset", 7, p.Reset()
    yield "resume after frame 10 of boot 5eed1234", 8, p.Resume(0x5EED1234, 10)
    yield "resume: nothing to replay", 9, p.Resume(0x5EED1234)


def build() -> dict:
    out = []
    for name, seq, msg in examples():
        out.append({"name": name, "from": "hub" if msg.TYPE >= 0x80 else "pi", "seq": seq,
                    "message": msg.to_dict(), "frame": p.encode(msg, seq).decode("ascii")})
    return {"about": "Golden frames of the Coindrel hub protocol (firmware/PROTOCOL.md). Each frame is "
                     "exactly what encoding 'message' with sequence number 'seq' gives; both codecs are tested against it.",
            "protocol": p.PROTOCOL_VERSION, "examples": out}


if __name__ == "__main__":
    OUT.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {OUT}")
