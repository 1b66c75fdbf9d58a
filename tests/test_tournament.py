"""The 24-team «Эрудит-квартет» grid (seed 004 §II): the draw, the stages, the best runner-up,
the standings and their export. Each test cites its clause."""

from __future__ import annotations

import csv
import io
import json

import pytest

from console.engine.quartet.rules import QuartetTeam, RoundType, Stage
from console.tournament.draw import draw_groups
from console.tournament.export import CSV_HEADER, standings_csv, tournament_from_json, tournament_json
from console.tournament.grid import DEFAULT_SCHEME, FINAL, FightResult, Line, Tournament
from tests.quartet_harness import Fight, make_rules

TEAMS = [f"team{i:02d}" for i in range(1, 25)]


def result(fight: str, order: list[str], totals: list[int] | None = None, **plus: int) -> FightResult:
    totals = totals or [400 - 100 * i for i in range(len(order))]
    return FightResult(fight, tuple(Line(team=t, place=i + 1, total=tot, plus=plus.get(t, max(tot, 0)))
                                    for i, (t, tot) in enumerate(zip(order, totals, strict=True))))


def played_groups(t: Tournament) -> None:
    """Each group's fight ends in the order drawn."""
    for g, teams in t.draw.groups.items():
        assert t.record(result(f"group-{g}", list(teams)))


def test_the_public_draw_makes_six_groups_of_four_and_can_be_shown_again() -> None:
    """2.1, 2.2.2, 2.3.3: 24 teams drawn publicly into six groups of four; the seed is kept, so
    the same seed gives the same groups, and another seed another draw."""
    draw = draw_groups(TEAMS, 2026)
    assert list(draw.groups) == list("ABCDEF") and all(len(g) == 4 for g in draw.groups.values())
    assert sorted(t for g in draw.groups.values() for t in g) == TEAMS
    assert draw_groups(TEAMS, 2026) == draw and draw.seed == 2026
    assert draw_groups(TEAMS, 2027).groups != draw.groups
    with pytest.raises(ValueError, match=r"24 teams \(2.1\)"):
        draw_groups(TEAMS[:23], 1)
    with pytest.raises(ValueError, match="twice"):
        draw_groups([*TEAMS[:23], TEAMS[0]], 1)


def test_the_top_two_go_to_the_semifinals_and_third_and_fourth_to_consolation() -> None:
    """2.2.2, 2.3.3: one fight per group; the first two places to the semi-finals, the third and
    fourth to the consolation fights; by the scheme fixed in advance, no semi-final holds two
    teams of one group."""
    t = Tournament(draw_groups(TEAMS, 7))
    assert [f.teams for f in t.fights() if f.stage is Stage.SEMIFINAL] == [None, None, None]
    played_groups(t)
    fights = {f.id: f for f in t.fights()}
    place = {team: (g, i + 1) for g, teams in t.draw.groups.items() for i, team in enumerate(teams)}
    for fight_id, seats in DEFAULT_SCHEME.items():
        teams = fights[fight_id].teams
        assert teams is not None and [place[x] for x in teams] == list(seats)
        assert len({place[x][0] for x in teams}) == 4
    semi = {x for f in fights.values() if f.stage is Stage.SEMIFINAL for x in f.teams or ()}
    consolation = {x for f in fights.values() if f.stage is Stage.CONSOLATION for x in f.teams or ()}
    assert semi == {x for x, (_, p) in place.items() if p <= 2}
    assert consolation == {x for x, (_, p) in place.items() if p >= 3}
    assert fights[FINAL].teams is None


def test_a_result_counts_once_and_only_for_its_fight() -> None:
    """2.2.2: a fight's result is recorded once (a repeat is not counted twice); a fight not yet
    formed, the wrong teams or a second, different result are refused."""
    t = Tournament(draw_groups(TEAMS, 7))
    a = list(t.draw.groups["A"])
    with pytest.raises(ValueError, match="not formed yet"):
        t.record(result("semi-1", a))
    with pytest.raises(ValueError, match="the result names"):
        t.record(result("group-A", list(t.draw.groups["B"])))
    assert t.record(result("group-A", a)) is True
    assert t.record(result("group-A", a)) is False
    with pytest.raises(ValueError, match="already has a different result"):
        t.record(result("group-A", a[::-1]))
    with pytest.raises(ValueError, match="no fight"):
        t.record(result("group-Z", a))


def semis_played(t: Tournament, runner_up_totals: list[int],
                 runner_up_plus: list[int] | None = None) -> list[str]:
    played_groups(t)
    runners = []
    for i, semi in enumerate(t.semifinals()):
        teams = list(t.fight(semi).teams or ())
        total = runner_up_totals[i]
        plus = {teams[1]: (runner_up_plus or runner_up_totals)[i]}
        t.record(result(semi, teams, [500, total, 0, -50], **plus))
        runners.append(teams[1])
    return runners


def test_the_final_takes_the_semifinal_winners_and_the_best_runner_up_over_two_fights() -> None:
    """2.2.3: to the final go the semi-final winners and, among the semi-finals' runners-up,
    the one with the most points over its two fights (its group fight and its semi-final)."""
    t = Tournament(draw_groups(TEAMS, 7))
    runners = semis_played(t, [100, 250, 200])
    # Every runner-up was first or second of its group: 400 or 300 there.
    group_points = {x: 400 - 100 * list(t.draw.groups[g]).index(x)
                    for g in "ABCDEF" for x in t.draw.groups[g]}
    over_two = {x: group_points[x] + semi for x, semi in zip(runners, [100, 250, 200], strict=True)}
    best = max(over_two, key=lambda x: over_two[x])
    finalists = t.finalists()
    assert finalists is not None
    assert finalists[:3] == tuple((t.fight(s).teams or ("",))[0] for s in t.semifinals())
    assert finalists[3] == best
    assert t.fight(FINAL).teams == finalists


def test_tied_runners_up_go_to_the_indicators_then_a_shootout() -> None:
    """2.2.3 with 3.10: equal points over two fights: the indicators of 3.10 summed over both;
    equal again: a shoot-out for the place in the final, which the grid waits on."""
    t = Tournament(draw_groups(TEAMS, 11))
    played_groups(t)
    # Make every runner-up's group points equal: put them all second in their groups' order.
    runners = []
    for semi in t.semifinals():
        teams = list(t.fight(semi).teams or ())
        runners.append(teams[1])
    group_points = {ln.team: ln.total for g in "ABCDEF"
                    for ln in getattr(t.result(f"group-{g}"), "lines", ())}
    # Semi totals that even out the group points: every runner-up ends on 700 over two fights.
    for semi, runner in zip(t.semifinals(), runners, strict=True):
        teams = list(t.fight(semi).teams or ())
        t.record(result(semi, teams, [800, 700 - group_points[runner], -10, -20],
                        **{runner: 1000 if runner == runners[2] else 900}))
    places = t.runner_up()
    assert places is not None and places.order[0] == runners[2] and places.by[0] == "plus"
    assert t.finalists() is not None and t.finalists()[3] == runners[2]  # type: ignore[index]

    tied = Tournament(draw_groups(TEAMS, 11))
    played_groups(tied)
    for semi, runner in zip(tied.semifinals(), runners, strict=True):
        teams = list(tied.fight(semi).teams or ())
        tied.record(result(semi, teams, [800, 700 - group_points[runner], -10, -20], **{runner: 900}))
    places = tied.runner_up()
    assert places is not None and places.pending and set(places.pending[0].teams) == set(runners)
    assert tied.finalists() is None and tied.fight(FINAL).teams is None
    tied.record_runner_up_shootout({runners[0]: 10, runners[1]: 30, runners[2]: 0})
    assert tied.finalists() is not None and tied.finalists()[3] == runners[1]  # type: ignore[index]


def strong_first(fight: Fight, strength: dict[str, int]) -> list[str]:
    """Plays a whole three-round fight on the engine where the stronger teams take the dearer
    questions; returns the fight's places."""
    order = sorted((t.id for t in fight.rules.teams), key=lambda x: -strength[x])
    themes = [(order[3], order[2], order[1], order[0], order[0])] * 4  # 10, 20, 30, 40, 50
    fight.round_open(themes)
    fight.round_half_dark(themes)
    fight.round_dark(themes)
    over = fight.events("fight_over")[-1]
    return [p["team"] for p in over["places"]]


def test_a_simulated_tournament_of_24_teams_produces_the_final_grid() -> None:
    """2.1-2.3.3 end to end: every fight played on the fight engine (3.3-3.10), its fight_over
    recorded in the grid, the best runner-up settled by a shoot-out, the final played; the
    standings and both exports follow."""
    strength = {t: 100 - i for i, t in enumerate(TEAMS)}
    tournament = Tournament(draw_groups(TEAMS, 99))

    def play(fight_id: str, stage: Stage) -> None:
        teams = tournament.fight(fight_id).teams
        assert teams is not None
        rules = make_rules(teams=tuple(QuartetTeam(x, x, f"mcu:{i}", tuple(f"{x}-{j}" for j in range(4)))
                                       for i, x in enumerate(teams)), stage=stage,
                           rounds=(RoundType.OPEN, RoundType.HALF_DARK, RoundType.DARK))
        fight = Fight(rules)
        strong_first(fight, strength)
        assert tournament.record(FightResult.from_fight_over(fight_id, fight.events("fight_over")[-1]))

    for g in "ABCDEF":
        play(f"group-{g}", Stage.GROUP)
    for f in tournament.fights():
        if f.stage in (Stage.SEMIFINAL, Stage.CONSOLATION):
            play(f.id, f.stage)
    places = tournament.runner_up()
    assert places is not None and len(places.pending) == 1  # the runners-up play alike: tied
    pending = places.pending[0].teams
    best = max(pending, key=lambda x: strength[x])
    tournament.record_runner_up_shootout({x: 50 if x == best else 0 for x in pending})
    play(FINAL, Stage.FINAL)

    standings = tournament.standings()
    final = tournament.result(FINAL)
    assert final is not None
    winners = [ln.team for ln in sorted(final.lines, key=lambda ln: ln.place)]
    assert [s.team for s in standings[:4]] == winners
    assert winners[0] == max(winners, key=lambda x: strength[x])
    assert len(standings) == 24 and {s.team for s in standings} == set(TEAMS)
    assert [s.reached for s in standings].count(Stage.CONSOLATION) == 12

    rows = list(csv.reader(io.StringIO(standings_csv(tournament))))
    assert tuple(rows[0]) == CSV_HEADER and len(rows) == 25
    assert rows[1][1] == winners[0] and rows[1][3] == "final" and rows[1][6].startswith("group-")
    data = json.loads(json.dumps(tournament_json(tournament)))
    assert data["draw"]["seed"] == 99 and len(data["fights"]) == 13
    assert all(f["result"] is not None for f in data["fights"])
    assert [s["team"] for s in data["standings"][:4]] == winners
    assert data["runner_up"]["order"][0] == best


def test_the_grid_survives_a_restart_through_its_json() -> None:
    """Issue 9: the grid and standings are kept: the exported JSON, read back, is the same
    tournament (the draw, every result, the runner-up's shoot-out), and exports the same."""
    t = Tournament(draw_groups(TEAMS, 11))
    played_groups(t)
    for semi in t.semifinals():
        teams = list(t.fight(semi).teams or ())
        t.record(result(semi, teams, [800, 300, -10, -20], **{teams[1]: 300}))
    places = t.runner_up()
    assert places is not None and places.pending
    t.record_runner_up_shootout(dict.fromkeys(places.pending[0].teams, 0) | {places.pending[0].teams[1]: 40})
    finalists = t.finalists()
    assert finalists is not None
    t.record(result(FINAL, list(finalists)))
    data = json.loads(json.dumps(tournament_json(t)))
    back = tournament_from_json(data)
    assert tournament_json(back) == data and standings_csv(back) == standings_csv(t)
    assert back.finalists() == finalists
    broken = json.loads(json.dumps(data))
    broken["fights"][0]["result"][0]["team"] = "team99"
    with pytest.raises(ValueError, match="the result names"):
        tournament_from_json(broken)
