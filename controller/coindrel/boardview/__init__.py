"""Pictures of a board for people: terminal text and PNG (Pillow). Pure functions."""

from .picture import board_image
from .text import board_text

__all__ = ["board_image", "board_text"]
