"""Published JSON back into typed events, for the screens that receive JSON and dispatch on classes.

Contract: `read_event(by_type, obj)` gives the event of the class `by_type[obj["type"]]` that
`console.wire.event_json` would write as `obj`, or None when the type is not in `by_type` or
the object does not fit its class (an older or newer engine's). A key that a class leaves out
while None (`omitted_if_none`) may be missing; every other field must be there. Values are
read by the field's type: enums from their values, tuples from lists, nested records from
objects; numbers, strings and bools are taken as they are.

This is the inverse of `console.wire`, kept in the engine so that each engine's event module
can offer an ``event_from_json`` of its own without importing outside the engine.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Literal

from console.engine.events import Event

__all__ = ["read_event"]


def read_event(by_type: Mapping[str, type[Event]], obj: Mapping[str, object]) -> Event | None:
    """The event `obj` was written from, if its ``type`` is one of `by_type` (see the contract)."""
    cls = by_type.get(str(obj.get("type")))
    if cls is None:
        return None
    try:
        made = _build(cls, obj)
    except (KeyError, TypeError, ValueError):
        return None
    assert isinstance(made, Event)
    return made


def _build(cls: type, obj: Mapping[str, object]) -> object:
    hints = typing.get_type_hints(cls)
    args = {f.name: _value(hints[f.name], obj[f.name]) for f in fields(cls)
            if f.init and (f.name in obj or f.name == "t_ns")}
    return cls(**args)


def _value(hint: object, value: object) -> object:
    """`value` read from JSON as type `hint`."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [h for h in typing.get_args(hint) if h is not type(None)]
        return None if value is None else _value(options[0], value)
    if origin is tuple:
        if not isinstance(value, list):
            raise TypeError(f"expected a list, got {value!r}")
        return tuple(_value(typing.get_args(hint)[0], v) for v in value)
    if origin is dict or origin is Literal:
        return value
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if isinstance(hint, type) and is_dataclass(hint):
        if not isinstance(value, Mapping):
            raise TypeError(f"expected an object, got {value!r}")
        return _build(hint, value)
    return value
