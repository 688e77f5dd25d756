"""The second board model (independent of coindrel.virtual): ``Session(...).run()``
gives (observation log lines, ground-truth lines)."""

from .play import Session, write

__all__ = ["Session", "write"]
