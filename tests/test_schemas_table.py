"""The table's MQTT contract: every payload the «Что? Где? Когда?» table publishes fits schemas/table_*.

Events come from replaying examples/table-*.jsonl (written by the builders in this module from the
seeded simulated top: ``python -m tests.test_schemas_table`` rewrites them) and from targeted runs
of what the replays cannot produce: the runtime's own events (a `Console` on the demo table) and
the sports timer. States come from a `Console` fed by hand outside an event loop. The command
schema is checked against `parse_command`, the game record against the file the console keeps,
and docs/mqtt-table.md against all of them (its examples must be real output and validate).
"""

from __future__ import annotations

import copy
import functools
import io
import itertools
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError

from console.config import Config
from console.engine.chgk.events import (
    TABLE_EVENTS,
    HostCommandRefused,
    TableCommandRefused,
)
from console.engine.chgk.referee import Phase
from console.engine.chgk.rules import ChgkAction, HelpKind, Stage
from console.engine.chgk.table import TableGame
from console.engine.model import NS_PER_MS, NS_PER_S
from console.engine.spin.detector import AngleSample, SpinPhase, fault_flags
from console.engine.spin.events import TOP_EVENTS
from console.engine.sports.sheet import Sheet, SheetAction, SheetEdit, SheetRules, TeamEntry
from console.engine.sports.stage import SportsStage
from console.engine.sports.timer import SportsAction, SportsHost, SportsPhase, SportsRules, SportsTimer
from console.games import load_config
from console.games.chgk.config import TableSection
from console.games.chgk.kind import PICK_SECTOR
from console.games.chgk.kind import parse_command as parse_chgk_command
from console.games.chgk.texts import DESCRIBED, describe_table, read_table_event
from console.schemas import ALL_KINDS, KINDS, TABLE_KINDS, load_schema, validate
from console.shell.mqtt_wire import Topics
from console.shell.resume_offer import SHELL_ACTIONS
from console.shell.runtime import Console
from console.tools.replay import replay_lines
from console.wire import event_json, events_json
from drivers.sim_top import SimTop, SpinTruth
from tests.support.clock import Clock
from tests.support.demo import DEMO_CHGK
from tests.support.resumed_fights import journal_events, offer_events, resumed_events

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES_DIR = ROOT / "examples"
DOC = ROOT / "docs" / "mqtt-table.md"
S = NS_PER_S
MS = NS_PER_MS
Payload = dict[str, Any]

EVENT_SCHEMA = load_schema("table_event")
EVENT_TYPES: list[str] = EVENT_SCHEMA["properties"]["type"]["enum"]
EVENT_DEFS: dict[str, Any] = EVENT_SCHEMA["$defs"]
STATE_SCHEMA = load_schema("table_state")
COMMAND_SCHEMA = load_schema("table_command")
RECORD_SCHEMA = load_schema("record")
HOST_ONLY = {name for name in EVENT_TYPES if "audience" in EVENT_DEFS[name]["required"]}


def props(event_type: str) -> dict[str, Any]:
    properties: dict[str, Any] = EVENT_DEFS[event_type]["properties"]
    return properties


def enum_of(node: Any, *path: str) -> list[Any]:
    for key in path:
        node = node[key]
    values: list[Any] = node["enum"]
    return values


# ---------------------------------------------------------------- the table's example scenarios
#
# examples/table-*.jsonl are written by `python -m tests.test_schemas_table` from the builders
# below (the angle samples come from the seeded simulated top at 100 Hz), and a test checks
# that the files are what the builders give.

RATE_HZ = 100.0  # the samples in the examples: enough for the detector, small files
TEAMS = [{"id": "t1", "name": "Совы"}, {"id": "t2", "name": "Ежи"},
         {"id": "t3", "name": "Гости", "main": False}, {"id": "t4", "name": "Лисы"}]
DEMO_TABLE = {"rules": "tto", "stage": "qualifier", "blitz": [3], "superblitz": [9], "duplet": [6],
              "zeitnot": [12], "sector12": [8], "fortochka": 5, "team": "t1", "seed": 1}
ON_CHANGE = {"silence_ms": 0}  # the examples keep only the samples around the spins: no watchdog

Line = tuple[int, dict[str, Any]]  # (at ns, the step without at_ms)


def header(table: dict[str, Any], spin: dict[str, Any] | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {"game": {"kind": "chgk"}, "table": table, "teams": TEAMS}
    if spin is not None:
        config["spin"] = spin
    return {"config": config}


def aimed_top(seed: int, rest_deg: float, at_ns: int, duration_s: float, direction: int = 1
              ) -> tuple[SimTop, SpinTruth]:
    """A seeded simulated top whose spin at `at_ns` comes to rest at table angle `rest_deg`."""
    probe = SimTop(seed=seed, rate_hz=RATE_HZ, start_deg=0.0)
    rotation = probe.spin(at_ns, duration_s=duration_s, direction=direction).rotation_deg
    top = SimTop(seed=seed, rate_hz=RATE_HZ, start_deg=(rest_deg - rotation) % 360.0)
    return top, top.spin(at_ns, duration_s=duration_s, direction=direction)


def angles(top: SimTop, start_ns: int, end_ns: int) -> list[Line]:
    return [(t, {"angle": raw, **({"status": status} if status != 1 else {})})
            for t, raw, status in top.samples(start_ns, end_ns)]


def host(at_ms: int, action: str, **args: Any) -> Line:
    return at_ms * MS, {"host": action, **args}


def write_scenario(head: dict[str, Any], lines: list[Line]) -> str:
    rows = [json.dumps(head, ensure_ascii=False)]
    for at, step in sorted(lines, key=lambda line: line[0]):  # stable: same time keeps its order
        at_ms: float | int = at // MS if at % MS == 0 else at / MS
        rows.append(json.dumps({"at_ms": at_ms, **step}, ensure_ascii=False))
    return "\n".join(rows) + "\n"


def after(truth: SpinTruth, ms: int) -> int:
    """A round time `ms` after the top really stopped (ms)."""
    return (truth.stopped_ns // (100 * MS) + 1) * 100 + ms


def example_spin_round() -> str:
    """A full round from a spin: the angle stream, the stop, sector 7, «Время!», the minute, the verdict."""
    top, truth = aimed_top(seed=11, rest_deg=195.0, at_ns=1 * S, duration_s=4.0)
    t0 = after(truth, 2000)
    return write_scenario(header(DEMO_TABLE, ON_CHANGE), [
        *angles(top, 0, truth.stopped_ns + 600 * MS),
        host(t0, "start_timer"),  # the warning at 50 s, the time up at 60 s
        host(t0 + 63_000, "answer_correct"),
    ])


def example_boundary() -> str:
    """A stop 0.7° before the boundary of sectors 10 and 11: the host confirms 10 with pick_sector;
    a nudge of the arrow changes nothing; an early answer; then a push too short to be a spin."""
    top, truth = aimed_top(seed=12, rest_deg=299.3, at_ns=1 * S, duration_s=3.0)
    t0 = after(truth, 3000)
    nudge = top.nudge((t0 + 2000) * MS, 4.0, duration_s=0.3)
    push_at = (t0 + 20_000) * MS
    pushed = top.nudge(push_at, 200.0, duration_s=0.6)
    return write_scenario(header(DEMO_TABLE, ON_CHANGE), [
        *angles(top, 0, truth.stopped_ns + 600 * MS),
        host(t0, "pick_sector", sector=10),
        *angles(top, (t0 + 1800) * MS, nudge + 500 * MS),
        host(t0 + 5000, "early_answer"),
        host(t0 + 9000, "answer_correct"),
        *angles(top, push_at - 200 * MS, pushed + 600 * MS),
    ])


def example_blitz() -> str:
    """A blitz picked by the host: help refused at 0:0, a pick refused during the round, three
    20-s parts (one runs out), then the clockwise rule passes the played sector 3."""
    return write_scenario(header(DEMO_TABLE), [
        host(1000, "pick_sector", sector=3),
        host(2000, "extra_time"),  # refused: the team is not behind
        host(3000, "start_timer"),
        host(5000, "pick_sector", sector=7),  # refused: a round is in play
        host(8000, "pause"),  # a dispute: the count holds with 15 s left
        host(11_000, "resume"),  # and goes on: it ends 3 s later
        host(15_000, "answer_correct"),
        host(17_000, "start_timer"),  # the warning at 10 s, the time up at 20 s
        host(40_000, "answer_correct"),
        host(42_000, "start_timer"),
        host(50_000, "answer_correct"),
        host(55_000, "pick_sector", sector=3),  # played: sector 4 is played
        host(56_000, "start_timer"),
        host(80_000, "answer_wrong"),
    ])


def example_game() -> str:
    """A qualifier to the end: the lototron seats the team, every kind of round, help when behind,
    the hall's answers, a cancelled round; the game record, and again after a late hall answer."""
    table = {**DEMO_TABLE, "team": "", "seed": 7}
    steps = [
        host(0, "new_game"),  # the fortochka's place goes to the host only
        host(1000, "draw_lototron"),
        host(2000, "pick_sector", sector=1),
        host(2500, "fortochka"),  # refused on the host topic: it lies elsewhere
        host(3000, "start_timer"),
        host(20_000, "answer_wrong"),  # 0:1
        host(25_000, "pick_sector", sector=8),  # the 12th sector asks for a question from the base
        host(26_000, "extra_time"),  # behind: 30 s more, added to the coming count
        host(27_000, "start_timer"),
        host(40_000, "hall_correct", team="t2"),
        host(50_000, "answer_correct"),  # 1:1
        host(55_000, "pick_sector", sector=5),  # the fortochka: the previous round was right
        host(60_000, "pick_sector", sector=12),  # «цейтнот»: two players leave
        host(61_000, "player_leaves"),
        host(62_000, "player_leaves"),
        host(63_000, "start_timer"),
        host(95_000, "answer_wrong"),  # 2:2
        host(100_000, "pick_sector", sector=6),  # the duplet: two 30-s questions
        host(101_000, "start_timer"),
        host(110_000, "answer_correct"),
        host(112_000, "start_timer"),
        host(120_000, "answer_wrong"),  # 2:3
        (125_000 * MS, {"pick": 10, "source": "lototron"}),
        host(126_000, "start_timer"),
        host(140_000, "club_help"),  # behind: the running count is extended by 20 s
        host(150_000, "answer_correct"),  # 3:3
        host(155_000, "pick_sector", sector=11),
        host(156_000, "hint_from_hall"),  # the round is lost, a player leaves: 3:4
        host(160_000, "pick_sector", sector=2),
        host(161_000, "cancel_round"),
        host(165_000, "pick_sector", sector=2),
        host(166_000, "start_timer"),
        host(180_000, "answer_correct"),  # 4:4
        host(185_000, "pick_sector", sector=9),  # the superblitz: one player stays
        host(186_000, "start_timer"),
        host(195_000, "answer_correct"),
        host(197_000, "start_timer"),
        host(205_000, "answer_correct"),
        host(206_000, "hall_correct", team="t4", round=9, part=2),
        host(207_000, "start_timer"),
        host(215_000, "answer_correct"),  # 5:4
        host(220_000, "pick_sector", sector=4),  # a final round
        host(221_000, "start_timer"),
        host(240_000, "answer_correct"),  # 6:4, the game is over
        host(300_000, "hall_correct", team="t1", round=10),  # the record is published again
    ]
    return write_scenario(header(table), steps)


def example_sensor() -> str:
    """The sensor's health: a weak magnet during a counter-clockwise spin (the stop is degraded),
    a silence, a missing magnet, a magnet too strong; the host withdraws the round and picks the
    sector by hand."""
    top, truth = aimed_top(seed=13, rest_deg=100.0, at_ns=1 * S, duration_s=3.0, direction=-1)
    top.fault(1500 * MS, 2200 * MS, status=0b011)
    stop = after(truth, 0)
    top.silence((stop + 1000) * MS, (stop + 2500) * MS)
    top.fault((stop + 3500) * MS, (stop + 4000) * MS, status=0)
    top.fault((stop + 4500) * MS, (stop + 4800) * MS, status=0b101)
    return write_scenario(header(DEMO_TABLE), [
        *angles(top, 0, (stop + 8000) * MS),
        host(stop + 5000, "cancel_round"),
        host(stop + 6000, "pick_sector", sector=4),
    ])


def example_belgorod() -> str:
    """Belgorod rules (003 §6, 13 sectors), a final to 8: early answers save minutes, BINGO moves
    the fortochka's envelope in secret, a saved minute extends a count, the club's help, and the
    decisive round (6 points) at 5:7, where the team cannot overtake without it (003 6.4)."""
    table = {"rules": "belgorod", "stage": "final", "sector13": [13], "blitz": [10], "fortochka": 5,
             "team": "t1", "seed": 3}
    lines = [
        host(1000, "pick_sector", sector=2),
        host(2000, "early_answer"),
        host(3000, "answer_correct"),  # 1:0, a minute saved
        host(5000, "pick_sector", sector=3),
        host(6000, "start_timer"),
        host(20_000, "answer_wrong"),  # 1:1
        host(25_000, "pick_sector", sector=4),
        host(26_000, "start_timer"),
        host(40_000, "answer_wrong"),  # 1:2
        host(42_000, "refill", sector=3),  # the final: a new envelope on a freed sector (000 3.8.1)
        host(45_000, "move_question", sector=5, to_sector=9),  # BINGO: the fortochka goes to 9
        host(50_000, "pick_sector", sector=13),
        host(51_000, "start_timer"),
        host(80_000, "use_saved_minute"),  # the count is 2 minutes now
        host(173_000, "club_help"),  # behind; the time was up: 20 s more, a new count
        host(180_000, "answer_correct"),  # 2:2
        host(205_000, "pick_sector", sector=6),
        host(206_000, "early_answer"),
        host(207_000, "answer_correct"),  # 3:2
        host(210_000, "pick_sector", sector=7),
        host(211_000, "start_timer"),
        host(230_000, "answer_correct"),  # 4:2
        host(235_000, "pick_sector", sector=8),
        host(236_000, "start_timer"),
        host(250_000, "answer_correct"),  # 5:2
        host(252_000, "decisive_round"),  # refused: the team can still overtake without it
    ]
    at = 255_000
    for sector in (1, 3, 5, 11, 12):  # 5:7; sectors 9 (the fortochka) and 10 (the blitz) are left
        lines += [host(at, "pick_sector", sector=sector), host(at + 1000, "start_timer"),
                  host(at + 10_000, "answer_wrong")]
        at += 15_000
    return write_scenario(header(table), [
        *lines,
        host(at, "decisive_round"),  # the fortochka is not played now: 5 + 1 sector <= 7
        host(at + 5000, "pick_sector", sector=9),  # the fortochka is passed over; the blitz is a superblitz
        host(at + 6000, "start_timer"),
        host(at + 15_000, "answer_correct"),
        host(at + 17_000, "start_timer"),
        host(at + 25_000, "answer_correct"),
        host(at + 27_000, "start_timer"),
        host(at + 35_000, "answer_correct"),  # 6:0: the decisive round decides the game
    ])


def example_final() -> str:
    """The final (to 8), no fortochka configured: the host declares it when its envelope is
    opened. In the first round nobody scores; in a new game, after a wrong answer, the club
    does, on a new envelope put on a freed sector."""
    table = {"rules": "tto", "stage": "final", "team": "t1", "seed": 5}
    return write_scenario(header(table), [
        host(1000, "pick_sector", sector=1),
        host(2000, "fortochka"),  # the first round: nobody scores
        host(5000, "new_game", team="t1"),
        host(6000, "pick_sector", sector=1),
        host(7000, "start_timer"),
        host(30_000, "answer_wrong"),  # 0:1
        host(35_000, "refill", sector=1),
        host(40_000, "pick_sector", sector=1),
        host(41_000, "fortochka"),  # the new envelope is the fortochka: 0:2
    ])


EXAMPLES: dict[str, Callable[[], str]] = {
    "table-spin-round.jsonl": example_spin_round,
    "table-boundary.jsonl": example_boundary,
    "table-blitz.jsonl": example_blitz,
    "table-game.jsonl": example_game,
    "table-sensor.jsonl": example_sensor,
    "table-belgorod.jsonl": example_belgorod,
    "table-final.jsonl": example_final,
}


def main() -> None:
    """Write examples/table-*.jsonl from the builders above."""
    for name, build in EXAMPLES.items():
        (EXAMPLES_DIR / name).write_text(build(), encoding="utf-8")
        print(f"wrote examples/{name}")


# ---------------------------------------------------------------- the corpus of real payloads


def replay_text(text: str, name: str) -> tuple[int, list[Payload], str]:
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines(io.StringIO(text), name, out, err)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


@functools.cache
def replayed() -> dict[str, list[Payload]]:
    """Every table example as `chgk-console replay` prints it."""
    result: dict[str, list[Payload]] = {}
    for path in sorted(EXAMPLES_DIR.glob("table-*.jsonl")):
        status, events, err = replay_text(path.read_text(encoding="utf-8"), path.name)
        assert status == 0, err
        result[path.name] = events
    return result


def demo_config(**table: Any) -> Config:
    """The demo table (console/data/demo-chgk.toml) with a fixed seed and `table` overrides."""
    config = load_config(DEMO_CHGK)
    section = replace(config.section(TableSection), **{"seed": 42, **table})
    return replace(config, sections={**config.sections, TableSection.SECTION: section})


class Walk:
    """A table `Console` fed by hand outside an event loop: every input fires what is due first."""

    def __init__(self, config: Config | None = None) -> None:
        self.clock = Clock(5_000 * S)
        self.origin = self.clock.now
        self.console = Console(config or demo_config(), clock=self.clock)
        assert isinstance(self.console.referee, TableGame)
        self.table = self.console.referee
        self.events: list[Payload] = []
        self.states: list[Payload] = []
        self.host_states: list[Payload] = []
        self.console.wire_watchers.append(self.events.append)
        self.check()

    def check(self) -> Payload:
        """The public and the host state now, both validated; the public one is returned."""
        state = self.console.state()
        host = self.table.host_snapshot(self.clock.now)
        validate("table_state", state)
        validate("table_state", host)
        assert "fortochka" not in state and "fortochka" in host
        self.states.append(state)
        self.host_states.append(host)
        return state

    def at(self, after_ms: float) -> int:
        """Let `after_ms` pass, firing what falls due meanwhile as the loop's timer would (late by
        the step, never held up: a hold is `held`)."""
        self.clock.now += round(after_ms * MS)
        self.console.fire_due()
        return self.clock.now

    def held(self, ms: float) -> None:
        """The console held up for `ms`: nothing fires until its next input."""
        self.clock.now += round(ms * MS)

    def command(self, after_ms: float = 100, **command: Any) -> Payload:
        """A host command from MQTT, as the tablet sends it."""
        self.at(after_ms)
        self.console.commands.on_command(json.dumps(command).encode())
        return self.check()

    def host(self, action: str, after_ms: float = 100, **args: Any) -> Payload:
        return self.command(after_ms, action=action, **args)

    def wait(self, ms: float) -> Payload:
        """Let time pass (what falls due fires, as the loop's timer would)."""
        self.at(ms)
        return self.check()

    def samples(self, top: SimTop, start_ns: int, end_ns: int) -> Payload:
        """The top's samples in [start, end), its time 0 being the walk's start, each fed when taken."""
        for t, raw, status in top.samples(start_ns, end_ns):
            self.clock.now = self.origin + t
            self.console.feed([AngleSample(self.clock.now, raw, status)])
        self.clock.now = max(self.clock.now, self.origin + end_ns)
        return self.check()


@functools.cache
def console_events() -> list[Payload]:
    """The runtime's own events: a source's status, a driver's error, a bad command, the 12th
    sector's question drawn from the demo question file; a corrected verdict (tests/test_table_
    corrections.py replays corrections from journals)."""
    w = Walk()
    sources = w.console.sources
    sources.report_status("table", "connected", "The MCU 'chgk-sim 1.0' on /dev/pts/3 is connected.")
    sources.report_status("table", "disconnected", "The MCU on /dev/pts/3 stopped answering.")
    sources.report_status("table", "incompatible", "The MCU speaks protocol 2; this console speaks 1.")
    w.console.report_error("table", "bad frame from the MCU: CRC mismatch")
    w.command(action="start_timer", x=1)
    w.host(PICK_SECTOR, sector=8)  # the 12th sector: question_needed, question_drawn, question_source
    w.host("start_timer")
    w.host("answer_wrong", after_ms=20_000)
    w.host("correct_round", to="team", reason="ответ засчитан после уточнения")  # round_corrected
    w.host("correct_round", to="team", reason="повтор")  # refused: the point is the team's already
    sources.report_status("table", "resyncing", "The clock of the MCU on /dev/pts/3 cannot be trusted.")
    w.console.sources.button_edge("gpio", "gpio:0", True, w.clock.now)  # held past held_button_s, released
    w.clock.now += round(w.console.config.console.held_button_s * 1e9)
    w.console.sources.on_held_timer()
    w.clock.now += 1_000_000_000
    w.console.sources.button_edge("gpio", "gpio:0", False, w.clock.now)
    w.host(PICK_SECTOR, sector=3)
    w.host("start_timer")
    w.held(61_000)  # held up past the minute's end: said (console_held) with the next command
    w.console.commands.on_command(b'{"action": "answer_correct"}')
    return w.events


def number(events: list[Payload]) -> list[Payload]:
    return [{**e, "seq": i} for i, e in enumerate(events, 1)]


@functools.cache
def sports_events() -> list[Payload]:
    """The sports ChGK timer (003 5.2-5.3), stepped by hand; seq as a console would add it."""
    timer = SportsTimer()
    now = 1_000 * S
    out = timer.handle(SportsHost(SportsAction.START, now), now)
    out += timer.handle(SportsHost(SportsAction.START, now + 5 * S), now + 5 * S)  # refused: counting
    while (deadline := timer.next_deadline()) is not None:
        out += timer.on_timer(deadline)
    now = 2_000 * S
    out += timer.handle(SportsHost(SportsAction.CANCEL, now), now)  # refused: idle
    out += timer.handle(SportsHost(SportsAction.START, now + S), now + S)
    out += timer.handle(SportsHost(SportsAction.CANCEL, now + 2 * S), now + 2 * S)
    out += timer.handle(SportsHost(SportsAction.START, now + 3 * S), now + 3 * S)
    out += timer.handle(SportsHost(SportsAction.PAUSE, now + 13 * S), now + 13 * S)  # a dropped sheet
    out += timer.handle(SportsHost(SportsAction.RESUME, now + 43 * S), now + 43 * S)
    teams = [TeamEntry(1, "Совы"), TeamEntry(2, "Ежи")]
    stage = SportsStage(SportsRules(), Sheet.with_teams(SheetRules(), teams))
    out += stage.handle(SheetEdit(SheetAction.SET_QUESTION, now, "jury", question=1, teams=(2,)), now)
    out += stage.handle(SheetEdit(SheetAction.DECIDE, now, "jury", team=1, question=1), now)  # refused
    return number(events_json(out))


def corpus() -> Iterator[Payload]:
    for events in replayed().values():
        yield from events
    yield from console_events()
    yield from sports_events()
    yield from resumed_events("table")
    yield from journal_events(load_config(DEMO_CHGK))
    yield from offer_events(load_config(DEMO_CHGK))


# ---------------------------------------------------------------- (a) the schemas themselves


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_schema_is_a_valid_draft_2020_12_schema(kind: str) -> None:
    schema = load_schema(kind)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"urn:chgk-console:mqtt:{kind}"
    assert schema["title"] and schema["description"]


def test_validate_knows_both_games_kinds() -> None:
    # every game's kinds, the table's and the sports timer's after «Своя игра»'s (others follow)
    assert ALL_KINDS[:len(KINDS) + len(TABLE_KINDS) + 1] == (*KINDS, *TABLE_KINDS, "sports_state")
    validate("table_command", {"action": "start_timer"})
    validate("command", {"action": "next"})  # «Своя игра» still works
    with pytest.raises(ValueError, match="unknown schema 'table_events'"):
        validate("table_events", {})


def _property_maps(node: Any, where: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and "additionalProperties" in node:
            yield where, node["properties"]
        for key, value in node.items():
            yield from _property_maps(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _property_maps(value, f"{where}/{i}")


def _resolve(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    assert ref.startswith("#/$defs/"), ref
    target: dict[str, Any] = schema["$defs"][ref.removeprefix("#/$defs/")]
    return target


@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_every_field_is_described_and_closed(kind: str) -> None:
    """A display author reads the schema: every field says what it means; no object takes extras."""
    schema = load_schema(kind)
    undescribed = [
        f"{where}/{name}"
        for where, properties in _property_maps(schema)
        for name, sub in properties.items()
        if name != "type" and "description" not in sub
        and not ("$ref" in sub and "description" in _resolve(schema, sub["$ref"]))
    ]
    assert undescribed == []
    # (the event schema's root only picks the definition by type; each definition is closed)
    assert [where for where in _open_objects(schema) if not (where == "$" and "allOf" in schema)] == []


def _open_objects(node: Any, where: str = "$") -> Iterator[str]:
    """Object schemas with named properties that would take others too."""
    if isinstance(node, dict):
        closed = node.get("additionalProperties") is False
        if node.get("type") == "object" and "properties" in node and not closed:
            yield where
        for key, value in node.items():
            yield from _open_objects(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _open_objects(value, f"{where}/{i}")


def test_each_event_type_has_exactly_one_branch_and_its_own_definition() -> None:
    branches = [b["if"]["properties"]["type"]["const"] for b in EVENT_SCHEMA["allOf"]]
    assert branches == EVENT_TYPES
    assert len(set(EVENT_TYPES)) == len(EVENT_TYPES)
    for name in EVENT_TYPES:
        d = EVENT_DEFS[name]
        assert d["title"] == name and d["description"]
        assert d["additionalProperties"] is False
        assert d["properties"]["type"] == {"const": name}
        assert {"type", "t_ns", "seq"} <= set(d["required"])
        assert set(d["required"]) <= set(d["properties"])


def test_host_only_events_are_marked() -> None:
    """The fortochka's place, the 12th sector's question and the jury's verdicts and answers
    (the sports sheet's changes) never go to the public topic."""
    assert {"fortochka_placed", "fortochka_moved", "question_drawn", "sheet_changed"} == HOST_ONLY
    for name in HOST_ONLY:
        assert "Host topic only" in EVENT_DEFS[name]["description"]
        assert props(name)["audience"] == {"$ref": "#/$defs/host_only"}
    assert EVENT_DEFS["host_only"]["const"] == "host"
    # error: host-only when it would reveal the fortochka; otherwise public
    assert "audience" in props("error") and "audience" not in EVENT_DEFS["error"]["required"]
    public = set(EVENT_TYPES) - HOST_ONLY - {"error"}
    assert all("audience" not in props(name) for name in public)


def test_the_record_is_the_game_record_event() -> None:
    body = EVENT_DEFS["game_record"]
    assert RECORD_SCHEMA["properties"] == body["properties"]
    assert RECORD_SCHEMA["required"] == body["required"]
    assert RECORD_SCHEMA["additionalProperties"] is False


def test_shared_definitions_are_the_same_in_every_file() -> None:
    schemas = {kind: load_schema(kind) for kind in TABLE_KINDS}
    seen: dict[str, tuple[str, Any]] = {}
    for kind, schema in schemas.items():
        for name, definition in schema.get("$defs", {}).items():
            if name in seen:
                assert definition == seen[name][1], f"$defs/{name}: {kind} differs from {seen[name][0]}"
            seen[name] = (kind, definition)
    assert load_schema("status")["$defs"]["source_state"]["enum"] == EVENT_DEFS["source_state"]["enum"]


def test_a_round_in_the_record_is_round_ended_plus_asked() -> None:
    ended = {k: v for k, v in props("round_ended").items() if k not in ("type", "t_ns", "seq")}
    record = EVENT_DEFS["round_record"]["properties"]
    assert {k: v for k, v in record.items() if k != "asked"} == ended
    assert list(record) == [*list(ended)[:-2], "asked", *list(ended)[-2:]]  # the code's key order


def test_schema_enums_match_the_code() -> None:
    """What the event classes cannot say (tests/test_event_classes.py checks every enum field
    of every event): the commands, the state, the refusals' details."""
    assert enum_of(COMMAND_SCHEMA, "properties", "action") == [PICK_SECTOR, *(a.value for a in ChgkAction),
                                                               *SHELL_ACTIONS]
    assert enum_of(STATE_SCHEMA, "properties", "phase") == [p.value for p in Phase]
    assert enum_of(EVENT_DEFS, "stage") == [s.value for s in Stage]
    assert list(STATE_SCHEMA["properties"]["helps"]["properties"]) == sorted(h.value for h in HelpKind)
    top = STATE_SCHEMA["properties"]["top"]["properties"]
    assert enum_of(top, "phase") == [p.value for p in SpinPhase]
    assert set(enum_of(EVENT_DEFS, "help_label")) == {HelpKind.EXTRA_TIME, HelpKind.CLUB_HELP, "saved_minute"}
    table_details, sports_details, sheet_details = props("error")["details"]["oneOf"]
    assert enum_of(sheet_details, "properties", "action") == [a.value for a in SheetAction]
    assert enum_of(table_details, "properties", "action") == ["pick", *(a.value for a in ChgkAction)]
    assert enum_of(table_details, "properties", "phase") == [p.value for p in Phase]
    assert enum_of(sports_details, "properties", "action") == [a.value for a in SportsAction]
    assert enum_of(sports_details, "properties", "phase") == [p.value for p in SportsPhase]
    flags = {flag for status in range(8) for flag in fault_flags(status)}
    assert set(enum_of(props("sensor_fault"), "flags", "items")) == flags


def test_published_referee_events_read_back_into_their_classes() -> None:
    """What a screen receives as JSON is the typed event again (the referee's and the top's),
    and is described the same way."""
    seen = set()
    for e in corpus():
        wire = {k: v for k, v in e.items() if k != "seq"}
        typed = read_table_event(wire)
        if typed is None:
            assert e["type"] not in {cls.TYPE for cls in (*TABLE_EVENTS, *TOP_EVENTS)}, e
            continue
        seen.add(type(typed))
        assert event_json(typed) == wire
        assert describe_table(typed) == describe_table(e) != e["type"]
    assert seen >= {*TABLE_EVENTS, *TOP_EVENTS, TableCommandRefused, HostCommandRefused}


SPORTS_TYPES = {"sports_timer_started", "sports_timer_warning", "sports_time_up", "answers_closed",
                "sports_timer_cancelled", "sports_timer_paused", "sports_timer_resumed", "sheet_changed"}


def test_the_tables_screens_have_a_text_for_every_event_the_table_publishes() -> None:
    """console/games/chgk/texts.py describes exactly the table console's events (the sports timer is
    not run by the table console: its events are in the schema but not on a table's topics)."""
    assert set(EVENT_TYPES) - SPORTS_TYPES == DESCRIBED


# ---------------------------------------------------------------- (b) the examples, replayed


def test_examples_are_what_the_builders_write() -> None:
    """examples/table-*.jsonl are generated: `python -m tests.test_schemas_table` rewrites them."""
    on_disk = {p.name for p in EXAMPLES_DIR.glob("table-*.jsonl")}
    assert on_disk == set(EXAMPLES)
    for name, build in EXAMPLES.items():
        text = (EXAMPLES_DIR / name).read_text(encoding="utf-8")
        assert text == build(), f"examples/{name} is stale: run python -m tests.test_schemas_table"
        assert len(text.encode()) < 200_000, name


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_replayed_event_fits_the_schema(name: str) -> None:
    events = replayed()[name]
    assert events
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    for event in events:
        validate("table_event", event)
        if event["type"] == "game_record":
            validate("record", event)


@pytest.mark.process  # the command as a process: what is tested
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_chgk_console_replay_exits_0(name: str) -> None:
    script = Path(sys.executable).parent / "chgk-console"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "console.cli"]
    done = subprocess.run([*command, "replay", str(EXAMPLES_DIR / name)], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == replayed()[name]


def test_the_runs_produce_every_event_type_and_nothing_else() -> None:
    produced = {e["type"] for e in corpus()}
    assert produced == set(EVENT_TYPES)
    replay_only = {e["type"] for events in replayed().values() for e in events}
    # what no replay can show: the runtime's own events and the sports timer
    assert set(EVENT_TYPES) - replay_only == {"source_status", "resumed", "question_drawn", "question_source",
                                              "round_corrected", "button_held", "console_held",
                                              "journal_status", "resume_offer", *SPORTS_TYPES}


def test_targeted_runs_fit_the_schema() -> None:
    for event in [*console_events(), *sports_events()]:
        validate("table_event", event)


@pytest.mark.parametrize(("event_type", "field"), [
    ("sector_chosen", "source"), ("sector_chosen", "kind"), ("fortochka_played", "reason"),
    ("fortochka_played", "to"), ("round_ended", "reason"), ("round_ended", "result"),
    ("help_used", "help"), ("help_used", "applied"), ("spin_stopped", "direction"),
    ("source_status", "state"), ("sensor_fault", "flags"), ("resumed", "voided"),
])
def test_every_value_of_an_enumerated_field_is_produced(event_type: str, field: str) -> None:
    spec = props(event_type)[field]
    if "$ref" in spec:
        spec = _resolve(EVENT_SCHEMA, spec["$ref"])
    if "anyOf" in spec:  # nullable
        allowed = {None, *enum_of(_resolve(EVENT_SCHEMA, spec["anyOf"][0]["$ref"]))}
    elif spec.get("type") == "array":
        allowed = set(enum_of(spec, "items"))
    else:
        allowed = set(spec["enum"])
    seen: set[Any] = set()
    for e in corpus():
        if e["type"] == event_type:
            value = e[field]
            seen |= set(value) if isinstance(value, list) else {value}
    assert seen == allowed


def test_optional_and_conditional_fields_are_produced() -> None:
    events = list(corpus())
    errors = [e for e in events if e["type"] == "error"]
    assert any("details" in e and "audience" in e for e in errors)  # the fortochka's place: host only
    assert any("details" in e and "audience" not in e for e in errors)
    # "questions": the 12th sector of an example without a question file (the engine says so)
    assert {e["source"] for e in errors if "source" in e} == {"table", "mqtt", "questions"}
    assert {e["details"]["action"] for e in errors if "details" in e} >= {"pick", "start", "cancel"}
    chosen = [e for e in events if e["type"] == "sector_chosen"]
    assert {e["fortochka_skipped"] is None for e in chosen} == {True, False}
    assert {e["seconds"] is None for e in chosen} == {True, False}
    assert {e["final_round"] for e in chosen} == {e["decisive"] for e in chosen} == {True, False}
    assert {e["near_boundary"] for e in events if e["type"] == "spin_stopped"} == {True, False}
    assert {e["degraded"] for e in events if e["type"] == "spin_stopped"} == {True, False}
    assert {e["team"] is None for e in events if e["type"] == "game_started"} == {True, False}
    drawn = [e for e in events if e["type"] == "question_drawn"]
    assert drawn and all(e["text"] and e["answer"] for e in drawn)


def test_spin_angle_comes_at_most_30_times_a_second() -> None:
    for name, events in replayed().items():
        times = [e["t_ns"] for e in events if e["type"] == "spin_angle"]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert all(gap >= S // 30 for gap in gaps), name
    assert any(e["type"] == "spin_angle" for e in replayed()["table-spin-round.jsonl"])


def test_audience_host_is_exactly_on_the_host_only_events() -> None:
    for e in corpus():
        if e["type"] in HOST_ONLY:
            assert e["audience"] == "host", e
        elif e["type"] != "error":
            assert "audience" not in e, e


def _fortochka_falls(e: Payload) -> bool:
    """The event that reveals the fortochka: it is played, or passed over in a final round."""
    return e["type"] == "fortochka_played" or (
        e["type"] == "sector_chosen" and (e["kind"] == "fortochka" or e["fortochka_skipped"] is not None))


def test_public_events_do_not_tell_where_the_fortochka_lies() -> None:
    """Until it falls, no public event says "fortochka" as a value (000 4.2 д)."""
    checked = 0
    for name, events in replayed().items():
        for e in events:
            if _fortochka_falls(e):
                break
            if e.get("audience") != "host":
                text = json.dumps(e, ensure_ascii=False, separators=(",", ":"))
                assert '"fortochka"' not in text.replace('"action":"fortochka"', ""), (name, e)
                checked += 1
    assert checked > 100


# ---------------------------------------------------------------- (c) the state


def test_state_through_the_phases_of_a_round_from_a_spin() -> None:
    w = Walk()
    st = w.states[0]
    assert (st["phase"], st["seq"], st["game"], st["timer"], st["current"]) == (
        "ready", 0, "chgk", None, None)
    assert st["top"] == {"phase": "rest", "sensor": "ok", "widths_deg": [30.0] * 12, "speed_dps": None,
                         "last_stop": None, "unsure": None}
    assert w.host_states[0]["fortochka"] == {"sector": 5, "fell": False}
    top, truth = aimed_top(seed=12, rest_deg=299.3, at_ns=1 * S, duration_s=3.0)
    st = w.samples(top, 0, 2500 * MS)  # mid-spin
    assert st["top"]["phase"] == "spinning" and st["top"]["speed_dps"] is not None
    st = w.samples(top, 2500 * MS, 4800 * MS)
    assert truth.stopped_ns < 4200 * MS
    assert st["top"]["unsure"] is not None and st["top"]["last_stop"]["near_boundary"] is True
    stops = [e for e in w.events if e["type"] == "spin_stopped"]
    assert [(e["sector"], e["degraded"]) for e in stops] == [(10, False)]
    assert st["phase"] == "ready"
    st = w.host(PICK_SECTOR, sector=10)
    assert (st["phase"], st["current"]["sector"], st["top"]["unsure"]) == ("asked", 10, None)
    st = w.host("start_timer")
    assert (st["phase"], st["timer"]["kind"], st["timer"]["remaining_ms"]) == (
        "discussion", "discussion", 60_000)
    assert w.wait(20_000)["timer"]["remaining_ms"] == 40_000
    st = w.wait(41_000)
    assert (st["phase"], st["timer"]) == ("answer", None)
    st = w.host("answer_correct")
    assert (st["phase"], st["score"], st["rounds_played"]) == ("ready", {"team": 1, "club": 0}, 1)
    assert [s["seq"] for s in w.states] == sorted(s["seq"] for s in w.states)
    for e in w.events:
        validate("table_event", e)


def test_state_to_the_end_of_the_game() -> None:
    w = Walk()
    for sector in (1, 2, 3, 4, 5, 6):
        w.host(PICK_SECTOR, sector=sector)
        if w.check()["phase"] == "ready":
            continue  # the fortochka is settled at once
        for _ in range(w.check()["current"]["parts"]):
            w.host("start_timer")
            w.host("answer_correct", after_ms=5000)
    st = w.check()
    assert (st["phase"], st["winner"], st["score"]["team"]) == ("game_over", "team", 6)
    assert st["fortochka_fell"] is True and w.host_states[-1]["fortochka"] == {"sector": None, "fell": True}
    assert {s["phase"] for s in w.states} == {"ready", "asked", "discussion", "game_over"}
    assert any(s["final_round"] for s in w.states)


def test_state_refusals() -> None:
    w = Walk()
    w.host(PICK_SECTOR, sector=7)
    state = w.host("start_timer")
    host = w.host_states[-1]
    for key in STATE_SCHEMA["required"]:
        invalid("table_state", {k: v for k, v in state.items() if k != key})
    invalid("table_state", {k: v for k, v in state.items() if k != "seq"})  # public: seq and game
    invalid("table_state", {k: v for k, v in state.items() if k != "game"})
    validate("table_state", {k: v for k, v in host.items() if k not in ("seq", "game")})
    invalid("table_state", {**state, "extra": 1})
    invalid("table_state", {**state, "phase": "reading"})
    invalid("table_state", {**state, "game": "svoya"})
    invalid("table_state", {**state, "timer": {**state["timer"], "remaining_ms": -1}})
    invalid("table_state", {**state, "timer": {**state["timer"], "kind": "answer"}})
    invalid("table_state", {**state, "score": {"team": 1}})
    invalid("table_state", {**state, "helps": {**state["helps"], "bingo": "used"}})
    sectors = copy.deepcopy(state["sectors"])
    sectors[4]["kind"] = "fortochka"  # shown only once it has fallen (played)
    invalid("table_state", {**state, "sectors": sectors})
    invalid("table_state", {**state, "sectors": state["sectors"][:11]})
    invalid("table_state", {**host, "fortochka": {"sector": 5}})


# ---------------------------------------------------------------- (d) what the schemas refuse


def invalid(kind: str, payload: Any) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        validate(kind, payload)
    error: ValidationError = caught.value
    return error


def samples() -> dict[str, Payload]:
    """One real event of each type."""
    found: dict[str, Payload] = {}
    for e in corpus():
        found.setdefault(e["type"], e)
    return found


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_an_event_missing_a_required_field_or_with_an_extra_one_fails(event_type: str) -> None:
    sample = samples()[event_type]
    validate("table_event", sample)
    for field_name in EVENT_DEFS[event_type]["required"]:
        broken = {k: v for k, v in sample.items() if k != field_name}
        assert field_name in invalid("table_event", broken).message or field_name == "type"
    invalid("table_event", {**sample, "extra": 1})
    invalid("table_event", {**sample, "t_ns": sample["t_ns"] + 0.5})
    invalid("table_event", {**sample, "seq": 0})
    if event_type not in HOST_ONLY:
        invalid("table_event", {**sample, "audience": "all"})


def test_conditional_fields_are_enforced() -> None:
    s = samples()
    error = s["error"]
    invalid("table_event", {**error, "source": "mqtt"})  # details or source, not both
    invalid("table_event", {k: v for k, v in error.items() if k not in ("details", "source")})
    invalid("table_event", {**error, "details": {"action": "start", "phase": "asked"}})  # mixed shapes
    invalid("table_event", {**error, "details": {**error.get("details", {}), "extra": 1}})
    invalid("table_event", {**s["fortochka_placed"], "audience": "all"})
    invalid("table_event", {**s["sector_unsure"], "candidates": [4]})
    invalid("table_event", {**s["sensor_fault"], "flags": []})
    invalid("table_event", {**s["spin_angle"], "raw": 4096})
    invalid("table_event", {**s["decisive_round"], "players_at_table": 2})
    invalid("table_event", {"t_ns": 1, "seq": 1})


@pytest.mark.parametrize("command", [
    {"action": "start_timer"},
    {"action": "pick_sector", "sector": 3},
    {"action": "pick_sector", "sector": 0},  # the referee refuses it, not the parser
    {"action": "move_question", "sector": 2, "to_sector": 5},
    {"action": "hall_correct", "team": "t2", "round": 1, "part": 2},
    {"action": "hall_correct", "team": ""},
    {"action": "new_game", "team": "t1"},
    {"action": "refill", "sector": -1},
    {"action": "start_timer", "sector": 3},  # an argument the action does not use is ignored
    {"action": "draw_lototron", "round": 10 ** 12},
    *({"action": a.value} for a in ChgkAction),
    {},
    {"action": "dance"},
    {"action": None},
    {"action": 1},
    {"action": ["start_timer"]},
    {"action": "START_TIMER"},
    {"action": "next"},  # a «Своя игра» action
    {"sector": 3},
    {"action": "pick_sector"},
    {"action": "pick_sector", "sector": None},
    {"action": "pick_sector", "sector": "3"},
    {"action": "pick_sector", "sector": True},
    {"action": "pick_sector", "sector": 3, "team": "t1"},
    {"action": "pick_sector", "sector": 3, "to_sector": 4},
    {"action": "refill", "sector": 2.5},
    {"action": "hall_correct", "team": 5},
    {"action": "hall_correct", "team": None},
    {"action": "hall_correct", "round": "1"},
    {"action": "start_timer", "x": 1},
    {"action": "move_question", "sector": 2, "to_sector": [5]},
], ids=repr)
def test_command_schema_agrees_with_parse_command(command: Payload) -> None:
    try:
        parse_chgk_command(command, 0)
        parsed = True
    except ValueError:
        parsed = False
    try:
        validate("table_command", command)
        fits = True
    except ValidationError:
        fits = False
    assert fits == parsed


def test_an_integral_float_is_the_one_known_difference() -> None:
    """JSON Schema counts 3.0 as an integer; the console wants 3 (docs/mqtt-table.md says so)."""
    command = {"action": "pick_sector", "sector": 3.0}
    validate("table_command", command)
    with pytest.raises(ValueError, match="sector must be an integer"):
        parse_chgk_command(command, 0)


@pytest.mark.parametrize("text", [
    '{"action":"start_timer"}', '{"action": "pick_sector", "sector": 4}', '{"action":"dance"}', "{}",
    '"start_timer"', "[]", "not json", '{"action":"pick_sector","sector":4,"team":"t1"}',
])
def test_command_schema_agrees_with_the_console(text: str) -> None:
    """On the wire: the schema accepts a payload exactly when the console takes it."""
    w = Walk()
    w.console.commands.on_command(text.encode())
    refused = any(e["type"] == "error" and e.get("source") == "mqtt" for e in w.events)
    try:
        validate("table_command", json.loads(text))
        fits = True
    except (ValidationError, ValueError):
        fits = False
    assert fits == (not refused)


# ---------------------------------------------------------------- (e) the game record


def test_the_record_is_kept_in_the_record_dir_and_fits(tmp_path: Path) -> None:
    w = Walk(demo_config(record_dir=str(tmp_path / "records")))
    for sector in (1, 2, 4, 7, 10, 11):
        w.host(PICK_SECTOR, sector=sector)
        w.host("start_timer")
        w.host("answer_correct", after_ms=5000)
    records = [e for e in w.events if e["type"] == "game_record"]
    assert len(records) == 1
    files = list((tmp_path / "records").glob("game-*.json"))
    assert len(files) == 1
    kept = json.loads(files[0].read_text(encoding="utf-8"))
    validate("record", kept)
    assert kept == records[0]
    w.host("hall_correct", team="t2", round=3)  # after the game: the record again, latest wins
    kept = json.loads(files[0].read_text(encoding="utf-8"))
    assert kept["consolation"][0]["team"] == "t1" and kept["seq"] == w.events[-1]["seq"]
    validate("record", kept)


def test_record_refusals() -> None:
    record = next(e for e in corpus() if e["type"] == "game_record")
    validate("record", record)
    invalid("record", {**record, "winner": None})
    invalid("record", {**record, "rounds": []})
    invalid("record", {**record, "rounds": [{**record["rounds"][0], "asked": -1}]})
    invalid("record", {**record, "indicators": {**record["indicators"], "won_blitz": True}})
    invalid("record", {**record, "consolation": [{**record["consolation"][0], "points": "1"}]})


# ---------------------------------------------------------------- (f) the status


def test_the_tables_status_fits_the_status_schema() -> None:
    validate("status", {"state": "online", "sources": {"table": "connected"}, "node": "demo",
                        "game": "chgk", "seed": 42})


def status_schema_for_both_games() -> dict[str, Any]:
    schema = load_schema("status")
    schema["properties"]["game"] = {"description": "The game being refereed.", "enum": ["svoya", "chgk"]}
    return schema


# ---------------------------------------------------------------- (g) docs/mqtt-table.md

EXAMPLE = re.compile(r"<!-- example: (\w+) -->\s*```json\n(.*?)```", re.S)


def doc_examples() -> list[tuple[str, Payload]]:
    return [(kind, json.loads(body)) for kind, body in EXAMPLE.findall(DOC.read_text(encoding="utf-8"))]


def test_doc_examples_fit_the_schemas() -> None:
    examples = doc_examples()
    assert {kind for kind, _ in examples} == {*TABLE_KINDS, "status"}
    for kind, payload in examples:
        if kind == "status":
            Draft202012Validator(status_schema_for_both_games()).validate(payload)
        else:
            validate(kind, payload)


def test_doc_event_examples_are_real_output() -> None:
    real = list(corpus())
    for kind, payload in doc_examples():
        if kind in ("table_event", "record"):
            assert payload in real, f"not produced by any run: {payload}"


def test_doc_covers_every_event_field_action_and_topic() -> None:
    text = DOC.read_text(encoding="utf-8")
    documented = {p["type"] for kind, p in doc_examples() if kind in ("table_event", "record")}
    assert documented == set(EVENT_TYPES)
    for name in EVENT_TYPES:
        assert f"### `{name}`" in text, name
        for field_name in props(name):
            assert f"`{field_name}`" in text, f"{name}.{field_name} is not in the doc"
    for field_name in STATE_SCHEMA["properties"]:
        assert f"`{field_name}`" in text, f"state.{field_name} is not in the doc"
    for action in enum_of(COMMAND_SCHEMA, "properties", "action"):
        assert f"`{action}`" in text, action
    topics = Topics("chgk", "table1")
    for topic in (topics.status, topics.state, topics.events, topics.command, topics.angle, topics.record,
                  topics.host_state, topics.host_events):
        assert f"`<prefix>/<node>{topic.removeprefix('chgk/table1')}`" in text, topic
    for name in EXAMPLES:
        assert f"`examples/{name}`" in text, name
    top_of_mqtt_md = (ROOT / "docs" / "mqtt.md").read_text(encoding="utf-8").splitlines()[:3]
    assert any("](mqtt-table.md)" in line for line in top_of_mqtt_md)


if __name__ == "__main__":
    main()
