"""Club play: tables publish to an MQTT broker, a club server turns that into a
live scoreboard, standings and exports (docs/club.md).

Table side: ``config`` (the ``[club]`` table), ``messages`` (the topics and the
shape of every message, checked on both ends), ``outbox`` (drops and results
waiting on disk while the broker is away), ``link`` (``ClubLink``, the asyncio
MQTT client the daemon feeds), ``homeassistant`` (discovery). Club side:
``coindrel.club.server``. Nothing here is imported by the daemon unless
``[club]`` is configured; aiomqtt, Starlette and uvicorn load inside the code
that needs them (``pip install 'coindrel-table[club]'``).
"""
