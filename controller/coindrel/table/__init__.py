"""The tabletop daemon's parts: the crash-safe match journal and its recovery
(``journal``, ``records``, ``replay``, ``store``), the history of finished
matches (``history``), service-manager integration (``notify``, ``status``)
and the whole-configuration loader (``settings``, ``sections``).

Nothing here touches hardware; ``import coindrel.table`` works anywhere.
"""

import importlib

# Loaded on first use, so that ``import coindrel.table.flow`` (pure) pulls in
# no journal, notifier or asyncio machinery.
_WHERE = {
    "MatchDetail": "history", "MatchSummary": "history", "list_matches": "history", "load_match": "history",
    "Journal": "journal", "JournalError": "journal", "Notifier": "notify", "WatchdogFeeder": "notify",
    "watchdog_usec": "notify", "Settings": "settings", "load_settings": "settings", "parse_settings": "settings",
    "register_section": "settings", "status_text": "status", "MatchJournal": "store", "MatchStore": "store",
    "Recovery": "store", "StoreError": "store", "open_store": "store",
}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_WHERE)
