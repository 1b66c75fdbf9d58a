"""Who plays, as a game's public state lists them: its ``players`` («Своя игра», the quartet's
seats) or its ``teams`` («Брейн-ринг», the table).

Contract: `people(state)` gives those entries (objects with a string ``id``), in the state's
order, or [] for a state that has neither; `names(state)` maps each id to its ``name``, and
`pads(state)` each button they name (``pad``, or a team's ``pads``) to its owner's id. The
console's button check, the flat topics and the export read a state's people through these,
whatever the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["names", "pads", "people"]


def people(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    listed = state.get("players") if isinstance(state.get("players"), list) else state.get("teams")
    if not isinstance(listed, list):
        return []
    return [p for p in listed if isinstance(p, dict) and isinstance(p.get("id"), str)]


def names(state: Mapping[str, Any]) -> dict[str, str]:
    return {p["id"]: p["name"] for p in people(state) if isinstance(p.get("name"), str)}


def pads(state: Mapping[str, Any]) -> dict[str, str]:
    """Each button a state's people name (a player's ``pad``, a team's ``pads``) and whose it
    is; {} when they name none."""
    found: dict[str, str] = {}
    for p in people(state):
        own = [p["pad"]] if isinstance(p.get("pad"), str) else p.get("pads")
        if isinstance(own, list):
            found.update({pad: p["id"] for pad in own if isinstance(pad, str)})
    return found
