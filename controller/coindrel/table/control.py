"""The local control interface: a unix socket inside the daemon's loop.

For tests, for scripts at a club and for the club link: ``coindrel ctl``
asks for the table's status, starts a match or presses a button. One JSON
object per line each way::

    {"cmd": "status"}                      -> {"ok": true, "status": {...}}
    {"cmd": "new-match", "players": ["Ann", "Bo"], "clock": "60", "variants": ["holes"]}
    {"cmd": "press", "button": "select"}   (select, back, left, right, hold)

A bad request gets ``{"ok": false, "error": "..."}`` naming what is wrong and
what to send instead; nothing a client sends can stop the daemon (a line
longer than ``MAX_LINE`` is refused and the connection closed, so is a
client that stays silent for ``IDLE`` seconds). There is no network listener:
the socket lives in the service's RuntimeDirectory (/run/coindrel), mode
0660, so only the ``coindrel`` group may use it.

A new match goes through the flow exactly as the menu's "Start match"
does (``TableFlow.start_match``): the same checks of the board, the same
journal, the same effects.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
from pathlib import Path

from ..engine import EngineError, Variants
from ..errors import CoindrelError, quoted
from ..io import BACK, HOLD_SELECT, NEXT, PREV, SELECT
from .sections import VARIANT_NAMES, name_problem
from .setupmenu import CLOCKS
from .simresult import winner_name
from ..nesting import loads_json

log = logging.getLogger("coindrel.control")
SOCKET_NAME = "control.sock"
DEFAULT_DIR = Path("/run/coindrel")
MAX_LINE = 64 * 1024  # bytes: a request is a few dozen
MAX_CLIENTS = 64
IDLE = 5.0  # seconds a client may stay silent: idle clients cannot lock the others out
BUTTONS = {"select": SELECT, "back": BACK, "left": PREV, "right": NEXT, "hold": HOLD_SELECT}
FIELDS = {"status": (), "press": ("button",), "new-match": ("players", "clock", "variants", "pads_clear")}
COMMANDS = tuple(FIELDS)


class RequestError(CoindrelError, ValueError):
    """A request that cannot be carried out; the message goes to the client."""


def default_socket_path() -> Path:
    """$RUNTIME_DIRECTORY (systemd's RuntimeDirectory=) or /run/coindrel."""
    runtime = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    return Path(runtime or DEFAULT_DIR) / SOCKET_NAME


def status_of(table) -> dict:
    """What ``coindrel ctl status --json`` prints."""
    flow = table.flow
    m = flow.match
    out: dict = {"mode": flow.mode, "phase": "menu" if m is None else m.phase,
                 "link": {"up": flow.link_up, "detail": flow.link_detail}, "message": None}
    if flow.message is not None:
        out["message"] = {"title": flow.message.title, "text": flow.message.text}
    note, now = flow.note, table.now()
    out["note"] = None
    if note is not None and now < flow.note_until:
        # a passing note takes the next press for itself (a newcomer's presses seemed swallowed)
        words = getattr(note, "text", None) or " ".join((*getattr(note, "facts", ()), *getattr(note, "findings", ())))
        out["note"] = {"title": getattr(note, "title", ""), "text": words,
                       "press": "the next press puts this note away (a note of several pages reads on); "
                                "then presses reach the screen"}
    if m is not None:
        out.update(players=list(m.setup.players), round=m.round, scores=list(m.round_scores), totals=list(m.totals),
                   turn=None if m.over else m.to_move, to_move=None if m.over else m.setup.players[m.to_move - 1],
                   drops=len(m.results), over=m.over, winner=winner_name(m), variants=m.setup.variants.names(),
                   forced_entry=None if m.over or m.forced_entry is None else m.forced_entry + 1,
                   clock=m.setup.clock, board=m.board.text(),
                   # the turn's seconds left (clock is the setting): what the panel's corner shows
                   clock_left=None if m.over or m.remaining(now) is None else round(m.remaining(now), 1))
        if table.journal is not None:
            out["match"] = {"number": table.journal.number, "id": table.journal.match_id}
    else:
        out.update(players=list(flow.menu.choices.players), round=None, scores=None, totals=None, turn=None,
                   to_move=None, drops=0, over=False, winner=None, board=None, forced_entry=None, clock_left=None)
    out["asking"] = asking(flow)
    out["lesson"] = None
    if flow.runner is not None and str(flow.mode) == "lesson":  # what the panel's lesson says now
        p = flow.runner.prompt
        out["lesson"] = {"lesson": p.lesson, "title": p.title, "step": p.step, "steps": p.steps, "lines": list(p.lines)}
    out["menu"] = menu_of(flow, now)
    faults = []
    if table.reconciler is not None:
        try:
            faults = table.persistent_faults()
        except Exception as e:  # the status must answer even if the reconciler is mid-change
            faults = [{"error": str(e)}]
    out["faults"] = faults
    out["reports"] = table.reports
    room_of = getattr(table, "room_of", None)  # a full disk: what is saved, and that the table waits for room
    out["disk"] = room_of() if room_of is not None else None
    return out


_ANSWERING = ("coindrel ctl press back answers \"Board is right\"; right reads on page by page, then select "
              "chooses the marked answer")
_CORRECTING = ("coindrel ctl press right or left moves to an exit, select adds a coin there, hold is done "
               "(the drop scores what was counted)")


def menu_of(flow, now: float) -> dict | None:
    """The list on the panel (the setup menu, the pause menu, the coins at
    each exit being corrected): its title, its rows ("Exit 3: 1") and the one
    marked, which select chooses (a person at ``ctl`` saw none of them)."""
    from ..display import MenuView

    if flow.message is not None or (flow.note is not None and now < flow.note_until):
        return None  # a message or a note is over it: the press goes there first
    try:
        v = flow.view(now)
    except Exception:  # the status answers whatever the screen is doing
        return None
    if not isinstance(v, MenuView):
        return None
    rows = [f"{i.label}: {i.value}" if i.value is not None else i.label for i in v.items]
    return {"title": v.title, "items": rows, "marked": rows[v.selected] if 0 <= v.selected < len(rows) else None,
            "press": "coindrel ctl press right / left moves the mark, select chooses it"
                     + (f" ({v.hint})" if v.hint else "")}


def asking(flow) -> dict | None:
    """What the table's screen waits for a person to answer, in its words:
    a mismatch screen stays up until someone answers it, and "mismatch" is
    also the screen of a drop the reconciler found right but the table
    flagged (a coin out of turn, in another entry than the clock chose)."""
    d = flow.diagnosis
    if flow.mode == "correct" and flow.match is not None:
        counted = [f"exit {x + 1}: {n} coin{'s' if n > 1 else ''}" for x, n in enumerate(flow.correction or ()) if n]
        return {"screen": "correct", "drop": len(flow.match.results), "title": "Coins at each exit",
                "board_mismatch": None, "findings": [], "facts": counted or ["no coin counted yet"], "answers": [],
                "answer": _CORRECTING}
    if flow.mode in ("restore", "check-pads") and flow.match is not None:
        # a person away from the panel reads what to do there (both were "asking": null)
        if flow.mode == "restore":
            steps = [step.text for step in flow.restore] or ["Board matches."]
            title, answer = "Put the board back", "put each switch back as listed, then coindrel ctl press select"
        else:
            from .modes_pads import pads_text

            steps, title = [pads_text(flow.match, flow.moved_unseen, flow.unseen_away)], "Check the pads"
            answer = "make the pads as the table says, then coindrel ctl press select (or drop the next coin)"
        drop = len(flow.match.results) + (1 if flow.mode == "restore" else 0)  # restore: the drop undone
        return {"screen": str(flow.mode), "drop": drop, "title": title, "board_mismatch": None,
                "findings": [], "facts": steps, "answers": [], "answer": answer}
    if flow.mode == "menu" and flow.message is not None and flow.before_start:
        # the board check before a match (pads to clear, Holes switches, rockers to set)
        answer = "do as it says on the board, then coindrel ctl press select"
        if flow.need_clear:
            answer += " (or coindrel ctl new-match ... --pads-clear)"
        steps = [step.text for step in flow.before_start] if len(flow.before_start) > 1 else []
        return {"screen": "before start", "drop": None, "title": flow.message.title, "board_mismatch": None,
                "findings": [], "facts": [flow.message.text, *steps], "answers": [], "answer": answer}
    if flow.mode != "mismatch" or d is None:
        return None
    findings, facts = list(getattr(d, "findings", ()) or ()), list(getattr(d, "facts", ()) or ())
    if not facts:  # the panel states the exits itself then (notices.paragraphs): so does the status
        from ..display.notices import exit_fact

        fact = exit_fact(getattr(d, "expected", None), getattr(d, "observed", None))
        facts = [fact] if fact else []
    options = list(getattr(d, "options", ()) or ())
    out = {"screen": str(flow.mode), "drop": getattr(d, "drop", None), "title": getattr(d, "title", ""),
           "board_mismatch": bool(findings), "findings": findings, "facts": facts, "answers": options,
           "answer": _ANSWERING}
    try:  # where the screen is: which page, and the answer select would choose now
        from .turns import pages

        n = pages(d, flow.panel_size)
        page = min(getattr(d, "page", 0), n - 1)
        on_answers = len(options) <= 1 or page == n - 1
        out.update(page=page + 1, pages=n,
                   marked=options[getattr(d, "selected", 0)] if on_answers and options else None,
                   page_text=_page_text(d, page, flow.panel_size))
    except (AttributeError, IndexError, TypeError, ValueError):
        pass  # a screen of another shape: the answers above still say what to press
    return out


def _page_text(d, page: int, size) -> str:
    """The words on the notice's page now, as the panel shows them (a press
    of right at ``ctl`` printed only "page 2 of 7"): its lines joined, or the
    answers with the marked one in brackets on the page of choices."""
    from ..display.render import panel
    from ..display.screens_notice import text_pages

    texts = text_pages(d, panel(tuple(size)))
    if page < len(texts):
        return " ".join(texts[page])
    return "answers: " + ", ".join(f"[{o}]" if i == d.selected else o for i, o in enumerate(d.options))


_BACK_OUT = ("names", "rules", "history", "lessons", "lesson", "club-request")


def _to_menu(mode: str) -> str:
    """How a person at ``coindrel ctl`` gets from ``mode`` to where new-match works."""
    if mode == "round-result":  # the last round's scores; its select shows the match result
        return "`coindrel ctl press select` shows the match result"
    if mode in _BACK_OUT:  # each back leaves (a lesson: a step back, out at its first step; a club request: declined)
        return "`coindrel ctl press back` (again until `coindrel ctl status` says menu)"
    return ("answer the table's question first (`coindrel ctl status` shows it), then `coindrel ctl press select` "
            "until the status says result or menu")


def handle(table, request) -> dict:
    """Carry out one decoded request; raises RequestError for a bad one."""
    if not isinstance(request, dict):
        raise RequestError('a request is a JSON object, e.g. {"cmd": "status"}')
    cmd = request.get("cmd")
    if "cmd" not in request:
        raise RequestError(f'a request needs "cmd", one of {", ".join(COMMANDS)}, e.g. {{"cmd": "status"}}')
    if not isinstance(cmd, str) or cmd not in FIELDS:
        raise RequestError(f"unknown command {quoted(cmd)}; the commands are {', '.join(COMMANDS)}")
    unknown = sorted(str(k) for k in request if k != "cmd" and k not in FIELDS[cmd])
    if unknown:  # a misspelt option would otherwise be ignored: "holes": "yes" started a plain match
        known = ", ".join(FIELDS[cmd]) or "none"
        raise RequestError(f"{cmd}: unknown field {quoted(unknown[0])}; its fields are {known}")
    if cmd == "status":
        return {"status": status_of(table)}
    if getattr(table, "room_wait", None) is not None:
        raise RequestError(f"{table.failed}; until then the table takes no press and no new match")
    if cmd == "press":
        button = request.get("button")
        if not isinstance(button, str) or button not in BUTTONS:
            raise RequestError(f"unknown button {quoted(button)}; press one of {', '.join(BUTTONS)}")
        table.handle_action(BUTTONS[button])
        return {"status": status_of(table)}
    if cmd == "new-match":
        return new_match(table, request)
    raise RequestError(f"unknown command {quoted(cmd)}; the commands are {', '.join(COMMANDS)}")




def new_match(table, request: dict) -> dict:
    flow = table.flow
    pads_clear = request.get("pads_clear", False)
    if not isinstance(pads_clear, bool):
        raise RequestError("pads_clear: true (every coin is off the pads) or false")
    if flow.match is not None and not flow.match.over:
        raise RequestError("a match is in progress; end it first (Pause menu: End match) or wait for its end")
    players = request.get("players")
    if (not isinstance(players, list) or len(players) != 2
            or not all(isinstance(p, str) and " ".join(p.split()) for p in players)):
        raise RequestError('players: two names, e.g. "players": ["Ann", "Bo"]')
    players = [" ".join(p.split()) for p in players]
    for i, name in enumerate(players):
        problem = name_problem(name, f"player {i + 1}")
        if problem:
            raise RequestError(problem)
    if players[0].casefold() == players[1].casefold():
        raise RequestError(f"both players are called {players[0]!r}; give them different names")
    clock = request.get("clock", flow.menu.choices.clock)
    clock = str(clock).strip().lower() if isinstance(clock, (str, int)) and not isinstance(clock, bool) else clock
    if clock not in CLOCKS:
        raise RequestError(f"clock {quoted(clock)} is not a turn clock; choose {', '.join(CLOCKS)}")
    variants = request.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) and v in VARIANT_NAMES for v in variants):
        raise RequestError(f"variants: a list of {', '.join(VARIANT_NAMES)}")
    if flow.mode not in ("menu", "result"):
        raise RequestError(f"the table is on its {str(flow.mode)!r} screen; a new match starts from the menu or the "
                           f"match result: {_to_menu(str(flow.mode))}, then ask again")
    now = table.now()
    if flow.mode == "result":
        flow.on_action(SELECT, now)  # the result screen's press leads to the menu
    c = flow.menu.choices
    c.players, c.clock, c.variants = tuple(players), clock, Variants(**{v: True for v in variants})
    c.opponent = "person"
    flow.message = None
    confirmed = flow.clear_confirmed
    if pads_clear:
        flow.clear_confirmed = True  # a person says the pads are clear, as pressing at the question does
    flow.start_match(now)  # as the menu's "Start match"
    table._after_flow()
    if flow.match is None or flow.message is not None:
        flow.clear_confirmed = confirmed  # only for this start: a later coin is asked about again
        why = flow.message.text if flow.message is not None else "the table did not start it"
        fix = ""
        if flow.need_clear:
            fix = (" When every coin is off the pads, ask again with pads_clear (coindrel ctl new-match ... "
                   "--pads-clear), or answer on the table (coindrel ctl press select). A served virtual board's "
                   "pads are cleared by its c key (--keyboard) or SIGUSR1 (kill -USR1 PID).")
        raise RequestError(f"the match did not start: {why}{fix}")
    return {"status": status_of(table)}


class ControlServer:
    """The socket, served in the daemon's asyncio loop."""

    def __init__(self, table, path: str | Path | None = None, mode: int = 0o660):
        self.table = table
        self.path = Path(path) if path is not None else default_socket_path()
        self.mode = mode
        self.server: asyncio.AbstractServer | None = None
        self.clients: set[asyncio.Task] = set()
        self.errors = 0  # bad requests answered (for tests and the log)

    async def start(self) -> bool:
        """Listen; False (with a warning, the table runs on) when the socket cannot be made."""
        try:
            self._remove_stale()
            self.server = await asyncio.start_unix_server(self._client, path=str(self.path), limit=MAX_LINE)
            os.chmod(self.path, self.mode)
        except OSError as e:
            log.warning("no control socket at %s: %s; `coindrel ctl` cannot reach this table (set [control] socket "
                        "to a writable place, or \"\" to go without)", self.path, e.strerror or e)
            self.server = None
            return False
        log.info("control socket: %s", self.path)
        return True

    def _remove_stale(self) -> None:
        """A socket left by a daemon that was killed: nothing listens on it."""
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return
        if not stat.S_ISSOCK(st.st_mode):
            raise OSError(f"{self.path} exists and is not a socket; remove it or choose another [control] socket")
        self.path.unlink()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            for t in list(self.clients):
                t.cancel()
            await asyncio.gather(*self.clients, return_exceptions=True)
            await self.server.wait_closed()
            self.server = None
            try:
                self.path.unlink()
            except OSError:
                pass

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self.clients.add(task)
        try:
            if len(self.clients) > MAX_CLIENTS:
                await self._send(writer, {"ok": False, "error": f"more than {MAX_CLIENTS} clients at once; try again"})
                return
            while True:
                try:
                    line = await asyncio.wait_for(reader.readline(), IDLE)
                except (asyncio.LimitOverrunError, ValueError):
                    self.errors += 1
                    await self._send(writer, {"ok": False, "error": f"request longer than {MAX_LINE} bytes; one "
                                                                     "JSON object per line"})
                    return
                except asyncio.TimeoutError:
                    return
                if not line:
                    return  # the client is done (or went away mid-request)
                if not line.strip():
                    continue
                refresh = getattr(self.table, "refresh_faults", None)
                if refresh is not None:
                    await refresh()  # the worker's faults as of now, not as of the question before
                await self._send(writer, self._answer(line))
        except (ConnectionError, OSError):
            pass  # the client went away; nothing to tell anyone
        except Exception:  # a bug of ours answering: log it, never take the table down
            log.exception("control request failed")
        finally:
            self.clients.discard(task)
            try:
                writer.close()
            except Exception:
                pass

    def _answer(self, line: bytes) -> dict:
        try:
            request = loads_json(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            self.errors += 1
            return {"ok": False, "error": f"not a JSON request ({e}); send e.g. {{\"cmd\": \"status\"}}"}
        try:
            return {"ok": True, **handle(self.table, request)}
        except RequestError as e:
            self.errors += 1
            return {"ok": False, "error": str(e)}
        except EngineError as e:
            self.errors += 1
            return {"ok": False, "error": str(e)}

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, answer: dict) -> None:
        writer.write(json.dumps(answer, default=str).encode() + b"\n")
        await writer.drain()


__all__ = ["BUTTONS", "ControlServer", "RequestError", "default_socket_path", "handle", "status_of"]
