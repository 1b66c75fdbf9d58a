"""Correcting a round's result at the «Что? Где? Когда?» table (`correct_round`).

Every point of the table is a round's outcome (003 6.1.3-6.1.4: the experts score on a correct
answer, «Зрители»/the host on a wrong one); a verdict keyed wrongly is put right before the next
sector is picked, with a reason, as seed 004 4.1-4.3 puts a «Своя игра» appeal right after the
theme. The rules are in console/engine/chgk/corrections.py; here each one is shown, and a journal
with a correction replays to the same decisions.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from console.config import Config
from console.engine.chgk.rules import ChgkRules, SectorKind, Side, Stage
from console.games import config_from_dict
from console.games.chgk.kind import parse_command
from console.scenario import step_to_json
from console.shell.runtime import Console
from console.tools.replay import replay_lines
from tests.chgk_harness import TEAMS, A, S, Table, make_rules

REASON = "ведущий ошибся кнопкой"


def correct(t: Table, to: Side | None = None, reason: str | None = REASON) -> dict[str, Any]:
    """The correction's event, or the refusal."""
    t.advance(S)
    t.host(A.CORRECT_ROUND, to=to, reason=reason)
    last: dict[str, Any] = t.events()[-1]
    if last["type"] in ("game_record", "game_over"):
        last = t.last("round_corrected")
    return last


def refusal(t: Table, **args: Any) -> str:
    event = correct(t, **args)
    assert event["type"] == "error", event
    message: str = event["message"]
    return message


def test_a_wrong_keyed_as_right_is_corrected_and_the_score_follows() -> None:
    """003 6.1.3-6.1.4: the point is the opponents' on a wrong answer; the host keyed «верно» by
    mistake and corrects it before the next spin: the point moves, the reason is published."""
    t = Table()
    t.play(1, True)
    t.play(2, True)
    assert t.score == (2, 0)
    event = correct(t)
    assert event == {**event, "type": "round_corrected", "round": 2, "sector": 2, "result_before": "team",
                     "result": "club", "reason": REASON, "score": {"team": 1, "club": 1}, "winner": None}
    assert t.score == (1, 1)
    # The next round goes on from the corrected score; the earlier round is untouched.
    t.play(3, True)
    assert t.score == (2, 1)
    snap = t.snap()
    assert snap["rounds_played"] == 3 and snap["phase"] == "ready"


def test_the_game_record_and_consolation_figures_follow() -> None:
    """000 1.7.1: table points won by answers count double for the team, each wrong answer −1;
    the corrected round is recorded with its new result."""
    t = Table()
    t.play(1, False)
    correct(t)  # it was right after all
    t.play(2, True)
    t.play(3, True)
    t.play(4, True)
    t.play(5, True)
    t.play(7, True)  # 6:0
    record = t.last("game_record")
    assert record["rounds"][0]["result"] == "team" and record["rounds"][0]["reason"] == "correct"
    assert record["rounds"][0]["parts"] == [True]
    assert record["table_points"] == 6 and record["wrong_answers"] == 0
    assert record["score"] == {"team": 6, "club": 0}


def test_a_correction_can_end_the_game_or_take_its_end_back() -> None:
    """The winning score (000 1.1.1: 6 in a qualifier) follows the corrected score: a wrong keyed
    at 5:5 that was right wins the game for the team; a game won on a verdict keyed wrongly goes
    on (the winner is null again and the next sector can be picked)."""
    t = Table()
    for sector in (1, 2, 3, 4, 6):
        t.play(sector, True)
    for sector in (7, 9, 10, 11, 12):
        t.pick(sector)
        t.host(A.EARLY_ANSWER)
        t.host(A.ANSWER_WRONG)
    assert t.score == (5, 5)
    t.play(8, False)  # 5:6, the club wins
    assert t.snap()["winner"] == "club"
    event = correct(t)
    assert event["winner"] == "team" and event["score"] == {"team": 6, "club": 5}
    over = t.last("game_over")
    assert over["winner"] == "team" and t.last("game_record")["winner"] == "team"
    assert t.snap()["phase"] == "game_over"
    # Back again: the club's point; the club wins again.
    event = correct(t, to=Side.CLUB)
    assert event["winner"] == "club" and t.last("game_over")["winner"] == "club"

    t2 = Table()
    for sector in (1, 2, 3, 4, 6, 7):
        t2.play(sector, True)
    assert t2.snap()["winner"] == "team"
    event = correct(t2)
    assert event["winner"] is None and event["score"] == {"team": 5, "club": 1}
    assert t2.snap()["phase"] == "ready" and t2.snap()["winner"] is None
    t2.play(9, True)  # the game goes on and is won again
    assert t2.snap()["winner"] == "team"


def test_refused_without_a_reason_with_nothing_changed() -> None:
    """A correction is an act of the host's with its reason (it is published and journaled)."""
    t = Table()
    t.play(1, True)
    for reason in (None, "", "   "):
        assert "нужна причина" in refusal(t, reason=reason)
    assert t.score == (1, 0)


def test_refused_once_the_next_sector_is_picked() -> None:
    """Before the next spin only: once a sector is picked the game has moved on, even if that
    round is cancelled (the spin happened)."""
    t = Table()
    t.play(1, True)
    t.pick(2)
    assert "идёт раунд" in refusal(t)
    t.host(A.CANCEL_ROUND)
    assert "уже выбран сектор" in refusal(t)
    assert t.score == (1, 0)


def test_refused_before_any_round_and_for_the_side_that_has_the_point() -> None:
    t = Table()
    assert "не сыграно ни одного раунда" in refusal(t)
    t.play(1, False)
    assert "и так у стороны «Ведущий»" in refusal(t, to=Side.CLUB)  # a repeated command is harmless
    assert t.score == (0, 1)


def test_refused_after_a_fortochka_or_a_hint() -> None:
    """The fortochka's point follows the previous round by rule (000 4.2 д); a hint from the hall
    loses the round by rule (000 6.4): neither is a verdict to correct."""
    t = Table(make_rules(fortochka_sector=5))
    t.play(1, True)
    t.pick(5)
    assert t.last("fortochka_played")["to"] == "team"
    assert "000 4.2 д" in refusal(t)
    t.pick(2)
    t.host(A.HINT_FROM_HALL)
    assert "000 6.4" in refusal(t)
    assert t.score == (2, 1)


def test_a_blitz_lost_before_its_last_question_stays_lost() -> None:
    """003 6.2.2: a wrong answer ends the blitz; its remaining questions were never asked, so it
    cannot become the experts' point. A blitz lost on its last question, or won, can be corrected."""
    t = Table(make_rules(special={3: SectorKind.BLITZ, 6: SectorKind.BLITZ}))
    t.play(3, True, False)
    assert "остановлен на вопросе 2 из 3" in refusal(t)
    t.play(6, True, True, False)
    event = correct(t)
    assert event["result"] == "team" and t.score == (1, 1)  # the first blitz stays the club's
    assert t.snap()["rounds_played"] == 2


def test_refused_after_the_decisive_round_is_taken_and_allowed_on_it() -> None:
    """003 6.4: taking the decisive round resets the score, so the rounds before it are closed;
    the decisive round's own verdict can be corrected (its 6 points move, the winner changes)."""
    rules = ChgkRules.belgorod(teams=TEAMS, table_team="t1", stage=Stage.FINAL)
    t = Table(rules)
    for sector in (1, 2, 3, 4, 5):
        t.play(sector, True)
    for sector in (6, 7, 8, 9, 10, 11, 12):
        t.play(sector, False)
    assert t.score == (5, 7)
    assert "decisive_round" in t.host_snap()["host_actions"]  # the host's screen offers it now
    t.host(A.DECISIVE_ROUND)
    assert "decisive_round" not in t.host_snap()["host_actions"]
    assert t.last("decisive_round")["score_before"] == {"team": 5, "club": 7}
    assert "взят решающий раунд" in refusal(t)
    t.play(13, False)
    assert t.snap()["winner"] == "club"
    event = correct(t)
    assert event["score"] == {"team": 6, "club": 0} and event["winner"] == "team"


def test_a_saved_minute_follows_the_corrected_early_answer() -> None:
    """003 6.1.5: a correct early answer saves a minute; if the verdict was keyed wrongly the
    minute goes with it (it cannot have been spent: no round since), and comes back the other way."""
    t = Table(ChgkRules.belgorod(teams=TEAMS, table_team="t1"))
    t.pick(1)
    t.host(A.EARLY_ANSWER)
    t.host(A.ANSWER_CORRECT)
    assert t.snap()["saved_minutes"] == 1
    assert correct(t)["saved_minutes"] == 0 and t.snap()["saved_minutes"] == 0
    assert correct(t)["saved_minutes"] == 1


def test_later_decisions_are_untouched() -> None:
    """A hall answer counted after the round (000 3.6-3.7) and help used stay as they were."""
    t = Table()
    t.play(1, False)
    t.pick(2)
    t.host(A.EXTRA_TIME)  # behind at 0:1
    t.host(A.START_TIMER)
    t.advance(5 * S)
    t.host(A.ANSWER_WRONG)
    t.host(A.HALL_CORRECT, team="t2")
    correct(t)
    snap = t.snap()
    assert snap["hall"]["t2"] == 1 and snap["helps"]["extra_time"] == "used"
    assert t.score == (1, 1)


def test_the_score_is_always_the_rounds_outcomes_so_there_is_no_free_adjustment() -> None:
    """No host score adjustment at the table: seeds 000 and 003 leave no room for one. Every
    point is a round's outcome (003 6.1.3-6.1.4; the fortochka's by the previous round, 000 4.2 д),
    the game is won by reaching the score through rounds (000 1.1.1, 3.8), and the tables' figures
    are counted from the rounds (000 1.6.1 indicators, 1.7.1 table points and wrong answers).
    What a host needs to put right is a verdict: `correct_round`. The command set has no other
    way to touch the score, and after corrections the score is still the sum of the rounds."""
    assert not {"adjust_score", "set_score", "score"} & {a.value for a in A}
    with pytest.raises(ValueError):
        parse_command({"action": "adjust_score", "side": "team", "points": 1, "reason": "x"}, 0)
    t = Table()
    for sector, right in ((1, True), (2, False), (3, True), (4, True)):
        t.play(sector, right)
        correct(t)
    results = [_result(t, n) for n in range(1, 5)]
    assert results == ["club", "team", "club", "club"]
    assert t.score == (results.count("team"), results.count("club"))


def _result(t: Table, number: int) -> str:
    """Round `number`'s result after corrections (the last word on it)."""
    result = next(e["result"] for e in t.events("round_ended") if e["round"] == number)
    for e in t.events("round_corrected"):
        if e["round"] == number:
            result = e["result"]
    return str(result)


# ---------------------------------------------------------------- on the wire, in the journal


def table_config() -> Config:
    return config_from_dict({
        "game": {"kind": "chgk"},
        "table": {"rules": "tto", "team": "t1", "seed": 3, "blitz": [3]},
        "teams": [{"id": t.id, "name": t.name} for t in TEAMS],
        "spin": {"silence_ms": 0},  # no top is fed here: no sensor watchdog (a replay has none)
        "sources": {"top": {"kind": "simulated_mcu", "pads": 1}},
    }, "test")


class HandClock:
    def __init__(self) -> None:
        self.now = 1_000 * S

    def __call__(self) -> int:
        return self.now


def test_a_correction_is_journaled_and_replays_to_the_same_decisions() -> None:
    """The correction, its refusals and what follows are in the journal like every command;
    `chgk-console replay` of the journal decides the same, the reason included."""
    clock = HandClock()
    journal = io.StringIO()
    console = Console(table_config(), clock=clock, journal=journal)
    live: list[dict[str, Any]] = []
    console.wire_watchers.append(live.append)

    def command(after_s: float, **cmd: Any) -> None:
        clock.now += round(after_s * S)
        console.commands.on_command(json.dumps(cmd, ensure_ascii=False).encode())

    command(1, action="pick_sector", sector=1)
    command(1, action="start_timer")
    command(20, action="answer_correct")
    command(1, action="correct_round", reason="")  # refused: no reason
    command(1, action="correct_round", to="club", reason="ответ «Лондон» не принят: нужен «Воксхолл»")
    command(1, action="correct_round", to="club", reason="повтор")  # refused: the club has it
    command(1, action="pick_sector", sector=2)
    command(1, action="correct_round", reason="поздно")  # refused: the next sector is picked
    types = [e["type"] for e in live]
    assert types.count("round_corrected") == 1 and types.count("error") == 3
    lines = journal.getvalue().splitlines()
    assert any('"host": "correct_round"' in line and "Воксхолл" in line and '"to": "club"' in line
               for line in lines)
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines(io.StringIO(journal.getvalue()), "journal.jsonl", out, err)
    assert status == 0, err.getvalue()
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]

    def decisions(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k not in ("seq",)} for e in events
                if e.get("source") not in ("mqtt",)]

    assert decisions(replayed) == decisions(live)
    corrected = next(e for e in replayed if e["type"] == "round_corrected")
    assert corrected["reason"] == "ответ «Лондон» не принят: нужен «Воксхолл»"
    assert corrected["score"] == {"team": 0, "club": 1}


def test_the_journal_line_of_a_correction_parses_back() -> None:
    """The scenario step written for the journal is the same input when read back."""
    from console.engine.chgk.rules import ChgkHost
    from console.games import game
    from console.scenario import parse_step

    inp = ChgkHost(A.CORRECT_ROUND, 5 * S, to=Side.TEAM, reason="причина")
    line = json.dumps(step_to_json(inp, 5 * S, game("chgk")), ensure_ascii=False)
    assert parse_step(line, "j:1", game("chgk")).input == inp


@pytest.mark.parametrize("command", [
    {"action": "correct_round", "to": "nobody", "reason": "x"},
    {"action": "correct_round", "to": 1, "reason": "x"},
    {"action": "correct_round", "reason": 5},
    {"action": "correct_round", "reason": "x" * 501},
    {"action": "pick_sector", "sector": 1, "reason": "x"},
])
def test_bad_correction_commands_are_refused_before_the_referee(command: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        parse_command(command, 0)


def test_every_version_of_a_games_record_names_it_by_when_it_began() -> None:
    """A season counts one game per record however often it comes (docs/mqtt-table.md: the record
    is published again after a late hall answer, and a correction can end a game anew): each
    version carries the game's `started_at_ns`, the first input of the referee's first game, a
    new_game's own time after it; another game of the same team carries its own."""
    t = Table()
    began = t.now + 5 * S
    t.advance_to(began)
    for sector in (1, 2, 3, 4, 6, 7):
        t.play(sector, True)  # 6:0
    first = t.last("game_record")
    assert first["started_at_ns"] == began
    t.advance(S)
    t.host(A.HALL_CORRECT, team="t2")  # a late hall answer: the record again, the same game
    again = t.last("game_record")
    assert again is not first and again["consolation"] != first["consolation"]
    assert again["started_at_ns"] == began
    correct(t)  # the last round was wrong after all: 5:1, the game goes on
    t.play(8, True)  # 6:1, over again
    assert t.last("game_record")["started_at_ns"] == began
    t.advance(S)
    second_began = t.now
    t.host(A.NEW_GAME, team="t1")  # the same team's next game
    for sector in (1, 2, 3, 4, 6, 7):
        t.play(sector, True)
    assert t.last("game_record")["started_at_ns"] == second_began != began
