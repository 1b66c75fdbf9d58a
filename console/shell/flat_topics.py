"""Flat retained topics with plain values, for show control (Bitfocus Companion's generic MQTT
module matches exact topics and reads plain values; a lighting desk the same).

Contract: `flat_values(state)` gives, from a game's public state (the retained `<base>/state`),
the plain values published retained under `<base>/flat/` (never empty: an empty retained
message is MQTT's way to delete one, so "none" is "-"): ``phase`` (the game's phase, as
its state says it), ``count`` (the running count's whole seconds left, "-" when none runs),
``answering`` (the name of the player or team answering, "-" when none), and
``score/<id>`` and ``name/<id>`` for each player or team. Any game: what its state does not
have is not published (the table has no players' scores: only its phase and count). Host
commands come back the other way as plain payloads on ``<base>/host/do/<action>``
(console/shell/mqtt_link.py), behind the host account's rights.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from console.state_people import people

__all__ = ["NONE", "flat_values"]

NONE = "-"  # no count, nobody answering (an empty retained payload would delete the topic)


def flat_values(state: Mapping[str, Any]) -> dict[str, str]:
    values: dict[str, str] = {}
    if isinstance(state.get("phase"), str):
        values["phase"] = state["phase"]
    timer = state.get("timer")
    remaining = timer.get("remaining_ms") if isinstance(timer, dict) else None
    values["count"] = str(-(-int(remaining) // 1000)) if isinstance(remaining, int | float) else NONE
    answering = NONE
    for p in people(state):
        if isinstance(p.get("score"), int):
            values[f"score/{p['id']}"] = str(p["score"])
        if isinstance(p.get("name"), str):
            values[f"name/{p['id']}"] = p["name"]
            if p.get("status") == "answering":
                answering = p["name"]
    if people(state):
        values["answering"] = answering
    return values
