"""The sports stage's results sheet, clause by clause (seed 003 5.2-5.5; the international
association's rules for in-person tournaments 1.5, 1.6.1, 1.6.2-1.6.4 as in
../shared/notes/sports-results.md), on a hand-stepped clock: the engine is given its time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from console.engine.events import CommandRefused
from console.engine.model import NS_PER_S, Output
from console.engine.sports.sheet import (
    MAX_SHOOTOUT,
    Sheet,
    SheetAction,
    SheetChanged,
    SheetEdit,
    SheetRules,
    TeamEntry,
)
from console.engine.sports.stage import SportsStage
from console.engine.sports.timer import SportsAction, SportsHost, SportsRules
from console.games.sports.kind import edit, input_line, parse_step
from console.games.sports.results import write_results


class Stage:
    """A stage of `teams` teams numbered 1..n, its clock stepped by hand."""

    def __init__(self, teams: int = 8, winners: int = 5) -> None:
        rules = SheetRules(winners=winners)
        self.engine = SportsStage(SportsRules(), Sheet.with_teams(
            rules, [TeamEntry(n, f"Команда {n}") for n in range(1, teams + 1)]))
        self.now = 1_000 * NS_PER_S

    @property
    def sheet(self) -> Sheet:
        return self.engine.sheet

    def jury(self, action: str, **args: Any) -> list[Output]:
        self.now += NS_PER_S
        return self.engine.handle(edit({"action": action, **args}, self.now, "jury"), self.now)

    def ok(self, action: str, **args: Any) -> SheetChanged:
        out = self.jury(action, **args)
        assert len(out) == 1 and isinstance(out[0], SheetChanged), out
        return out[0]

    def refused(self, action: str, **args: Any) -> str:
        revision = self.sheet.revision
        out = self.jury(action, **args)
        assert len(out) == 1 and isinstance(out[0], CommandRefused), out
        assert self.sheet.revision == revision  # nothing changed
        return str(out[0].details["reason"])

    def count(self) -> None:
        """One question's count played through: «Время!», the minute, the collection (5.3)."""
        self.engine.handle(SportsHost(SportsAction.START, self.now), self.now)
        self.now += 71 * NS_PER_S
        self.engine.on_timer(self.now)

    def points(self) -> dict[int, int]:
        return self.sheet.all_points()


def test_5_2_three_tours_of_twelve_and_a_tours_mask_fills_its_own_questions() -> None:
    """5.2: 3 tours of 12 questions; a team's tour entered as its mask lands on that tour's questions."""
    s = Stage()
    s.ok("set_team", team=3, tour=2, mask="110000000001")
    assert s.sheet.mask(3) == "0" * 12 + "110000000001" + "0" * 12
    assert s.sheet.all_tour_points()[3] == [0, 3, 0]
    assert "тур 4" in s.refused("set_team", team=3, tour=4, mask="1" * 12)
    assert "12 знаков" in s.refused("set_team", team=3, tour=1, mask="1" * 11)


def test_5_4_a_right_answer_is_one_point_a_wrong_one_none() -> None:
    """5.4: right 1, wrong 0; the question's entry is exactly the teams that answered right."""
    s = Stage()
    s.ok("set_question", question=1, teams=[1, 2, 5])
    s.ok("set_question", question=2, teams=[2])
    assert s.points() == {1: 1, 2: 2, 3: 0, 4: 0, 5: 1, 6: 0, 7: 0, 8: 0}
    s.ok("set_question", question=1, teams=[1, 2])  # team 5's was a slip misread: now wrong
    assert s.points()[5] == 0 and s.sheet.mark(5, 1) == "0"


def test_5_4_1_a_close_answer_counts_only_when_the_jury_says_so() -> None:
    """5.4.1: any deviation is wrong; an appeal lists close answers but counts none by itself."""
    s = Stage()
    s.ok("set_cell", team=1, question=4, verdict="0", answer="Пётр Первый")
    s.ok("set_cell", team=2, question=4, verdict="0", answer="петр первый!")
    s.ok("open_appeal", team=1, question=4)
    assert s.points()[1] == 0 and s.points()[2] == 0


def test_5_4_2_a_dispute_is_decided_between_tours_only() -> None:
    """5.4.2: a disputed answer is decided between tours; meanwhile the standings are preliminary."""
    s = Stage()
    s.count()  # question 1 of tour 1 asked: the tour is being played
    s.ok("set_cell", team=4, question=1, verdict="?", answer="Кутузов")
    standings = s.engine.parts()["standings"]
    assert s.sheet.preliminary and isinstance(standings, dict) and standings["preliminary"] is True
    assert "между турами" in s.refused("decide", team=4, question=1, verdict="1", why="критерии")
    for _ in range(11):
        s.count()  # the rest of tour 1: now between tours
    s.ok("decide", team=4, question=1, verdict="1", why="жюри приняло")
    assert s.points()[4] == 1 and not s.sheet.preliminary
    s.count()  # tour 2 begins: a new dispute waits again
    s.ok("set_cell", team=5, question=13, verdict="?")
    assert "идёт тур 2" in s.refused("decide", team=5, question=13, verdict="0", why="нет")


def test_1_5_an_accepted_answer_may_be_disputed_and_counts_meanwhile() -> None:
    """1.5: a team's answer goes on the disputed list on request, an accepted one included; it
    keeps its point until the jury decides."""
    s = Stage()
    s.ok("set_question", question=2, teams=[6])
    s.ok("set_cell", team=6, question=2, verdict="?")
    assert s.sheet.mark(6, 2) == "?" and s.points()[6] == 1
    assert s.sheet.disputed() == [(6, 2)]
    s.ok("set_question", question=2, teams=[1])  # a re-entry of the question leaves the dispute standing
    assert s.sheet.mark(6, 2) == "?"
    s.ok("decide", team=6, question=2, verdict="0", why="не по критериям")
    assert s.points()[6] == 0 and s.sheet.disputed() == []


def test_1_6_1_an_upheld_appeal_counts_the_close_answers_the_jury_chose() -> None:
    """1.6.1: the answers close to the appealed one are listed (case, ё/е, punctuation, spacing,
    a typo ignored); the chosen ones count for every team that gave them; others are refused."""
    s = Stage()
    answers = {1: "Пётр Первый", 2: "петр первый.", 3: "Петр  Перввый", 4: "Екатерина Вторая", 5: "Пётр"}
    for team, text in answers.items():
        s.ok("set_cell", team=team, question=7, verdict="0", answer=text)
    s.ok("open_appeal", team=1, question=7)
    appeal = s.sheet.appeal
    assert appeal is not None
    assert [t for t, _, _ in appeal.candidates] == [2, 3]  # closest first; 4 and 5 are other answers
    assert "не в списке" in s.refused("uphold_appeal", teams=[4], why="засчитать")
    s.ok("uphold_appeal", teams=[2, 3], why="допустимая форма имени")
    assert [s.sheet.mark(t, 7) for t in (1, 2, 3, 4, 5)] == ["1", "1", "1", "0", "0"]
    assert s.sheet.appeal is None


def test_5_4_2_an_appeal_does_not_decide_a_dispute_while_a_tour_is_played() -> None:
    """5.4.2: disputes are decided between tours. An appeal upheld mid-tour that would count a
    disputed answer among the close ones decided the dispute anyway; it is refused there like
    «Засчитать», and taken between tours."""
    s = Stage()
    s.ok("set_cell", team=2, question=1, verdict="?", answer="Пушкинъ")
    s.ok("set_cell", team=5, question=1, verdict="0", answer="пушкин.")
    s.count()  # tour 1's first count: the tour is being played
    s.ok("open_appeal", team=5, question=1)
    assert "идёт тур 1" in s.refused("uphold_appeal", teams=[2], why="допустимая форма")
    assert s.sheet.disputed() == [(2, 1)] and s.sheet.mark(5, 1) == "0"
    for _ in range(11):
        s.count()  # the rest of tour 1: between tours now
    s.ok("uphold_appeal", teams=[2], why="допустимая форма")
    assert s.sheet.disputed() == [] and (s.sheet.mark(2, 1), s.sheet.mark(5, 1)) == ("1", "1")


def test_1_6_2_a_removed_question_counts_for_nobody() -> None:
    """1.6.2-1.6.4: a question removed on appeal is not counted for any team; the mask shows X."""
    s = Stage()
    s.ok("set_question", question=9, teams=[1, 2, 3])
    s.ok("set_question", question=10, teams=[1])
    s.ok("remove_question", question=9, why="некорректный вопрос")
    assert s.points()[1] == 1 and s.points()[2] == 0
    assert s.sheet.mask(1)[8:10] == "X1"
    assert "уже снят" in s.refused("remove_question", question=9, why="ещё раз")
    s.ok("restore_question", question=9, why="апелляция отозвана")
    assert s.points()[2] == 1


def test_5_5_five_winners_and_a_tie_across_the_cut_goes_to_a_shootout() -> None:
    """5.5: the 5 teams with the most points win; teams tied across 5th play questions (37, 38,
    ...) until one gets the advantage; a team not in the tie cannot answer in it."""
    s = Stage(teams=8)
    # Points: 1:6 2:5 3:4 | 4, 5, 6: 3 each (places 4-6 across the cut) | 7:1 8:0
    for team, n in {1: 6, 2: 5, 3: 4, 4: 3, 5: 3, 6: 3, 7: 1}.items():
        s.ok("set_team", team=team, tour=1, mask="1" * n + "0" * (12 - n))
    table = s.sheet.standings()
    assert table.winners == (1, 2, 3) and table.shootout == (4, 5, 6)
    assert {p.team: p.position for p in table.places}[5] == 5.0  # 4th-6th share 5.0 (the rating site)
    assert "не 1" in s.refused("set_question", question=37, teams=[1])
    s.ok("set_question", question=37, teams=[4])  # 4 gets the advantage: 4th; 5 and 6 still tied
    assert s.sheet.shootout_teams(38) == (5, 6)
    s.ok("set_question", question=38, teams=[5, 6])  # both right: no advantage yet
    assert s.sheet.standings().shootout == (5, 6)
    s.ok("set_question", question=39, teams=[6])
    table = s.sheet.standings()
    assert table.decided and table.winners == (1, 2, 3, 4, 6)
    assert [p.shown for p in table.places[:6]] == ["1", "2", "3", "4", "5", "6"]
    assert s.sheet.mask(6) == "111000000000" + "0" * 24  # the shoot-out is not in the stage's mask


def test_5_5_the_winners_are_a_setting_and_a_tie_inside_them_needs_no_shootout() -> None:
    """5.5 with 3 winners: a tie for 1st-2nd is inside the cut: no shoot-out, shared places."""
    s = Stage(teams=5, winners=3)
    for team, n in {1: 5, 2: 5, 3: 4, 4: 2, 5: 1}.items():
        s.ok("set_team", team=team, tour=1, mask="1" * n + "0" * (12 - n))
    table = s.sheet.standings()
    assert table.decided and table.winners == (1, 2, 3)
    assert [p.shown for p in table.places[:2]] == ["1–2", "1–2"]


def test_bad_input_is_refused_naming_it_and_changes_nothing() -> None:
    """An unknown team, a question out of range, a verdict after the sheet is closed: refused."""
    s = Stage()
    assert "нет команды с номером 42" in s.refused("set_cell", team=42, question=1, verdict="1")
    assert "вопрос 77" in s.refused("set_cell", team=1, question=77, verdict="1")
    assert "нужна причина" in s.refused("remove_question", question=3)
    # 5.5: no close while a tie straddles the winners' cut (here all eight on 0): nobody has won yet
    assert "не сыграна перестрелка за выход в победители: команды 1, 2, 3, 4, 5, 6, 7, 8" in \
        s.refused("close_sheet")
    for team in range(1, 9):
        s.ok("set_team", team=team, tour=1, mask="1" * team + "0" * (12 - team))
    s.ok("close_sheet")
    assert "протокол закрыт" in s.refused("set_question", question=1, teams=[1])
    s.ok("reopen_sheet", why="опечатка в протоколе")
    s.ok("set_question", question=1, teams=[1])
    with pytest.raises(ValueError, match="verdict"):
        edit({"action": "set_cell", "team": 1, "question": 1, "verdict": "да"}, 0, "jury")
    with pytest.raises(ValueError, match="unknown key"):
        edit({"action": "set_cell", "team": 1, "score": 3}, 0, "jury")


def test_a_close_waits_for_every_dispute_and_appeal() -> None:
    s = Stage()
    s.ok("set_cell", team=1, question=1, verdict="?")
    assert "спорные" in s.refused("close_sheet")


def test_teams_are_added_and_edited_with_their_numbers() -> None:
    s = Stage(teams=2)
    assert s.ok("add_team", name="Новая", town="Курск").text == "команда 3 «Новая» добавлена"
    assert "уже есть" in s.refused("add_team", name="Новая")
    assert "номером 3" in s.refused("add_team", name="Другая", team=3)
    s.ok("edit_team", team=3, town="Белгород", rating_id=12345)
    assert s.sheet.teams[3] == TeamEntry(3, "Новая", "Белгород", 12345)


def test_every_edit_goes_through_the_journal_unchanged() -> None:
    """A change is journalled as a line that parses back into the same edit (a resume replays it)."""
    e = edit({"action": "uphold_appeal", "teams": [2, 3], "why": "близко", "by": "Иванова"}, 5, "jury")
    line, at = input_line(e) or ({}, 0)
    again = parse_step("sheet", {**line, "at_ms": 0}, at)
    assert again == e and e.action is SheetAction.UPHOLD_APPEAL and e.by == "jury: Иванова"


def test_each_part_stays_far_under_the_brokers_limit() -> None:
    """120 teams with 120-letter Cyrillic answers on every question: no retained part reaches
    the broker's 64 KiB message limit (config/mosquitto/chgk-console.conf)."""
    import json

    s = Stage(teams=0)
    for n in range(1, 121):
        s.ok("add_team", name=f"Команда с длинным названием номер {n}" + "я" * 30, town="Белгород" * 4)
    for q in range(1, 37):
        for n in range(1, 121):
            s.ok("set_cell", team=n, question=q, verdict="1" if n % 2 else "0", answer="ответ" * 24)
    for name, part in s.engine.parts().items():
        assert len(json.dumps(part, ensure_ascii=False).encode()) < 60_000, name


def test_the_halls_board_leaves_the_last_tour_out_until_the_sheet_is_closed() -> None:
    """[sports] hide_last_tour: the hall's standings count tours 1-2 until the jury closes the sheet."""
    s = Stage(teams=2)
    s.engine.sheet.rules = SheetRules(hide_last_tour=True)
    s.ok("set_question", question=1, teams=[1])
    played: Any = s.engine.parts()["standings"]
    assert played["played_tours"] == 1  # «после 1 тура из 3», not «после 2» from the start
    s.ok("set_question", question=30, teams=[2])  # tour 3
    s.ok("set_question", question=31, teams=[2])
    public: Any = s.engine.parts()["standings"]
    assert public["last_tour_hidden"] is True
    assert [(r["team"], r["total"]) for r in public["rows"]] == [(1, 1), (2, 0)]
    s.ok("close_sheet")
    public = s.engine.parts()["standings"]
    assert public["last_tour_hidden"] is False
    assert [(r["team"], r["total"]) for r in public["rows"]] == [(2, 2), (1, 1)]


def test_the_files_keep_every_formula_out_of_a_spreadsheet(tmp_path: Path) -> None:
    """A team named «=HYPERLINK(...)» is text in the .xlsx (as typed) and the CSV (with a
    leading '), never a formula."""
    s = Stage(teams=1)
    s.ok("add_team", name="=HYPERLINK(\"x\")", town="@Курск")
    s.ok("set_question", question=2, teams=[2])
    paths = write_results(s.sheet, tmp_path / "stage")
    assert [p.suffix for p in paths] == [".xlsx", ".txt", ".csv", ".json", ".html"]
    page = load_workbook(paths[0]).active
    assert page is not None
    rows = list(page.iter_rows(values_only=True))
    assert rows[2][:3] == (None, '=HYPERLINK("x")', "@Курск") and rows[2][4] == 1  # as typed,
    assert page.cell(3, 2).data_type == "s"  # and a text cell, not a formula
    assert "'=HYPERLINK" in paths[2].read_text(encoding="utf-8")


def test_5_4_2_a_dispute_is_decided_only_by_a_decision_with_its_reason() -> None:
    """Found in review: a disputed answer could be overwritten by a verdict, a tour's mask or a
    question's entry, mid-tour and with no reason; only «Решение по спорному» decides it."""
    s = Stage()
    s.ok("set_cell", team=2, question=3, verdict="?", answer="Кутузов")
    assert "Решением по спорному" in s.refused("set_cell", team=2, question=3, verdict="1")
    assert "в маске оставьте «?»" in s.refused("set_team", team=2, tour=1, mask="111111111111")
    s.ok("set_team", team=2, tour=1, mask="11?111111111")
    s.ok("set_question", question=3, teams=[1, 2])
    assert s.sheet.mark(2, 3) == "?" and s.sheet.mark(1, 3) == "1"


def test_5_5_no_winners_nor_shootout_are_called_before_the_stage_is_over() -> None:
    """Found in review: one team's tour-3 mask made the stage «over» (a shoot-out announced
    mid-tour) and the hall's board called the current top five winners from the first question."""
    s = Stage(teams=7)
    s.ok("set_question", question=1, teams=[1, 2, 3, 4, 5, 6])
    s.ok("set_team", team=7, tour=3, mask="0" * 12)
    parts: Any = s.engine.parts()
    assert parts["standings"]["stage_over"] is False
    assert not any(r["winner"] or r["shootout"] for r in parts["standings"]["rows"])
    s.ok("set_question", question=36, teams=[])  # every team's last question entered
    parts = s.engine.parts()
    assert parts["standings"]["stage_over"] is True
    assert sum(r["shootout"] for r in parts["standings"]["rows"]) == 6  # six tied across 5th


@pytest.mark.parametrize("name", ["Совы\x00", "\x1b[31mСовы", "\u202eывоС", "\u200b", "\u200b \u200b"])
def test_a_name_with_control_direction_or_no_visible_character_is_refused(name: str) -> None:
    """Issue 31: names took NUL, escape sequences, BiDi overrides and a zero-width space alone;
    the same rule for a player's, a team's and a stage team's name (console/engine/names.py)."""
    from console.engine.names import name_refusal

    s = Stage(teams=1)
    assert "наберите" in s.refused("add_team", name=name) or "невидимых" in s.refused("add_team", name=name)
    assert name_refusal(name, [], word="имя", who="игрок") is not None
    assert name_refusal("Ёж Ёжиков", [], word="имя", who="игрок") is None


def test_5_5_a_correction_after_the_shootout_that_widens_the_tie_plays_it_again() -> None:
    """5.5: teams tied across the cut play questions until one gets the advantage. After 5, 6
    and 7 played it off, a correction brings team 4 into their tie: the old shoot-out decides
    nothing between 4 and them (4 never played it; it used to be counted wrong on every
    question and put last), so the four play the next question, and 4 may win a place there."""
    s = Stage(teams=8)
    for team, n in {1: 8, 2: 7, 3: 6, 4: 5, 5: 4, 6: 4, 7: 4, 8: 1}.items():
        s.ok("set_team", team=team, tour=1, mask="1" * n + "0" * (12 - n))
    assert s.sheet.standings().shootout == (5, 6, 7)
    s.ok("set_question", question=37, teams=[5, 6, 7])
    s.ok("set_question", question=38, teams=[5, 6])
    s.ok("set_question", question=39, teams=[6])
    assert s.sheet.standings().winners == (1, 2, 3, 4, 6)
    s.ok("set_cell", team=4, question=5, verdict="0")  # 4 had it wrong after all: 4 points, tied
    table = s.sheet.standings()
    assert not table.decided and table.shootout == (4, 5, 6, 7)
    assert table.winners == (1, 2, 3) and s.sheet.shootout_teams(40) == (4, 5, 6, 7)
    assert "не 8" in s.refused("set_question", question=40, teams=[8])
    s.ok("set_question", question=40, teams=[4])  # 4 gets the advantage: 4th; 5-7 play on
    table = s.sheet.standings()
    assert table.winners == (1, 2, 3, 4) and table.shootout == (5, 6, 7)
    s.ok("set_question", question=41, teams=[7])
    assert s.sheet.standings().winners == (1, 2, 3, 4, 7)


def offered(s: Stage) -> list[str]:
    """The host's actions the stage offers now."""
    actions = s.engine.host_snapshot(s.now)["host_actions"]
    assert isinstance(actions, list)
    return [str(a) for a in actions]


def test_5_5_nobody_is_a_winner_in_the_files_or_offered_a_count_before_or_after_it_is_time(
        tmp_path: Path) -> None:
    """5.5: the winners are the top places once the stage's questions are all asked. The files
    made mid-stage (the protocol a host prints, the CSV, the JSON) called five teams winners
    after three questions; now they say the stage goes on. Once it is over and no shoot-out is
    needed, «Время!» is no longer offered (a count then was a shoot-out question nobody plays)."""
    s = Stage(teams=6)
    s.ok("set_question", question=1, teams=[1, 2, 3])
    paths = write_results(s.sheet, tmp_path / "mid", over=s.engine.stage_over())
    document = json.loads(paths[3].read_text(encoding="utf-8"))
    assert document["stage_over"] is False and document["winners"] == [] and not document["decided"]
    rows = paths[2].read_text(encoding="utf-8").splitlines()
    assert rows[0].endswith(",победитель") and all(row.endswith(",") for row in rows[1:])  # none «да»
    assert "Победители этапа (5, 003 5.5): этап ещё идёт" in paths[4].read_text(encoding="utf-8")
    assert "start" in offered(s)
    for team, n in {1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1}.items():
        for tour in (1, 2, 3):
            s.ok("set_team", team=team, tour=tour, mask="1" * n + "0" * (12 - n))
    assert s.engine.stage_over() and s.sheet.standings().decided
    paths = write_results(s.sheet, tmp_path / "end", over=s.engine.stage_over())
    assert json.loads(paths[3].read_text(encoding="utf-8"))["winners"] == [1, 2, 3, 4, 5]
    assert "start" not in offered(s)


def test_every_questions_part_is_published_so_an_earlier_stages_answers_never_show() -> None:
    """A broker keeps the sheet's parts retained from an earlier stage (another evening, the
    same node): a question part the new sheet did not publish showed the old answers and
    disputes on the jury's page. Every question's part is published from the start, empty
    where nothing is entered, the shoot-out's included."""
    s = Stage(teams=3)
    s.ok("set_question", question=2, teams=[1])
    parts = s.engine.parts()
    questions = [k for k in parts if k.startswith("q/")]
    assert questions == [f"q/{q}" for q in range(1, 36 + MAX_SHOOTOUT + 1)]
    assert parts["q/7"] == {"question": 7, "removed": False, "cells": []}
    assert parts["q/40"] == {"question": 40, "removed": False, "cells": []}
    entered = parts["q/2"]
    assert isinstance(entered, dict) and isinstance(entered["cells"], list)
    assert [c[:2] for c in entered["cells"] if isinstance(c, list)] == [[1, "1"], [2, "0"], [3, "0"]]


def test_a_team_changed_from_the_hosts_tablet_is_dated_as_the_jurys_edits_are() -> None:
    """The sheet's log says when each change was made (the files print it): the host's
    add_team and edit_team came with no time at all."""
    import re

    from console.games.sports.kind import parse_command

    change = parse_command({"action": "add_team", "name": "Опоздавшие"}, 5 * NS_PER_S)
    assert isinstance(change, SheetEdit) and change.by == "host"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", change.when), change.when


def test_5_5_a_team_added_after_the_last_question_does_not_reopen_the_stage(tmp_path: Path) -> None:
    """The stage is over once every team's last question is entered; a latecomer added after
    that (the organiser's tablet) has no answer to it, and the files said «этап ещё идёт» again."""
    s = Stage(teams=6)
    for team, n in {1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1}.items():
        for tour in (1, 2, 3):
            s.ok("set_team", team=team, tour=tour, mask="1" * n + "0" * (12 - n))
    assert s.engine.stage_over()
    s.ok("add_team", name="Опоздавшие")
    assert s.engine.stage_over() and s.sheet.standings().winners == (1, 2, 3, 4, 5)
    paths = write_results(s.sheet, tmp_path / "end", over=s.engine.stage_over())
    assert json.loads(paths[3].read_text(encoding="utf-8"))["winners"] == [1, 2, 3, 4, 5]
