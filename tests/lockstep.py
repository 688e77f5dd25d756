"""The lockstep rig (now ``coindrel.virtual.linkstep``: ``coindrel sim --hub
firmware --fast`` drives the real link with it too), under its old name."""

from coindrel.virtual.linkstep import CEILING, Lockstep, LockstepHang  # noqa: F401
