"""A club asks this table for a match (players, clock, variants): the table
shows it on its own screen, and a person at the table starts it (select)
or declines it (back). It never disturbs a match: a request that comes
during one waits until the table is back at its menu.

``match_request`` checks what came from the club link (which has already
checked the message's schema) against what this table can play and show:
names the name editor could have typed, two different players, a clock
the setup menu offers. A bad request raises ``RequestError``; the daemon
logs it and drops it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..buttons import BACK, HOLD_SELECT, SELECT
from ..display import ClubRequestView, MessageView
from ..engine import Variants
from ..errors import CoindrelError
from . import effects as fx
from .modes import Mode, Screen
from .setupmenu import CLOCK_LABELS, MAX_NAME, NAME_CHARS

WAITING = 4  # requests a table keeps while busy; more are refused
CLOCK_OF = {None: "off", 5: "turbo", 30: "30", 60: "60", 120: "120"}  # seconds per turn -> setup menu's clock
VARIANT_NAMES = ("holes", "halved", "shuffled")


class RequestError(CoindrelError, ValueError):
    """A club match request this table will not show."""


@dataclass(frozen=True)
class MatchRequest:
    id: str
    players: tuple[str, str]
    clock: str  # the setup menu's clock: "30", "60", "120", "turbo" or "off"
    variants: Variants


def match_request(obj) -> MatchRequest:
    """A ``MatchRequest`` from the club link's request (``messages.parse_request``)."""
    if not isinstance(obj, dict):
        raise RequestError(f"a match request must be an object, not {type(obj).__name__}")
    rid = obj.get("id")
    if not isinstance(rid, str) or not 0 < len(rid) <= 64 or not rid.isprintable():
        raise RequestError(f"match request id {str(rid)[:70]!r} must be 1-64 printable characters")
    players = obj.get("players")
    if not isinstance(players, (list, tuple)) or len(players) != 2:
        raise RequestError(f"match request {rid}: 'players' must name two players")
    names = tuple(_name(rid, p) for p in players)
    if names[0].casefold() == names[1].casefold():
        raise RequestError(f"match request {rid}: both players are called {names[0]!r}; the table tells them apart by name")
    seconds = obj.get("clock")
    if isinstance(seconds, float) and seconds.is_integer():
        seconds = int(seconds)
    if isinstance(seconds, bool) or seconds not in CLOCK_OF:
        raise RequestError(f"match request {rid}: clock {seconds!r} is not one of 5, 30, 60, 120 or null")
    variants = obj.get("variants") or {}
    if not isinstance(variants, dict) or not set(variants) <= set(VARIANT_NAMES) or not all(
            isinstance(v, bool) for v in variants.values()):
        raise RequestError(f"match request {rid}: variants must map {', '.join(VARIANT_NAMES)} to true or false")
    return MatchRequest(rid, names, CLOCK_OF[seconds], Variants(**variants))


def _name(rid: str, name) -> str:
    text = name.strip() if isinstance(name, str) else ""
    if not text or len(text) > MAX_NAME or any(ch not in NAME_CHARS for ch in text):
        raise RequestError(f"match request {rid}: player name {str(name)[:40]!r} must be 1-{MAX_NAME} letters, "
                           "digits, spaces, '-' or '.' (what the table's screen shows)")
    return text


def request_view(req: MatchRequest, waiting: int = 0) -> ClubRequestView:
    v = req.variants
    on = tuple(name.capitalize() for name in VARIANT_NAMES if getattr(v, name))
    return ClubRequestView(players=req.players, clock=CLOCK_LABELS[req.clock], variants=on, waiting=waiting)


class ClubRequest(Screen):
    """The club's request on screen; select starts it (through the menu's own
    "Start match", so the board is checked as for any match), back declines."""

    mode = Mode.CLUB_REQUEST

    def act(self, flow, press, now):
        if not flow.club_requests:
            flow._go(Mode.MENU, now)
            return
        if press in (SELECT, HOLD_SELECT):
            req = flow.club_requests.pop(0)
            c = flow.menu.choices
            c.players, c.clock, c.variants, c.opponent = req.players, req.clock, req.variants, "person"
            flow._emit(fx.Sound("select"))
            flow._go(Mode.MENU, now)
            flow.start_match(now)
        elif press == BACK:
            flow.club_requests.pop(0)
            flow._emit(fx.Sound("back"))
            flow._go(Mode.MENU, now)

    def view(self, flow, now):
        if not flow.club_requests:  # (answered from elsewhere): the next press goes back to the menu
            return MessageView("Club match", "No request is waiting. Press for the menu.")
        return request_view(flow.club_requests[0], len(flow.club_requests) - 1)
