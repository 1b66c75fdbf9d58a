"""«Что? Где? Когда?» table rules, clause by clause (seeds 000 «Что? То? Там?» and 003 Belgorod).

`000_4_2_d` means seed 000, clause 4.2 д; `003_6_1_1` means seed 003, clause 6.1.1. Every test
steps the clock by hand; none sleeps.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from console.engine.action_titles import TITLES
from console.engine.chgk.events import TimerWarning
from console.engine.chgk.referee import ChgkReferee
from console.engine.chgk.rules import (
    ChgkAction,
    ChgkHost,
    ChgkRules,
    EarlyAnswer,
    PickSource,
    SectorKind,
    SectorPicked,
    Stage,
    Team,
)
from console.engine.model import Cue, Output
from console.engine.sports.timer import SportsAction, SportsRules
from console.wire import events_json
from tests.chgk_harness import MS, TEAMS, A, S, SportsClock, Table, make_rules

K = SectorKind


def belgorod(**overrides: Any) -> Table:
    args: dict[str, Any] = {"teams": TEAMS, "table_team": "t1"}
    args.update(overrides)
    return Table(ChgkRules.belgorod(**args))


def refused(t: Table, action: ChgkAction, **args: Any) -> dict[str, Any]:
    """Do `action`; assert it is an error that changes nothing; return the error."""
    before, host_before = t.snap(), t.ref.host_snapshot(t.now)
    out = t.host(action, **args)
    errors = [e for e in events_json(out) if e["type"] == "error"]
    assert len(errors) == 1 and len(out) == 1, out
    assert f"«{TITLES[action.value]}» сейчас нельзя" in errors[0]["message"]
    assert t.snap() == before and t.ref.host_snapshot(t.now) == host_before
    return errors[0]


# ---------------------------------------------------------------- the table and its parameters


@pytest.mark.parametrize("sectors", [12, 13])
def test_000_3_8_1_and_003_6_2_table_of_12_or_13_sectors_numbered_clockwise(sectors: int) -> None:
    t = Table(make_rules(sectors=sectors))
    assert [s["sector"] for s in t.snap()["sectors"]] == list(range(1, sectors + 1))
    assert all(not s["played"] and s["kind"] == "question" for s in t.snap()["sectors"])


@pytest.mark.parametrize(("overrides", "field"), [
    ({"sectors": 11}, "sectors"),
    ({"special": {14: K.BLITZ}}, "special"),
    ({"special": {3: K.FORTOCHKA}}, "special"),
    ({"special": {3: K.BLITZ}, "fortochka_sector": 3}, "fortochka_sector"),
    ({"fortochka_sector": 0}, "fortochka_sector"),
    ({"table_team": "t9"}, "table_team"),
    ({"duplet_parts": 1}, "duplet_parts"),
    ({"decisive_round_at": 6}, "decisive_round_at"),
    ({"discussion_ns": 0}, "discussion_ns"),
    ({"teams": (Team("a", "А"), Team("a", "Б")), "table_team": None}, "teams"),
])
def test_rules_validation_errors_name_the_field(overrides: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=rf"ChgkRules\.{field}:"):
        make_rules(**overrides)


def test_presets_000_and_003() -> None:
    tto, bel = ChgkRules.tto(), ChgkRules.belgorod()
    assert (tto.sectors, tto.early_answer, tto.extra_time_ns, tto.decisive_round_at) == (
        12, EarlyAnswer.NOTHING, 30 * S, None)
    assert (bel.sectors, bel.early_answer, bel.extra_time_ns, bel.decisive_round_at) == (
        13, EarlyAnswer.SAVES_MINUTE, 60 * S, 5)


# ---------------------------------------------------------------- 003 6.1.1: choosing the sector


def test_003_6_1_1_an_unplayed_sector_is_played_as_picked() -> None:
    t = Table()
    t.pick(5)
    chosen = t.last("sector_chosen")
    assert (chosen["picked"], chosen["played_sector"], chosen["skipped"]) == (5, 5, [])
    assert (chosen["kind"], chosen["envelope"], chosen["source"]) == ("question", 5, "top")
    assert chosen["round"] == 1


def test_003_6_1_1_next_unplayed_sector_clockwise() -> None:
    t = Table()
    t.play(5, True)
    t.play(6, False)
    t.pick(5)
    chosen = t.last("sector_chosen")
    assert (chosen["picked"], chosen["played_sector"], chosen["skipped"]) == (5, 7, [5, 6])


def test_003_6_1_1_clockwise_wraps_from_the_last_sector_to_the_first() -> None:
    t = Table()
    t.play(12, True)
    t.play(1, True)
    t.pick(12)
    chosen = t.last("sector_chosen")
    assert (chosen["played_sector"], chosen["skipped"]) == (2, [12, 1])


@pytest.mark.parametrize("source", list(PickSource))
def test_000_2_1_the_pick_records_its_source(source: PickSource) -> None:
    t = Table()
    t.pick(3, source)
    assert t.last("sector_chosen")["source"] == source.value


def test_a_pick_during_a_round_or_off_the_table_is_an_error_and_changes_nothing() -> None:
    t = Table()
    t.pick(3)
    before = t.snap()
    t.pick(4)
    assert "идёт раунд 1" in t.last("error")["message"]
    assert t.snap() == before
    t.host(A.CANCEL_ROUND)
    before = t.snap()
    t.pick(13)
    assert "нет сектора 13" in t.last("error")["message"]
    assert t.snap() == before


# ---------------------------------------------------------------- discussion timers and cues


def test_003_6_1_2_000_3_3_a_minute_after_time_with_start_warning_and_time_up_cues() -> None:
    t = Table()
    t.pick(1)
    assert t.ref.next_deadline() is None  # nothing runs until «Время!»
    t.host(A.START_TIMER)
    start = t.now
    started = t.last("timer_started")
    assert (started["deadline_ns"], started["seconds"], started["warning_ns"]) == (
        start + 60 * S, 60.0, start + 50 * S)
    assert t.cues() == [Cue.START]
    assert t.snap()["timer"]["remaining_ms"] == 60_000
    t.advance_to(start + 50 * S - 1)
    assert t.cues() == [Cue.START]
    t.advance_to(start + 50 * S)
    assert t.cues() == [Cue.START, Cue.WARNING]
    warning = t.last("timer_warning")
    assert (warning["remaining_s"], warning["seconds"]) == (10.0, 60.0)
    assert warning["deadline_ns"] == start + 60 * S
    t.advance_to(start + 60 * S)
    assert t.cues() == [Cue.START, Cue.WARNING, Cue.TIME_UP]
    assert (t.last("time_up")["deadline_ns"], t.last("time_up")["seconds"]) == (start + 60 * S, 60.0)
    assert t.ref.phase == "answer" and t.ref.next_deadline() is None


def test_000_3_3_the_count_runs_from_the_time_key_not_from_its_arrival() -> None:
    t = Table()
    t.pick(1)
    pressed = t.now
    t.advance(40 * MS)
    t.host(A.START_TIMER, at=pressed)
    assert t.last("timer_started")["deadline_ns"] == pressed + 60 * S


def test_003_6_2_2_blitz_three_20_s_questions_all_right_to_score() -> None:
    t = Table(make_rules(special={3: K.BLITZ}))
    t.pick(3)
    chosen = t.last("sector_chosen")
    assert (chosen["kind"], chosen["parts"], chosen["seconds"], chosen["players_at_table"]) == (
        "blitz", 3, 20.0, 6)
    for part in (1, 2, 3):
        t.host(A.START_TIMER)
        start = t.now
        assert t.last("timer_started")["deadline_ns"] == start + 20 * S
        assert t.last("timer_started")["part"] == part
        t.advance_to(start + 20 * S)  # the warning at 10 s left, then the end
        t.host(A.ANSWER_CORRECT)
    assert t.cues() == [Cue.START, Cue.WARNING, Cue.TIME_UP] * 3
    assert [e["part"] for e in t.events("next_part")] == [2, 3]
    ended = t.last("round_ended")
    assert (ended["result"], ended["parts"]) == ("team", [True, True, True])
    assert t.score == (1, 0)


def test_003_6_2_2_a_wrong_blitz_answer_ends_the_sector_and_the_club_scores() -> None:
    t = Table(make_rules(special={3: K.BLITZ}))
    t.play(3, True, False)
    ended = t.last("round_ended")
    assert (ended["result"], ended["reason"], ended["parts"]) == ("club", "wrong", [True, False])
    assert t.score == (0, 1) and t.ref.phase == "ready"


def test_003_6_2_3_000_4_2_b_superblitz_three_20_s_questions_one_player_stays() -> None:
    t = Table(make_rules(special={4: K.SUPERBLITZ}))
    t.pick(4)
    chosen = t.last("sector_chosen")
    assert (chosen["parts"], chosen["seconds"], chosen["players_at_table"]) == (3, 20.0, 1)
    assert t.snap()["players_at_table"] == 1
    for _ in range(3):
        t.host(A.START_TIMER)
        t.host(A.ANSWER_CORRECT)
    assert t.score == (1, 0)
    assert t.snap()["players_at_table"] == 6  # the others come back


@pytest.mark.parametrize(("parts", "seconds"), [(2, 30), (3, 20)])
def test_000_4_2_a_duplet_two_30_s_or_three_20_s_all_right_to_score(parts: int, seconds: int) -> None:
    t = Table(make_rules(special={5: K.DUPLET}, duplet_parts=parts, duplet_part_ns=seconds * S))
    t.pick(5)
    assert (t.last("sector_chosen")["parts"], t.last("sector_chosen")["seconds"]) == (parts, seconds)
    for _ in range(parts - 1):
        t.host(A.START_TIMER)
        assert t.last("timer_started")["seconds"] == seconds
        t.host(A.ANSWER_CORRECT)
    assert t.score == (0, 0)  # not yet: every part must be right
    t.host(A.START_TIMER)
    t.host(A.ANSWER_CORRECT)
    assert t.score == (1, 0)


@pytest.mark.parametrize(("players", "leave", "seconds"), [
    (6, 0, 10), (6, 1, 20), (6, 3, 40), (6, 5, 60), (5, 3, 40), (5, 4, 60), (4, 3, 60)])
def test_000_4_2_v_zeitnot_10_s_plus_10_per_player_who_leaves_60_s_with_one_left(
        players: int, leave: int, seconds: int) -> None:
    t = Table(make_rules(special={6: K.ZEITNOT}, table_players=players))
    t.pick(6)
    assert t.last("sector_chosen")["seconds"] == 10.0
    for _ in range(leave):
        t.host(A.PLAYER_LEAVES)
    assert t.snap()["players_at_table"] == players - leave
    t.host(A.START_TIMER)
    start = t.now
    assert t.last("timer_started")["deadline_ns"] == start + seconds * S
    t.advance_to(start + seconds * S)
    expected = [Cue.START, Cue.TIME_UP] if seconds == 10 else [Cue.START, Cue.WARNING, Cue.TIME_UP]
    assert t.cues() == expected  # a 10-s count has no «10 секунд» warning
    t.host(A.ANSWER_CORRECT)
    assert t.snap()["players_at_table"] == players  # they leave for the sector only


def test_000_4_2_v_players_leave_only_on_zeitnot_before_the_count_and_one_always_stays() -> None:
    t = Table(make_rules(special={6: K.ZEITNOT}, table_players=2))
    t.pick(1)
    assert "только на «цейтноте»" in refused(t, A.PLAYER_LEAVES)["message"]
    t.host(A.CANCEL_ROUND)
    t.pick(6)
    t.host(A.PLAYER_LEAVES)
    assert "остался один игрок" in refused(t, A.PLAYER_LEAVES)["message"]
    t.host(A.START_TIMER)
    assert "до начала отсчёта" in refused(t, A.PLAYER_LEAVES)["message"]


def test_003_6_2_1_sector13_the_host_states_its_rules_a_minute_unless_configured() -> None:
    t = Table(make_rules(sectors=13, special={13: K.SECTOR13}, sector13_ns=90 * S))
    t.pick(13)
    chosen = t.last("sector_chosen")
    assert (chosen["title"], chosen["seconds"], chosen["parts"]) == ("13 сектор", 90.0, 1)


def test_000_4_2_g_sector12_asks_the_runtime_for_a_random_base_question() -> None:
    t = Table(make_rules(special={12: K.SECTOR12}))
    t.pick(12)
    needed = t.last("question_needed")
    assert (needed["kind"], needed["round"], needed["sector"]) == ("random_base", 1, 12)
    assert t.last("sector_chosen")["title"] == "12-й сектор"
    t.host(A.START_TIMER)
    assert t.last("timer_started")["seconds"] == 60.0


# ---------------------------------------------------------------- judging and the winning score


def test_003_6_1_3_team_scores_on_a_correct_answer_6_1_4_club_on_a_wrong_one() -> None:
    t = Table()
    t.play(1, True)
    assert t.score == (1, 0)
    t.play(2, False)
    assert t.score == (1, 1)
    assert [e["result"] for e in t.events("round_ended")] == ["team", "club"]


def test_003_6_1_2_answering_before_the_time_is_up_stops_the_count() -> None:
    t = Table()
    t.pick(1)
    t.host(A.START_TIMER)
    t.advance(30 * S)
    t.host(A.ANSWER_CORRECT)
    assert t.ref.next_deadline() is None
    t.advance(60 * S)
    assert t.cues() == [Cue.START]


def test_judging_with_no_round_or_before_the_count_is_an_error_and_changes_nothing() -> None:
    t = Table()
    assert "раунд не идёт" in refused(t, A.ANSWER_CORRECT)["message"]
    refused(t, A.ANSWER_WRONG)
    t.pick(1)
    assert "обсуждение не началось" in refused(t, A.ANSWER_CORRECT)["message"]


@pytest.mark.parametrize(("stage", "target"), [
    (Stage.QUALIFIER, 6), (Stage.SEMIFINAL, 7), (Stage.FINAL, 8)])
def test_000_1_1_1_and_3_8_game_to_6_7_8_by_stage(stage: Stage, target: int) -> None:
    t = Table(make_rules(stage=stage))
    for sector in range(1, target):
        t.play(sector, True)
    assert t.events("game_over") == [] and t.snap()["final_round"] is True
    t.play(target, True)
    over = t.last("game_over")
    assert (over["winner"], over["score"]) == ("team", {"team": target, "club": 0})
    assert t.last("game_record")["score"] == {"team": target, "club": 0}
    t.pick(12)
    assert "игра окончена" in t.last("error")["message"]


def test_003_6_1_4_the_club_wins_at_the_winning_score_too() -> None:
    t = Table()
    for sector in range(1, 7):
        t.play(sector, False)
    assert t.last("game_over")["winner"] == "club"
    assert t.snap()["winner"] == "club"


# ---------------------------------------------------------------- 000 4.2 д: the fortochka


def test_000_4_2_d_fortochka_team_scores_when_the_previous_round_was_right() -> None:
    t = Table(make_rules(fortochka_sector=7))
    t.play(1, True)
    t.pick(7)
    played = t.last("fortochka_played")
    assert (played["to"], played["reason"]) == ("team", "previous_correct")
    assert t.last("sector_chosen")["kind"] == "fortochka"
    assert t.last("round_ended")["reason"] == "fortochka"
    assert t.score == (2, 0) and t.ref.phase == "ready"


def test_000_4_2_d_fortochka_the_host_scores_when_the_previous_round_was_wrong() -> None:
    t = Table(make_rules(fortochka_sector=7))
    t.play(1, False)
    t.pick(7)
    assert t.last("fortochka_played")["to"] == "club"
    assert t.score == (0, 2)


def test_000_4_2_d_fortochka_follows_the_last_round_not_an_earlier_one() -> None:
    """«Предыдущий раунд» is the round just before: right in round 1, wrong in round 2, the
    fortochka in round 3 goes to the club."""
    t = Table(make_rules(fortochka_sector=7))
    t.play(1, True)
    t.play(2, False)
    t.pick(7)
    played = t.last("fortochka_played")
    assert (played["to"], played["reason"]) == ("club", "previous_wrong")
    assert t.score == (1, 2)


def test_000_4_2_d_fortochka_in_the_first_round_scores_for_nobody() -> None:
    """Seed silent: with no previous answer nobody scores; the fortochka is spent."""
    t = Table(make_rules(fortochka_sector=7))
    t.pick(7)
    assert t.last("fortochka_played")["reason"] == "no_previous_round"
    assert t.score == (0, 0) and t.snap()["fortochka_fell"] is True


def test_000_4_2_d_fortochka_once_a_game_its_sector_is_then_skipped_clockwise() -> None:
    t = Table(make_rules(fortochka_sector=7))
    t.play(1, True)
    t.pick(7)
    t.pick(7)
    assert (t.last("sector_chosen")["played_sector"], t.last("sector_chosen")["skipped"]) == (8, [7])
    assert len(t.events("fortochka_played")) == 1


def test_000_4_2_d_fortochka_not_played_in_the_final_round_the_next_sector_is() -> None:
    t = Table(make_rules(fortochka_sector=7))
    for sector in range(1, 6):
        t.play(sector, True)
    assert t.snap()["final_round"] is True  # 5:0, the game is to 6
    t.pick(7)
    chosen = t.last("sector_chosen")
    assert (chosen["played_sector"], chosen["kind"], chosen["fortochka_skipped"]) == (8, "question", 7)
    assert t.events("fortochka_played") == [] and t.score == (5, 0)


def test_000_4_2_d_fortochka_passed_in_the_final_round_has_fallen_for_the_game() -> None:
    t = Table(make_rules(fortochka_sector=7))
    for sector in range(1, 6):
        t.play(sector, False)
    t.pick(7)  # 0:5: the final round, the fortochka is revealed and passed over
    assert t.snap()["sectors"][6] == {"sector": 7, "kind": "fortochka", "title": "Форточка", "envelope": 7,
                                      "played": True}
    assert t.host_snap()["fortochka"] == {"sector": None, "fell": True}
    t.host(A.CANCEL_ROUND)
    t.pick(9)
    assert "раз за игру" in refused(t, A.FORTOCHKA)["message"]


def test_000_4_2_d_fortochka_place_is_for_the_host_only() -> None:
    t = Table(make_rules(fortochka_sector=7))
    t.host(A.NEW_GAME, team="t1")
    placed = t.last("fortochka_placed")
    assert (placed["audience"], placed["sector"]) == ("host", 7)
    public = t.snap()
    assert public["sectors"][6]["kind"] == "question" and "fortochka" not in public
    assert not reveals_fortochka(t.public_events())
    assert t.host_snap()["fortochka"] == {"sector": 7, "fell": False}
    t.play(1, True)
    assert not reveals_fortochka(t.public_events())
    t.pick(7)  # it falls: now everyone sees it
    assert t.snap()["sectors"][6]["kind"] == "fortochka"


def test_000_4_2_d_fortochka_point_is_not_a_consolation_point() -> None:
    t = Table(make_rules(fortochka_sector=7))
    t.play(1, True)
    t.pick(7)
    for sector in (2, 3, 4, 5):
        t.play(sector, True)
    record = t.last("game_record")
    assert record["score"] == {"team": 6, "club": 0} and record["table_points"] == 5
    assert record["consolation"][0] == {"team": "t1", "name": "Совы", "hall": 0, "table": 5, "wrong": 0,
                                        "points": 10}


def test_000_4_2_d_host_declares_the_fortochka_when_its_place_is_not_configured() -> None:
    t = Table()
    t.play(1, True)
    t.pick(2)
    t.host(A.FORTOCHKA)
    assert t.last("fortochka_played")["to"] == "team"
    assert t.score == (2, 0)


def test_000_4_2_d_a_second_fortochka_is_an_error_and_changes_nothing() -> None:
    t = Table()
    t.play(1, True)
    t.pick(2)
    t.host(A.FORTOCHKA)
    t.pick(3)
    assert "раз за игру" in refused(t, A.FORTOCHKA)["message"]


def test_000_4_2_d_declaring_it_elsewhere_when_configured_is_a_host_only_error() -> None:
    t = Table(make_rules(fortochka_sector=7))
    t.pick(2)
    error = refused(t, A.FORTOCHKA)
    assert error["audience"] == "host" and "(сектор 7)" in error["message"]


def test_000_4_2_d_declared_in_the_final_round_the_next_sector_is_played() -> None:
    t = Table()
    for sector in range(1, 6):
        t.play(sector, True)
    t.pick(6)
    t.host(A.FORTOCHKA)
    chosen = t.last("sector_chosen")
    assert (chosen["round"], chosen["played_sector"], chosen["fortochka_skipped"]) == (6, 7, 6)
    assert t.score == (5, 0) and t.ref.phase == "asked"


# ---------------------------------------------------------------- 000 2.1: the lototron


def test_000_2_1_lototron_draws_a_team_uniformly_with_the_seeded_rng() -> None:
    for seed in range(8):
        t = Table(make_rules(table_team=None, seed=seed))
        t.host(A.DRAW_LOTOTRON)
        drawn = t.last("lototron_drawn")
        index = random.Random(seed).randrange(len(TEAMS))
        assert (drawn["team"], drawn["number"], drawn["seed"]) == (TEAMS[index].id, index + 1, seed)
        assert t.snap()["team"]["id"] == drawn["team"]


def test_000_2_1_lototron_draw_is_reproducible_by_seed() -> None:
    def draws(seed: int) -> list[str]:
        t = Table(make_rules(table_team=None, seed=seed))
        teams = []
        for _ in range(len(TEAMS)):
            t.host(A.DRAW_LOTOTRON)
            teams.append(t.last("lototron_drawn")["team"])
            t.host(A.NEW_GAME)
        return teams

    assert [draws(s) for s in range(10)] == [draws(s) for s in range(10)]
    assert len({tuple(draws(s)) for s in range(10)}) > 1
    assert all(sorted(draws(s)) == ["t1", "t2", "t3", "t4"] for s in range(10))  # out of the box once


def test_000_2_1_lototron_draw_only_at_the_start_of_a_game() -> None:
    t = Table(make_rules(table_team=None))
    t.host(A.DRAW_LOTOTRON)
    assert "уже за столом" in refused(t, A.DRAW_LOTOTRON)["message"]
    t.host(A.NEW_GAME)
    t.play(1, True)
    assert "до её первого раунда" in refused(t, A.DRAW_LOTOTRON)["message"]
    assert "не заданы команды" in refused(Table(ChgkRules()), A.DRAW_LOTOTRON)["message"]


def test_000_2_1_draw_lototron_method_is_the_host_action() -> None:
    t = Table(make_rules(table_team=None, seed=3))
    out = t.ref.draw_lototron(t.now)
    u = Table(make_rules(table_team=None, seed=3))
    assert out == u.host(A.DRAW_LOTOTRON)


# ---------------------------------------------------------------- early answers


def test_003_6_1_5_a_correct_early_answer_saves_the_minute_for_later() -> None:
    t = belgorod()
    t.pick(1)
    t.host(A.EARLY_ANSWER)
    assert t.last("early_answer")["saves_minute"] is True
    t.host(A.ANSWER_CORRECT)
    assert t.last("minute_saved")["saved_minutes"] == 1
    assert t.last("round_ended")["early"] == [True]
    t.pick(2)
    t.host(A.START_TIMER)
    start = t.now
    t.host(A.USE_SAVED_MINUTE)  # 003 6.3.2: used like the extra minute, behind or not
    assert t.last("help_used")["help"] == "saved_minute"
    assert t.last("timer_extended")["deadline_ns"] == start + 120 * S
    assert t.snap()["saved_minutes"] == 0
    assert "не сэкономлено ни минуты" in refused(t, A.USE_SAVED_MINUTE)["message"]


def test_003_6_1_5_a_wrong_early_answer_saves_nothing_and_the_club_scores() -> None:
    t = belgorod()
    t.pick(1)
    t.host(A.EARLY_ANSWER)
    t.host(A.ANSWER_WRONG)
    assert t.events("minute_saved") == [] and t.score == (0, 1)


def test_000_5_1_an_early_answer_earns_nothing_extra() -> None:
    t = Table()
    t.pick(1)
    t.host(A.EARLY_ANSWER)
    assert t.last("early_answer")["saves_minute"] is False
    t.host(A.ANSWER_CORRECT)
    assert t.events("minute_saved") == [] and t.score == (1, 0)
    assert t.ref.next_deadline() is None and Cue.START not in t.cues()


def test_003_6_1_5_early_answer_after_the_count_started_is_an_error_and_changes_nothing() -> None:
    t = belgorod()
    t.pick(1)
    t.host(A.START_TIMER)
    assert "до начала отсчёта" in refused(t, A.EARLY_ANSWER)["message"]


def test_003_6_1_5_after_an_early_answer_there_is_no_count_to_start() -> None:
    t = belgorod()
    t.pick(1)
    t.host(A.EARLY_ANSWER)
    assert "объявлен досрочный ответ" in refused(t, A.START_TIMER)["message"]


# ---------------------------------------------------------------- help and BINGO


def behind(t: Table) -> None:
    """Lose round 1 on sector 1; the outputs so far are dropped."""
    t.play(1, False)
    assert t.score == (0, 1)
    t.outputs.clear()


def reveals_fortochka(events: list[dict[str, Any]]) -> bool:
    return any(e["type"].startswith("fortochka") or e.get("kind") == "fortochka"
               or e.get("fortochka_skipped") is not None for e in events)


def test_000_6_1_extra_30_s_when_behind_extends_the_running_count() -> None:
    t = Table()
    behind(t)
    t.pick(2)
    t.host(A.START_TIMER)
    start = t.now
    t.advance(20 * S)
    t.host(A.EXTRA_TIME)
    used = t.last("help_used")
    assert (used["help"], used["seconds"], used["applied"]) == ("extra_time", 30.0, "extended")
    assert t.last("timer_extended")["deadline_ns"] == start + 90 * S
    t.advance_to(start + 80 * S - 1)
    assert t.cues() == [Cue.START]
    t.advance_to(start + 90 * S)
    assert t.cues() == [Cue.START, Cue.WARNING, Cue.TIME_UP]
    assert t.snap()["helps"]["extra_time"] == "used"


def test_000_6_1_extra_time_asked_before_the_count_lengthens_it() -> None:
    t = Table()
    behind(t)
    t.pick(2)
    t.host(A.EXTRA_TIME)
    assert t.last("help_used")["applied"] == "added_to_count"
    t.host(A.START_TIMER)
    assert t.last("timer_started")["seconds"] == 90.0


def test_000_6_1_extra_time_after_the_warning_warns_again_before_the_new_end() -> None:
    t = Table()
    behind(t)
    t.pick(2)
    t.host(A.START_TIMER)
    start = t.now
    t.advance(55 * S)
    t.host(A.EXTRA_TIME)
    t.advance_to(start + 90 * S)
    assert t.cues() == [Cue.START, Cue.WARNING, Cue.WARNING, Cue.TIME_UP]
    assert t.events("timer_warning")[-1]["t_ns"] == start + 80 * S


def test_003_6_3_2_the_extra_minute() -> None:
    t = belgorod()
    behind(t)
    t.pick(2)
    t.host(A.START_TIMER)
    start = t.now
    t.host(A.EXTRA_TIME)
    assert t.last("timer_extended")["deadline_ns"] == start + 120 * S


def test_003_6_3_3_club_help_after_the_time_is_up_gives_20_s_more() -> None:
    t = belgorod()
    behind(t)
    t.pick(2)
    t.host(A.START_TIMER)
    t.advance(60 * S)
    assert t.ref.phase == "answer"
    t.host(A.CLUB_HELP)
    assert t.last("help_used")["applied"] == "new_count"
    started = t.last("timer_started")
    assert (started["seconds"], started["deadline_ns"]) == (20.0, t.now + 20 * S)
    assert t.cues()[-1] is Cue.START and t.ref.phase == "discussion"


def test_003_6_3_1_and_6_3_2_moving_a_question_and_the_extra_minute_at_any_score() -> None:
    """003 6.3.1 (a question moves before any round but one that may be the last) and 6.3.2
    (the extra minute) set no «only when behind»; only 6.3.3 (the club's help) does."""
    t = belgorod()
    t.play(1, True)
    assert t.score == (1, 0)
    t.host(A.MOVE_QUESTION, sector=3, to_sector=2)
    assert t.last("question_moved")["from_sector"] == 3
    t.pick(2)
    t.host(A.START_TIMER)
    start = t.now
    t.host(A.EXTRA_TIME)
    assert t.last("timer_extended")["deadline_ns"] == start + 120 * S
    error = refused(t, A.CLUB_HELP)
    assert "отставании в счёте" in error["message"] and error["details"]["score"] == {"team": 1, "club": 0}


def test_000_6_1_help_when_not_behind_is_an_error_and_changes_nothing() -> None:
    t = Table()
    t.play(1, True)
    t.pick(2)
    t.host(A.START_TIMER)
    error = refused(t, A.EXTRA_TIME)
    assert "отставании в счёте" in error["message"] and error["details"]["score"] == {"team": 1, "club": 0}
    refused(t, A.CLUB_HELP)


def test_000_6_1_help_on_a_tied_score_is_refused() -> None:
    """000 6.1: help only to a team that «отстаёт»; at 1:1 it is not behind."""
    t = Table()
    t.play(1, True)
    t.play(2, False)
    assert t.score == (1, 1)
    t.pick(3)
    t.host(A.START_TIMER)
    error = refused(t, A.EXTRA_TIME)
    assert "отставании в счёте" in error["message"] and error["details"]["score"] == {"team": 1, "club": 1}
    refused(t, A.CLUB_HELP)


def test_000_6_1_6_2_each_help_once_a_game() -> None:
    t = Table()
    behind(t)
    t.pick(2)
    t.host(A.EXTRA_TIME)
    t.host(A.CLUB_HELP)
    t.host(A.START_TIMER)
    assert "раз за игру" in refused(t, A.EXTRA_TIME)["message"]
    assert "раз за игру" in refused(t, A.CLUB_HELP)["message"]


def test_000_6_1_6_2_help_never_on_zeitnot() -> None:
    t = Table(make_rules(special={6: K.ZEITNOT}))
    behind(t)
    t.pick(6)
    assert "«цейтноте»" in refused(t, A.EXTRA_TIME)["message"]
    refused(t, A.CLUB_HELP)


def test_000_6_help_not_offered_at_the_table_is_an_error() -> None:
    t = Table()
    behind(t)
    assert "за этим столом нет" in refused(t, A.MOVE_QUESTION, sector=2, to_sector=3)["message"]


def test_003_6_3_1_moving_a_question_before_a_round() -> None:
    t = belgorod()
    behind(t)
    t.host(A.MOVE_QUESTION, sector=2, to_sector=1)  # onto the freed sector
    moved = t.last("question_moved")
    assert (moved["from_sector"], moved["to_sector"]) == (2, 1)
    sectors = t.snap()["sectors"]
    assert (sectors[0]["envelope"], sectors[0]["played"], sectors[1]["played"]) == (2, False, True)
    t.pick(1)
    assert t.last("sector_chosen")["envelope"] == 2
    t.host(A.CANCEL_ROUND)
    assert "раз за игру" in refused(t, A.MOVE_QUESTION, sector=3, to_sector=4)["message"]


def test_003_6_3_1_moving_swaps_two_envelopes_and_the_fortochka_moves_secretly() -> None:
    t = belgorod(fortochka_sector=5, special={9: K.BLITZ})
    behind(t)
    t.host(A.MOVE_QUESTION, sector=5, to_sector=9)
    assert t.last("fortochka_moved") == {"type": "fortochka_moved", "t_ns": t.now, "audience": "host",
                                         "sector": 9}
    assert not reveals_fortochka(t.public_events())
    assert t.snap()["sectors"][4]["kind"] == "blitz"
    assert t.host_snap()["fortochka"]["sector"] == 9


def test_003_6_3_1_no_move_before_a_round_that_may_be_the_last() -> None:
    t = belgorod()
    for sector in range(1, 6):
        t.play(sector, False)
    assert "может оказаться последним" in refused(t, A.MOVE_QUESTION, sector=7, to_sector=8)["message"]


def test_003_6_3_1_moving_needs_an_envelope_and_a_round_not_in_play() -> None:
    t = belgorod()
    behind(t)
    assert "конверта на нём нет" in refused(t, A.MOVE_QUESTION, sector=1, to_sector=2)["message"]
    assert "укажите сектор" in refused(t, A.MOVE_QUESTION, sector=2)["message"]
    t.pick(3)
    assert "идёт раунд" in refused(t, A.MOVE_QUESTION, sector=4, to_sector=5)["message"]


def test_000_6_4_a_hint_from_the_hall_loses_the_round_and_a_player_leaves_for_the_game() -> None:
    t = Table(make_rules(special={6: K.ZEITNOT}))
    t.pick(1)
    t.host(A.START_TIMER)
    t.host(A.HINT_FROM_HALL)
    assert t.last("hint_from_hall")["players_at_table"] == 5
    ended = t.last("round_ended")
    assert (ended["result"], ended["reason"]) == ("club", "hint")
    assert t.score == (0, 1) and t.ref.next_deadline() is None
    t.pick(6)  # the zeitnot now starts from five players: four must leave for the minute
    assert t.last("sector_chosen")["players_at_table"] == 5
    for _ in range(4):
        t.host(A.PLAYER_LEAVES)
    assert t.last("player_left")["seconds"] == 60.0


# ---------------------------------------------------------------- 000 3.8.1: refills in the final


def test_000_3_8_1_in_the_final_freed_sectors_are_refilled_up_to_round_4() -> None:
    t = Table(make_rules(stage=Stage.FINAL))
    t.play(1, True)
    t.host(A.REFILL, sector=1)
    refill = t.last("sector_refilled")
    assert (refill["sector"], refill["envelope"], refill["after_round"]) == (1, 13, 1)
    assert t.snap()["sectors"][0] == {"sector": 1, "kind": "question", "title": "Вопрос", "envelope": 13,
                                      "played": False}
    for sector in (2, 3, 4):
        t.play(sector, False)
    t.host(A.REFILL, sector=4)  # after round 4: still allowed
    assert t.last("sector_refilled")["envelope"] == 14
    t.play(5, True)
    assert "с 1-го по 4-й" in refused(t, A.REFILL, sector=5)["message"]


def test_000_3_8_1_refill_outside_the_final_is_an_error_and_changes_nothing() -> None:
    t = Table()
    t.play(1, True)
    assert "только в финале" in refused(t, A.REFILL, sector=1)["message"]


def test_000_3_8_1_refill_needs_a_freed_sector_and_no_round_in_play() -> None:
    t = Table(make_rules(stage=Stage.FINAL))
    assert "с 1-го по 4-й" in refused(t, A.REFILL, sector=1)["message"]
    t.play(1, True)
    assert "ещё лежит конверт" in refused(t, A.REFILL, sector=2)["message"]
    t.pick(2)
    assert "идёт раунд" in refused(t, A.REFILL, sector=1)["message"]


# ---------------------------------------------------------------- 003 6.4: the decisive round


def no_way_back(**overrides: Any) -> Table:
    """A Belgorod final (to 8): 5:7 with sector 13 the only one left (see `_host_decisive`)."""
    t = belgorod(stage=Stage.FINAL, **overrides)
    for sector in range(1, 6):
        t.play(sector, True)
    for sector in range(6, 13):
        t.play(sector, False)
    assert t.score == (5, 7) and t.ref.phase == "ready"
    return t


def test_003_6_4_decisive_round_at_5_resets_the_score_one_player_6_points() -> None:
    """003 6.4, 6.4.1: the score resets, one expert stays, 6 points are played."""
    t = no_way_back()
    t.host(A.DECISIVE_ROUND)
    decisive = t.last("decisive_round")
    assert (decisive["score_before"], decisive["points"]) == ({"team": 5, "club": 7}, 6)
    assert t.score == (0, 0) and t.snap()["players_at_table"] == 1
    t.pick(13)
    chosen = t.last("sector_chosen")
    assert (chosen["value"], chosen["players_at_table"], chosen["final_round"]) == (6, 1, True)
    t.host(A.START_TIMER)
    t.host(A.ANSWER_CORRECT)
    over = t.last("game_over")
    assert (over["winner"], over["score"]) == ("team", {"team": 6, "club": 0})
    assert t.last("game_record")["decisive_round"] is True


def test_003_6_4_a_lost_decisive_round_gives_the_club_6() -> None:
    """003 6.4.1: 6 points are played; a wrong answer gives them to the opponents."""
    t = no_way_back()
    t.host(A.DECISIVE_ROUND)
    t.play(13, False)
    assert t.last("game_over")["score"] == {"team": 0, "club": 6}


def test_003_6_4_2_blitz_is_played_as_superblitz_in_the_decisive_round() -> None:
    """003 6.4.2: the blitz sector is played by the superblitz rules."""
    t = no_way_back(special={13: K.BLITZ})
    t.host(A.DECISIVE_ROUND)
    t.pick(13)
    chosen = t.last("sector_chosen")
    assert (chosen["kind"], chosen["played_as"], chosen["title"], chosen["parts"]) == (
        "blitz", "superblitz", "Суперблиц", 3)


def test_003_6_4_decisive_round_only_at_5_points_and_only_where_played() -> None:
    """003 6.4: «если набрали 5 очков»; and only at a table that plays it."""
    t = belgorod()
    t.play(1, True)
    assert "набрав 5 очков" in refused(t, A.DECISIVE_ROUND)["message"]
    assert "решающего раунда нет" in refused(Table(), A.DECISIVE_ROUND)["message"]


@pytest.mark.parametrize(("stage", "club"), [(Stage.QUALIFIER, 2), (Stage.QUALIFIER, 5), (Stage.FINAL, 6)])
def test_003_6_4_no_decisive_round_while_the_team_can_overtake_without_it(stage: Stage, club: int) -> None:
    """003 6.4: «и не могут без решающего раунда обойти соперников». At 5:2 or 5:5 in a game
    to 6 the next round may win it; at 5:6 in a final to 8 with two sectors left, winning
    both gives 7:6. Each is refused and changes nothing."""
    t = belgorod(stage=stage)
    for sector in range(1, 6):
        t.play(sector, True)
    for sector in range(6, 6 + club):
        t.play(sector, False)
    assert t.score == (5, club)
    error = refused(t, A.DECISIVE_ROUND)
    assert "без него знатокам не обойти" in error["message"]
    assert f"оставшихся секторах ({13 - 5 - club})" in error["message"]


# ---------------------------------------------------------------- hall answers and consolation


def test_000_3_6_3_7_hall_answers_count_per_question() -> None:
    t = Table(make_rules(special={3: K.BLITZ}))
    t.pick(1)
    t.host(A.HALL_CORRECT, team="t2")
    recorded = t.last("hall_answer_recorded")
    assert (recorded["team"], recorded["round"], recorded["part"], recorded["hall_points"]) == ("t2", 1, 1, 1)
    assert "уже засчитан" in refused(t, A.HALL_CORRECT, team="t2")["message"]
    assert "играет за столом" in refused(t, A.HALL_CORRECT, team="t1")["message"]
    assert "нет команды" in refused(t, A.HALL_CORRECT, team="zz")["message"]
    t.host(A.START_TIMER)
    t.host(A.ANSWER_CORRECT)
    t.host(A.HALL_CORRECT, team="t3")  # judged after the round: the last round by default
    assert t.last("hall_answer_recorded")["round"] == 1
    t.play(3, True, False)  # lost on its second question
    t.host(A.HALL_CORRECT, team="t2", part=2)  # a blitz question
    t.host(A.HALL_CORRECT, team="t4", round=1)
    assert "нет вопроса 3" in refused(t, A.HALL_CORRECT, team="t3", part=3)["message"]
    assert "не сыгран" in refused(t, A.HALL_CORRECT, team="t3", round=3)["message"]
    assert t.snap()["hall"] == {"t1": 0, "t2": 2, "t3": 1, "t4": 1}


def test_000_1_7_1_1_7_2_consolation_hall_plus_table_times_2_minus_1_per_wrong_answer() -> None:
    t = Table()
    t.play(1, False)
    t.host(A.HALL_CORRECT, team="t2")
    t.host(A.HALL_CORRECT, team="t3")
    t.play(2, False)
    t.host(A.HALL_CORRECT, team="t2")
    for sector in range(3, 9):
        t.play(sector, True)
    record = t.last("game_record")
    assert (record["table_points"], record["wrong_answers"]) == (6, 2)
    assert [(row["team"], row["points"]) for row in record["consolation"]] == [
        ("t1", 10), ("t2", 2), ("t3", 1), ("t4", 0)]


def test_000_1_7_1_teams_outside_the_main_tournament_are_not_doubled_nor_penalised() -> None:
    t = Table(make_rules(table_team="t3"))
    t.play(1, False)
    for sector in range(2, 8):
        t.play(sector, True)
    row = next(r for r in t.last("game_record")["consolation"] if r["team"] == "t3")
    assert (row["table"], row["wrong"], row["points"]) == (6, 1, 6)


def test_000_3_6_hall_answers_judged_after_the_game_update_the_record() -> None:
    t = Table()
    for sector in range(1, 7):
        t.play(sector, True)
    t.host(A.HALL_CORRECT, team="t4")
    record = t.last("game_record")
    assert len(t.events("game_record")) == 2
    assert next(r for r in record["consolation"] if r["team"] == "t4")["hall"] == 1


def test_000_1_6_1_game_record_carries_the_tie_break_indicators() -> None:
    t = Table(make_rules(special={2: K.SUPERBLITZ, 3: K.ZEITNOT, 4: K.DUPLET, 5: K.SECTOR12}))
    t.play(2, True, True, True)
    t.play(3, False)
    t.play(4, True, True)
    t.play(5, True)
    t.pick(6)
    t.host(A.START_TIMER)
    t.host(A.EXTRA_TIME)  # 3:1, not behind: refused, the help stays unused
    t.host(A.ANSWER_CORRECT)
    t.play(7, True)
    t.play(8, True)
    record = t.last("game_record")
    assert record["indicators"] == {"won_superblitz": True, "won_zeitnot": False, "won_duplet": True,
                                    "won_sector12": True, "unused_help": 2}
    assert [r["kind"] for r in record["rounds"]] == [
        "superblitz", "zeitnot", "duplet", "sector12", "question", "question", "question"]
    assert record["rounds"][0]["parts"] == [True, True, True]
    assert record["team"] == "t1" and record["winner"] == "team"


def test_000_1_6_1_d_used_help_is_not_counted_as_unused() -> None:
    t = Table()
    behind(t)
    t.pick(2)
    t.host(A.CLUB_HELP)
    t.host(A.START_TIMER)
    t.host(A.ANSWER_CORRECT)
    for sector in range(3, 8):
        t.play(sector, True)
    record = t.last("game_record")
    assert record["indicators"]["unused_help"] == 1
    assert record["rounds"][1]["helps"] == ["club_help"]


# ---------------------------------------------------------------- host's corrections, bad input


def test_cancel_round_puts_the_envelope_back_without_scoring() -> None:
    t = Table()
    t.pick(3)
    t.host(A.START_TIMER)
    t.host(A.HALL_CORRECT, team="t2")
    t.host(A.CANCEL_ROUND)
    assert t.last("round_cancelled") == {"type": "round_cancelled", "t_ns": t.now, "round": 1, "sector": 3}
    assert t.ref.next_deadline() is None and t.score == (0, 0)
    assert t.snap()["sectors"][2]["played"] is False and t.snap()["hall"]["t2"] == 0
    t.pick(3)
    assert t.last("sector_chosen")["played_sector"] == 3


@pytest.mark.parametrize("action", [
    A.START_TIMER, A.EARLY_ANSWER, A.PLAYER_LEAVES, A.ANSWER_CORRECT, A.ANSWER_WRONG, A.FORTOCHKA,
    A.EXTRA_TIME, A.CLUB_HELP, A.MOVE_QUESTION, A.USE_SAVED_MINUTE, A.HINT_FROM_HALL, A.HALL_CORRECT,
    A.REFILL, A.DECISIVE_ROUND, A.CANCEL_ROUND])
def test_host_actions_not_allowed_now_are_errors_and_change_nothing(action: ChgkAction) -> None:
    refused(Table(), action)


def test_every_action_after_the_game_is_over_is_an_error_except_new_game() -> None:
    t = Table()
    for sector in range(1, 7):
        t.play(sector, True)
    for action in (A.START_TIMER, A.ANSWER_CORRECT, A.EARLY_ANSWER, A.HINT_FROM_HALL, A.CANCEL_ROUND):
        assert "игра окончена" in refused(t, action)["message"]
    t.pick(12)
    assert "игра окончена" in t.last("error")["message"]
    t.host(A.NEW_GAME, team="t2")
    started = t.last("game_started")
    assert (started["team"]["id"], started["target"]) == ("t2", 6)
    assert t.score == (0, 0) and all(not s["played"] for s in t.snap()["sectors"])


def test_same_inputs_give_the_same_outputs() -> None:
    def run() -> list[Output]:
        ref = ChgkReferee(make_rules(table_team=None, seed=11, fortochka_sector=4,
                                     special={2: K.BLITZ, 6: K.ZEITNOT}))
        now = 10 * S
        script: list[SectorPicked | ChgkHost] = [
            ChgkHost(A.DRAW_LOTOTRON, now), SectorPicked(1, now), ChgkHost(A.START_TIMER, now),
            ChgkHost(A.ANSWER_WRONG, now + 70 * S), SectorPicked(4, now + 80 * S),
            SectorPicked(2, now + 90 * S), ChgkHost(A.EXTRA_TIME, now + 95 * S),
            ChgkHost(A.START_TIMER, now + 100 * S), ChgkHost(A.ANSWER_CORRECT, now + 140 * S),
        ]
        out: list[Output] = []
        for inp in script:
            at = inp.at
            while (deadline := ref.next_deadline()) is not None and deadline <= at:
                out += ref.on_timer(deadline)
            out += ref.handle(inp, at)
        return out

    first = run()
    assert first == run()
    assert any(isinstance(o, TimerWarning) for o in first)


# ---------------------------------------------------------------- 003 5.3: the sports ChGK timer


def test_003_5_3_sports_timer_minute_warning_at_50_time_up_at_60_collection_closes_at_70() -> None:
    c = SportsClock()
    c.host(SportsAction.START)
    start = c.now
    started = c.last("sports_timer_started")
    assert (started["deadline_ns"], started["collection_ends_ns"], started["seconds"]) == (
        start + 60 * S, start + 70 * S, 60.0)
    assert (started["question"], started["tour"], started["number"]) == (1, 1, 1)
    assert c.cues() == [Cue.START]
    c.advance_to(start + 50 * S - 1)
    assert c.cues() == [Cue.START]
    c.advance_to(start + 50 * S)
    warning = c.last("sports_timer_warning")
    assert (warning["text"], warning["remaining_s"], warning["deadline_ns"]) == (
        "Осталось 10 секунд", 10.0, start + 60 * S)
    assert c.cues() == [Cue.START, Cue.WARNING]
    c.advance_to(start + 60 * S)
    assert c.cues() == [Cue.START, Cue.WARNING, Cue.TIME_UP]
    time_up = c.last("sports_time_up")
    assert (time_up["collection_ends_ns"], time_up["collection_seconds"]) == (start + 70 * S, 10.0)
    assert c.timer.snapshot(c.now)["phase"] == "collecting"
    c.advance_to(start + 70 * S - 1)
    assert c.events("answers_closed") == []
    c.advance_to(start + 70 * S)
    assert c.last("answers_closed")["question"] == 1
    assert c.cues() == [Cue.START, Cue.WARNING, Cue.TIME_UP] and c.timer.next_deadline() is None


def test_003_5_2_sports_questions_are_3_tours_of_12_then_a_shootout() -> None:
    c = SportsClock()
    seen = []
    for _ in range(37):
        c.host(SportsAction.START)
        e = c.last("sports_timer_started")
        seen.append((e["tour"], e["number"], e["shootout"]))
        c.advance(70 * S)
    assert seen[0] == (1, 1, False) and seen[12] == (2, 1, False) and seen[35] == (3, 12, False)
    assert seen[36] == (None, None, True)


def test_003_5_3_sports_timer_refuses_a_second_start_and_can_be_cancelled() -> None:
    c = SportsClock()
    c.host(SportsAction.START)
    before = c.timer.snapshot(c.now)
    c.host(SportsAction.START)
    assert "«Время!» сейчас нельзя" in c.last("error")["message"]
    assert c.timer.snapshot(c.now) == before
    c.advance(10 * S)
    c.host(SportsAction.CANCEL)
    assert c.last("sports_timer_cancelled")["question"] == 1
    assert c.timer.next_deadline() is None
    c.host(SportsAction.CANCEL)
    assert "отсчёт не идёт" in c.last("error")["message"]
    c.host(SportsAction.START)
    assert c.last("sports_timer_started")["question"] == 1  # the replacement keeps the number


def test_003_5_3_a_late_timer_call_skips_the_overtaken_warning() -> None:
    c = SportsClock()
    c.host(SportsAction.START)
    start = c.now
    c.outputs += c.timer.on_timer(start + 65 * S)
    assert c.cues() == [Cue.START, Cue.TIME_UP]


def test_sports_rules_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match=r"SportsRules\.warning_at_ns"):
        SportsRules(warning_at_ns=60 * S)
