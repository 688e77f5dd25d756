"""Run the club server: the broker subscription and the web pages in one loop."""

from __future__ import annotations

import asyncio
import logging
import signal

from .club import Club
from .config import ServerSettings
from .store import ClubStore

log = logging.getLogger("coindrel.club.server")


async def serve(settings: ServerSettings, *, ready=None) -> None:
    import uvicorn

    from .web import create_app

    import socket

    family = socket.AF_INET6 if ":" in settings.http_host else socket.AF_INET
    listener = socket.create_server((settings.http_host, settings.http_port), family=family)  # OSError: said by the command
    try:
        store = ClubStore(settings.db)
    except BaseException:
        listener.close()
        raise
    club = Club(settings, store)
    club.on_connect = lambda: print(f"coindrel club: subscribed to the tables at {settings.broker}", flush=True)
    app = create_app(club)
    config = uvicorn.Config(app, host=settings.http_host, port=settings.http_port, log_level="warning",
                            timeout_graceful_shutdown=2, lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    mqtt = asyncio.create_task(club.run_mqtt())
    loop = asyncio.get_running_loop()

    def stop(*_):
        club.closing.set()
        server.should_exit = True

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop)
        except (NotImplementedError, RuntimeError):
            pass
    server.install_signal_handlers = lambda: None  # ours above also stop the MQTT side
    try:
        web = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started and not web.done():
            await asyncio.sleep(0.02)
        if web.done():
            web.result()
            raise OSError(f"the club server could not listen on {settings.http_host}:{settings.http_port}")
        print(f"coindrel club: serving http://{settings.http_host}:{settings.http_port}/ for tables "
              f"{', '.join(settings.tables)} from {settings.broker}", flush=True)
        if ready is not None:
            ready(club)
        await web
    finally:
        club.closing.set()
        mqtt.cancel()
        await asyncio.gather(mqtt, return_exceptions=True)
        store.close()
        listener.close()
