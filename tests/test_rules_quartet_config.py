"""«Эрудит-квартет» as a game kind: its config, its host commands, a fight replayed from a scenario."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from console.config import ConfigError
from console.engine.corrections import AdjustScore, Correction, Reverse
from console.engine.model import Host, HostAction
from console.engine.quartet.rules import Penalty, QuartetAction, QuartetHost, RoundType, Stage
from console.games import config_from_dict, game
from console.games.quartet.kind import quartet_rules
from console.scenario import parse_step, step_to_json
from console.tools.replay import replay_lines

SEATS = [{"id": "t1", "name": "Совы", "pad": "mcu:0"}, {"id": "t2", "name": "Ежи", "pad": "mcu:1"}]
TEAMS = [{"id": "t1", "players": ["Аня", "Боря", "Вика", "Гоша"]}, {"id": "t2", "players": ["Ель", "Жора"]}]


def config(**quartet: Any) -> dict[str, Any]:
    return {"game": {"kind": "quartet"}, "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}},
            "players": SEATS, "quartet": {"teams": TEAMS, **quartet}}


def test_the_config_gives_the_teams_their_seats_and_the_round_types() -> None:
    """3.1-3.3, 3.6: each team on the seat with its id; rounds, stage and deadlines from [quartet]."""
    data = config(rounds=["dark", "open"], stage="final", choose_s=15)
    rules = quartet_rules(config_from_dict(data, "c.toml"))
    assert [(t.id, t.name, t.pad, t.players[0]) for t in rules.teams] == [("t1", "Совы", "mcu:0", "Аня"),
                                                                          ("t2", "Ежи", "mcu:1", "Ель")]
    assert rules.rounds == (RoundType.DARK, RoundType.OPEN) and rules.stage is Stage.FINAL
    assert rules.choose_ns == 15_000_000_000 and rules.assign_ns == 60_000_000_000


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        (config(rounds=["open", "twilight"]), "quartet.rounds",
         "'twilight' is not one of open, half_dark, dark"),
        (config(stage="league"), "quartet.stage", "is not one of group"),
        (config(assign_s=0), "quartet.assign_s", "must be positive"),
        ({**config(), "quartet": {"teams": [*TEAMS, {"id": "t3", "players": []}]}}, "quartet.teams[3].id",
         "has no seat"),
        ({**config(), "quartet": {"teams": TEAMS[:1]}}, "players[2].id", "has no team"),
        ({**config(), "quartet": {}}, "quartet.teams", "2 to 4 teams"),
        ({**config(), "quartet": {"teams": [{"id": "t1", "players": ["А", "А"]}, TEAMS[1]]}}, "quartet.teams",
         "two players share a name"),
        ({**config(), "quartet": {"teams": [{"id": "t1", "players": "Аня"}, TEAMS[1]]}},
         "quartet.teams[1].players", "an array of strings"),
    ],
)
def test_a_bad_quartet_config_names_the_key(data: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data, "c.toml")
    assert f"c.toml: {key}: " in str(caught.value) and words in str(caught.value)


def test_host_commands_take_their_arguments() -> None:
    parse = game("quartet").parse_command
    assert parse({"action": "next"}, 5) == Host(HostAction.NEXT, 5)
    assert parse({"action": "assign", "team": "t1", "players": ["Аня", None, "Боря", "Вика"]}, 5) == \
        QuartetHost(QuartetAction.ASSIGN, 5, team="t1", players=("Аня", None, "Боря", "Вика"))
    assert parse({"action": "penalty", "team": "t1", "penalty": "minus", "gross": True}, 5) == \
        QuartetHost(QuartetAction.PENALTY, 5, team="t1", penalty=Penalty.MINUS, gross=True)
    assert parse({"action": "reverse", "reason": "дуальный"}, 5) == Reverse(reason="дуальный", at=5)
    assert parse({"action": "adjust_score", "player": "t1", "delta": -10, "reason": "р"}, 5) == \
        AdjustScore(player="t1", delta=-10, reason="р", at=5)
    for bad, words in [({"action": "assign", "players": "Аня"}, "players must be an array"),
                       ({"action": "penalty", "penalty": "ban"}, "penalty must be one of"),
                       ({"action": "next", "team": "t1"}, "unknown key"),
                       ({"action": "fly"}, "unknown action")]:
        with pytest.raises(ValueError, match=words):
            parse(bad, 5)


def test_a_fight_replays_from_a_scenario() -> None:
    """A scenario of a fight (docs/scenarios.md): a round started, players assigned, a theme
    played on the seats, judged by the «Своя игра» referee (App.3-5)."""
    lines = [
        {"config": config(rounds=["open"], seed=3)},
        {"at_ms": 0, "host": "start_round", "themes": ["А", "Б", "В", "Г"]},
        {"at_ms": 100, "host": "assign", "team": "t1", "players": ["Аня", "Боря", "Вика", "Гоша"]},
        {"at_ms": 200, "host": "assign", "team": "t2", "players": ["Ель", None, "Жора", None]},
        {"at_ms": 300, "host": "start_theme"},
        {"at_ms": 400, "host": "next"},
        {"at_ms": 900, "press": "mcu:1"},
        {"at_ms": 1000, "host": "name"},
        {"at_ms": 1500, "host": "correct"},
    ]
    out, err = io.StringIO(), io.StringIO()
    assert replay_lines([json.dumps(line, ensure_ascii=False) for line in lines], "s.jsonl", out, err) == 0, \
        err.getvalue()
    events = [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]
    types = [e["type"] for e in events]
    assert types[:4] == ["round_started", "players_assigned", "players_assigned", "theme_started"]
    judged = next(e for e in events if e["type"] == "answer_judged")
    assert judged["player"] == "t2" and judged["delta"] == 10


@pytest.mark.parametrize("command", [
    QuartetHost(QuartetAction.START_ROUND, 7_000_000, themes=("А", "Б", "В", "Г")),
    QuartetHost(QuartetAction.ASSIGN, 7_000_000, team="t1", players=("Аня", None, "Боря", "Вика")),
    QuartetHost(QuartetAction.ASSIGN, 7_000_000, team="t1", player=""),
    QuartetHost(QuartetAction.PENALTY, 7_000_000, team="t2", penalty=Penalty.VOID, gross=True),
    QuartetHost(QuartetAction.NAME_THEME, 7_000_000, name="Реки"),
    Reverse(reason="апелляция (4.1)", at=7_000_000),
    AdjustScore(player="t2", delta=30, reason="апелляция (4.1)", at=7_000_000),
])
def test_the_journal_line_of_a_command_replays_as_the_same_command(command: QuartetHost | Correction) -> None:
    """The journal keeps a fight's commands with their arguments, so a replay of a disputed
    fight (4.1-4.3) gives the same decisions."""
    line = step_to_json(command, command.at, game("quartet"))
    step = parse_step(json.dumps(line, ensure_ascii=False), "j.jsonl:1", game("quartet"))
    assert step.input == command


def test_a_pack_plays_its_themes_in_order_and_an_unreadable_one_is_refused(tmp_path: Path) -> None:
    """3.7: the themes are fixed before the fight: game.pack gives them, in order; a pack that
    cannot be read is a config error naming game.pack, not a fight without its themes."""
    pack = tmp_path / "pack.toml"
    themes = "".join(f'[[themes]]\nname = "Тема {k}"\n' + "".join(
        f'[[themes.questions]]\nvalue = {v}\ntext = "В{k}.{v}"\nanswer = "О"\n' for v in (10, 20, 30, 40, 50))
        for k in range(1, 13))
    pack.write_text(f'name = "Квартет"\n{themes}', encoding="utf-8")
    data = config()
    data["game"] = {"kind": "quartet", "pack": str(pack)}
    rules = quartet_rules(config_from_dict(data, str(tmp_path / "c.toml")))
    assert [t.name for t in rules.pack] == [f"Тема {k}" for k in range(1, 13)]
    assert rules.pack[0].cards[0].text == "В1.10"
    data["game"] = {"kind": "quartet", "pack": str(tmp_path / "missing.toml")}
    with pytest.raises(ConfigError, match=r"c\.toml: game\.pack: "):
        config_from_dict(data, str(tmp_path / "c.toml"))
