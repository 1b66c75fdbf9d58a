"""«Своя игра» corrections and appeals (seed 004 4.1-4.3) and the host's view of the referee.

Rules tests on a hand-stepped clock (tests/engine_harness.py): a score changed by hand with a
reason, a judgement reversed after its question and before the next, once; the journal's
lines replay to the same result; `host_snapshot`'s `host_actions` is checked against the
engine itself over a scripted game (every listed action is taken, every other refused).
"""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import pytest

from console.engine.corrections import AdjustScore, Correction, CorrectionAction, Reverse, Undo
from console.engine.events import CommandRefused
from console.engine.model import Host, HostAction, SourceLink
from console.engine.svoya.events import JudgementReversed, ScoreAdjusted
from console.engine.svoya.pack_choice import CHOOSE_PACK, ChoosePack
from console.engine.svoya.roster import RosterAction, RosterChange
from console.engine.svoya.rules import HostCard, PackTheme
from console.games import game
from console.scenario import step_to_json
from console.tools.replay import replay_lines
from tests.engine_harness import MCU, MS, PLAYERS, S, Table, make_rules


def snap(t: Table) -> Any:
    """The public snapshot, read freely by the tests."""
    return t.ref.snapshot(t.now)


def play_correct(t: Table, player: str) -> None:
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    t.press(player)
    t.advance(50 * MS)
    t.host(HostAction.NAME)
    t.host(HostAction.CORRECT)


def correct(t: Table, cmd: Correction) -> None:
    t.deliver(cmd)


def test_004_4_2_the_host_changes_a_score_with_a_reason_at_any_time() -> None:
    """004 4.2: the host decides appeals; a score changed by hand is an event with its reason,
    and nothing else changes (the question in play goes on)."""
    t = Table()
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    t.press("p1")
    t.advance(50 * MS)
    before = snap(t)
    correct(t, AdjustScore(player="p2", delta=-10, reason="подсказка из зала", at=t.now))
    event = t.last("score_adjusted")
    assert (event["player"], event["delta"], event["score"], event["reason"]) == (
        "p2", -10, -10, "подсказка из зала")
    after = snap(t)
    assert after["phase"] == "answering" and after["question"] == before["question"]
    assert t.scores == {"p1": 0, "p2": -10, "p3": 0, "p4": 0}


@pytest.mark.parametrize(
    ("cmd", "why", "code"),
    [
        (AdjustScore(player="p9", delta=10, reason="x", at=0), "нет игрока «p9»", "no_player"),
        (AdjustScore(player="p1", delta=10, reason="  ", at=0), "нужна причина", "need_reason"),
        (AdjustScore(player="p1", delta=0, reason="x", at=0), "не ноль", "adjustment_out_of_range"),
        (AdjustScore(player="p1", delta=10**9, reason="x", at=0), "не ноль", "adjustment_out_of_range"),
    ],
)
def test_a_bad_adjustment_is_refused_with_the_reason_and_changes_nothing(cmd: AdjustScore, why: str,
                                                                         code: str) -> None:
    t = Table()
    out = t.deliver(cmd)
    (refusal,) = [o for o in out if isinstance(o, CommandRefused)]
    assert why in refusal.message
    assert refusal.details == {"action": "adjust_score", "phase": "idle", "reason": refusal.details["reason"],
                               "code": code}
    assert why in str(refusal.details["reason"])
    assert not [o for o in out if isinstance(o, ScoreAdjusted)]
    assert t.scores == {"p1": 0, "p2": 0, "p3": 0, "p4": 0}


def test_004_4_1_a_correct_answer_reversed_after_the_question_counts_as_wrong() -> None:
    """004 4.1-4.2: an appeal is heard after the question is played and before the next one;
    the host's decision undoes +value and gives -value; the question stays over."""
    t = Table()
    play_correct(t, "p2")
    assert t.scores["p2"] == 10 and snap(t)["last_end"]["winner"] == "p2"
    correct(t, Reverse(reason="ответ неточен", at=t.now))
    event = t.last("judgement_reversed")
    assert (event["player"], event["correct"], event["delta"], event["score"], event["winner"]) == (
        "p2", False, -20, -10, None)
    state = snap(t)
    assert state["phase"] == "idle" and state["next"]["number"] == 2  # the position does not move
    assert state["last_reversal"]["winner"] is None and state["last_reversal"]["reason"] == "ответ неточен"


def test_004_4_1_a_wrong_answer_reversed_takes_the_question() -> None:
    """004 4.1 (an appeal to accept a dual answer): the last answer, judged wrong, counts as
    correct: +2 x value, and the player took the question."""
    t = Table(make_rules(players=make_rules().players[:2]))
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    t.press("p1")
    t.advance(50 * MS)
    t.host(HostAction.NAME)
    t.host(HostAction.WRONG)
    t.host(HostAction.RESET)
    t.advance(10 * MS)
    t.press("p2")
    t.advance(50 * MS)
    t.host(HostAction.NAME)
    t.host(HostAction.WRONG)  # both out: all_wrong
    assert t.last("question_ended")["reason"] == "all_wrong"
    correct(t, Reverse(reason="дуальный ответ", at=t.now))
    event = t.last("judgement_reversed")
    assert (event["player"], event["correct"], event["delta"], event["winner"]) == ("p2", True, 20, "p2")
    assert t.scores == {"p1": -10, "p2": 10}


def test_004_4_3_an_appeal_decision_is_final_and_later_decisions_stand() -> None:
    """004 4.3: a decision on an appeal is not reviewed again: a second reverse is refused; a
    reverse once the next question started is refused; the decisions taken since stand."""
    t = Table()
    play_correct(t, "p1")
    correct(t, Reverse(reason="первая апелляция", at=t.now))
    out = t.deliver(Reverse(reason="вторая", at=t.now))
    (refusal,) = [o for o in out if isinstance(o, CommandRefused)]
    assert "не пересматриваются (004 4.3)" in refusal.message
    play_correct(t, "p3")  # the next question
    t.host(HostAction.NEXT)
    out = t.deliver(Reverse(reason="поздно", at=t.now))
    (refusal,) = [o for o in out if isinstance(o, CommandRefused)]
    assert "идёт вопрос" in refusal.message
    assert t.scores == {"p1": -10, "p2": 0, "p3": 20, "p4": 0}  # p3's later +20 stands


@pytest.mark.parametrize("setup", ["nothing_played", "cancelled", "nobody_answered"])
def test_004_4_1_only_a_judgement_can_be_reversed(setup: str) -> None:
    """004 4.1: the appeal is against a judgement of the question just played."""
    t = Table()
    if setup == "cancelled":
        t.host(HostAction.NEXT)
        t.host(HostAction.CANCEL)
    elif setup == "nobody_answered":
        t.host(HostAction.NEXT)
        t.host(HostAction.READING_FINISHED)
        t.advance(8 * S)
    out = t.deliver(Reverse(reason="апелляция", at=t.now))
    assert [o for o in out if isinstance(o, CommandRefused)]
    assert not [o for o in out if isinstance(o, JudgementReversed)]
    assert "reverse" not in t.ref.host_actions(t.now)


def test_a_reverse_without_a_reason_is_refused() -> None:
    t = Table()
    play_correct(t, "p1")
    out = t.deliver(Reverse(reason=" ", at=t.now))
    assert any(isinstance(o, CommandRefused) and "нужна причина" in o.message for o in out)
    assert t.scores["p1"] == 10


def test_a_reversal_at_game_over_changes_the_final_scores() -> None:
    """The last question's judgement may be appealed after the fight's last question (4.1)."""
    t = Table(make_rules(values=(10,), themes=1))
    play_correct(t, "p4")
    assert t.ref.phase == "game_over"
    correct(t, Reverse(reason="апелляция", at=t.now))
    assert t.scores["p4"] == -10 and snap(t)["last_reversal"]["correct"] is False


def test_the_journal_lines_of_corrections_replay_to_the_same_result() -> None:
    """Corrections are journaled with their arguments (console.scenario.step_to_json) and
    `replay` of those lines gives the same events."""
    t = Table()
    inputs: list[tuple[Host | Correction, int]] = []

    def give(inp: Host | Correction) -> None:
        inputs.append((inp, inp.at))
        t.deliver(inp, inp.at)

    give(Host(HostAction.NEXT, t.now))
    give(Host(HostAction.CANCEL, t.now + 10 * MS))
    give(AdjustScore(player="p3", delta=15, reason="штраф отменён", at=t.now + 20 * MS))
    give(Host(HostAction.NEXT, t.now + 30 * MS))
    give(Host(HostAction.READING_FINISHED, t.now + 40 * MS))
    t.advance(8 * S)
    give(Reverse(reason="нельзя: никто не отвечал", at=t.now))
    players = [{"id": p.id, "name": p.name, "pad": p.pad} for p in make_rules().players]
    header = {"config": {"players": players,
                         "sources": {"mcu": {"kind": "simulated_mcu", "pads": 3},
                                     "gpio": {"kind": "gpio", "pins": list(range(2, 20)),
                                              "max_delay_ms": 10}},
                         "auto_watermark": False}}
    lines = [json.dumps(header)] + [json.dumps(step_to_json(inp, at, game("svoya"))) for inp, at in inputs]
    line = json.loads(lines[3])
    assert line == {"at_ms": line["at_ms"], "host": "adjust_score", "player": "p3", "delta": 15,
                    "reason": "штраф отменён"}
    out, err = io.StringIO(), io.StringIO()
    assert replay_lines(lines, "journal", out, err) == 0, err.getvalue()
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    strip = [{k: v for k, v in e.items() if k != "seq"} for e in replayed]
    assert strip == t.events()
    corrections = [e["type"] for e in replayed if e["type"] in ("score_adjusted", "error")]
    assert corrections == ["score_adjusted", "error"]


# ---------------------------------------------------------------- host_snapshot


ALL_ACTIONS = ([a.value for a in HostAction] + [a.value for a in CorrectionAction] + [Undo.ACTION]
               + [a.value for a in RosterAction] + [CHOOSE_PACK])
# Valid arguments for each change of the players (console/engine/svoya/roster.py).
ROSTER_ARGS = {RosterAction.RENAME: {"player": "p1", "name": "Новое имя"},
               RosterAction.ADD: {"name": "Новый", "pad": "mcu:3"},
               RosterAction.REMOVE: {"player": "p1"}, RosterAction.BIND: {"player": "p1"}}


def attempt(t: Table, action: str) -> bool:
    """Whether a copy of the referee takes `action` now (valid arguments for corrections)."""
    ref = copy.deepcopy(t.ref)
    if action == CorrectionAction.ADJUST_SCORE:
        inp: Host | Correction | RosterChange | ChoosePack = AdjustScore(
            player="p1", delta=5, reason="проверка", at=t.now)
    elif action == CorrectionAction.REVERSE:
        inp = Reverse(reason="проверка", at=t.now)
    elif action == Undo.ACTION:
        inp = Undo(reason="проверка", at=t.now)
    elif action in RosterAction.__members__.values():
        inp = RosterChange(RosterAction(action), t.now, **ROSTER_ARGS[RosterAction(action)])
    elif action == CHOOSE_PACK:
        inp = ChoosePack(at=t.now, file="/packs/p.siq", name="П", round=1, round_name="Раунд", start=0,
                         themes=(PackTheme("Реки", (HostCard(value=10, text="?", answer="!"),)),))
    else:
        inp = Host(HostAction(action), t.now)
    return not any(isinstance(o, CommandRefused) for o in ref.handle_all([inp], t.now))


SCRIPT = ["next", "press:p2", "name", "answer_started", "wrong", "reset", "reading_finished",
          "press:p1", "short_form", "correct", "reverse", "next", "press:p3", "wrong", "reset",
          "cancel", "next", "reading_finished", "wait", "next", "lost:mcu", "end_question", "back:mcu",
          "new_game", "remove:p4"]


def test_host_actions_are_exactly_what_the_engine_accepts_over_a_scripted_game() -> None:
    t = Table(make_rules(answer_clock="host"))
    seen: set[str] = set()
    for step in [None, *SCRIPT]:
        if step is not None:
            t.advance(200 * MS)
            if step.startswith("press:"):
                t.press(step.removeprefix("press:"))
                t.advance(50 * MS)
            elif step == "wait":
                t.advance(8 * S)
            elif step == "reverse":
                t.deliver(Reverse(reason="апелляция", at=t.now))
            elif step.startswith("remove:"):  # a player leaves: three, one more may join
                t.deliver(RosterChange(RosterAction.REMOVE, t.now, player=step.removeprefix("remove:")))
            elif step.startswith(("lost:", "back:")):  # a button source lost, or back
                t.deliver(SourceLink(step[5:], step.startswith("back:"), t.now))
            else:
                t.host(HostAction(step))
        listed = t.ref.host_snapshot(t.now)["host_actions"]
        assert isinstance(listed, list)
        seen.update(str(a) for a in listed)
        for action in ALL_ACTIONS:
            assert attempt(t, action) == (action in listed), (step, action, listed)
    assert seen == set(ALL_ACTIONS)  # the script reaches every action at some point


def test_presses_list_each_players_first_press_behind_the_first() -> None:
    t = Table()
    assert t.ref.host_snapshot(t.now)["presses"] == []
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    t.press("p2")
    t.advance(350_000)
    t.press("p1")  # 0.35 ms later: answerer_chosen
    t.advance(2 * MS)
    t.press("p2")  # a second press of p2: not listed again
    t.advance(50 * MS)
    host = t.ref.host_snapshot(t.now)
    assert host["presses"] == [{"player": "p2", "delay_ms": 0.0}, {"player": "p1", "delay_ms": 0.35}]
    t.host(HostAction.NAME)
    t.host(HostAction.WRONG)
    t.host(HostAction.RESET)  # signals open again: the list starts over
    assert t.ref.host_snapshot(t.now)["presses"] == []
    t.advance(10 * MS)
    t.press("p3")
    t.advance(50 * MS)
    assert t.ref.host_snapshot(t.now)["presses"] == [{"player": "p3", "delay_ms": 0.0}]
    t.host(HostAction.NAME)
    t.host(HostAction.CORRECT)
    assert t.ref.host_snapshot(t.now)["presses"] == []  # between questions


# ---------------------------------------------------------------- undo: a mistaken key, at once


def test_a_mistaken_wrong_is_taken_back_mid_question_and_judged_anew() -> None:
    """Issue 19: a mistaken «Неверно» waited for the question's end («Пересмотреть решение»
    was disabled until then). Undone at once, mid-question, with a reason: the −value is
    given back, the player has the turn again (no clock: the answer was given) and the
    host's «Верно» scores it; the undo is journaled like every correction."""
    t = Table()
    t.host(HostAction.NEXT)
    t.host(HostAction.READING_FINISHED)
    t.press("p1")
    t.advance(50 * MS)  # the GPIO box had its delay to report an earlier press
    t.host(HostAction.NAME)
    t.host(HostAction.WRONG)
    assert t.scores["p1"] == -10 and "undo" in t.ref.host_actions(t.now)
    t.deliver(Undo(reason="нажал не ту кнопку", at=t.now))
    undone = t.last("judgement_undone")
    assert (undone["player"], undone["correct"], undone["delta"], undone["score"]) == ("p1", False, 10, 0)
    assert t.ref.phase == "answering" and t.answerer() == "p1"
    question = t.question()
    assert question is not None and question["out"] == []
    t.advance(10 * S)  # no answer clock runs
    assert t.events("answer_judged")[-1]["by"] == "host"
    t.host(HostAction.CORRECT)
    assert t.scores["p1"] == 10 and t.last("question_ended")["reason"] == "correct"
    assert "undo" in t.ref.host_actions(t.now)  # the «Верно» may be taken back in its turn


def test_a_mistaken_correct_reopens_the_question_it_ended() -> None:
    """A «Верно» ended the question (and the fight's last theme): undone, the question is in
    play again at its place, the fight not over, and the host judges anew."""
    t = Table(make_rules(players=PLAYERS[:3], sources={"mcu": MCU}, themes=1, values=(10,)))  # one question
    t.host(HostAction.NEXT)
    t.host(HostAction.READING_FINISHED)
    t.press("p2")
    t.host(HostAction.NAME)
    t.host(HostAction.CORRECT)
    assert t.ref.phase == "game_over" and t.scores["p2"] == 10
    t.deliver(Undo(reason="ответ был неполный", at=t.now))
    assert t.ref.phase == "answering" and t.answerer() == "p2" and t.scores["p2"] == 0
    t.host(HostAction.WRONG)
    assert t.scores["p2"] == -10 and t.ref.phase == "await_reset"


def test_an_undo_after_the_game_moved_on_is_refused_and_changes_nothing() -> None:
    t = Table()
    t.host(HostAction.NEXT)
    t.host(HostAction.READING_FINISHED)
    t.press("p1")
    t.advance(50 * MS)  # the GPIO box had its delay to report an earlier press
    t.host(HostAction.NAME)
    t.host(HostAction.WRONG)
    t.host(HostAction.RESET)  # the game moved on: the «Неверно» stands
    assert "undo" not in t.ref.host_actions(t.now)
    out = t.deliver(Undo(reason="поздно", at=t.now))
    assert t.scores["p1"] == -10 and [type(o).__name__ for o in out] == ["CommandRefused"]
    assert "нечего отменять" in t.last("error")["message"]
    t.deliver(Undo(reason=" ", at=t.now))
    assert t.scores["p1"] == -10
