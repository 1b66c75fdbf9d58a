"""The one place where an engine's typed events become the JSON published on MQTT.

Contract: `event_json(event)` gives the object documented in docs/mqtt.md and
docs/mqtt-table.md: ``type`` (the class's `TYPE`), ``t_ns``, ``audience`` for host-only
events, then the event's fields in declaration order. A field marked `omitted_if_none` is
left out while None; enums become their values, tuples lists, mappings objects and nested
records objects of their fields. The same object goes to MQTT, the journal's readers and
replay, so the published JSON is the same whichever way an event is shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

from console.engine.events import OMIT_IF_NONE, Event

# Per class: its field names and which of them are left out while None. Built once per
# class: an event on the press path is written without looking at its class again.
_PLANS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _plan(cls: type) -> tuple[tuple[str, bool], ...]:
    plan = _PLANS.get(cls)
    if plan is None:
        skip = "t_ns" if issubclass(cls, Event) else None  # written first, by event_json
        plan = _PLANS[cls] = tuple(
            (f.name, bool(f.metadata.get(OMIT_IF_NONE))) for f in fields(cls) if f.name != skip
        )
    return plan


def event_json(event: Event) -> dict[str, Any]:
    """The wire object of `event` (a new dict: the caller may add ``seq`` to it)."""
    out: dict[str, Any] = {"type": event.TYPE, "t_ns": event.t_ns}
    if event.AUDIENCE is not None:
        out["audience"] = event.AUDIENCE
    for name, omit_none in _plan(type(event)):
        value = getattr(event, name)
        if value is None and omit_none:
            continue
        out[name] = to_json(value)
    return out


def to_json(value: Any) -> Any:
    """A field's value as JSON-shaped data (see the module's contract)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for name, omit_none in _plan(type(value)):
            item = getattr(value, name)
            if item is None and omit_none:
                continue
            out[name] = to_json(item)
        return out
    raise TypeError(f"{type(value).__name__} is not a JSON-shaped event field")


def events_json(outputs: Iterable[object]) -> list[dict[str, Any]]:
    """The wire objects of the events among an engine's outputs, in order."""
    return [event_json(o) for o in outputs if isinstance(o, Event)]
