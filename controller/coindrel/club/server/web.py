"""The club's web pages (Starlette, Jinja2), live over server-sent events.

A scoreboard opens ``/events``; whenever a table changes, the server sends
that table's card as HTML (the same template the page was drawn with) and the
page swaps it in. ``/events?table=NAME`` sends one table's large card and
board. Nothing is polled.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import secrets
import time
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from ..limits import TokenBucket
from ..messages import MessageError
from .auth import verify_password
from .board import board_layout
from .club import Club
from .standings import standings

TEMPLATES = Path(__file__).with_name("templates")
KEEPALIVE = 15.0  # seconds between SSE comments, so proxies keep the stream open
MAX_FORM = 4096


def _env() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
    env.filters["clock"] = lambda s: "" if s is None else f"{int(s) // 60}:{int(s) % 60:02d}"
    env.filters["when"] = lambda t: "" if not t else time.strftime("%d %b %H:%M", time.localtime(t))
    return env


def create_app(club: Club) -> Starlette:
    env = _env()
    title = club.settings.title
    logins = TokenBucket(rate=0.2, burst=5)  # a guessed password costs the guesser time

    def render(template: str, **ctx) -> str:
        return env.get_template(template).render(title=title, **ctx)

    def card(name: str, big: bool = False) -> str:
        t = club.live[name]
        state = t["state"] or {}
        board = board_layout(state.get("board"), state.get("values")) if big else None
        return env.get_template("_card.html").render(t=t, s=state, big=big, board=board, heard=club.connected.is_set())

    def page(template: str, status: int = 200, **ctx) -> HTMLResponse:
        return HTMLResponse(render(template, **ctx), status_code=status)

    async def scoreboard(request: Request):
        return page("scoreboard.html", cards=[card(n) for n in club.live])

    async def one_table(request: Request):
        name = request.path_params["name"]
        if name not in club.live:
            return page("message.html", 404, heading="No such table",
                        text=f"The club has no table called {name!r}. Its tables: {', '.join(club.live)}.")
        return page("table.html", name=name, card=card(name, big=True))

    async def events(request: Request):
        only = request.query_params.get("table")
        if only is not None and only not in club.live:
            return JSONResponse({"error": f"no table {only!r}"}, status_code=404)
        watcher = club.watch()

        async def stream():
            try:
                yield "retry: 2000\n\n"
                while not club.closing.is_set():
                    try:
                        await asyncio.wait_for(watcher.event.wait(), KEEPALIVE)
                    except asyncio.TimeoutError:
                        yield ": keepalive\n\n"
                        continue
                    for name in sorted(watcher.take()):
                        if name == "":
                            yield "event: results\ndata: {}\n\n"
                        elif only is None or name == only:
                            state = club.live[name]["state"] or {}
                            data = json.dumps({"table": name, "html": card(name, big=only is not None),
                                               "at": state.get("at"), "totals": state.get("totals"),
                                               "sent": time.time()})
                            yield f"event: table\ndata: {data}\n\n"
            finally:
                club.unwatch(watcher)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    # -- results and standings -------------------------------------------------------------------

    def _export(rows: list[dict], fields: list[str], fmt: str, name: str) -> Response:
        if fmt not in ("csv", "json"):
            return page("message.html", 404, heading="No such export", text=f"Exports are {name}.csv and {name}.json.")
        if fmt == "json":
            return JSONResponse(rows)
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (";".join(map(str, v)) if isinstance(v, list) else v) for k, v in r.items()})
        return Response(buf.getvalue(), media_type="text/csv",
                        headers={"Content-Disposition": f'attachment; filename="{name}.csv"'})

    def _result_rows() -> list[dict]:
        rows = []
        for r in club.store.results():
            w = r["winner"]
            rows.append({"id": r["id"], "table": r["table"], "match": r["match"], "player1": r["players"][0],
                         "player2": r["players"][1], "score1": r["totals"][0], "score2": r["totals"][1],
                         "winner": r["players"][w - 1] if w in (1, 2) else ("draw" if w == "draw" else ""),
                         "result": r["result"], "turns": r["turns"], "ended": r["ended"], "voided": r["voided"]})
        return rows

    RESULT_FIELDS = ["id", "table", "match", "player1", "player2", "score1", "score2", "winner", "result", "turns",
                     "ended", "voided"]
    PLAYER_FIELDS = ["player", "played", "won", "drawn", "lost", "points", "rating"]

    async def results(request: Request):
        fmt = request.path_params.get("fmt")
        if fmt:
            return _export(_result_rows(), RESULT_FIELDS, fmt, "results")
        return page("results.html", rows=list(reversed(_result_rows())))

    async def players(request: Request):
        rows = [s.to_json() for s in standings(club.store.results(include_voided=False))]
        fmt = request.path_params.get("fmt")
        if fmt:
            return _export(rows, PLAYER_FIELDS, fmt, "players")
        return page("players.html", rows=rows)

    async def health(request: Request):
        return JSONResponse({"broker": club.connected.is_set(), "tables": {n: t["online"] for n, t in club.live.items()},
                             "messages": dict(club.counts)})

    # -- admin -----------------------------------------------------------------------------------

    def _csrf(request: Request) -> str:
        token = request.session.get("csrf")
        if not token:
            token = request.session["csrf"] = secrets.token_urlsafe(16)
        return token

    async def _form(request: Request):
        if int(request.headers.get("content-length") or 0) > MAX_FORM:
            return None
        form = await request.form(max_files=0, max_fields=20)
        if not secrets.compare_digest(str(form.get("csrf", "")), request.session.get("csrf", "-")):
            return None
        return form

    async def admin(request: Request):
        if club.settings.admin_hash is None:
            return page("message.html", 403, heading="Admin is off",
                        text="No admin password is set: put admin_password_hash (from `coindrel club hash-password`) "
                             "in the club server's [server] configuration.")
        if not request.session.get("admin"):
            return page("login.html", csrf=_csrf(request), error=request.query_params.get("error", ""))
        return page("admin.html", csrf=_csrf(request), tables=list(club.live), rows=list(reversed(_result_rows())),
                    note=request.query_params.get("note", ""), broker=club.connected.is_set())

    async def login(request: Request):
        form = await _form(request)
        if form is None:
            return RedirectResponse("/admin?error=The+form+expired%3B+try+again", 303)
        if not logins.take():
            return RedirectResponse("/admin?error=Too+many+attempts%3B+wait+a+minute", 303)
        if club.settings.admin_hash and verify_password(str(form.get("password", "")), club.settings.admin_hash):
            request.session["admin"] = True
            return RedirectResponse("/admin", 303)
        return RedirectResponse("/admin?error=Wrong+password", 303)

    async def logout(request: Request):
        request.session.clear()
        return RedirectResponse("/", 303)

    def _admin_only(request: Request):
        return bool(request.session.get("admin")) and club.settings.admin_hash is not None

    async def send_match(request: Request):
        form = await _form(request)
        if form is None or not _admin_only(request):
            return RedirectResponse("/admin?error=Log+in+first", 303)
        clock = str(form.get("clock", ""))
        try:
            req_id = await club.send_match(
                str(form.get("table", "")), [str(form.get("player1", "")).strip(), str(form.get("player2", "")).strip()],
                float(clock) if clock else None, {v: True for v in ("holes", "halved", "shuffled") if form.get(v)})
        except (MessageError, ValueError) as e:
            return RedirectResponse("/admin?" + _q("note", f"Not sent: {e}"), 303)
        return RedirectResponse("/admin?" + _q("note", f"Sent match {req_id}; it starts when someone at the table confirms"), 303)

    async def void(request: Request):
        form = await _form(request)
        if form is None or not _admin_only(request):
            return RedirectResponse("/admin?error=Log+in+first", 303)
        try:
            rid = int(str(form.get("id", "")))
        except ValueError:
            rid = -1
        undo = form.get("undo") == "1"
        ok = club.store.void(rid, not undo)
        for w in club.watchers:
            w.mark("")
        word = "restored" if undo else "voided"
        return RedirectResponse("/admin?" + _q("note", f"Result {rid} {word}" if ok else f"No result {rid}"), 303)

    routes = [
        Route("/", scoreboard), Route("/events", events), Route("/table/{name}", one_table),
        Route("/results", results), Route("/results.{fmt:str}", results),
        Route("/players", players), Route("/players.{fmt:str}", players),
        Route("/health", health),
        Route("/admin", admin), Route("/admin/login", login, methods=["POST"]),
        Route("/admin/logout", logout, methods=["POST"]), Route("/admin/match", send_match, methods=["POST"]),
        Route("/admin/void", void, methods=["POST"]),
    ]

    async def not_found(request, exc):
        return page("message.html", getattr(exc, "status_code", 404), heading="Not here",
                    text="There is no such page. The scoreboard is at /.")

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found},
                    middleware=[Middleware(SessionMiddleware, secret_key=club.settings.secret.hex(),
                                           session_cookie="coindrel_club", same_site="strict", max_age=12 * 3600)])
    return app


def _q(key: str, value: str) -> str:
    from urllib.parse import urlencode

    return urlencode({key: value})
