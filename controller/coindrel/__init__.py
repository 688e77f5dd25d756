"""Coindrel Table: a self-scoring, self-checking controller for a physical Coindrel board.

``import coindrel`` never touches hardware: hardware libraries are imported only
inside the backends that need them.
"""

__version__ = "0.1.0"
