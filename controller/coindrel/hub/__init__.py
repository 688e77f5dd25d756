"""The sensor hub: its wire protocol (``protocol``, ``framing``), its channel
map (``channelmap``) and the asyncio link that talks to it (``link``).

Importing this package touches no hardware and no serial port.
"""
