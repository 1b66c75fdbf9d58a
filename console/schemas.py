"""The MQTT contract's JSON Schemas (``schemas/`` at the repo root): loading and validating.

Contract: `load_schema(kind)` returns the parsed schema of one payload kind (see `KINDS` for
«Своя игра», docs/mqtt.md, and `TABLE_KINDS` for the «Что? Где? Когда?» table, docs/mqtt-table.md);
`validate(kind, payload)` returns None or raises ``jsonschema.ValidationError`` naming the
first problem. The schemas live in the source tree only (they are the published contract
for display authors, not package data): outside a checkout, both raise FileNotFoundError
saying so. jsonschema is a test dependency, so it is imported only when `validate` runs;
the console itself never validates what it publishes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The payload kinds and their topics (docs/mqtt.md): ``<prefix>/<node>/events``, ``/state``,
#: ``/status``, ``/host/command`` and ``/host/notices``.
KINDS = ("event", "state", "status", "command", "notices")
#: The table's payload kinds (docs/mqtt-table.md): its events (``/events``, ``/angle``,
#: ``/host/events``), its state (``/state``, ``/host/state``), its host commands, and the game
#: record (``/record``, and the files in ``table.record_dir``). The status is the same as above.
TABLE_KINDS = ("table_event", "table_state", "table_command", "record")
#: The sports timer's state (``/state``); its events are table events.
SPORTS_KINDS = ("sports_state",)
#: The «Эрудит-квартет» fight's events and state (docs/mqtt-quartet.md).
QUARTET_KINDS = ("quartet_event", "quartet_state")
#: The «Брейн-ринг» fight's events and state (docs/mqtt-brainring.md).
BRAINRING_KINDS = ("brainring_event", "brainring_state")
#: The tournament service's grid, standings and events (docs/tournament.md).
TOURNAMENT_KINDS = ("tournament_grid", "tournament_standings", "tournament_event")
ALL_KINDS = KINDS + TABLE_KINDS + SPORTS_KINDS + QUARTET_KINDS + TOURNAMENT_KINDS + BRAINRING_KINDS

SCHEMAS_DIR = Path(__file__).resolve().parent.parent / "schemas"


def schema_path(kind: str) -> Path:
    """The file of `kind`'s schema; ValueError for an unknown kind, FileNotFoundError outside a checkout."""
    if kind not in ALL_KINDS:
        raise ValueError(f"unknown schema {kind!r} (one of {', '.join(ALL_KINDS)})")
    if not SCHEMAS_DIR.is_dir():
        raise FileNotFoundError(
            f"the MQTT JSON Schemas are not at {SCHEMAS_DIR}: they are only in the chgk-console source "
            "tree (schemas/ next to console/), not in an installed package; use a checkout or an "
            "editable install (pip install -e .)"
        )
    return SCHEMAS_DIR / f"{kind}.schema.json"


def load_schema(name: str) -> dict[str, Any]:
    """The schema of payload kind `name` (one of `ALL_KINDS`, e.g. "event" or "table_state")."""
    path = schema_path(name)
    with path.open(encoding="utf-8") as f:
        schema = json.load(f)
    if not isinstance(schema, dict):
        raise ValueError(f"{path}: a JSON Schema must be a JSON object")
    return schema


def validate(kind: str, payload: dict[str, Any] | list[Any]) -> None:
    """Check `payload` against `kind`'s schema; raises jsonschema.ValidationError if it does not fit."""
    from jsonschema import Draft202012Validator

    Draft202012Validator(load_schema(kind)).validate(payload)
