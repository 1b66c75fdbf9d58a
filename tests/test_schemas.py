"""The MQTT contract: every payload the console publishes fits schemas/, and the schemas fit the code.

Events come from real runs of the referee: `replay_lines` over scenarios that together produce
every event type, every press_ignored reason and every question_ended reason, plus the
runtime's own events from a `Console`. States come from a `Console` walked through every
phase on a hand-stepped clock. The schemas are checked against the code's enums, against each
other, and against docs/mqtt.md (whose examples must validate). One test runs `Console.run`
against a real mosquitto and checks each topic's QoS and retain flag as a display sees them.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import copy
import functools
import io
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator, ValidationError

import console.schemas as schemas
from console.config import Config
from console.engine.corrections import UNDO, CorrectionAction
from console.engine.model import NS_PER_MS, Host, HostAction, Press, Watermark
from console.engine.svoya.events import EndReason
from console.engine.svoya.referee import Phase
from console.engine.svoya.roster import RosterAction
from console.engine.svoya.rules import TiePolicy
from console.games import config_from_dict, game, load_config
from console.games.svoya import texts
from console.schemas import KINDS, load_schema, validate
from console.shell.hall_media import HIDE_MEDIA, SHOW_MEDIA
from console.shell.own_actions import CHECK_BUTTONS, END_CHECK, FREE_SEAT
from console.shell.pack_shelf import CHOOSE_PACK, LIST_PACKS
from console.shell.resume_offer import SHELL_ACTIONS
from console.shell.runtime import Console
from console.sources.mcu import McuFeed
from console.tools.replay import replay_lines
from drivers.mcu_inputs import HeldPads, PadEdge
from drivers.mcu_inputs import Watermark as McuWatermark
from tests.conftest import Broker, until
from tests.support.clock import Clock
from tests.support.demo import DEMO_TOML
from tests.support.resumed_fights import journal_events, offer_events, resumed_events

ROOT = Path(__file__).resolve().parent.parent
MS = NS_PER_MS
Payload = dict[str, Any]

EVENT_SCHEMA = load_schema("event")
EVENT_TYPES: list[str] = EVENT_SCHEMA["properties"]["type"]["enum"]
EVENT_DEFS: dict[str, Any] = EVENT_SCHEMA["$defs"]
STATE_SCHEMA = load_schema("state")


def enum_of(schema: dict[str, Any], *path: str) -> set[Any]:
    node: Any = schema
    for key in path:
        node = node[key]
    return set(node["enum"])


def props(event_type: str) -> dict[str, Any]:
    properties: dict[str, Any] = EVENT_DEFS[event_type]["properties"]
    return properties


# ---------------------------------------------------------------- (a) the schemas themselves


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_a_valid_draft_2020_12_schema(kind: str) -> None:
    schema = load_schema(kind)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].startswith("urn:chgk-console:mqtt:")
    assert schema["title"] and schema["description"]


def _property_maps(node: Any, where: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and "additionalProperties" in node:
            yield where, node["properties"]
        for key, value in node.items():
            yield from _property_maps(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _property_maps(value, f"{where}/{i}")


@pytest.mark.parametrize("kind", KINDS)
def test_every_field_is_described(kind: str) -> None:
    """A display author reads the schema: every field says what it means (or points to a def that does)."""
    schema = load_schema(kind)
    undescribed = [
        f"{where}/{name}"
        for where, properties in _property_maps(schema)
        for name, sub in properties.items()
        if name != "type" and "description" not in sub
        and not ("$ref" in sub and "description" in _resolve(schema, sub["$ref"]))
    ]
    assert undescribed == []


def _resolve(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    assert ref.startswith("#/$defs/"), ref
    target: dict[str, Any] = schema["$defs"][ref.removeprefix("#/$defs/")]
    return target


def test_each_event_type_has_exactly_one_branch() -> None:
    branches = [b["if"]["properties"]["type"]["const"] for b in EVENT_SCHEMA["allOf"]]
    assert branches == EVENT_TYPES
    for name in EVENT_TYPES:
        d = EVENT_DEFS[name]
        assert d["additionalProperties"] is False
        assert d["properties"]["type"] == {"const": name}
        assert {"type", "t_ns", "seq"} <= set(d["required"])
        assert set(d["required"]) <= set(d["properties"])


def test_state_decision_and_end_are_the_event_bodies() -> None:
    """last_decision / last_end are signal_accepted / question_ended without type, t_ns and seq."""
    envelope = {"type", "t_ns", "seq"}
    for state_def, event_type in (("decision", "signal_accepted"), ("end", "question_ended")):
        body = STATE_SCHEMA["$defs"][state_def]
        event = EVENT_DEFS[event_type]
        assert body["properties"] == {k: v for k, v in event["properties"].items() if k not in envelope}
        assert body["required"] == [k for k in event["required"] if k not in envelope]
        rules = {k: event[k] for k in ("if", "then", "else") if k in event}
        assert {k: body[k] for k in ("if", "then", "else") if k in body} == rules
    for name, shared in STATE_SCHEMA["$defs"].items():
        if name in EVENT_DEFS:
            assert shared == EVENT_DEFS[name], f"$defs/{name} differs between state and event schemas"


def test_schema_enums_match_the_code() -> None:
    command = load_schema("command")
    status = load_schema("status")
    plain = {a.value for a in HostAction}
    roster = {a.value for a in RosterAction}
    actions = plain | {a.value for a in CorrectionAction} | {UNDO} | roster
    phases = {p.value for p in Phase}
    assert enum_of(command["oneOf"][0], "properties", "action") == plain
    assert {b["properties"]["action"]["const"] for b in command["oneOf"][1:-4]} == actions - plain - roster
    assert enum_of(command["oneOf"][-4], "properties", "action") == roster
    assert enum_of(command["oneOf"][-3], "properties", "action") == {SHOW_MEDIA, HIDE_MEDIA}
    assert enum_of(command["oneOf"][-2], "properties", "action") == {LIST_PACKS, CHOOSE_PACK}
    assert enum_of(command["oneOf"][-1], "properties", "action") == {*SHELL_ACTIONS, CHECK_BUTTONS, END_CHECK,
                                                                      FREE_SEAT}
    assert enum_of(STATE_SCHEMA, "properties", "phase") == phases
    assert enum_of(STATE_SCHEMA, "properties", "host_actions", "items") == actions | {CHOOSE_PACK}
    details = props("error")["details"]["oneOf"][1]["properties"]
    assert enum_of(details, "action") == actions | {CHOOSE_PACK}
    assert enum_of(details, "phase") == phases
    reasons = {r.value for r in EndReason}
    assert enum_of(props("question_ended"), "reason") == reasons
    assert enum_of(STATE_SCHEMA, "$defs", "end", "properties", "reason") == reasons
    assert enum_of(props("signal_accepted"), "tie_policy") == {t.value for t in TiePolicy}
    assert status["$defs"]["source_state"] == EVENT_DEFS["source_state"]
    # The Russian names displays show exist for every value (console/games/svoya/texts.py).
    assert set(texts.PHASES) == phases
    assert set(texts.ACTIONS) == actions
    assert set(texts.END_REASONS) == reasons
    assert set(texts.IGNORED) == enum_of(props("press_ignored"), "reason")
    assert set(texts.STATUS) == enum_of(STATE_SCHEMA, "properties", "players", "items", "properties",
                                        "status")


def test_every_link_state_has_one_russian_name_on_every_screen() -> None:
    """A source's state and the journal's health read the same in the terminal and on the host's
    screen: the screen is handed console/texts.py's own (PAGE_TEXTS; no script spells them,
    tests/test_host_screen_server.py), and each state a driver can report
    (drivers/link_state.py) is in the schema and has its words."""
    from console.texts import JOURNAL_BACK, JOURNAL_FAILING, PAGE_TEXTS, SOURCE_STATES
    from drivers.link_state import LinkState

    assert PAGE_TEXTS["source_states"] == SOURCE_STATES
    assert (PAGE_TEXTS["journal_failing"], PAGE_TEXTS["journal_back"]) == (JOURNAL_FAILING, JOURNAL_BACK)
    assert set(SOURCE_STATES) == {s.value for s in LinkState}
    assert set(EVENT_DEFS["source_state"]["enum"]) == set(SOURCE_STATES)


def test_source_states_are_link_states_everywhere() -> None:
    """Every state a driver or the console reports is a LinkState (drivers/link_state.py),
    never a string literal that could drift from the schema.

    Found in the code: ``self._set_status(<state>, ...)``, ``self._report_status(...)``,
    ``self._report(...)`` (drivers) and ``report_status(source, <state>, ...)`` (console).
    """
    literals: list[str] = []
    members: set[str] = set()
    for path in [*(ROOT / "drivers").rglob("*.py"), *(ROOT / "console").rglob("*.py")]:
        for call in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            position = {"_set_status": 0, "_report_status": 0, "report_status": 1}.get(call.func.attr)
            if position is None or len(call.args) <= position:
                continue
            arg = call.args[position]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                literals.append(f"{path.relative_to(ROOT)}:{call.lineno}: {arg.value!r}")
            elif isinstance(arg, ast.Attribute) and ast.unparse(arg.value) == "LinkState":
                members.add(arg.attr)
    assert literals == []
    assert members >= {"CONNECTED", "DISCONNECTED", "INCOMPATIBLE", "RESYNCING"}, "update this test"


# ---------------------------------------------------------------- (b) events from the referee

FOUR_PLAYERS_HOST_CLOCK: list[dict[str, Any]] = [
    # Default table: 4 players on mcu:0-3, the host names the answerer, false starts ignored.
    {"at_ms": 500, "press": "mcu:0"},  # false_start (no lockout)
    {"at_ms": 1000, "host": "next"},
    {"at_ms": 4200, "host": "reading_finished"},
    {"at_ms": 5312.25, "press": "mcu:1"},
    {"at_ms": 5312.6, "press": "mcu:3"},  # answerer_chosen, 0.35 ms behind
    {"at_ms": 5600, "host": "name"},
    {"at_ms": 6100, "host": "answer_started"},
    {"at_ms": 8000, "host": "wrong"},
    {"at_ms": 9000, "host": "reset"},
    {"at_ms": 9500, "press": "mcu:1"},  # out_of_question
    {"at_ms": 10200, "press": "mcu:2"},
    {"at_ms": 10200, "host": "name"},
    {"at_ms": 10700, "host": "answer_started"},
    {"at_ms": 11000, "host": "correct"},
    {"at_ms": 12000, "host": "next"},
    {"at_ms": 12500, "press": "mcu:0"},  # interrupts the reading
    {"at_ms": 12500, "press": "mcu:1"},
    {"at_ms": 13000, "host": "short_form"},
    {"at_ms": 13500, "host": "answer_started"},
    {"at_ms": 14000, "host": "wrong"},
    {"at_ms": 14500, "host": "reset"},  # reading not finished: window_ends_ns null
    {"at_ms": 15000, "host": "cancel"},
]

LOCKOUT_TIE_TIMEOUT_GAME_OVER: list[dict[str, Any]] = [
    {"config": {"game": {"false_start": "lockout", "tie_policy": "random", "seed": 7,
                         "values": [10, 20], "themes": 1}}},
    {"at_ms": 500, "press": "mcu:0"},  # false_start with locked_until_ns
    {"at_ms": 1000, "host": "next"},
    {"at_ms": 1800, "press": "mcu:0"},  # false_start_lockout
    {"at_ms": 2400, "press": "mcu:1"},  # a tie in one scan
    {"at_ms": 2400, "press": "mcu:2"},
    {"at_ms": 2700, "host": "short_form"},  # then no answer: timeout
    {"at_ms": 9000, "host": "reset"},
    {"at_ms": 9000, "press": "mcu:9"},  # unknown pad: error with details
    {"at_ms": 9100, "host": "reading_finished"},  # nobody signals: no_signal
    {"at_ms": 30000, "host": "next"},
    {"at_ms": 31000, "host": "reading_finished"},
    {"at_ms": 32000, "press": "mcu:0"},
    {"at_ms": 32100, "host": "name"},
    {"at_ms": 33000, "host": "wrong"},
    {"at_ms": 33000, "press": "mcu:3"},  # before_reset (judged at the reset)
    {"at_ms": 33500, "host": "reset"},
    {"at_ms": 33400, "press": "mcu:1", "arrive_ms": 33600},  # before_reset, arriving late
    {"at_ms": 40000, "host": "next"},  # refused: a question is in play; then no_signal, game_over
    {"at_ms": 41000, "press": "mcu:2"},  # after the game: false_start
    {"at_ms": 42000, "host": "next"},  # refused: the fight is over
    {"at_ms": 43000, "host": "new_game"},
]

TWO_PLAYERS_LAMP_CLOCK: list[dict[str, Any]] = [
    {"config": {"players": [{"id": "anna", "name": "Анна", "pad": "mcu:0"},
                            {"id": "boris", "name": "Борис", "pad": "mcu:1"}],
                "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}},
                "game": {"answer_clock": "lamp", "values": [10, 20, 30]}}},
    {"at_ms": 1000, "host": "next"},
    {"at_ms": 2000, "host": "reading_finished"},
    {"at_ms": 2500, "press": "mcu:0"},
    # Happened before the winner's press but arrived after the decision (beyond the declared
    # 5 ms delay): answerer_chosen with a negative behind_ms. The schema must allow it.
    {"at_ms": 2499, "press": "mcu:1", "arrive_ms": 2510},
    {"at_ms": 3000, "host": "answer_started"},
    {"at_ms": 3500, "host": "wrong"},
    {"at_ms": 3600, "host": "reset"},
    {"at_ms": 4000, "press": "mcu:1"},
    {"at_ms": 4100, "host": "wrong"},  # all_wrong
    {"at_ms": 5000, "host": "next"},
    {"at_ms": 5500, "host": "reading_finished"},
    {"at_ms": 12501, "press": "mcu:1"},  # late; then no_signal
    {"at_ms": 12499, "press": "mcu:0", "arrive_ms": 12520},  # window_closed
    {"at_ms": 20000, "host": "next"},
    {"at_ms": 20100, "host": "cancel"},
    {"at_ms": 20099, "press": "mcu:0", "arrive_ms": 20102},  # question_cancelled
    {"at_ms": 20200, "host": "correct"},  # refused: nobody has the turn
    {"at_ms": 21000, "host": "new_game"},
]

PAD_ORDER_TIE_ON_GPIO_AND_MCU: list[dict[str, Any]] = [
    {"config": {"players": [{"id": "a", "name": "Анна", "pad": "mcu:0"},
                            {"id": "b", "name": "Борис", "pad": "mcu:1"},
                            {"id": "c", "name": "Вера", "pad": "gpio:0"}],
                "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2},
                            "gpio": {"kind": "gpio", "pins": [17], "max_delay_ms": 10}},
                "game": {"tie_policy": "pad_order", "themes": 1, "values": [10]}}},
    {"at_ms": 1000, "host": "next"},
    {"at_ms": 1500, "host": "reading_finished"},
    {"at_ms": 2000, "press": "gpio:0"},
    {"at_ms": 2000, "press": "mcu:1"},
    {"at_ms": 2100, "host": "name"},
    {"at_ms": 2200, "host": "answer_started"},
    {"at_ms": 2300, "host": "correct"},  # the only question: game_over
]

CORRECTIONS: list[dict[str, Any]] = [
    # «Своя игра»'s corrections (004 4.1-4.3): a score changed by hand, a judgement reversed.
    {"config": {"game": {"values": [10, 20], "themes": 1}}},
    {"at_ms": 1000, "host": "adjust_score", "player": "p2", "delta": -5, "reason": "фальстарт вне кнопки"},
    {"at_ms": 2000, "host": "next"},
    {"at_ms": 2100, "press": "mcu:0"},
    {"at_ms": 2200, "host": "name"},
    {"at_ms": 2300, "host": "correct"},
    {"at_ms": 3000, "host": "reverse", "reason": "ответ неточен"},  # now wrong: nobody took it
    {"at_ms": 4000, "host": "next"},
    {"at_ms": 4100, "press": "mcu:1"},
    {"at_ms": 4200, "host": "name"},
    {"at_ms": 4300, "host": "wrong"},
    {"at_ms": 4400, "host": "reset"},
    {"at_ms": 4500, "host": "cancel"},  # withdrawn after a wrong answer
    {"at_ms": 5000, "host": "reverse", "reason": "вопрос снят"},  # refused: withdrawn
    {"at_ms": 6000, "host": "next"},
    {"at_ms": 6100, "press": "mcu:2"},
    {"at_ms": 6200, "host": "name"},
    {"at_ms": 6300, "host": "wrong"},
    {"at_ms": 6400, "host": "reset"},
    {"at_ms": 6500, "host": "reading_finished"},  # nobody else: no_signal, game_over
    {"at_ms": 20000, "host": "reverse", "reason": "дуальный ответ"},  # now correct: p3 took it
    {"at_ms": 21000, "host": "new_game"},
    {"at_ms": 22000, "host": "next"},
    {"at_ms": 22100, "press": "mcu:0"},
    {"at_ms": 22200, "host": "name"},
    {"at_ms": 22300, "host": "wrong"},
    {"at_ms": 22400, "host": "undo", "reason": "нажал не ту кнопку"},  # p1 answers again
    {"at_ms": 22500, "host": "correct"},
]

LOST_BOX: list[dict[str, Any]] = [
    # The box unplugged in the window: held, back with a press it kept (signals_held, _resumed);
    # then lost again and waited for in vain (given_up), the question decided without it.
    {"config": {"game": {"values": [10, 20], "themes": 1, "lost_source_wait_s": 5.0}}},
    {"at_ms": 1000, "host": "next"},
    {"at_ms": 2000, "host": "reading_finished"},
    {"at_ms": 3000, "link": "mcu", "up": False},
    {"at_ms": 7500, "link": "mcu", "up": True},
    {"at_ms": 5000, "press": "mcu:1", "arrive_ms": 7501},  # stamped in time, sent again
    {"at_ms": 7501, "watermark": "mcu"},
    {"at_ms": 7600, "host": "name"},
    {"at_ms": 7700, "host": "correct"},
    {"at_ms": 13000, "host": "next"},
    {"at_ms": 14000, "host": "reading_finished"},
    {"at_ms": 15000, "link": "mcu", "up": False},  # gone for good: the wait ends, the host asked
    {"at_ms": 22000, "host": "end_question"},  # decided without it
    {"at_ms": 30000, "host": "next"},  # refused: the fight is over
]

PACK_FIGHTS: list[dict[str, Any]] = [
    # A theme skipped, and a next fight that goes on from the next theme (issue 19).
    {"config": {"game": {"values": [10, 20], "themes": 2}}},
    {"at_ms": 1000, "host": "next"},
    {"at_ms": 1100, "press": "mcu:0"},
    {"at_ms": 1200, "host": "name"},
    {"at_ms": 1300, "host": "correct"},
    {"at_ms": 2000, "host": "skip_theme"},  # theme 1's 20 is not played
    {"at_ms": 3000, "host": "skip_theme"},  # nor theme 2: the fight is over
    {"at_ms": 4000, "host": "next_fight"},  # on from theme 3
    {"at_ms": 5000, "host": "next"},
]

ROSTER: list[dict[str, Any]] = [
    # The players from the tablet, between questions (issue 19).
    {"config": {"players": [{"id": "p1", "name": "Игрок 1", "pad": "mcu:0"},
                            {"id": "p2", "name": "Игрок 2", "pad": "mcu:1"},
                            {"id": "p3", "name": "Игрок 3", "pad": "mcu:2"}]}},
    {"at_ms": 1000, "host": "rename_player", "player": "p1", "name": "Аня"},
    {"at_ms": 2000, "host": "remove_player", "player": "p3"},
    {"at_ms": 3000, "host": "add_player", "name": "Вера"},  # her button: the next free one pressed
    {"at_ms": 4000, "press": "mcu:3"},
    {"at_ms": 5000, "host": "bind_pad", "player": "p1"},
    {"at_ms": 6000, "press": "mcu:2"},  # the button p3 left
    {"at_ms": 7000, "host": "next"},
    {"at_ms": 7100, "press": "mcu:3"},
    {"at_ms": 7200, "host": "name"},
    {"at_ms": 7300, "host": "correct"},
]

PACK_CHOSEN: list[dict[str, Any]] = [
    # A pack and its round chosen on the tablet, as the journal writes it (issue 19).
    {"at_ms": 1000, "host": "choose_pack", "file": "/packs/evening.siq", "name": "Вечер", "round": 2,
     "round_name": "Второй раунд", "start": 1,
     "themes": [{"name": "Реки", "cards": [{"value": 10, "text": "Самая длинная?", "answer": "Нил"}]},
                {"name": "Горы", "cards": [{"value": 20, "text": "Самая высокая?", "answer": "Эверест",
                                            "media": ["горы.png"]}]}]},
    {"at_ms": 2000, "host": "next"},
]

SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "pack_chosen": PACK_CHOSEN,
    "pack_fights": PACK_FIGHTS,
    "roster": ROSTER,
    "four_players_host_clock": FOUR_PLAYERS_HOST_CLOCK,
    "lost_box": LOST_BOX,
    "corrections": CORRECTIONS,
    "lockout_tie_timeout_game_over": LOCKOUT_TIE_TIMEOUT_GAME_OVER,
    "two_players_lamp_clock": TWO_PLAYERS_LAMP_CLOCK,
    "pad_order_tie_on_gpio_and_mcu": PAD_ORDER_TIE_ON_GPIO_AND_MCU,
}


def replay(name: str) -> list[Payload]:
    """The events `chgk-console replay` prints for a scenario, parsed."""
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines([json.dumps(step) for step in SCENARIOS[name]], name, out, err)
    assert (status, err.getvalue()) == (0, "")
    return [json.loads(line) for line in out.getvalue().splitlines()]


def demo_config() -> Config:
    return load_config(DEMO_TOML)


def small_config(**game_section: Any) -> Config:
    return config_from_dict({**game("svoya").scenario_defaults, "game": game_section}, "test")


def console_events() -> list[Payload]:
    """The events only the runtime publishes: source status, driver errors, bad host commands."""
    clock = Clock()
    console = Console(demo_config(), clock=clock)
    seen: list[Payload] = []
    console.wire_watchers.append(seen.append)
    for state in sorted(enum_of(EVENT_DEFS, "source_state")):
        clock.now += 10 * MS
        console.sources.report_status("sim", state, f"the simulated MCU is {state}")
    console.report_error("sim", "frame with a bad CRC dropped")
    for payload in (b'{"action": "next"}', b'{"action": "dance"}', b"[1]", b"\xff"):
        clock.now += 10 * MS
        console.commands.on_command(payload)
    # A button held down past [console] held_button_s, then seen up by the box's HEARTBEAT.
    console.sources.button_edge("sim", "sim:2", True, clock.now)
    clock.now += round(console.config.console.held_button_s * 1000) * MS
    console.sources.on_held_timer()
    clock.now += 2000 * MS
    McuFeed(console.sources, "sim").held(HeldPads((), clock.now))
    return seen


def held_events() -> list[Payload]:
    """The console held up past the window's end, then reading a press made before it
    (tests/test_console_held.py): its ``console_held`` notice."""
    clock = Clock()
    console = Console(demo_config(), clock=clock)
    seen: list[Payload] = []
    console.wire_watchers.append(seen.append)
    console.host(HostAction.NEXT)
    console.host(HostAction.READING_FINISHED)
    due = console.referee.next_deadline()
    assert due is not None
    clock.now = due + 1000 * MS
    feed = McuFeed(console.sources, "sim")
    feed.edge(PadEdge((0,), True, due - 100 * MS, 0, 0))
    feed.watermark(McuWatermark(due - 100 * MS))
    return [e for e in seen if e["type"] == "console_held"]


@functools.cache
def corpus() -> tuple[Payload, ...]:
    """Every event of every scenario, plus the runtime's own."""
    events = [e for name in SCENARIOS for e in replay(name)]
    return tuple(events + console_events() + held_events() + resumed_events("svoya")
                 + journal_events(demo_config()) + offer_events(demo_config()))


def samples() -> dict[str, Payload]:
    """One real event of each type (the first seen)."""
    first: dict[str, Payload] = {}
    for e in corpus():
        first.setdefault(e["type"], e)
    return first


@pytest.mark.parametrize("name", SCENARIOS)
def test_replayed_events_fit_the_schema(name: str) -> None:
    events = replay(name)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    for e in events:
        validate("event", e)


def test_runtime_events_fit_the_schema() -> None:
    events = console_events()
    assert {e["type"] for e in events} == {"source_status", "error", "question_started", "button_held"}
    assert any("source" in e for e in events if e["type"] == "error")
    for e in events:
        validate("event", e)


def test_every_event_type_is_produced_and_every_produced_type_has_a_schema() -> None:
    assert {e["type"] for e in corpus()} == set(EVENT_TYPES)


def test_every_enumerated_event_value_is_produced() -> None:
    """Each reason/by/policy value in the schema occurs in the runs, and no other does."""
    checked = 0
    for name in EVENT_TYPES:
        for field_name, spec in props(name).items():
            if "enum" not in spec:
                continue
            seen = {e[field_name] for e in corpus() if e["type"] == name and field_name in e}
            assert seen == set(spec["enum"]), f"{name}.{field_name}"
            checked += 1
    assert checked >= 5
    errors = [e for e in corpus() if e["type"] == "error"]
    assert {frozenset(e.get("details", {})) for e in errors} == {
        frozenset({"source", "pad", "at_ns"}), frozenset({"action", "phase", "reason", "code"}), frozenset()}


def test_optional_fields_are_produced_where_the_schema_says() -> None:
    ignored = [e for e in corpus() if e["type"] == "press_ignored"]
    assert any("locked_until_ns" in e for e in ignored)
    assert any(e["reason"] == "false_start" and "locked_until_ns" not in e for e in ignored)
    accepted = [e for e in corpus() if e["type"] == "signal_accepted"]
    assert {e["tie"] for e in accepted} == {True, False}
    assert {e["stop_reading"] for e in accepted} == {True, False}
    resets = [e for e in corpus() if e["type"] == "signals_reset"]
    assert {e["window_ends_ns"] is None for e in resets} == {True, False}


# ---------------------------------------------------------------- (c) the state snapshot


class Walk:
    """A Console fed by hand outside an event loop (no timers armed: every input fires what is due)."""

    def __init__(self, config: Config) -> None:
        self.clock = Clock()
        self.console = Console(config, clock=self.clock)
        self.events: list[Payload] = []
        self.states: list[Payload] = []
        self.console.wire_watchers.append(self.events.append)
        self.check()

    def check(self) -> Payload:
        state = self.console.state()
        validate("state", state)
        self.states.append(state)
        return state

    def host(self, action: str, after_ms: float = 100) -> Payload:
        self.clock.now += round(after_ms * MS)
        self.console.feed([Host(HostAction(action), self.clock.now)])
        return self.check()

    def press(self, *pads: str, after_ms: float = 100) -> Payload:
        self.clock.now += round(after_ms * MS)
        source = pads[0].split(":")[0]
        self.console.feed([*(Press(source, pad, self.clock.now) for pad in pads),
                           Watermark(source, self.clock.now)])
        return self.check()

    def do(self, step: str) -> Payload:
        """A host action ("next") or a press on a pad ("sim:0")."""
        return self.press(step) if ":" in step else self.host(step)

    def wait(self, ms: float) -> Payload:
        """Let time pass; a heartbeat watermark makes the referee fire what is due."""
        self.clock.now += round(ms * MS)
        source = next(iter(self.console.config.sources))
        self.console.feed([Watermark(source, self.clock.now)])
        return self.check()


def test_state_through_every_phase() -> None:
    w = Walk(demo_config())
    assert w.states[0]["phase"] == "idle" and w.states[0]["seq"] == 0
    assert w.host("next")["question"]["reading"] == "in_progress"
    st = w.press("sim:1")
    assert (st["phase"], st["question"]["reading"], st["timer"]) == ("answering", "stopped", None)
    assert w.host("name")["timer"]["kind"] == "answer"
    st = w.host("wrong")
    assert (st["phase"], st["question"]["out"], st["timer"]) == ("await_reset", ["p2"], None)
    assert w.host("reset")["phase"] == "reading"
    st = w.host("reading_finished")
    assert (st["phase"], st["timer"]["kind"], st["timer"]["remaining_ms"]) == ("open", "signal", 7000)
    assert w.wait(2500)["timer"]["remaining_ms"] == 4500
    st = w.press("sim:0", "sim:2")
    assert st["last_decision"]["tie"] is True and st["question"]["answerer"] in ("p1", "p3")
    w.host("name")
    assert w.host("answer_started")["timer"] is None
    st = w.host("correct")
    assert (st["phase"], st["last_end"]["reason"], st["question"]) == ("idle", "correct", None)
    w.host("next")
    assert w.host("cancel")["last_end"]["reason"] == "cancelled"
    st = w.host("new_game")
    assert (st["last_end"], st["last_decision"], st["next"]["number"]) == (None, None, 1)
    for e in w.events:
        validate("event", e)
    assert [s["seq"] for s in w.states] == sorted(s["seq"] for s in w.states)


def test_state_with_timeouts_and_game_over() -> None:
    w = Walk(small_config(answer_clock="lamp", false_start="lockout", themes=1, values=[10]))
    w.press("mcu:3")  # a false start: locked out, nothing else changes
    w.host("next")
    w.host("reading_finished")
    st = w.press("mcu:0")
    assert st["timer"]["kind"] == "answer" and st["timer"]["remaining_ms"] == 3000
    st = w.wait(3100)  # the 3 s ran out: judged wrong
    assert (st["phase"], st["timer"]["kind"], st["players"][0]["status"]) == ("await_reset", "signal", "out")
    st = w.wait(7000)  # nobody reset in time: the window closed
    assert (st["phase"], st["next"], st["timer"]) == ("game_over", None, None)
    assert st["last_end"]["reason"] == "no_signal"
    for e in w.events:
        validate("event", e)


def test_every_enumerated_state_value_is_produced() -> None:
    w1 = Walk(demo_config())
    for step in ("next", "sim:1", "name", "wrong", "reset", "reading_finished", "sim:2", "wrong",
                 "reset", "sim:0", "correct"):
        w1.do(step)
    w2 = Walk(small_config(themes=1, values=[10]))
    for step in ("next", "cancel", "next", "mcu:0", "correct"):
        w2.do(step)
    states = w1.states + w2.states
    p = STATE_SCHEMA["properties"]
    assert {s["phase"] for s in states} == set(p["phase"]["enum"])
    assert {pl["status"] for s in states for pl in s["players"]} == set(
        p["players"]["items"]["properties"]["status"]["enum"])
    assert {s["question"]["reading"] for s in states if s["question"]} == set(
        p["question"]["properties"]["reading"]["enum"])
    assert {s["timer"]["kind"] for s in states if s["timer"]} == set(p["timer"]["properties"]["kind"]["enum"])


def test_a_bad_host_command_changes_nothing_but_says_what_was_wrong() -> None:
    w = Walk(demo_config())
    w.host("next")
    before = w.check()
    for payload in (b'{"action": "dance"}', b"{}", b'{"action": "next", "x": 1}', b"not json"):
        w.console.commands.on_command(payload)
        error = w.events[-1]
        validate("event", error)
        assert (error["type"], error["source"]) == ("error", "mqtt")
        assert {**w.check(), "seq": before["seq"]} == before
    assert "'dance' is not a valid HostAction" in w.events[-4]["message"]
    assert "unknown key(s) x" in w.events[-2]["message"]


# ---------------------------------------------------------------- (d) what the schemas refuse


def invalid(kind: str, payload: Any) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        validate(kind, payload)
    error: ValidationError = caught.value
    return error


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_an_event_missing_a_required_field_or_with_an_extra_one_fails(event_type: str) -> None:
    sample = samples()[event_type]
    validate("event", sample)
    for field_name in EVENT_DEFS[event_type]["required"]:
        broken = {k: v for k, v in sample.items() if k != field_name}
        assert field_name in invalid("event", broken).message or field_name == "type"
    invalid("event", {**sample, "extra": 1})
    invalid("event", {**sample, "t_ns": sample["t_ns"] + 0.5})  # ns are integers
    invalid("event", {**sample, "seq": 0})


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda e: e.update(type="signal_acepted"), "an unknown type"),
        (lambda e: e.update(player=2), "player ids are strings"),
        (lambda e: e.update(tie=True), "a tie names its policy and the tied players"),
        (lambda e: e["presses"][0].update(extra=1), "an extra field in a press"),
        (lambda e: e["presses"][0].update(behind_ms="0"), "behind_ms is a number"),
        (lambda e: e.update(presses=[]), "the winner's press is listed"),
    ],
)
def test_signal_accepted_refusals(change: Callable[[Payload], None], why: str) -> None:
    event = copy.deepcopy(next(e for e in corpus() if e["type"] == "signal_accepted" and not e["tie"]))
    validate("event", event)
    change(event)
    invalid("event", event)


def test_conditional_fields_are_enforced() -> None:
    s = samples()
    invalid("event", {**s["question_ended"], "reason": "correct", "winner": None})
    invalid("event", {**s["question_ended"], "reason": "cancelled", "winner": "p1"})
    ignored = next(e for e in corpus() if e["type"] == "press_ignored" and e["reason"] == "answerer_chosen")
    invalid("event", {k: v for k, v in ignored.items() if k != "behind_ms"})
    invalid("event", {**ignored, "reason": "late"})  # behind_ms only with answerer_chosen
    invalid("event", {**ignored, "reason": "late", "locked_until_ns": 1})
    invalid("event", {**s["answer_judged"], "by": "timeout", "correct": True})
    error = s["error"]
    invalid("event", {**error, "source": "mqtt", "details": {"action": "next", "phase": "idle"}})
    invalid("event", {k: v for k, v in error.items() if k not in ("source", "details")})
    invalid("event", {**error, "details": {"action": "next", "phase": "idle", "extra": 1}})
    invalid("event", {"t_ns": 1, "seq": 1})


def test_state_refusals() -> None:
    state = Walk(demo_config()).host("next")
    validate("state", state)
    for key in STATE_SCHEMA["required"]:
        invalid("state", {k: v for k, v in state.items() if k != key})
    invalid("state", {**state, "extra": 1})
    invalid("state", {**state, "phase": "paused"})
    invalid("state", {**state, "players": [{**state["players"][0], "extra": 1}, *state["players"][1:]]})
    invalid("state", {**state, "timer": {"kind": "signal", "ends_ns": 1, "remaining_ms": -1}})
    invalid("state", {**state, "question": {**state["question"], "answerer": 3}})


def test_status_payloads() -> None:
    online = {"state": "online", "sources": {"sim": "connected"}, "node": "demo", "game": "svoya",
              "seed": 12345}
    validate("status", online)
    validate("status", {**online, "state": "offline"})  # a clean stop
    validate("status", {"state": "offline"})  # the last will
    invalid("status", {"state": "online"})
    invalid("status", {k: v for k, v in online.items() if k != "node"})
    invalid("status", {**online, "extra": 1})
    invalid("status", {**online, "sources": {"sim": "on fire"}})
    invalid("status", {"state": "asleep"})


@pytest.mark.parametrize("action", [a.value for a in HostAction])
def test_command_accepts_each_action(action: str) -> None:
    validate("command", {"action": action})


def test_command_takes_the_corrections_with_their_arguments() -> None:
    validate("command", {"action": "adjust_score", "player": "p1", "delta": -10, "reason": "апелляция"})
    validate("command", {"action": "reverse", "reason": "дуальный ответ"})
    for bad in ({"action": "adjust_score", "player": "p1", "delta": 0, "reason": "x"},
                {"action": "adjust_score", "player": "p1", "delta": 10},
                {"action": "adjust_score", "player": "p1", "delta": 1.5, "reason": "x"},
                {"action": "reverse"}, {"action": "reverse", "reason": ""},
                {"action": "reverse", "reason": "x", "player": "p1"}, {"action": "next", "reason": "x"}):
        invalid("command", bad)


@pytest.mark.parametrize(
    "payload",
    [{"action": "dance"}, {}, {"action": "next", "x": 1}, {"action": None}, {"action": 1},
     {"action": ["next"]}, {"Action": "next"}, {"action": "NEXT"}],
)
def test_command_refuses(payload: Payload) -> None:
    invalid("command", payload)


@pytest.mark.parametrize(
    "text",
    ['{"action":"correct"}', '{"action": "dance"}', "{}", '{"action":"next","x":1}', '{"action":null}',
     '{"action":["next"]}', '"next"', "[]", " {\"action\" : \"wrong\"} "],
)
def test_command_schema_agrees_with_the_console(text: str) -> None:
    """The schema accepts a command exactly when the console takes it (no error from source mqtt)."""
    console = Console(demo_config(), clock=Clock())
    seen: list[Payload] = []
    console.wire_watchers.append(seen.append)
    console.commands.on_command(text.encode())
    refused = any(e["type"] == "error" and e.get("source") == "mqtt" for e in seen)
    try:
        validate("command", json.loads(text))
        fits = True
    except ValidationError:
        fits = False
    assert fits == (not refused)


def test_the_validate_helper() -> None:
    with pytest.raises(ValueError, match="unknown schema 'events'"):
        load_schema("events")
    with pytest.raises(ValueError, match="unknown schema"):
        validate("nope", {})
    assert load_schema("command") is not load_schema("command")  # a fresh dict each time


def test_schemas_outside_the_source_tree_say_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(schemas, "SCHEMAS_DIR", tmp_path / "site-packages" / "schemas")
    with pytest.raises(FileNotFoundError, match="only in the chgk-console source tree"):
        load_schema("event")
    with pytest.raises(FileNotFoundError, match="only in the chgk-console source tree"):
        validate("event", {})


# ---------------------------------------------------------------- the wire


class Subscriber:
    """Keeps every message it gets: (topic, payload, qos, retain)."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self.client = client
        self.got: list[tuple[str, Payload, int, bool]] = []

    async def pump(self) -> None:
        async for m in self.client.messages:
            assert isinstance(m.payload, bytes)
            self.got.append((str(m.topic), json.loads(m.payload), m.qos, m.retain))

    def on(self, topic: str) -> list[Payload]:
        return [p for t, p, _, _ in self.got if t == topic]


@contextlib.asynccontextmanager
async def subscriber(broker: Broker, *topics: str) -> AsyncIterator[Subscriber]:
    async with aiomqtt.Client(broker.host, broker.port) as client:
        for topic in topics:
            await client.subscribe(topic, qos=2)  # delivered at the QoS it was published with
        sub = Subscriber(client)
        task = asyncio.create_task(sub.pump())
        try:
            yield sub
        finally:
            task.cancel()


async def test_topics_qos_and_retain_on_a_real_broker(mosquitto: Broker) -> None:
    """What docs/mqtt.md promises per topic, seen by a display; every payload fits its schema."""
    console = Console(demo_config())
    t = console.topics
    ready = asyncio.Event()
    task = asyncio.create_task(console.run(mosquitto.host, mosquitto.port, on_ready=ready.set))
    try:
        await asyncio.wait_for(ready.wait(), 5)
        async with subscriber(mosquitto, t.events, t.state, t.status) as live:
            console.sources.report_status("sim", "connected", "The simulated MCU is connected.")
            await live.client.publish(t.command, b'{"action": "next"}', qos=1)
            await until(lambda: any(e["type"] == "question_started" for e in live.on(t.events)))
            now = time.monotonic_ns()
            console.feed([Press("sim", "sim:2", now), Watermark("sim", now)])
            await live.client.publish(t.command, b'{"action": "dance"}', qos=1)
            await live.client.publish(t.command, b'{"action": "name"}', qos=1)
            await until(lambda: any(s["timer"] for s in live.on(t.state)))
            async with subscriber(mosquitto, f"{t.status.rsplit('/', 1)[0]}/#") as late:
                await until(lambda: late.on(t.state) and late.on(t.status))
                await until(lambda: late.on(t.host_state))
                await until(lambda: late.on(t.host_notices))
                assert {(topic, retain) for topic, _, _, retain in late.got} == {
                    (t.state, True), (t.status, True), (t.host_state, True), (t.host_notices, True)}
                (kept,) = late.on(t.host_notices)
                assert [n["event"]["type"] for n in kept["notices"]] == ["source_status", "error"]
                validate("notices", kept)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await until(lambda: live.on(t.status) and live.on(t.status)[-1]["state"] == "offline")
    finally:
        task.cancel()
    kinds = {t.events: "event", t.state: "state", t.status: "status"}
    for topic, payload, qos, _ in live.got:
        # One QoS per topic: events, state and status all at QoS 1 (docs/mqtt.md).
        assert qos == 1, topic
        validate(kinds[topic], payload)
    events = live.on(t.events)
    assert [e["type"] for e in events] == ["source_status", "question_started", "signal_accepted", "error",
                                           "answer_clock_started"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert {s["seq"] for s in live.on(t.state)} <= {0} | {e["seq"] for e in events}
    offline = live.on(t.status)[-1]
    assert (offline["sources"], offline["node"], offline["game"]) == ({"sim": "connected"}, "demo", "svoya")


# ---------------------------------------------------------------- docs/mqtt.md

DOC = ROOT / "docs" / "mqtt.md"
EXAMPLE = re.compile(r"<!-- example: (\w+) -->\s*```json\n(.*?)```", re.S)


def doc_examples() -> list[tuple[str, Payload]]:
    return [(kind, json.loads(body)) for kind, body in EXAMPLE.findall(DOC.read_text(encoding="utf-8"))]


def test_doc_examples_fit_the_schemas() -> None:
    examples = doc_examples()
    assert {kind for kind, _ in examples} == set(KINDS)
    for kind, payload in examples:
        validate(kind, payload)


def test_doc_covers_every_event_type_and_action() -> None:
    text = DOC.read_text(encoding="utf-8")
    documented = {p["type"] for kind, p in doc_examples() if kind == "event"}
    assert documented == set(EVENT_TYPES)
    for name in EVENT_TYPES:
        assert f"### `{name}`" in text
        for field_name in props(name):
            assert f"`{field_name}`" in text, f"{name}.{field_name} is not in the doc"
    for action in [*(a.value for a in HostAction), *(a.value for a in CorrectionAction), UNDO]:
        assert f"`{action}`" in text
    for reason in enum_of(props("press_ignored"), "reason") | enum_of(props("question_ended"), "reason"):
        assert f"`{reason}`" in text
