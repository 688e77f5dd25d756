"""Pictures of a board for people: terminal text and PNG (Pillow). Pure functions.

``board_image`` loads Pillow on first use only, so text-only callers
(``coindrel show`` without ``--png``, ``coindrel play``) never pay for it."""

from .text import board_text

__all__ = ["board_image", "board_text"]


def __getattr__(name: str):
    if name == "board_image":
        from .picture import board_image

        return board_image
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
