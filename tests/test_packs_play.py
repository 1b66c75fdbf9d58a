"""A pack played by the «Своя игра» referee and the console: theme names and the pack's values
on the public state, the question's text and answer on the host's only, and a broken pack
reported once while the console starts without it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from console.engine.model import NS_PER_MS, Host, HostAction, Press, Watermark
from console.games import config_from_dict, game
from console.schemas import validate
from console.shell.runtime import Console
from tests.engine_harness import svoya_of
from tests.support.clock import Clock
from tests.support.packs import console_with

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "packs" / "club-evening.toml"
MS = NS_PER_MS


def step(console: Console, clock: Clock, *inputs: Any) -> None:
    clock.now += 100 * MS
    console.feed([i(clock.now) for i in inputs])


def host(action: HostAction) -> Any:
    return lambda at: Host(action, at)


def test_the_referee_plays_the_packs_themes_by_name_at_its_values(tmp_path: Path) -> None:
    console, clock, events = console_with(str(EXAMPLE), tmp_path, themes=2)
    state = console.state()
    assert state["next"] == {"theme": 1, "theme_name": "Реки", "number": 1, "value": 10, "themes": 2}
    step(console, clock, host(HostAction.NEXT))
    assert events[-1]["type"] == "question_started" and events[-1]["theme_name"] == "Реки"
    state, hosts = console.state(), console.host_state()
    assert state["question"]["theme_name"] == "Реки"
    assert hosts["host_question"] == {"theme": "Реки", "value": 10, "text": "Самая длинная река Европы.",
                                      "answer": "Волга", "comment": "", "wrong": [], "media": [],
                                      "special": None, "options": []}
    validate("state", state)
    validate("state", hosts)
    # Five questions of the first theme, then the second theme by its name.
    for _ in range(5):
        if console.state()["next"]["theme"] == 2:
            break
        step(console, clock, host(HostAction.NEXT))
        step(console, clock, lambda at: Press("mcu", "mcu:0", at), lambda at: Watermark("mcu", at))
        clock.now += 50 * MS
        console.feed([Watermark("mcu", clock.now)])
        step(console, clock, host(HostAction.NAME))
        step(console, clock, host(HostAction.CORRECT))
    assert console.state()["next"]["theme_name"] == "Столицы"
    assert svoya_of(console).scores["p1"] == 10 + 20 + 30 + 40 + 50
    step(console, clock, host(HostAction.NEXT))
    media_question = console.host_state()["host_question"]
    assert media_question["theme"] == "Столицы"
    # Nothing of the pack's text ever reaches the public state or the public events.
    public = json.dumps([console.state(), *events], ensure_ascii=False)
    for secret in ("Волга", "Самая длинная", "Канберра", "Столица Австралии", "nile.png"):
        assert secret not in public


def test_a_broken_pack_is_reported_once_and_the_console_starts_without_it(tmp_path: Path) -> None:
    broken = tmp_path / "evening.siq"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    console, clock, _ = console_with("evening.siq", tmp_path)
    state = console.state()
    assert state["next"]["theme_name"] is None and state["next"]["value"] == 10  # game.values
    step(console, clock, host(HostAction.NEXT))
    assert svoya_of(console).phase == "reading"
    assert console.host_state()["host_question"] is None


def test_the_pack_problem_is_an_error_event_naming_the_file(tmp_path: Path) -> None:
    from console.engine.svoya.referee import SvoyaReferee
    from console.games.svoya.kind import referee

    config = config_from_dict({**game("svoya").scenario_defaults, "game": {"pack": "missing.toml"}},
                              str(tmp_path / "console.toml"))
    ref = referee(config, 1)
    assert isinstance(ref, SvoyaReferee) and ref.pack_problem is not None
    assert ref.pack_problem.startswith("missing.toml: file not found")
    assert str(tmp_path) not in ref.pack_problem  # it reaches the public status: no server path
    seen: list[dict[str, Any]] = []

    class Recording(Console):
        def report_error(self, source: str, message: str) -> None:
            seen.append({"source": source, "message": message})
            super().report_error(source, message)

    Recording(config, clock=Clock())
    assert [s["source"] for s in seen] == ["pack"] and "missing.toml: file not found" in seen[0]["message"]


def test_the_journal_header_names_the_pack_by_its_full_path(tmp_path: Path) -> None:
    from console.games.svoya.kind import journal_header

    (tmp_path / "packs").mkdir()
    config = config_from_dict({**game("svoya").scenario_defaults, "game": {"pack": "packs/p.toml"}},
                              str(tmp_path / "console.toml"))
    assert journal_header(config, 7)["game"]["pack"] == str((tmp_path / "packs" / "p.toml").resolve())
