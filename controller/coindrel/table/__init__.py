"""The tabletop daemon's parts: the crash-safe match journal and its recovery
(``journal``, ``records``, ``replay``, ``store``), the history of finished
matches (``history``), service-manager integration (``notify``, ``status``)
and the whole-configuration loader (``settings``, ``sections``).

Nothing here touches hardware; ``import coindrel.table`` works anywhere.
"""

from .history import MatchDetail, MatchSummary, list_matches, load_match
from .journal import Journal, JournalError
from .notify import Notifier, WatchdogFeeder, watchdog_usec
from .settings import Settings, load_settings, parse_settings, register_section
from .status import status_text
from .store import MatchJournal, MatchStore, Recovery, StoreError, open_store

__all__ = [
    "Journal", "JournalError", "MatchDetail", "MatchJournal", "MatchStore", "MatchSummary", "Notifier",
    "Recovery", "Settings", "StoreError", "WatchdogFeeder", "list_matches", "load_match", "load_settings",
    "open_store", "parse_settings", "register_section", "status_text", "watchdog_usec",
]
