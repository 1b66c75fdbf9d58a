"""«Эрудит-квартет» fights (seed 004 §III) on a hand-stepped clock: rounds, seats, assignments,
penalties, totals and the places the regulation gives. Each test cites its clause."""

from __future__ import annotations

from typing import Any

import pytest

from console.engine.corrections import AdjustScore, Reverse, Undo
from console.engine.model import Cue, HostAction, PlayCue
from console.engine.quartet.fight import FightPhase
from console.engine.quartet.rules import QuartetAction, QuartetHost, QuartetRules, QuartetTeam
from console.engine.svoya.rules import HostCard, PackTheme
from console.games.quartet.kind import GAME
from tests.quartet_harness import MS, TEAMS, Fight, RoundType, S, Stage, make_rules


def test_a_theme_is_judged_by_the_svoya_referee_with_the_teams_seats() -> None:
    """3.3, 3.4, App.3-5: each button is a team's seat; the referee names the player sitting
    at it for this theme; +value right, -value wrong."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all({"t1": ["Даша", "Аня", "Боря", "Вика"]})
    f.cmd("start_theme")
    started = f.events("theme_started")[-1]
    assert started["seats"][0] == {"team": "t1", "pad": "mcu:0", "player": "Даша"}
    assert started["name"] == "А"
    f.question(("-t3", "t1"))
    accepted = f.events("signal_accepted")
    assert [e["player"] for e in accepted] == ["t3", "t1"]
    assert accepted[-1]["name"] == "Даша (Команда t1)"
    assert f.fight.tallies()["t1"].total == 10 and f.fight.tallies()["t3"].total == -10


def test_the_team_result_is_the_sum_over_every_theme_of_every_round() -> None:
    """3.3, 3.9: three rounds of four themes; the team's result is the sum of its themes."""
    f = Fight()
    f.round_open([("t1", "t2", None, None, "-t1"), (None, None, "t3", None, None)])
    f.round_half_dark([(None, "t1", None, None, None)])
    f.round_dark([(None, None, None, None, ("-t2", "t4"))])
    ended = f.events("theme_ended")
    assert len(ended) == 12
    totals = {t: sum(e["scores"].get(t, 0) for e in ended) for t in ("t1", "t2", "t3", "t4")}
    assert totals == {"t1": 10 - 50 + 20, "t2": 20 - 50, "t3": 30, "t4": 50}
    over = f.events("fight_over")[-1]
    assert [p["team"] for p in over["places"]] == ["t4", "t3", "t1", "t2"]
    assert [p["total"] for p in over["places"]] == [50, 30, -20, -30]
    assert over["by"] == ["total", "total", "total"]
    assert f.fight.phase is FightPhase.OVER


def test_the_open_round_names_four_themes_first_and_gives_a_minute_to_assign() -> None:
    """3.6.1: the host names the four themes before the round; the teams assign their players
    within a minute; the console says when the minute is up and who is missing; an assignment
    after it is marked late; the order may not change once the round is under way."""
    f = Fight()
    assert "3.6.1" in f.refusals(f.cmd("start_round"))[0]
    assert "3.6.1" in f.refusals(f.cmd("start_round", themes=["А", "Б", "В"]))[0]
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    started = f.events("round_started")[-1]
    assert started["round_type"] == "open" and started["themes"] == ["А", "Б", "В", "Г"]
    assert started["assign_ends_ns"] == f.now + 60 * S
    for t in ("t1", "t2", "t3"):
        f.cmd("assign", team=t, players=list(dict(TEAMS_BY_ID)[t][:4]))
    f.advance(59 * S)
    assert f.events("assign_time_up") == []
    f.advance(1 * S)
    up = f.events("assign_time_up")
    assert up == [{"type": "assign_time_up", "t_ns": f.now, "round": 1, "theme": None, "missing": ["t4"]}]
    assert PlayCue(Cue.TIME_UP) in f.outputs
    assert "3.6.1" in f.refusals(f.cmd("name_theme", name="Д"))[0]
    f.cmd("assign", team="t4", players=["Оля", "Петя", "Рая", "Сёма"])
    assert f.events("players_assigned")[-1]["late"] is True
    f.theme()
    refused = f.refusals(f.cmd("assign", team="t1", players=["Даша", "Аня", "Боря", "Вика"]))
    assert refused and "в ходе раунда менять нельзя (3.6.1)" in refused[0]


def test_the_minute_stops_once_every_team_has_assigned() -> None:
    """3.6.1: the clock helps the host; with every team in, no time-up is announced."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    assert f.fight.next_deadline() is None
    f.advance(120 * S)
    assert f.events("assign_time_up") == []


def test_a_round_needs_four_different_players() -> None:
    """3.4: in each round four different players of a team play; one player, one theme."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    refused = f.refusals(f.cmd("assign", team="t2", players=["Ель", "Ель", "Зоя", "Ира"]))
    assert refused and "четыре разных игрока" in refused[0] and "(3.4)" in refused[0]
    refused = f.refusals(f.cmd("assign", team="t2", players=["Ель", "Жора", "Зоя", "Чужой"]))
    assert refused and "«Чужой» не игрок команды «t2»" in refused[0]
    refused = f.refusals(f.cmd("assign", team="t2", players=["Ель", "Жора", "Зоя", None]))
    assert refused and "играет в этом раунде тем: 4" in refused[0]
    assert f.refusals(f.cmd("assign", team="t2", players=["Ира", "Зоя", "Жора", "Ель"])) == []


def test_any_player_of_the_team_may_play_in_each_round() -> None:
    """3.2: any player of the team may play for it; with five on the roster, the player left out
    of one round may play the next (3.4 asks only for four different players within a round)."""
    f = Fight(make_rules(rounds=(RoundType.OPEN, RoundType.OPEN)))
    f.round_open(orders={"t1": ["Аня", "Боря", "Вика", "Гоша"]})
    f.cmd("start_round", themes=["Д", "Е", "Ж", "З"])
    assert f.refusals(f.cmd("assign", team="t1", players=["Даша", "Гоша", "Аня", "Вика"])) == []
    assert f.refusals(f.cmd("assign", team="t2", players=["Ира", "Зоя", "Жора", "Ель"])) == []


def test_the_half_dark_round_names_each_theme_and_gives_20_seconds() -> None:
    """3.6.2: the theme is named just before it is played; the team then has 20 s to choose
    the player; a player who has played this round may not play again (3.4)."""
    f = Fight()
    f.round_open()
    f.cmd("start_round")
    assert f.events("round_started")[-1]["assign_ends_ns"] is None
    refused = f.refusals(f.cmd("assign", team="t1", player="Аня"))
    assert refused and "сначала ведущий называет тему" in refused[0]
    f.cmd("name_theme", name="Реки")
    named = f.events("theme_named")[-1]
    assert named["round"] == 2 and named["theme"] == 1 and named["choose_ends_ns"] == f.now + 20 * S
    for t in TEAMS[:3]:
        f.cmd("assign", team=t.id, player=t.players[0])
    refused = f.refusals(f.cmd("start_theme"))
    assert refused and "t4" in refused[0]
    f.advance(20 * S)
    assert f.events("assign_time_up")[-1]["missing"] == ["t4"]
    assert f.events("assign_time_up")[-1]["theme"] == 1
    f.cmd("assign", team="t4", player="Оля")
    f.theme()
    f.cmd("name_theme", name="Горы")
    refused = f.refusals(f.cmd("assign", team="t1", player="Аня"))
    assert refused and "уже играл(а) в этом раунде" in refused[0] and "(3.4)" in refused[0]


def test_the_dark_round_fixes_the_order_first_and_names_themes_when_played() -> None:
    """3.6.3: the order of the players is fixed within a minute; each theme is named only when
    it is played; the order may not change during the round."""
    f = Fight(make_rules(rounds=(RoundType.DARK,)))
    refused = f.refusals(f.cmd("start_round", themes=["А", "Б", "В", "Г"]))
    assert refused and "3.6.3" in refused[0]
    f.cmd("start_round")
    assert f.events("round_started")[-1]["assign_ends_ns"] == f.now + 60 * S
    refused = f.refusals(f.cmd("assign", team="t1", player="Аня"))
    assert refused and "укажите игрока на каждую тему" in refused[0]
    f.assign_all(None)
    refused = f.refusals(f.cmd("start_theme"))
    assert refused and "сначала ведущий называет тему" in refused[0]
    f.cmd("name_theme", name="Тайна")
    assert f.events("theme_named")[-1]["choose_ends_ns"] is None
    f.theme()
    assert f.refusals(f.cmd("assign", team="t2", players=["Ира", "Зоя", "Жора", "Ель"]))


def test_the_dark_rounds_orders_are_all_given_before_the_first_theme_is_named() -> None:
    """3.6.3: each team fixes its order for the whole round before the host names the first
    theme: the first theme is not named while an order is missing, and an order given or
    changed once it is named is refused."""
    f = Fight(make_rules(rounds=(RoundType.DARK,)))
    f.cmd("start_round")
    f.cmd("assign", team="t1", players=["Аня", "Боря", "Вера", "Гоша"])
    refused = f.refusals(f.cmd("name_theme", name="Тайна"))
    assert refused and "3.6.3" in refused[0] and "t2" in refused[0]
    assert f.events("theme_named") == []
    f.assign_all(None)
    f.cmd("name_theme", name="Тайна")
    assert f.events("theme_named")[-1]["name"] == "Тайна"
    before = f.fight.snapshot(f.now)
    refused = f.refusals(f.cmd("assign", team="t1", players=["Боря", "Аня", "Вера", "Гоша"]))
    assert refused and "до того, как ведущий назовёт первую тему (3.6.3)" in refused[0]
    assert f.fight.snapshot(f.now) == before  # nothing changed


def test_a_team_with_three_players_plays_three_themes_and_scores_0_in_the_fourth() -> None:
    """3.8: with fewer than four players present at the start of the round, a team plays as many
    themes as it has players and gets 0 in the rest; its seat is not at the table then."""
    f = Fight()
    f.cmd("absent", team="t2", player="Ира")
    assert f.events("presence_changed")[-1] == {"type": "presence_changed", "t_ns": f.now, "team": "t2",
                                                "player": "Ира", "present": False}
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    assert f.events("round_started")[-1]["plays"] == {"t1": 4, "t2": 3, "t3": 4, "t4": 4}
    refused = f.refusals(f.cmd("assign", team="t2", players=["Ель", "Жора", "Зоя", "Ира"]))
    assert refused and "Ира отсутствует (3.8)" in refused[0]
    f.assign_all({"t2": [None, "Ель", "Жора", "Зоя"]})
    f.cmd("start_theme")
    started = f.events("theme_started")[-1]
    assert started["skipped"] == ["t2"] and [s["team"] for s in started["seats"]] == ["t1", "t3", "t4"]
    f.host(HostAction.NEXT)
    f.advance(1 * S)
    f.press("t2")  # nobody of t2 is at the table for this theme
    f.advance(100 * MS)
    assert f.events("signal_accepted") == []
    f.press("t3")
    assert f.events("signal_accepted")[-1]["player"] == "t3"
    f.advance(10 * MS)
    f.host(HostAction.NAME)
    f.host(HostAction.CORRECT)
    for _ in range(4):
        f.question(None)
    assert f.events("theme_ended")[-1]["scores"] == {"t1": 0, "t3": 10, "t4": 0}
    assert f.fight.snapshot(f.now)["teams"][1]["themes"] == [None]  # type: ignore[index, call-overload]


def test_with_one_seat_taken_a_wrong_answer_ends_the_question_at_once() -> None:
    """App.10 with 3.8: three teams each short of a player skip the first theme, so one team
    sits at the table (the referee's second seat is a stand-in that cannot play): its wrong
    answer is every seated player's, so the question ends «all wrong» at once instead of
    waiting out the 7 s for a seat nobody sits in."""
    f = Fight()
    for team, player in (("t2", "Ира"), ("t3", "Ник"), ("t4", "Сёма")):
        f.cmd("absent", team=team, player=player)
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all({"t2": [None, "Ель", "Жора", "Зоя"], "t3": [None, "Кот", "Лев", "Мир"],
                  "t4": [None, "Оля", "Петя", "Рая"]})
    f.cmd("start_theme")
    assert [s["team"] for s in f.events("theme_started")[-1]["seats"]] == ["t1"]
    f.read()
    f.answer("t1", correct=False)
    ended = f.events("question_ended")
    assert ended and ended[-1]["reason"] == "all_wrong"  # at once, no 7-s wait


def test_half_dark_skips_follow_the_players_present() -> None:
    """3.8 with 3.6.2: a team with three players skips one theme of the round, no more; once all
    its present players have played, it skips the rest by itself."""
    f = Fight(make_rules(rounds=(RoundType.HALF_DARK,)))
    f.cmd("absent", team="t2", player="Ира")
    f.cmd("start_round")
    f.cmd("name_theme", name="1")
    assert f.refusals(f.cmd("assign", team="t2", player="")) == []  # skips theme 1
    for t in ("t1", "t3", "t4"):
        f.cmd("assign", team=t, player=dict(TEAMS_BY_ID)[t][0])
    f.theme()
    f.cmd("name_theme", name="2")
    refused = f.refusals(f.cmd("assign", team="t2", player=""))
    assert refused and "должна играть эту тему" in refused[0]


def test_the_last_theme_skipped_by_a_team_that_has_played_all_its_players() -> None:
    """3.8: a team whose present players have all played this round sits the next theme out."""
    f = Fight(make_rules(rounds=(RoundType.HALF_DARK,)))
    for player in ("Вика", "Гоша", "Даша"):
        f.cmd("absent", team="t1", player=player)
    f.cmd("start_round")
    for i in range(3):
        f.cmd("name_theme", name=str(i + 1))
        for t in TEAMS:
            f.cmd("assign", team=t.id, player=t.players[i] if i < 2 or t.id != "t1" else "")
        f.theme()
    f.cmd("name_theme", name="4")
    assert f.fight.snapshot(f.now)["round"]["order"]["t1"] == ["Аня", "Боря", None, None]  # type: ignore[index, call-overload]


def test_a_void_takes_away_points_earned_and_never_a_minus() -> None:
    """3.5: «незачёт ответа» is a penalty: it removes what the team earned on the current
    question's answer, and never raises a score (voiding a wrong answer leaves its −10)."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.cmd("start_theme")
    f.read()
    f.answer("t1", correct=False)  # t1: −10 on question 1
    f.cmd("penalty", team="t1", penalty="void", gross=True)
    given = f.events("penalty_given")[-1]
    assert given["question"] == 1 and given["totals"]["t1"] == -10  # not 0
    f.advance(100 * MS)
    f.host(HostAction.RESET)
    f.answer("t2", correct=True)  # t2: +10
    f.cmd("penalty", team="t2", penalty="void", gross=True)
    assert f.events("penalty_given")[-1]["totals"] == {**given["totals"], "t1": -10, "t2": 0}
    for _ in range(4):
        f.question(None)
    tallies = f.fight.tallies()
    assert tallies["t1"].total == -10 and tallies["t2"].total == 0 and tallies["t2"].taken == {}


def test_a_second_minus_in_a_theme_adds_to_the_first() -> None:
    """3.5: each violation punished by a minus takes the current question's value off; two in
    one theme take off both, the second never replacing the first."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.cmd("start_theme")
    f.host(HostAction.NEXT)
    f.cmd("penalty", team="t2", penalty="minus", gross=True)  # question 1: −10
    assert f.events("penalty_given")[-1]["totals"]["t2"] == -10
    f.question(None)
    f.host(HostAction.NEXT)
    f.cmd("penalty", team="t2", penalty="minus", gross=True)  # question 2: −20 more
    assert f.events("penalty_given")[-1]["totals"]["t2"] == -30
    for _ in range(3):
        f.question(None)
    assert f.fight.tallies()["t2"].total == -30


def test_talking_to_the_team_a_warning_then_a_void_or_a_minus() -> None:
    """3.5: the first violation gets a warning; a repeated or gross one voids the answer to the
    current question or takes its value off."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    refused = f.refusals(f.cmd("penalty", team="t1", penalty="warning"))
    assert refused and "пока идёт тема" in refused[0]
    f.cmd("start_theme")
    f.host(HostAction.NEXT)
    refused = f.refusals(f.cmd("penalty", team="t1", penalty="void"))
    assert refused and "(3.5)" in refused[0] and "предупреждение" in refused[0]
    f.cmd("penalty", team="t1", penalty="warning")
    assert f.events("penalty_given")[-1]["warnings"] == 1
    f.advance(1 * S)
    f.press("t1")
    f.advance(10 * MS)
    f.host(HostAction.NAME)
    f.host(HostAction.CORRECT)
    f.cmd("penalty", team="t1", penalty="void")  # the answer to question 1 does not count
    given = f.events("penalty_given")[-1]
    assert given["question"] == 1 and given["value"] == 10 and given["totals"]["t1"] == 0
    f.question("t1")  # 20
    f.cmd("penalty", team="t2", penalty="minus", gross=True)  # gross: at once
    assert f.events("penalty_given")[-1]["totals"]["t2"] == -20
    for _ in range(3):
        f.question(None)
    tallies = f.fight.tallies()
    assert tallies["t1"].total == 20 and tallies["t1"].taken == {20: 1}
    assert tallies["t2"].total == -20 and tallies["t2"].plus == 0


def test_a_tie_for_an_advancing_place_is_shot_out_on_a_half_dark_theme() -> None:
    """3.10: tied on every indicator across the place that leads to the semi-finals (2nd/3rd
    in a group), the teams play a shoot-out theme by the half-dark rules: named, a player
    chosen in 20 s, only the tied teams at the table; its points do not count in the totals."""
    f = Fight(make_rules(rounds=(RoundType.OPEN,), stage=Stage.GROUP))
    f.round_open([("t2", None, None, None, "t1"), ("t3",)])
    assert f.fight.phase is FightPhase.SHOOTOUT_DUE
    assert f.events("shootout_needed")[-1]["pending"] == [{"teams": ["t2", "t3"], "first": 2, "last": 3}]
    refused = f.refusals(f.cmd("start_round"))
    assert refused and "перестрелка" in refused[0]
    f.cmd("name_theme", name="Перестрелка")
    assert f.events("theme_named")[-1]["choose_ends_ns"] == f.now + 20 * S
    refused = f.refusals(f.cmd("assign", team="t1", player="Аня"))
    assert refused and "не участвует в перестрелке" in refused[0]
    f.cmd("assign", team="t2", player="Ель")  # anyone may play it, even after the round
    f.cmd("assign", team="t3", player="Кот")
    f.cmd("start_theme")
    assert [s["team"] for s in f.events("theme_started")[-1]["seats"]] == ["t2", "t3"]
    f.theme_questions((None, "t3"))
    over = f.events("fight_over")[-1]
    assert [p["team"] for p in over["places"]] == ["t1", "t3", "t2", "t4"]
    assert over["by"] == ["total", "shootout", "total"]
    assert [p["total"] for p in over["places"]] == [50, 10, 10, 0]  # the shoot-out's 20 not counted


def test_a_shootout_that_ties_again_is_played_again() -> None:
    """3.10: a shoot-out leaves the teams still tied: another shoot-out among them."""
    f = Fight(make_rules(rounds=(RoundType.OPEN,), stage=Stage.GROUP))
    f.round_open([("t2", None, None, None, "t1"), ("t3",)])
    for _ in range(2):
        f.cmd("name_theme", name="Перестрелка")
        f.cmd("assign", team="t2", player="Ель")
        f.cmd("assign", team="t3", player="Кот")
        f.cmd("start_theme")
        if f.events("theme_started")[-1]["theme"] == 1:
            f.theme_questions(())  # nobody takes anything: still tied
            assert f.events("shootout_needed")[-1]["pending"][0]["teams"] == ["t2", "t3"]
        else:
            f.theme_questions(("t2",))
    over = f.events("fight_over")[-1]
    assert [p["team"] for p in over["places"]] == ["t1", "t2", "t3", "t4"] and over["shootouts"] == 2


def test_one_team_at_the_table_still_plays_its_theme() -> None:
    """3.8, App.1: in a two-team fight where one team has no player for a theme, the other's
    player plays it alone (the referee needs two seats: the empty one never signals)."""
    two = (QuartetTeam("a", "А", "mcu:0", ("1", "2", "3", "4")),
           QuartetTeam("b", "Б", "mcu:1", ("1", "2", "3")))
    f = Fight(make_rules(teams=two, rounds=(RoundType.OPEN,)))
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.cmd("assign", team="a", players=["1", "2", "3", "4"])
    f.cmd("assign", team="b", players=[None, "1", "2", "3"])
    f.cmd("start_theme")
    f.question("a")
    f.host(HostAction.NEXT)
    f.advance(1 * S)
    f.press("b")
    f.advance(100 * MS)
    assert [e["player"] for e in f.events("signal_accepted")] == ["a"]
    f.host(HostAction.READING_FINISHED)
    f.advance(8 * S)
    for _ in range(3):
        f.question(None)
    assert f.events("theme_ended")[-1]["scores"] == {"a": 10}


def test_svoya_actions_between_themes_are_refused_and_presses_ignored() -> None:
    """3.5 / App.4: nobody sits at the table between themes: a press counts for nothing and
    makes no noise; a «Своя игра» key is refused with the reason."""
    f = Fight()
    assert f.press("t1") == []
    refused = f.refusals(f.host(HostAction.NEXT))
    assert refused and "тема сейчас не идёт" in refused[0]


def test_new_game_starts_the_fight_over() -> None:
    """A new fight: totals to zero, before the first round (the host's new_game key too)."""
    f = Fight()
    f.round_open([("t1",)])
    f.host(HostAction.NEW_GAME)
    assert f.events("fight_started")[-1]["teams"] == ["t1", "t2", "t3", "t4"]
    assert f.fight.phase is FightPhase.BEFORE_ROUND and f.fight.tallies()["t1"].total == 0


def test_host_actions_follow_the_fight() -> None:
    """The host's screen offers exactly the commands that would be taken now."""
    f = Fight()
    assert "start_round" in f.fight.host_snapshot(f.now)["host_actions"]  # type: ignore[operator]
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    actions = f.fight.host_snapshot(f.now)["host_actions"]
    assert "assign" in actions and "start_theme" not in actions  # type: ignore[operator]
    f.assign_all(None)
    assert "start_theme" in f.fight.host_snapshot(f.now)["host_actions"]  # type: ignore[operator]
    f.cmd("start_theme")
    actions = f.fight.host_snapshot(f.now)["host_actions"]
    assert "next" in actions and "penalty" in actions and "start_round" not in actions  # type: ignore[operator]


@pytest.mark.parametrize("count", [1, 5])
def test_a_fight_has_two_to_four_teams(count: int) -> None:
    """3.1: no more than four teams in a fight (App.1: at least two at the buttons)."""
    teams = tuple(QuartetTeam(f"t{i}", f"T{i}", f"mcu:{i}", ("a",)) for i in range(count))
    with pytest.raises(ValueError, match=r"2 to 4 teams \(3.1\)"):
        QuartetRules(teams=teams, svoya=make_rules().svoya)


TEAMS_BY_ID = [(t.id, t.players) for t in TEAMS]


def test_an_appeal_right_after_a_theme_reverses_a_judgement() -> None:
    """4.1-4.3: an appeal is heard right after the theme, before the next one starts; its
    decision (the «Своя игра» referee's reversal) changes the theme's points, the totals and
    the questions taken (3.10); once the next theme has started it is too late."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.theme(("t2", None, None, None, ("-t1",)))
    assert f.events("theme_ended")[-1]["scores"]["t1"] == -50
    f.deliver(Reverse(reason="дуальный ответ засчитан", at=f.now))
    corrected = f.events("theme_corrected")[-1]
    assert corrected["scores"]["t1"] == 50 and corrected["totals"]["t1"] == 50
    assert corrected["reason"] == "дуальный ответ засчитан"
    assert f.events("judgement_reversed")[-1]["player"] == "t1"
    tally = f.fight.tallies()["t1"]
    assert tally.total == 50 and tally.plus == 50 and tally.taken == {50: 1}
    f.cmd("start_theme")
    refused = f.refusals(f.deliver(Reverse(reason="поздно", at=f.now)))
    assert refused and f.fight.tallies()["t1"].total == 50


def test_an_appeal_after_the_last_theme_can_change_the_places() -> None:
    """4.1-4.3 with 3.10: the places follow the appeal's decision on the fight's last theme."""
    f = Fight(make_rules(rounds=(RoundType.OPEN,)))
    f.round_open([("t1",), (None, "t3"), (None, None, "t4"), (None, None, None, None, ("-t2",))])
    assert [p["team"] for p in f.events("fight_over")[-1]["places"]] == ["t4", "t3", "t1", "t2"]
    f.deliver(Reverse(reason="ответ верный", at=f.now))
    over = f.events("fight_over")[-1]
    assert [p["team"] for p in over["places"]] == ["t2", "t4", "t3", "t1"]
    assert over["places"][0]["taken"] == {"50": 1}


def test_a_score_adjusted_during_a_theme_counts_in_the_total() -> None:
    """4.2-4.3: the host's decision may change a score by hand (with its reason): it counts in
    the team's result (3.9), not among its questions taken."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.cmd("start_theme")
    f.deliver(AdjustScore(player="t3", delta=-20, reason="ошибка табло", at=f.now))
    assert f.fight.tallies()["t3"].total == -20 and f.fight.tallies()["t3"].plus == 0
    f.theme_questions(())
    assert f.events("theme_ended")[-1]["scores"]["t3"] == -20


def test_a_mistaken_wrong_is_undone_at_once_and_the_theme_record_follows() -> None:
    """App.3 with 4.2: a «Неверно» keyed by mistake is taken back at once (issue 19: «undo of the
    last judgement at once, mid-question too»): the team's −value goes, it answers again, and
    the theme's record (its points and its questions taken, 3.10) has the new verdict only."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.cmd("start_theme")
    f.read()
    f.answer("t2", correct=False)
    assert f.fight.tallies()["t2"].total == -10
    f.deliver(Undo(reason="ошибся кнопкой", at=f.now))
    undone = f.events("judgement_undone")[-1]
    assert (undone["player"], undone["delta"]) == ("t2", 10)
    assert f.fight.tallies()["t2"].total == 0
    f.host(HostAction.NAME)
    f.host(HostAction.CORRECT)
    tally = f.fight.tallies()["t2"]
    assert (tally.total, tally.plus, dict(tally.taken)) == (10, 10, {10: 1})  # the right one only
    f.theme_questions(((),) * 4)
    assert f.events("theme_ended")[-1]["scores"]["t2"] == 10


def test_the_last_judgement_of_a_theme_is_not_undone_once_the_theme_is_over() -> None:
    """The theme's last answer ended it and its record went into the totals: the correction is
    then «Пересмотреть решение» or an appeal (4.1), not an undo."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.cmd("start_theme")
    f.theme_questions((None, None, None, None, "t1"))
    out = f.deliver(Undo(reason="ошибся кнопкой", at=f.now))
    (refused,) = f.refusals(out)
    assert refused.endswith("тема уже окончена: решение по её последнему вопросу меняют "
                            "«Пересмотреть решение» или апелляцией (4.1)")
    assert f.events("theme_ended")[-1]["scores"]["t1"] == 50


PACK = tuple(PackTheme(name=f"Пакет {k}",
                       cards=tuple(HostCard(value=v, text=f"Вопрос {k}.{v}", answer=f"Ответ {k}.{v}")
                                   for v in (100, 200, 300, 400, 500)))
             for k in range(1, 6))


def test_a_pack_gives_the_themes_in_order_and_the_host_its_questions() -> None:
    """3.7: the order of the themes is fixed before the fight: with a pack the fight's k-th
    theme is the pack's k-th, named from it (the open round's four at its start, 3.6.1; a dark
    round's when played, 3.6.3), its questions at the pack's values on the host's screen only."""
    f = Fight(make_rules(rounds=(RoundType.OPEN, RoundType.DARK), pack=PACK))
    f.cmd("start_round")
    assert f.events("round_started")[-1]["themes"] == ["Пакет 1", "Пакет 2", "Пакет 3", "Пакет 4"]
    f.assign_all(None)
    f.cmd("start_theme")
    f.host(HostAction.NEXT)
    assert f.events("question_started")[-1]["value"] == 100
    host = f.fight.host_snapshot(f.now)["host_question"]
    assert isinstance(host, dict) and host["text"] == "Вопрос 1.100"
    assert "host_question" not in f.fight.snapshot(f.now)
    f.advance(1 * S)
    f.press("t2")
    f.advance(10 * MS)
    f.host(HostAction.NAME)
    f.host(HostAction.CORRECT)
    for outcome in (None, None, None, "t1"):  # the rest of theme 1: t1 takes the 500
        f.question(outcome)
    assert f.events("theme_ended")[-1]["scores"] == {"t1": 500, "t2": 100, "t3": 0, "t4": 0}
    f.theme()
    assert f.events("theme_started")[-1]["name"] == "Пакет 2"
    assert f.events("question_started")[-1]["value"] == 500  # the pack's values
    for _ in range(2):
        f.theme()
    f.cmd("start_round")
    f.assign_all(None)
    f.cmd("name_theme")  # the pack names the dark round's theme when it is played
    assert f.events("theme_named")[-1]["name"] == "Пакет 5"
    tally = f.fight.tallies()
    assert tally["t1"].taken == {500: 1} and tally["t2"].taken == {100: 1}
    assert f.fight.places().order[:2] == ("t1", "t2")


def test_a_player_not_on_the_roster_joins_the_team_and_plays_from_the_next_round() -> None:
    """3.2 with 3.8: any of the team's players may play; one who came without being listed is
    added to its roster from the tablet and counts at the next round's start."""
    f = Fight()
    def roster() -> list[Any]:
        snap: Any = f.fight.snapshot(f.now)
        return list(snap["teams"][0]["players"])

    before = len(roster())
    f.cmd("add_member", team="t1", name=" Дима ")
    changed = f.events("presence_changed")[-1]
    assert (changed["team"], changed["player"], changed["present"]) == ("t1", "Дима", True)
    assert len(roster()) == before + 1 and roster()[-1] == {"name": "Дима", "present": True}
    out = f.cmd("add_member", team="t1", name="Дима")
    assert f.refusals(out)[0].endswith("игрок «Дима» уже есть")
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    out = f.cmd("assign", team="t1", players=["Дима", "Аня", "Боря", "Вика"])
    assert not f.refusals(out)  # he plays the round's first theme
    joined = QuartetHost(QuartetAction.ADD_MEMBER, 5 * S, team="t2", name="Юра")
    line, at = GAME.input_line(joined) or ({}, 0)
    assert GAME.parse_step("host", line, at) == joined  # journaled whole, replayed the same


def test_a_players_name_corrected_is_the_same_player_in_the_order_and_the_themes_played() -> None:
    """3.2 with 3.4: a typo on the roster is corrected from the tablet; the player keeps their
    themes played and their place in the round's order, so under the new name they still may
    not play a second theme of the round. Not while they sit at the table: the theme's referee
    announced them under the name they sat down with (App.3-5)."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all({"t1": ["Даша", "Аня", "Боря", "Вика"]})
    f.cmd("start_theme")
    out = f.cmd("rename_member", team="t1", player="Даша", name="Дарья")
    assert f.refusals(out) == ["«Исправить имя игрока» сейчас нельзя: Даша играет эту тему: "
                               "имя поправляется после неё"]
    f.cmd("rename_member", team="t1", player="Боря", name="Борис")  # not at the table: at once
    assert f.events("member_renamed")[-1] == {"type": "member_renamed", "t_ns": f.now, "team": "t1",
                                              "name": "Борис", "was": "Боря"}
    f.theme_questions(["t1"])
    for args, why in (({"player": "Даша", "name": "Аня"}, "игрок «Аня» уже есть"),
                      ({"player": "Даша", "name": " Даша "}, "игрока уже зовут «Даша»"),
                      ({"player": "Даша", "name": "  "}, "нужно имя"),
                      ({"player": "Дима", "name": "Дмитрий"}, "«Дима» не игрок команды «t1»")):
        refused = f.refusals(f.cmd("rename_member", team="t1", **args))
        assert refused and refused[0].split(": ", 1)[1].startswith(why), (args, refused)
    f.cmd("rename_member", team="t1", player="Даша", name=" Дарья ")
    snap: Any = f.fight.snapshot(f.now)
    assert [p["name"] for p in snap["teams"][0]["players"]] == ["Аня", "Борис", "Вика", "Гоша", "Дарья"]
    assert snap["round"]["order"]["t1"] == ["Дарья", "Аня", "Борис", "Вика"]
    assert snap["themes"][0]["seats"]["t1"] == "Дарья" and snap["themes"][0]["scores"]["t1"] == 10
    for _ in range(3):
        f.theme()
    assert [e["seats"][0]["player"] for e in f.events("theme_started")] == ["Даша", "Аня", "Борис", "Вика"]

    # The half-dark round: Аня, now Анна, played its first theme and may not play another (3.4).
    f.cmd("start_round")
    f.cmd("name_theme", name="Реки")
    for t in TEAMS:
        f.cmd("assign", team=t.id, player=t.players[0])
    f.theme()
    f.cmd("rename_member", team="t1", player="Аня", name="Анна")
    f.cmd("name_theme", name="Горы")
    refused = f.refusals(f.cmd("assign", team="t1", player="Анна"))
    assert refused and "уже играл(а) в этом раунде" in refused[0] and "(3.4)" in refused[0]
    renamed = QuartetHost(QuartetAction.RENAME_MEMBER, 5 * S, team="t2", player="Ель", name="Ёлка")
    line, at = GAME.input_line(renamed) or ({}, 0)
    assert GAME.parse_step("host", line, at) == renamed  # journaled whole, replayed the same


def test_the_host_is_offered_only_actions_the_fight_takes() -> None:
    """Issue 34: after start_theme the host's action bar gained «Своя игра»'s roster actions as
    raw ids (rename_player, remove_player, bind_pad): the theme's referee lists them, the fight
    takes none of them (its roster is the teams', 3.2). Every action offered parses as one the
    fight knows, before the theme and in it."""
    from console.games.quartet.kind import parse_command

    f = Fight()
    offered: set[str] = set()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    offered |= set(f.fight.host_snapshot(f.now)["host_actions"])  # type: ignore[arg-type]
    f.assign_all(None)
    f.cmd("start_theme")
    offered |= set(f.fight.host_snapshot(f.now)["host_actions"])  # type: ignore[arg-type]
    f.host(HostAction.NEXT)
    offered |= set(f.fight.host_snapshot(f.now)["host_actions"])  # type: ignore[arg-type]
    assert not offered & {"rename_player", "add_player", "remove_player", "bind_pad"}
    for action in sorted(offered):
        try:
            parse_command({"action": action}, 0)
        except ValueError as exc:
            assert "unknown action" not in str(exc), action
