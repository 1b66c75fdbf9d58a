"""The JSON Schemas against the event classes: one check instead of a hand-kept list per event.

Every `Event` subclass with a `TYPE` in the engine modules (found by importing every module of
`console.engine` and walking the subclasses, so a newly typed engine is picked up by itself)
must be in its schema: `schemas/event.schema.json` for the «Своя игра» referee,
`schemas/table_event.schema.json` for the table's games (ChGK, spin, sports timer), both for
the shared classes of `console.engine.events`. For each type, the schema's properties are
exactly the fields of the classes with that type plus ``type``, ``t_ns``, ``seq`` (and
``audience`` for host-only events), and its required list is exactly the fields that are
never left out; nested records are checked the same way. What types cannot say (value
ranges, string enums, examples) stays in tests/test_schemas*.py.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

import pytest

import console.engine
from console.engine.events import OMIT_IF_NONE, Event
from console.schemas import load_schema

ENVELOPE = {"type", "t_ns", "seq"}


def schemas_of(cls: type[Event]) -> tuple[str, ...]:
    """Which schema(s) hold the events of `cls`'s module."""
    module = cls.__module__
    if module in ("console.engine.events", "console.notices"):
        return ("event", "table_event")  # shared: every game's refusals, the console's own notices
    if module.startswith("console.engine.svoya."):
        return ("event",)
    if module.startswith("console.engine.brainring."):
        return ("brainring_event",)  # «Брейн-ринг» (docs/mqtt-brainring.md)
    if module.startswith("console.engine.quartet."):
        return ("quartet_event",)  # the «Эрудит-квартет» fight (docs/mqtt-quartet.md)
    return ("table_event",)  # the table's games: ChGK, spin, sectors, the sports timer


def event_classes() -> list[type[Event]]:
    for info in pkgutil.walk_packages(console.engine.__path__, "console.engine."):
        importlib.import_module(info.name)
    importlib.import_module("console.notices")
    found: list[type[Event]] = []
    todo = list(Event.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        # dataclass(slots=True) replaces the class it decorates; the replaced one may linger
        # among the subclasses until collected: only the class its module names counts.
        if cls.TYPE and getattr(sys.modules[cls.__module__], cls.__qualname__, None) is cls:
            found.append(cls)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


def groups() -> dict[tuple[str, str], list[type[Event]]]:
    """Classes by (schema, TYPE): several games may share a type in one schema (``error``)."""
    by_type: dict[tuple[str, str], list[type[Event]]] = {}
    for cls in event_classes():
        for schema in schemas_of(cls):
            by_type.setdefault((schema, cls.TYPE), []).append(cls)
    return by_type


def shape(cls: type) -> tuple[set[str], set[str]]:
    """A record's JSON keys and the keys it always writes (not `omitted_if_none`)."""
    keys, always = set(), set()
    for f in fields(cls):
        keys.add(f.name)
        if not f.metadata.get(OMIT_IF_NONE):
            always.add(f.name)
    return keys, always


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref is None:
        return node
    assert ref.startswith("#/$defs/"), ref
    target: dict[str, Any] = schema["$defs"][ref.removeprefix("#/$defs/")]
    return resolve(schema, target)


def object_of(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any] | None:
    """The object schema a property holds: itself, an array's items, a map's values or the
    object branch of a nullable choice; None when it holds no object with properties."""
    node = resolve(schema, node)
    if "properties" in node:
        return node
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            return object_of(schema, node[key])
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key, []):
            found = object_of(schema, branch)
            if found is not None:
                return found
    return None


def nested_records(cls: type) -> Iterator[tuple[str, type]]:
    """(field name, record class) for each field holding a record, a tuple or a map of them."""
    hints = typing.get_type_hints(cls)
    for f in fields(cls):
        for arg in _type_args(hints[f.name]):
            if isinstance(arg, type) and is_dataclass(arg):
                yield f.name, arg


def _type_args(hint: Any) -> Iterator[Any]:
    yield hint
    origin = typing.get_origin(hint)
    if origin in (tuple, list, dict, Mapping, types.UnionType, typing.Union) or (
        isinstance(origin, type) and issubclass(origin, Mapping)
    ):
        for arg in typing.get_args(hint):
            if arg is not Ellipsis:
                yield from _type_args(arg)


GROUPS = groups()


def test_the_walk_finds_the_typed_engines() -> None:
    types_found = {cls.TYPE for cls in event_classes()}
    assert {"signal_accepted", "press_ignored", "question_ended", "error",
            "sports_timer_started"} <= types_found


@pytest.mark.parametrize(("schema_name", "event_type"), sorted(GROUPS), ids=lambda v: str(v))
def test_the_schema_has_exactly_the_class_fields(schema_name: str, event_type: str) -> None:
    schema = load_schema(schema_name)
    classes = GROUPS[schema_name, event_type]
    assert event_type in schema["properties"]["type"]["enum"], f"{event_type} is not in {schema_name}"
    definition = schema["$defs"][event_type]
    keys: set[str] = set()
    always: set[str] | None = None
    shapes = [shape(cls) for cls in classes]
    audiences = [cls.AUDIENCE is not None for cls in classes]
    for fields_of, always_of in shapes:
        keys |= fields_of
        always = set(always_of) if always is None else always & always_of
    assert always is not None
    envelope = ENVELOPE | ({"audience"} if any(audiences) else set())
    always_envelope = ENVELOPE | ({"audience"} if all(audiences) else set())
    names = ", ".join(c.__qualname__ for c in classes)
    assert set(definition["properties"]) == keys | envelope, names
    assert set(definition["required"]) == always | always_envelope, names


@pytest.mark.parametrize(("schema_name", "event_type"), sorted(GROUPS), ids=lambda v: str(v))
def test_nested_records_match_the_schema(schema_name: str, event_type: str) -> None:
    schema = load_schema(schema_name)
    definition = schema["$defs"][event_type]
    for cls in GROUPS[schema_name, event_type]:
        todo = [(cls, definition, cls.__qualname__)]
        while todo:
            record, node, where = todo.pop()
            for name, inner in nested_records(record):
                sub = object_of(schema, node["properties"][name])
                assert sub is not None, f"{where}.{name}: the schema has no object for {inner.__name__}"
                keys, always = shape(inner)
                assert set(sub["properties"]) == keys, f"{where}.{name}"
                assert set(sub.get("required", ())) == always, f"{where}.{name}"
                todo.append((inner, sub, f"{where}.{name}"))


def enum_of_node(schema: dict[str, Any], node: dict[str, Any]) -> list[Any] | None:
    """The enum a property holds: its own, an array's items', or a nullable choice's branch's."""
    node = resolve(schema, node)
    if "enum" in node:
        return list(node["enum"])
    if isinstance(node.get("items"), dict):
        return enum_of_node(schema, node["items"])
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key, []):
            found = enum_of_node(schema, branch)
            if found is not None:
                return found
    return None


def enum_fields(cls: type) -> Iterator[tuple[str, type[Enum]]]:
    """(field name, enum class) for each field holding an enum member, or a tuple of them."""
    hints = typing.get_type_hints(cls)
    for f in fields(cls):
        for arg in _type_args(hints[f.name]):
            if isinstance(arg, type) and issubclass(arg, Enum):
                yield f.name, arg


@pytest.mark.parametrize(("schema_name", "event_type"), sorted(GROUPS), ids=lambda v: str(v))
def test_enum_fields_list_exactly_their_members(schema_name: str, event_type: str) -> None:
    """A field typed with an enum (a reason, a phase, a sector kind, ...) is published as one
    of its values, so the schema's enum there is exactly the enum's members, in order."""
    schema = load_schema(schema_name)
    for cls in GROUPS[schema_name, event_type]:
        todo: list[tuple[type, dict[str, Any], str]] = [(cls, schema["$defs"][event_type], cls.__qualname__)]
        while todo:
            record, node, where = todo.pop()
            for name, enum in enum_fields(record):
                listed = enum_of_node(schema, node["properties"][name])
                assert listed is not None, f"{where}.{name}: no enum in the schema"
                values = [v for v in listed if v is not None]  # null: an optional field's
                assert values == [m.value for m in enum], f"{where}.{name}: {listed}"
            for name, inner in nested_records(record):
                sub = object_of(schema, node["properties"][name])
                assert sub is not None
                todo.append((inner, sub, f"{where}.{name}"))


@pytest.mark.parametrize("schema_name", ["event", "table_event"])
def test_every_schema_type_has_a_class(schema_name: str) -> None:
    """The other way round: a type in the schema that no class has would be published by
    nobody (every engine and the console's own notices are typed)."""
    declared = set(load_schema(schema_name)["properties"]["type"]["enum"])
    typed = {t for s, t in GROUPS if s == schema_name}
    assert declared - typed == set()
