"""Fights journaled and resumed as the daemon does at start (`restarted`), on the small configs
the resume tests use (`svoya_config`, `table_config`); and real events of the rarer kinds for the
schema tests' corpora: `resumed_events` (every `voided` value of a game kind's schema),
`offer_events` (``resume_offer``) and `journal_events` (``journal_status``)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from console.engine.chgk.rules import ChgkAction, ChgkHost, PickSource, SectorPicked
from console.engine.model import Host, HostAction
from console.engine.sports.timer import SportsAction, SportsHost
from console.games import config_from_dict
from console.games.kind import GameInput
from console.shell import resume
from console.shell.journal_files import JournalFiles, Resumed
from console.shell.runtime import Console
from tests.support.clock import Clock

__all__ = ["journal_events", "offer_events", "restarted", "resumed_events", "svoya_config", "table_config"]

S = 1_000_000_000


def svoya_config(players: int = 3, seed: int = 0) -> Any:
    return config_from_dict({
        "game": {"seed": seed},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(players)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}},
    }, "test")


def table_config() -> Any:
    return config_from_dict({"game": {"kind": "chgk"},
                             "sources": {"top": {"kind": "simulated_mcu", "pads": 1}},
                             "teams": [{"id": "t1", "name": "Совы"}], "table": {"team": "t1"}}, "test")


def restarted(path: Path, config: Any, clock: Clock) -> tuple[Console, list[dict[str, Any]]]:
    """What the daemon does at start: read the journal, build the console on it (appended to:
    console/shell/journal_files.py `Resumed`), announce."""
    found = resume.load(path, config, clock())
    assert isinstance(found, resume.Resumption)
    journal = Resumed(path, found.keep_bytes, needs_newline=found.needs_newline)
    console = Console(config, clock=clock, journal=journal, resume=found)
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    resume.announce(console, found)
    return console, events


def resumed_events(kind: str) -> list[dict[str, Any]]:
    """Real ``resumed`` events (and what precedes them) of every `voided` value of a game
    kind's schema ("svoya": the event schema; "table": the table's, ChGK and sports timer),
    for the schema tests' corpora: each a fight journaled, then resumed."""
    sports = config_from_dict({"game": {"kind": "sports"}}, "test")
    fights: dict[str, list[tuple[Any, list[GameInput]]]] = {
        "svoya": [(svoya_config(), [Host(HostAction.NEXT, 0)]),
                  (svoya_config(), [Host(HostAction.NEXT, 0), Host(HostAction.CANCEL, 0)])],
        "table": [(table_config(), [SectorPicked(3, 0, PickSource.HOST)]),
                  (table_config(), [ChgkHost(ChgkAction.NEW_GAME, 0)]),
                  (sports, [SportsHost(SportsAction.START, 0)])],
    }
    events: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as directory:
        for n, (config, inputs) in enumerate(fights[kind]):
            clock = Clock(1_000 * S)
            path = Path(directory) / f"journal-20261130-19050{n}.jsonl"
            before = Console(config, clock=clock, journal=path.open("w", encoding="utf-8"))
            for inp in inputs:
                clock.now += S
                before.feed([resume.shifted(inp, clock.now)])
            before.journal.close()
            clock.now += 10 * S
            console, seen = restarted(path, config, clock)
            console.journal.close()
            events += seen
    return events


def offer_events(config: Any) -> list[dict[str, Any]]:
    """Real ``resume_offer`` events, for the schema tests' corpora: today's journal of another
    config offered, declined by the host (and one declined by playing on), and one accepted."""
    events: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as directory:
        for n, action in enumerate((b'{"action": "start_fresh"}', None, b'{"action": "resume_journal"}')):
            clock = Clock(1_000 * S)
            offered = Path(directory) / f"journal-20261202-19050{n}.jsonl"
            offered.write_text('{"config": {}}\n', encoding="utf-8")
            console = Console(config, clock=clock, journal=(Path(directory) / f"new-{n}.jsonl").open(
                "w", encoding="utf-8"))
            console.own.on_resume = lambda path: None
            console.wire_watchers.append(events.append)
            console.own.offer_resume(offered, ("players",))
            clock.now += S
            if action is None:
                console.host(HostAction.NEXT) if console.kind == "svoya" else console.feed(
                    [console.sources.host_command({"action": "new_game"}, clock.now)])
            else:
                console.commands.on_command(action)
            console.journal.close()
    return [e for e in events if e["type"] == "resume_offer"]


def journal_events(config: Any) -> list[dict[str, Any]]:
    """The ``journal_status`` notices, as published: a console's journal whose reader goes away
    (a pipe: the next write fails, as on a pulled card), then one that could not be created at
    start (a file stands where its directory should be) and can be after."""
    now = [5_000 * S]
    seen: list[dict[str, Any]] = []
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "w", encoding="utf-8") as pipe:
        console = Console(config, clock=lambda: now[0], journal=pipe)
        console.wire_watchers.append(seen.append)
        os.close(read_end)
        console.journal.write({"clock_ms": 1.0})  # EPIPE: failing
        console.journal.close()
    with tempfile.TemporaryDirectory() as tmp:
        blocked = Path(tmp) / "disk"
        blocked.write_text("", encoding="utf-8")
        console = Console(config, clock=lambda: now[0], journal=JournalFiles(blocked / "journal.jsonl"))
        console.wire_watchers.append(seen.append)
        blocked.unlink()
        blocked.mkdir()
        now[0] += 90 * S
        console.journal.retry(now[0])  # created, written, synced: writing
        console.journal.close()
    return [e for e in seen if e["type"] == "journal_status"]
