"""What the hub link knows of the hub besides its frames: whether its hello
fits this controller, the board as the hub last showed it, and the counts of
everything the tracker dropped or repaired (``coindrel hub status``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import protocol as p
from .channelmap import ChannelMap


def check_hello(msg, cm: ChannelMap) -> str | None:
    """Why this hub cannot be used with this controller, or None."""
    if isinstance(msg, p.ForeignHello):
        return (f"the hub speaks protocol {msg.proto}, this controller speaks {p.PROTOCOL_VERSION}: "
                "install the matching firmware with `coindrel hub deploy`")
    if msg.map_hash != cm.map_hash:
        return (f"the hub's channel map (hash {msg.map_hash.hex()}) is not this controller's ({cm.hash_hex}, "
                f"{cm.source}): deploy the firmware built from the same map with `coindrel hub deploy`")
    return None


@dataclass
class TrackerStats:
    frames: int = 0
    duplicates: int = 0
    gaps: int = 0
    missing_frames: int = 0
    stale: int = 0
    unknown: int = 0
    malformed: int = 0
    impossible: int = 0
    hub_lost: int = 0
    resets: int = 0
    dropped_pending: int = 0
    errors: int = 0
    replayed: int = 0  # events received again after a resume
    repeated: int = 0  # events dropped because the Pi already had them
    held_for_replay: int = 0  # live events held for a resume and then dropped: the replay brought them

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class HubState:
    """What the controller knows of the board through the hub."""

    positions: dict = field(default_factory=dict)  # switch id -> (pos, raw)
    beams: int = 0  # bit per beam id
    raw: dict = field(default_factory=dict)  # switch id -> latest raw
    t_us: int = 0  # hub time of the latest snapshot
