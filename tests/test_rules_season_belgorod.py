"""The Belgorod championship's season, clause by clause (seed 003 5.5-5.8, 6.5-6.7), on results
fed by hand, and a season from a 24-team sports stage (its real sheet, a shoot-out for 5th
included) through BINGO and the series to the final's candidate."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from console.engine.model import NS_PER_S
from console.engine.sports.sheet import Sheet, SheetRules, TeamEntry
from console.engine.sports.stage import SportsStage
from console.engine.sports.timer import SportsRules
from console.games.sports.kind import edit
from console.season.belgorod import (
    BelgorodSeason,
    Bingo,
    FirstStage,
    SlotRefused,
    check_slot,
    decide,
    first_stage_from_sheet,
)
from console.season.model import GameResult, Team

TEAMS = [Team(f"t{n}", f"Команда {n}") for n in range(1, 9)]
NAMES = {t.id: t.name for t in TEAMS}


def tv(stage: str, tid: str, score: str) -> GameResult:
    team, club = (int(x) for x in score.split(":"))
    return GameResult(f"{stage}:{tid}", stage, tid, team, club)


def results(*games: GameResult) -> dict[str, GameResult]:
    return {g.game: g for g in games}


# The first stage: t1..t8 in places 1..8, the first five its winners (5.5).
FIRST = FirstStage({f"t{n}": n for n in range(1, 9)}, ("t1", "t2", "t3", "t4", "t5"))
# The second stage (5.6): t6 and t8 win their TV games, the others lose.
SECOND = [tv("second_stage", f"t{n}", "6:4" if n in (6, 8) else "3:6") for n in range(1, 9)]


def test_5_7_bingo_from_the_first_stages_place_and_the_second_stages_win() -> None:
    """5.7 (the amounts of §8, absent from the seed, are settings): by default 5..1 for places
    1-5 and 3 for a win; equal BINGO: the better first-stage place first."""
    s = decide(TEAMS, FIRST, results(*SECOND), [])
    assert s.bingo == {"t1": 5, "t2": 4, "t3": 3, "t4": 2, "t5": 1, "t6": 3, "t7": 0, "t8": 3}
    assert s.rating == ["t1", "t2", "t3", "t6", "t8", "t4", "t5", "t7"]
    own = decide(TEAMS, FIRST, results(*SECOND), [], Bingo(for_place=(10, 8), for_win=9))
    assert own.bingo["t8"] == 9 and own.bingo["t1"] == 10 and own.bingo["t3"] == 0


def test_5_8_the_series_takes_both_stages_winners_and_the_last_finalist() -> None:
    s = decide(TEAMS, FIRST, results(*SECOND), [], last_finalist="t7")
    assert set(s.entrants) == {"t1", "t2", "t3", "t4", "t5", "t6", "t8", "t7"}
    assert s.decisions[-1].clause == "003 5.8"


def test_6_5_the_captains_choose_in_bingo_order_and_6_7_the_revanche_is_last() -> None:
    s = decide(TEAMS, FIRST, results(*SECOND), [], last_finalist="t7")
    assert "выбирает Команда 1" in s.waiting[0]
    with pytest.raises(SlotRefused, match="сейчас выбирает Команда 1"):
        check_slot(s, [], "t2", 1, "t7", NAMES)
    with pytest.raises(SlotRefused, match="реванш"):
        check_slot(s, [], "t1", 8, "t7", NAMES)  # the last game is the revanche's (6.7)
    check_slot(s, [], "t1", 3, "t7", NAMES)
    with pytest.raises(SlotRefused, match="игра 3 уже за командой Команда 1"):
        check_slot(s, [("t1", 3)], "t2", 3, "t7", NAMES)
    with pytest.raises(SlotRefused, match="не в серии"):
        check_slot(s, [("t1", 3)], "t9", 1, "t7", NAMES)


def chosen(s: BelgorodSeason, order: Sequence[int], last: str = "") -> list[tuple[str, int]]:
    """Each captain in turn takes the next game of `order`."""
    slots: list[tuple[str, int]] = []
    for slot in order:
        picker = s.waiting[0].split("выбирает ")[1]
        team = next(t for t, n in NAMES.items() if n == picker)
        check_slot(s, slots, team, slot, last, NAMES)
        slots.append((team, slot))
        s = decide(TEAMS, FIRST, results(*SECOND), slots, last_finalist=last)
    return slots


def test_6_5_1_on_equal_score_the_team_that_played_later_is_ahead_6_5_2_the_best_is_the_candidate() -> None:
    first = FirstStage({f"t{n}": n for n in range(1, 9)}, ("t1", "t2", "t3"))
    second = [tv("second_stage", f"t{n}", "3:6") for n in range(1, 9)]
    s = decide(TEAMS, first, results(*second), [])
    assert s.entrants == ("t1", "t2", "t3")
    slots = [("t1", 3), ("t2", 1), ("t3", 2)]
    series = [tv("series", "t1", "6:4"), tv("series", "t2", "6:4"), tv("series", "t3", "6:5")]
    s = decide(TEAMS, first, results(*second, *series), slots)
    assert s.series == [["t1", "t2", "t3"]]  # t1 and t2 both 6:4: t1 played later (game 3)
    candidate = s.decisions[-1]
    assert s.candidates == ("t1",) and candidate.clause == "003 6.5.2" and "6.5.1" in candidate.text


def test_6_6_nine_teams_or_more_play_the_series_in_two_independent_parts() -> None:
    teams = [Team(f"t{n}", f"Команда {n}") for n in range(1, 10)]
    first = FirstStage({f"t{n}": n for n in range(1, 10)}, tuple(f"t{n}" for n in range(1, 10)))
    second = [tv("second_stage", f"t{n}", "6:1") for n in range(1, 10)]
    slots = [(f"t{n}", n) for n in range(1, 10)]
    series = [tv("series", f"t{n}", "6:5" if n in (2, 7) else "4:6") for n in range(1, 10)]
    s = decide(teams, first, results(*second, *series), slots)
    assert [len(part) for part in s.series] == [5, 4] and s.candidates == ("t2", "t7")
    assert all("6.6" in d.text for d in s.decisions if d.step == "candidate")


def test_a_season_from_a_24_team_sports_stage_to_the_finals_candidate() -> None:
    """The first stage on the sports stage's own sheet (24 teams, a tie across 5th shot out),
    read as the console publishes it; the TV stage; BINGO; the captains' choices; the series."""
    teams = [Team(f"t{n}", f"Команда {n}") for n in range(1, 25)]
    names = {t.id: t.name for t in teams}
    stage = SportsStage(SportsRules(), Sheet.with_teams(SheetRules(), [TeamEntry(n, f"Команда {n}")
                                                                      for n in range(1, 25)]))
    now = 1000 * NS_PER_S

    def jury(**command: object) -> None:
        nonlocal now
        now += NS_PER_S
        out = stage.handle(edit(command, now, "jury"), now)
        assert type(out[0]).__name__ == "SheetChanged", out

    for n in range(1, 25):  # team n answers 30 - n right; 5 and 6 tie on 25, and 6 wins the shoot-out
        right = 30 - n if n != 6 else 25
        masks = "1" * right + "0" * (36 - right)
        for tour in range(1, 4):
            jury(action="set_team", team=n, tour=tour, mask=masks[(tour - 1) * 12:tour * 12])
    assert stage.sheet.standings().shootout == (5, 6)
    jury(action="set_question", question=37, teams=[6])
    jury(action="close_sheet")
    parts = stage.parts()
    assert isinstance(parts["jury"], dict) and isinstance(parts["teams"], dict)
    first = first_stage_from_sheet(parts["jury"], parts["teams"], teams)
    assert first.winners == ("t1", "t2", "t3", "t4", "t6") and first.places["t5"] == 6
    second = [tv("second_stage", t.id, "6:2" if t.id in ("t10", "t20") else "2:6") for t in teams]
    s = decide(teams, first, results(*second), [], last_finalist="t24")
    # in BINGO order: 5, 4, 3 for places 1-3; 3 for t10's and t20's wins; 2 and 1 for 4th and 5th
    assert s.entrants == ("t1", "t2", "t3", "t10", "t20", "t4", "t6", "t24")
    slots: list[tuple[str, int]] = []
    for slot in (2, 1, 4, 3, 6, 5, 7):
        team = s.waiting[0].split("выбирает ")[1]
        tid = next(t for t, n in names.items() if n == team)
        check_slot(s, slots, tid, slot, "t24", names)
        slots.append((tid, slot))
        s = decide(teams, first, results(*second), slots, last_finalist="t24")
    assert s.order[8] == "t24" and s.order[2] == "t1"
    series = [tv("series", t, "6:3" if t in ("t4", "t20") else "5:6") for t in s.entrants]
    s = decide(teams, first, results(*second, *series), slots, last_finalist="t24")
    later = max(("t4", "t20"), key=lambda t: next(n for n, x in s.order.items() if x == t))
    assert s.candidates == (later,) and not s.waiting


def test_a_first_stage_not_closed_or_of_unknown_teams_is_refused() -> None:
    stage = SportsStage(SportsRules(), Sheet.with_teams(SheetRules(), [TeamEntry(1, "Чужие")]))
    jury_part, teams_part = stage.parts()["jury"], stage.parts()["teams"]
    assert isinstance(jury_part, dict) and isinstance(teams_part, dict)
    with pytest.raises(ValueError, match="не закрыт"):
        first_stage_from_sheet(jury_part, teams_part, TEAMS)
    with pytest.raises(ValueError, match="«Чужие»"):
        first_stage_from_sheet({**jury_part, "closed": True}, teams_part, TEAMS)
