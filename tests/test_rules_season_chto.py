"""The «Что? То? Там?» season, clause by clause (seed 000 §1, §7), on results fed by hand: who
plays the semi-finals, the main and the consolation final, third place, the titles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from console.season.chto import ChtoSeason, decide, game_days
from console.season.model import INDICATORS, GameResult, Ruling, Team


def team(tid: str, registered: bool = True) -> Team:
    return Team(tid, f"Команда {tid}", registered)


def game(stage: str, tid: str, score: str, points: Mapping[str, int] | None = None, /,
         **indicators: int) -> GameResult:
    """A game of `tid` at the table ("6:3": the team's score first); `points`: each team's
    consolation points of the game (the record's `consolation`)."""
    team_score, club = (int(x) for x in score.split(":"))
    return GameResult(f"{stage}:{tid}", stage, tid, team_score, club,
                      {i: indicators.get(i, 0) for i in INDICATORS},
                      {t: {"hall": p, "table": 0, "wrong": 0, "points": p}
                       for t, p in (points or {}).items()})


def season(teams: Sequence[Team], games: Sequence[GameResult],
           rulings: Sequence[Ruling] = ()) -> ChtoSeason:
    return decide(teams, {g.game: g for g in games}, {r.step: r for r in rulings})


FOUR = [team("a"), team("b"), team("c"), team("d")]


def test_1_2_two_games_a_day_one_when_the_number_is_odd() -> None:
    """1.2, 1.2.1: two games a game day; the last day has one when the teams are odd."""
    five = [*FOUR, team("e"), team("x", registered=False)]
    assert game_days(five) == [["a", "b"], ["c", "d"], ["e"]]


def test_1_6_the_biggest_win_goes_to_the_main_final() -> None:
    s = season(FOUR, [game("qualifier", "a", "6:4"), game("qualifier", "b", "6:1"),
                      game("qualifier", "c", "3:6"), game("qualifier", "d", "6:2")])
    assert s.main_finalist == "b" and s.decisions[0].clause == "000 1.6"


def test_1_6_when_all_lost_the_smallest_loss_goes() -> None:
    s = season(FOUR, [game("qualifier", "a", "2:6"), game("qualifier", "b", "5:6"),
                      game("qualifier", "c", "3:6"), game("qualifier", "d", "0:6")])
    assert s.main_finalist == "b" and "наименьшим" in s.decisions[0].text


@pytest.mark.parametrize("indicator", INDICATORS)
def test_1_6_1_a_tie_is_settled_by_the_indicators_in_their_order(indicator: str) -> None:
    """1.6.1 а-д: equal margins; the teams equal on every indicator before this one, and c ahead
    on this one although d is ahead on a later one."""
    before = {i: 1 for i in INDICATORS[:INDICATORS.index(indicator)]}
    later = {i: 2 for i in INDICATORS[INDICATORS.index(indicator) + 1:]}
    s = season(FOUR, [game("qualifier", "a", "2:6"), game("qualifier", "b", "3:6"),
                      game("qualifier", "c", "6:3", **before, **{indicator: 1}),
                      game("qualifier", "d", "6:3", **before, **later)])
    assert s.main_finalist == "c"
    tie = next(d for d in s.decisions if d.step == "main_final_tie")
    assert tie.clause == "000 1.6.1" and f"1.6.1 {'абвгд'[INDICATORS.index(indicator)]})" in tie.text


def test_1_6_1_e_equal_on_everything_all_play_one_game_together() -> None:
    """1.6.1 е: equal on all indicators: both go to the final through one game «вприсядку»,
    won by the team that takes the 6th point (typed by the organiser)."""
    games = [game("qualifier", "a", "6:2", won_duplet=1), game("qualifier", "b", "6:2", won_duplet=1),
             game("qualifier", "c", "1:6"), game("qualifier", "d", "6:5")]
    s = season(FOUR, games)
    assert s.main_finalist is None and s.vprisyadku == ("a", "b")
    assert "вприсядку" in s.waiting[0]
    s = season(FOUR, [*games, game("vprisyadku", "b", "6:4")])
    assert s.main_finalist == "b"
    assert next(d for d in s.decisions if d.step == "main_final").clause == "000 1.6.1 е"


def test_1_7_the_consolation_final_takes_the_most_points_of_the_rest() -> None:
    """1.7, 1.7.1, 1.7.2: each game's consolation points (table ×2 −1 a wrong answer at the
    table, hall and table summed: the record counts them) summed; the most among the rest."""
    s = season(FOUR, [game("qualifier", "a", "6:1", {"a": 9, "b": 2, "c": 4}),
                      game("qualifier", "b", "6:4", {"a": 1, "b": 7, "d": 3}),
                      game("qualifier", "c", "2:6", {"c": 5, "d": 2}),
                      game("qualifier", "d", "4:6", {"b": 1, "d": 4})])
    assert s.consolation == {"a": 10, "b": 10, "c": 9, "d": 9}
    assert s.main_finalist == "a" and s.consolation_finalist == "b"
    assert s.decisions[-1].clause == "000 1.7.3"  # a, the main finalist, has as many: the next one goes


def test_1_5_a_team_that_did_not_register_may_reach_the_consolation_final() -> None:
    teams = [*FOUR, team("x", registered=False)]
    s = season(teams, [game("qualifier", "a", "6:1", {"x": 6}),
                       game("qualifier", "b", "6:4", {"x": 5, "b": 3}),
                       game("qualifier", "c", "2:6", {"c": 4}), game("qualifier", "d", "4:6", {"d": 2})])
    assert s.consolation_finalist == "x" and s.decisions[-1].clause == "000 1.7"


def test_1_7_a_tie_for_the_consolation_final_waits_for_the_organisers_ruling() -> None:
    games = [game("qualifier", "a", "6:1"), game("qualifier", "b", "6:4", {"c": 5, "d": 5}),
             game("qualifier", "c", "2:6"), game("qualifier", "d", "4:6")]
    s = season(FOUR, games)
    assert s.consolation_finalist is None and "решение оргкомитета" in s.waiting[0]
    s = season(FOUR, games, [Ruling("consolation_final", ("d",), "жребий")])
    assert s.consolation_finalist == "d" and "жребий" in s.decisions[-1].text


def test_1_1_1_more_than_six_teams_play_semi_finals_to_seven() -> None:
    """1.1.1: 7 registered: the two biggest qualifier wins play the semi-finals; the final is
    decided on the semi-finals; consolation points of both stages are summed."""
    teams = [team(t) for t in "abcdefg"]
    margins = {"a": "6:1", "b": "6:0", "c": "6:5", "d": "2:6", "e": "6:3", "f": "5:6", "g": "0:6"}
    quals = [game("qualifier", t, sc, {t: 2}) for t, sc in margins.items()]
    s = season(teams, quals)
    assert s.semifinalists == ("b", "a") and s.main_finalist is None
    assert s.decisions[0].clause == "000 1.1.1" and "полуфиналы" in s.waiting[0]
    s = season(teams, [*quals, game("semifinal", "a", "7:2", {"a": 3, "c": 4}),
                       game("semifinal", "b", "7:5", {"c": 1})])
    assert s.main_finalist == "a" and "полуфинальной" in s.decisions[1].text
    assert s.consolation["c"] == 7 and s.consolation_finalist == "c"


def test_1_8_third_place_counts_only_the_two_finals_in_the_hall() -> None:
    """1.8, 7.1: earlier results reset: the hall's points of the two finals only."""
    games = [game("qualifier", "a", "6:1", {"c": 20}), game("qualifier", "b", "6:4", {"b": 25}),
             game("qualifier", "c", "2:6"), game("qualifier", "d", "4:6"),
             game("final", "a", "8:5", {"c": 1, "d": 3}), game("final", "b", "8:3", {"c": 1, "d": 1})]
    s = season(FOUR, games)
    assert (s.main_finalist, s.consolation_finalist) == ("a", "b")
    assert s.third_place == "d"  # c led before the finals; only the finals count


def test_7_2_7_3_the_cups_need_a_win_8_to_less() -> None:
    """7.2-7.3: a win 8:X, X < 8, brings the cup; another result the title only."""
    base = [game("qualifier", "a", "6:1"), game("qualifier", "b", "6:4", {"b": 3}),
            game("qualifier", "c", "2:6"), game("qualifier", "d", "4:6", {"d": 1})]
    s = season(FOUR, [*base, game("final", "a", "8:7", {"c": 1}), game("final", "b", "6:8", {"c": 1})])
    clauses = {d.step: d.clause for d in s.decisions}
    assert clauses["champion"] == "000 7.3" and clauses["silver"] == "000 7.2.1"
    s = season(FOUR, [*base, game("final", "a", "7:8", {"c": 1}), game("final", "b", "8:0", {"c": 1})])
    clauses = {d.step: d.clause for d in s.decisions}
    assert clauses["champion"] == "000 7.3.1" and clauses["silver"] == "000 7.2"


def test_a_season_played_through() -> None:
    """8 registered teams and 2 that did not register, over four game days: the qualifiers, the
    semi-finals (1.1.1), a tie at the final's entry equal on everything played «вприсядку»
    (1.6.1 е), the consolation final with 1.7.3, the finals, third place and the titles."""
    teams = [*(team(t) for t in "abcdefgh"), team("x", registered=False), team("y", registered=False)]
    assert len(game_days(teams)) == 4
    quals = [game("qualifier", "a", "6:2", {"a": 8, "x": 3, "y": 1}),
             game("qualifier", "b", "6:2", {"b": 6, "x": 2}),
             game("qualifier", "c", "4:6", {"c": 5, "y": 4}), game("qualifier", "d", "6:3", {"d": 5, "y": 1}),
             game("qualifier", "e", "1:6", {"e": 2, "x": 2}), game("qualifier", "f", "3:6", {"f": 3}),
             game("qualifier", "g", "6:5", {"g": 4, "y": 1}), game("qualifier", "h", "2:6", {"h": 1, "x": 1})]
    s = season(teams, quals)
    assert s.semifinalists == ("a", "b")  # the two 6:2 wins
    semis = [game("semifinal", "a", "7:3", {"a": 2}), game("semifinal", "b", "7:3", {"b": 3, "y": 1})]
    s = season(teams, [*quals, *semis])
    assert s.vprisyadku == ("a", "b") and s.main_finalist is None
    s = season(teams, [*quals, *semis, game("vprisyadku", "a", "6:5")])
    assert s.main_finalist == "a"
    assert s.consolation["a"] == 10 and s.consolation_finalist == "b"  # 1.7.3: a leads; b (9) next
    finals = [game("final", "a", "8:6", {"x": 2, "y": 4, "c": 3}),
              game("final", "b", "5:8", {"x": 3, "y": 2})]
    s = season(teams, [*quals, *semis, game("vprisyadku", "a", "6:5"), *finals])
    steps = {d.step: d for d in s.decisions}
    assert s.third_place == "y" and steps["third_place"].clause == "000 1.8, 7.1"
    assert steps["champion"].clause == "000 7.3" and steps["silver"].clause == "000 7.2.1"
    assert not s.waiting


def test_1_1_1_a_tie_on_score_for_a_semi_final_place_waits_for_a_ruling() -> None:
    """Found in review: 1.1.1 takes the semi-finalists by the score alone (1.6.1's indicators
    are the final's): a tie across the cut is the organiser's to rule."""
    teams = [team(t) for t in "abcdefg"]
    quals = [game("qualifier", t, sc, None, won_superblitz=int(t == "c")) for t, sc in
             {"a": "6:1", "b": "6:3", "c": "6:3", "d": "2:6", "e": "1:6", "f": "0:6", "g": "3:6"}.items()]
    s = season(teams, quals)
    assert s.semifinalists == () and "решение оргкомитета" in s.waiting[0]
    s = season(teams, quals, [Ruling("semifinal", ("b",), "жребий")])
    assert s.semifinalists == ("a", "b")


def test_1_6_1_e_only_a_win_in_the_game_vprisyadku_goes_to_the_final() -> None:
    games = [game("qualifier", "a", "6:2"), game("qualifier", "b", "6:2"), game("qualifier", "c", "1:6"),
             game("qualifier", "d", "6:5")]
    s = season(FOUR, [*games, game("vprisyadku", "a", "4:6")])  # typed for the loser: no finalist
    assert s.main_finalist is None
