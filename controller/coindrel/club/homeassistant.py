"""Home Assistant MQTT discovery: retained config topics for one table.

Sensors read the table's retained state (each player's score, the round, the
table's health); availability follows the table's status topic, whose last
will marks the table offline. Home Assistant announces itself on
``homeassistant/status`` when it starts; the link publishes these again then.
"""

from __future__ import annotations

from .messages import topic

DISCOVERY_PREFIX = "homeassistant"
BIRTH_TOPIC = f"{DISCOVERY_PREFIX}/status"


def discovery(table: str, version: str) -> list[tuple[str, dict]]:
    """(topic, config) for each entity of the table."""
    device = {"identifiers": [f"coindrel_{table}"], "name": f"Coindrel {table}", "manufacturer": "Coindrel Table",
              "sw_version": version}
    avail = {"availability_topic": topic(table, "status"),
             "availability_template": "{{ 'online' if value_json.online else 'offline' }}"}
    state = topic(table, "state")
    sensors = [
        ("player1_score", "Player 1 score", "{{ (value_json.totals or [none, none])[0] }}", "mdi:numeric-1-circle"),
        ("player2_score", "Player 2 score", "{{ (value_json.totals or [none, none])[1] }}", "mdi:numeric-2-circle"),
        ("round", "Round", "{{ value_json.round }}", "mdi:counter"),
        ("health", "Health", "{{ value_json.health }}", "mdi:heart-pulse"),
        ("status", "Status", "{{ value_json.status }}", "mdi:information-outline"),
    ]
    out = []
    for key, name, template, icon in sensors:
        uid = f"coindrel_{table}_{key}"
        out.append((f"{DISCOVERY_PREFIX}/sensor/{uid}/config", {
            "name": name, "unique_id": uid, "object_id": uid, "state_topic": state, "value_template": template,
            "icon": icon, "device": device, **avail,
        }))
    return out
