"""Helpers shared by the tests (data locations, vector loading)."""

import json
from pathlib import Path

TESTS = Path(__file__).parent
VECTORS = TESTS / "vectors"


def load_vectors(name: str) -> list[dict]:
    with open(VECTORS / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
