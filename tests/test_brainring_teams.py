"""«Брейн-ринг»: the teams from the host's tablet (issue 19: «players from the tablet: rename …,
bind a pad by pressing it; journaled»), on a hand-stepped clock. A team renamed keeps its id,
score and standings; a button pressed for a team is one of its buttons from then on, its press
the team's signal (../shared/RULES.md §5: one signal a team); between questions only."""

from __future__ import annotations

from console.engine.brainring.teams import TeamAction, TeamChange
from console.games.brainring.kind import GAME
from tests.brainring_harness import MCU, MS, Ring, S, make_rules


def change(ring: Ring, action: TeamAction, team: str, name: str = "") -> None:
    ring.deliver(TeamChange(action, ring.now, team, name))


def test_a_team_renamed_between_questions_keeps_its_score_and_standings() -> None:
    ring = Ring()
    ring.question_read()
    ring.press("mcu:0")
    ring.advance(20 * MS)
    ring.host("correct")
    change(ring, TeamAction.RENAME, "t1", "  Совы-2  ")
    renamed = ring.last("team_renamed")
    assert (renamed["team"], renamed["name"], renamed["was"]) == ("t1", "Совы-2", "Совы")
    team = next(t for t in ring.state()["teams"] if t["id"] == "t1")
    assert (team["name"], team["score"]) == ("Совы-2", 1)


def test_teams_change_between_questions_only_and_names_must_do() -> None:
    ring = Ring()
    ring.question_read()
    change(ring, TeamAction.RENAME, "t1", "Новые")
    assert ring.last("error")["details"]["reason"] == "идёт вопрос (команды меняют между вопросами)"
    assert "rename_team" not in ring.ref.host_actions(ring.now)
    ring.host("cancel")
    for team, name, why in (("t9", "Х", "нет команды «t9» (команды: t1, t2)"),
                            ("t1", " ", "нужно название"), ("t1", "Ежи", "команда «Ежи» уже есть"),
                            ("t1", "Я" * 41, "название длиннее 40 знаков")):
        change(ring, TeamAction.RENAME, team, name)
        assert ring.last("error")["details"]["reason"] == why
    assert ring.events("team_renamed") == []


def test_a_button_pressed_for_a_team_is_its_signal_from_then_on() -> None:
    rules = make_rules(sources={"mcu": MCU})
    ring = Ring(rules)
    change(ring, TeamAction.BIND, "t2")
    assert ring.last("pad_awaited")["team"] == "t2"
    assert ring.ref.host_snapshot(ring.now)["awaiting_pad"] == {"team": "t2", "name": "Ежи"}
    ring.press("mcu:0")  # a button Совы have: a press between questions, nothing bound
    assert ring.events("pad_bound") == []
    ring.press("mcu:5")  # a free button of the box
    bound = ring.last("pad_bound")
    assert (bound["team"], bound["pad"], bound["pads"]) == ("t2", "mcu:5", ["mcu:2", "mcu:3", "mcu:5"])
    assert ring.ref.host_snapshot(ring.now)["awaiting_pad"] is None
    ring.question_read()
    ring.advance(2 * S)
    ring.press("mcu:5")
    ring.advance(20 * MS)
    assert ring.state()["question"]["answering"] == "t2"  # the new button is Ежи's signal


def test_the_changes_are_journaled_and_replayed() -> None:
    for inp in (TeamChange(TeamAction.RENAME, 5 * S, "t1", "Совята"),
                TeamChange(TeamAction.BIND, 6 * S, "t2")):
        line, at = GAME.input_line(inp) or ({}, 0)
        assert GAME.parse_step("host", line, at) == inp


def test_a_team_joins_and_another_leaves_between_fights() -> None:
    """The clubs' fights of 3 and more teams (RULES.md §5): a team added before a fight's first
    question starts at 0 on the free button pressed for it, under an id no team had; one leaves
    with 2 teams or more staying; the game's standings count the new team from its first fight."""
    ring = Ring(make_rules(sources={"mcu": MCU}))
    change(ring, TeamAction.ADD, "", "Лисы")
    assert ring.last("pad_awaited")["team"] is None and ring.last("pad_awaited")["name"] == "Лисы"
    ring.press("mcu:4")
    added = ring.last("team_added")
    assert (added["team"], added["name"], added["pad"], added["scores"]) == ("t3", "Лисы", "mcu:4",
                                                                              {"t1": 0, "t2": 0, "t3": 0})
    change(ring, TeamAction.REMOVE, "t1")
    assert ring.last("team_removed")["scores"] == {"t2": 0, "t3": 0}
    assert "remove_team" not in ring.ref.host_actions(ring.now)  # two left: a fight needs both
    change(ring, TeamAction.REMOVE, "t2")
    assert ring.last("error")["details"]["reason"] == "в бою не меньше 2 команд (§5)"
    change(ring, TeamAction.ADD, "", "Совы")  # a name no team has now; a new id, not t1's again
    ring.press("mcu:0")
    assert ring.last("team_added")["team"] == "t4"
    ring.question_read()
    ring.advance(1 * S)
    ring.press("mcu:4")
    ring.advance(20 * MS)
    ring.host("correct")  # Лисы score: a question of the fight is played
    assert ring.scores["t3"] == 1
    change(ring, TeamAction.ADD, "", "Бобры")
    assert ring.last("error")["details"]["reason"].startswith("команды добавляют и убирают перед боем")
    assert {row["team"] for row in ring.state()["standings"]} == {"t2", "t3", "t4"}


def test_a_team_removed_takes_what_waited_for_it_away() -> None:
    """A button awaited for a team that then leaves is not awaited any more (the host's state
    stays whole), and teams change before a fight's first question only, so no judgement of a
    team gone is left to reverse."""
    ring = Ring(make_rules(sources={"mcu": MCU}))
    change(ring, TeamAction.ADD, "", "Лисы")
    ring.press("mcu:4")
    change(ring, TeamAction.BIND, "t3")
    change(ring, TeamAction.REMOVE, "t3")
    assert ring.ref.host_snapshot(ring.now)["awaiting_pad"] is None
    ring.press("mcu:5")  # nobody's button, nothing awaited: said, nothing bound
    assert ring.events("pad_bound") == []
    assert "за которой не закреплена команда" in ring.last("error")["message"]
    ring.question_read()
    ring.press("mcu:0")
    ring.advance(20 * MS)
    ring.host("correct")
    assert ring.state()["phase"] == "idle"
    change(ring, TeamAction.REMOVE, "t1")  # between questions, but the fight has begun
    assert ring.last("error")["details"]["reason"].startswith("команды добавляют и убирают перед боем")
    assert {t["id"] for t in ring.state()["teams"]} == {"t1", "t2"}
