"""Words the screens show that are not built from the match: the Rules."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def rules_text() -> str:
    """The player-facing rules (rules.md section 1), for a TextView from the
    setup menu: the first line is the title, the rest the text."""
    return resources.files(__package__).joinpath("rules.txt").read_text(encoding="utf-8")


def rules_view(scroll: int = 0):
    from .views import TextView

    title, _, body = rules_text().partition("\n")
    return TextView(title="Rules", text=body.strip(), scroll=scroll)
