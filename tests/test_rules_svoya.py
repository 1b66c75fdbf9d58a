"""«Своя игра» rules, clause by clause (seed 004, appendix «Правила Своей игры», App.1-11).

Every test steps the clock by hand; none sleeps. Presses carry the time they happened at
their source; `arrive` is when the console received them.
"""

from __future__ import annotations

import pytest

from console.engine.action_titles import TITLES
from console.engine.arbiter import SourceTiming
from console.engine.model import Cue, Host, HostAction, LampMode, Output, Press, Watermark
from console.engine.svoya.rules import AnswerClock, FalseStartPolicy, Player, TiePolicy
from tests.engine_harness import GPIO, MCU, MS, PLAYERS, S, Table, make_rules

A = HostAction


def mcu_only(**overrides: object) -> Table:
    players = tuple(p for p in PLAYERS if p.pad.startswith("mcu"))
    return Table(make_rules(players=players, sources={"mcu": MCU}, **overrides))


def unordered(**overrides: object) -> Table:
    """Three players on a source that promises no order (like GPIO edges): 10 ms delay."""
    players = tuple(p for p in PLAYERS if p.pad.startswith("mcu"))
    return Table(make_rules(players=players, sources={"mcu": GPIO}, **overrides))


# ---------------------------------------------------------------- App.1: players


@pytest.mark.parametrize("count", [2, 3, 4])
def test_app1_fight_of_two_to_four_players(count: int) -> None:
    players = tuple(Player(f"p{i}", f"Игрок {i}", f"mcu:{i}") for i in range(count))
    assert len(Table(make_rules(players=players)).scores) == count


@pytest.mark.parametrize("count", [1, 5])
def test_app1_other_sizes_are_refused(count: int) -> None:
    players = tuple(Player(f"p{i}", f"Игрок {i}", f"mcu:{i}") for i in range(count))
    with pytest.raises(ValueError, match="2 to 4 players"):
        make_rules(players=players)


# ---------------------------------------------------------------- App.2: themes and values


def test_app2_questions_of_a_theme_in_ascending_order_then_next_theme() -> None:
    t = mcu_only(themes=2)
    seen = []
    for _ in range(10):
        t.host(A.NEXT)
        started = t.last("question_started")
        seen.append((started["theme"], started["value"]))
        t.press("p1")
        t.host(A.CORRECT)
    assert seen == [(1, 10), (1, 20), (1, 30), (1, 40), (1, 50),
                    (2, 10), (2, 20), (2, 30), (2, 40), (2, 50)]
    assert t.ref.phase == "game_over"
    assert t.last("game_over")["ranking"][0] == "p1"
    t.host(A.NEXT)
    assert "сейчас нельзя" in t.last("error")["message"]


def test_app2_values_must_be_ascending() -> None:
    with pytest.raises(ValueError, match="ascending"):
        make_rules(values=(10, 30, 20, 40, 50))


# ---------------------------------------------------------------- App.3: scoring


def test_app3_start_at_zero_correct_adds_wrong_subtracts() -> None:
    t = mcu_only()
    assert t.scores == {"p1": 0, "p2": 0, "p3": 0}
    t.host(A.NEXT)  # 10
    t.press("p1")
    t.host(A.WRONG)
    t.host(A.RESET)
    t.press("p2")
    t.host(A.CORRECT)
    assert t.scores == {"p1": -10, "p2": 10, "p3": 0}
    judged = t.events("answer_judged")
    assert [(e["player"], e["delta"], e["score"]) for e in judged] == [
        ("p1", -10, -10), ("p2", 10, 10)]


# ---------------------------------------------------------------- App.4: when signals count


def test_app4_press_before_the_value_is_announced_never_wins() -> None:
    t = mcu_only()
    t.press("p1")  # idle: no value announced
    t.advance(100 * MS)
    t.host(A.NEXT)
    assert t.answerer() is None
    assert t.last("press_ignored")["reason"] == "false_start"
    t.press("p2")
    assert t.answerer() == "p2"


def test_app4_press_stamped_before_the_announcement_but_delivered_after_is_a_false_start() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    announced = t.now
    t.press("p1", at=announced - 1 * MS, arrive=announced + 2 * MS)
    t.press("p2", at=announced + 1 * MS, arrive=announced + 3 * MS)
    assert t.answerer() == "p2"
    assert t.last("press_ignored")["reason"] == "false_start"


def test_app4_default_false_start_policy_ignores_without_lockout() -> None:
    t = mcu_only()
    t.press("p1")
    t.advance(10 * MS)
    t.host(A.NEXT)
    t.press("p1")  # 10 ms after its false start: counts under the seed's rule
    assert t.answerer() == "p1"


@pytest.mark.parametrize("lockout_s", [2, 3])  # TV 2 s, SIGame 3 s
def test_app4_lockout_policy_locks_the_false_starter_out(lockout_s: int) -> None:
    t = mcu_only(false_start=FalseStartPolicy.LOCKOUT, false_start_lockout_ns=lockout_s * S)
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1", at=t.now - 0)  # in time: fine
    t.host(A.CORRECT)
    false_start_at = t.now + 100 * MS
    t.press("p2", at=false_start_at, arrive=false_start_at)  # idle: false start
    assert t.last("press_ignored")["locked_until_ns"] == false_start_at + lockout_s * S
    t.advance(200 * MS)
    t.host(A.NEXT)
    t.press("p2")  # still locked out
    assert t.answerer() is None
    assert t.last("press_ignored")["reason"] == "false_start_lockout"
    t.advance_to(false_start_at + lockout_s * S)
    t.press("p2")
    assert t.answerer() == "p2"


def test_app4_signal_window_is_7_s_after_reading_ends() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.advance(2 * S)
    t.host(A.READING_FINISHED)
    end = t.now
    t.press("p1", at=end + 7 * S, arrive=end + 7 * S)  # the last instant still counts
    assert t.answerer() == "p1"


def test_app4_press_after_7_s_is_late_even_if_the_loop_was_busy() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    end = t.now
    # The loop was busy: nothing ran until the press arrived, 30 ms after the window.
    t.now = end + 7 * S + 30 * MS
    t.outputs += t.ref.handle(Press("mcu", "mcu:0", end + 7 * S + 1_000), t.now)
    assert t.answerer() is None
    ended = t.last("question_ended")
    assert ended["reason"] == "no_signal"


def test_app4_press_in_time_but_delivered_late_still_counts() -> None:
    t = Table()  # mixed sources: GPIO declares 10 ms worst-case delay
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    end = t.now
    window_end = end + 7 * S
    t.advance_to(window_end + 5 * MS)
    assert t.events("question_ended") == []  # GPIO may still deliver a press made in time
    t.press("p4", at=window_end - 1 * MS, arrive=window_end + 9 * MS)
    t.advance(1 * MS)  # GPIO is unordered: the decision waits out its declared delay
    assert t.answerer() == "p4"


def test_app4_window_closes_at_its_end_plus_the_declared_delay() -> None:
    t = Table()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    window_end = t.now + 7 * S
    assert t.ref.next_deadline() == window_end + 10 * MS
    t.advance_to(window_end + 10 * MS)
    assert t.last("question_ended")["reason"] == "no_signal"
    assert Cue.TIME_UP in t.cues()


def _press_during_an_answer(correct_first: bool, press_after_window: bool) -> Table:
    """p1 answers; p2 presses 2 ms before the host's «correct», delivered 1 ms before or after it."""
    t = mcu_only(false_start=FalseStartPolicy.LOCKOUT, false_start_lockout_ns=2 * S)
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    correct_at = t.now + (8 if press_after_window else 5) * S
    press_at = correct_at - 2 * MS
    if correct_first:
        t.advance_to(correct_at)
        t.host(A.CORRECT)
        t.press("p2", at=press_at, arrive=correct_at + 1 * MS)  # inside MCU's declared 5 ms
    else:
        t.press("p2", at=press_at, arrive=correct_at - 1 * MS)
        t.advance_to(correct_at)
        t.host(A.CORRECT)
    return t


@pytest.mark.parametrize(("press_after_window", "reason"), [(False, "answerer_chosen"), (True, "late")])
def test_app4_a_press_during_an_answer_is_judged_on_its_time_whenever_it_arrives(
        press_after_window: bool, reason: str) -> None:
    """App.4: a signal counts from the announcement of the value to 7 s after the reading;
    a press made during question N belongs to question N. Delivered after the host's
    «correct» (inside its source's declared delay) it is judged exactly as when delivered
    before it: never a false start that locks the player out of question N+1."""
    judged = []
    for correct_first in (False, True):
        t = _press_during_an_answer(correct_first, press_after_window)
        ignored = t.last("press_ignored")
        assert ignored["reason"] == reason and "locked_until_ns" not in ignored
        judged.append({k: v for k, v in ignored.items() if k != "t_ns"})
        t.advance(100 * MS)
        t.host(A.NEXT)
        t.press("p2")
        assert t.answerer() == "p2"  # not locked out of the next question
    assert judged[0] == judged[1]


def test_app4_a_press_of_the_last_question_delivered_after_the_next_announcement_is_no_false_start() -> None:
    """App.4: signals count after the value is announced; a press made before the host's
    «correct» is no false start for the next question even if the host announced it before
    the press reached the console."""
    t = mcu_only(false_start=FalseStartPolicy.LOCKOUT)
    t.host(A.NEXT)
    t.press("p1")
    t.advance(1 * S)
    correct_at = t.now
    t.host(A.CORRECT)
    t.advance(1 * MS)
    t.host(A.NEXT)
    t.press("p2", at=correct_at - 1 * MS, arrive=correct_at + 3 * MS)
    assert t.last("press_ignored")["reason"] == "answerer_chosen"
    t.press("p2")
    assert t.answerer() == "p2"


def test_app4_a_press_made_in_the_window_and_delivered_after_it_closed_says_so() -> None:
    """App.4, App.10.3: the window closes once every source has reported through its end;
    a press made inside it that arrives later still was delivered beyond its source's
    declared delay. It carries `window_closed`, never `false_start`, and locks nobody out."""
    t = unordered(false_start=FalseStartPolicy.LOCKOUT)  # 10 ms declared delay
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    window_end = t.now + 7 * S
    t.advance_to(window_end + 10 * MS)
    assert t.last("question_ended")["reason"] == "no_signal"
    t.press("p1", at=window_end - 1 * MS, arrive=window_end + 12 * MS)
    ignored = t.last("press_ignored")
    assert ignored["reason"] == "window_closed" and "locked_until_ns" not in ignored
    t.host(A.NEXT)
    t.press("p1")
    t.advance(20 * MS)
    assert t.answerer() == "p1"


@pytest.mark.parametrize("cancel_first", [False, True])
def test_cancelled_question_an_undecided_press_is_reported_whenever_it_arrives(cancel_first: bool) -> None:
    """App.4: a press made during a question the host then withdrew belongs to that question:
    `question_cancelled` whether it reached the console before or after the «cancel»."""
    t = unordered(false_start=FalseStartPolicy.LOCKOUT)
    t.host(A.NEXT)
    cancel_at = t.now + 1 * S
    press_at = cancel_at - 2 * MS
    if cancel_first:
        t.advance_to(cancel_at)
        t.host(A.CANCEL)
        t.press("p3", at=press_at, arrive=cancel_at + 3 * MS)
    else:
        t.press("p3", at=press_at, arrive=cancel_at - 1 * MS)  # not settled yet: GPIO may still report
        t.advance_to(cancel_at)
        t.host(A.CANCEL)
    assert t.last("question_ended")["reason"] == "cancelled"
    assert t.last("press_ignored")["reason"] == "question_cancelled"
    t.host(A.NEXT)
    t.press("p3")
    t.advance(20 * MS)
    assert t.answerer() == "p3"


# ---------------------------------------------------------------- App.5: who signalled first


def test_app5_first_by_source_time_not_arrival_order() -> None:
    t = Table()
    t.host(A.NEXT)
    t.advance(1 * S)
    base = t.now
    # p1 (MCU) pressed 2 ms after p4 (GPIO), but GPIO delivered 6 ms late.
    t.press("p1", at=base + 2 * MS, arrive=base + 3 * MS)
    assert t.answerer() is None  # GPIO has not reported through that time yet
    t.press("p4", at=base, arrive=base + 6 * MS)
    t.advance(10 * MS)
    assert t.answerer() == "p4"
    decision = t.last("signal_accepted")
    presses = [(p["player"], p["behind_ms"]) for p in decision["presses"]]
    assert presses == [("p4", 0.0), ("p1", 2.0)]


def test_app5_one_ordered_source_decides_at_once_and_lights_the_lamp() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    out = t.press("p2")
    assert t.answerer() == "p2"
    assert any(getattr(o, "lamps", None) for o in out)  # decided in the same call
    assert t.lamps()["mcu:1"] is LampMode.ON
    assert t.lamps()["mcu:0"] is LampMode.OFF
    assert Cue.SIGNAL in t.cues()


def test_app5_heartbeat_watermark_settles_a_press_from_another_ordered_source() -> None:
    t = Table(make_rules(sources={"mcu": MCU, "gpio": MCU}))
    t.host(A.NEXT)
    t.press("p1")
    assert t.answerer() is None  # gpio has said nothing about this moment yet
    t.deliver(Watermark("gpio", t.now + 1 * MS))
    assert t.answerer() == "p1"


def test_app5_photo_finish_lists_every_press_with_its_delay() -> None:
    t = Table()
    t.host(A.NEXT)
    base = t.now + 1 * S
    t.press("p3", at=base + 1_500_000, arrive=base + 2 * MS)
    t.press("p4", at=base + 250_000, arrive=base + 3 * MS)
    t.press("p1", at=base, arrive=base + 4 * MS)
    t.advance(20 * MS)
    presses = t.last("signal_accepted")["presses"]
    assert [(p["player"], p["behind_ms"]) for p in presses] == [
        ("p1", 0.0), ("p4", 0.25), ("p3", 1.5)]


def test_ties_within_resolution_follow_pad_order_policy() -> None:
    t = unordered(tie_policy=TiePolicy.PAD_ORDER, tie_window_ns=1 * MS)
    t.host(A.NEXT)
    at = t.now + 1 * S
    t.press("p2", at=at, arrive=at)
    t.press("p1", at=at + 400_000, arrive=at + 1 * MS)  # 0.4 ms later: inside the tie window
    t.advance(10 * MS)
    decision = t.last("signal_accepted")
    assert decision["tie"] is True and decision["tied"] == ["p2", "p1"]
    assert decision["player"] == "p1"  # listed first in the config
    assert decision["tie_policy"] == "pad_order"


def test_ties_by_seeded_draw_are_reproducible() -> None:
    def winner(seed: int) -> str:
        t = mcu_only(tie_policy=TiePolicy.RANDOM, seed=seed)
        t.host(A.NEXT)
        at = t.now + 1 * S
        t.scan(["p1", "p2", "p3"], at=at, arrive=at + 1 * MS)  # one MCU scan saw all three
        return str(t.last("signal_accepted")["player"])

    winners = [winner(seed) for seed in range(12)]
    assert winners == [winner(seed) for seed in range(12)]  # same seed, same draw
    assert len(set(winners)) > 1  # and the draw is a draw


def test_presses_outside_the_tie_window_are_not_a_tie() -> None:
    t = unordered()  # resolution 1 µs
    t.host(A.NEXT)
    at = t.now + 1 * S
    t.press("p2", at=at + 1_000, arrive=at + 1 * MS)
    t.press("p1", at=at, arrive=at + 2 * MS)
    t.advance(20 * MS)
    decision = t.last("signal_accepted")
    assert decision["player"] == "p1" and decision["tie"] is False


# A phone is known to 20 ms (its touch pipeline: docs/phones.md), a wired button to its scan.
PHONES = SourceTiming(resolution_ns=20 * MS, max_delay_ns=1_500 * MS, ordered=True)


def with_phones() -> Table:
    players = (Player("p1", "Анна", "mcu:0"), Player("p2", "Борис", "mcu:1"),
               Player("p3", "Вера", "phones:0"))
    return Table(make_rules(players=players, sources={"mcu": MCU, "phones": PHONES}))


def test_app5_two_wired_buttons_beside_a_phone_are_told_apart_to_their_own_scan() -> None:
    """App.5: the first signal takes the turn. A phone in the fight widens only its own photo
    finishes: Борис's button 5 ms before Анна's is first, not a tie with her."""
    t = with_phones()
    t.host(A.NEXT)
    at = t.now + 1 * S
    t.deliver(Press("mcu", "mcu:1", at), at + 1 * MS)
    t.deliver(Press("mcu", "mcu:0", at + 5 * MS), at + 6 * MS)
    t.deliver(Watermark("mcu", at + 5 * MS), at + 6 * MS)
    assert not t.events("signal_accepted")  # the phone may still have pressed within 20 ms
    t.deliver(Watermark("phones", at + 25 * MS), at + 40 * MS)
    decision = t.last("signal_accepted")
    assert decision["player"] == "p2" and decision["tie"] is False


def test_app5_a_phone_and_a_wired_button_within_the_phones_20_ms_are_a_photo_finish() -> None:
    t = with_phones()
    t.host(A.NEXT)
    at = t.now + 1 * S
    t.deliver(Press("mcu", "mcu:0", at), at + 1 * MS)
    t.deliver(Watermark("mcu", at + 30 * MS), at + 31 * MS)
    t.deliver(Press("phones", "phones:0", at + 15 * MS), at + 60 * MS)
    t.deliver(Watermark("phones", at + 30 * MS), at + 61 * MS)
    decision = t.last("signal_accepted")
    assert decision["tie"] is True and set(decision["tied"]) == {"p1", "p3"}


# ---------------------------------------------------------------- App.6: press during reading


def test_app6_press_during_reading_stops_it_and_the_host_is_told() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.advance(1 * S)
    t.press("p1")
    decision = t.last("signal_accepted")
    assert decision["stop_reading"] is True
    q = t.question()
    assert q is not None and q["reading"] == "stopped"


def test_app6_press_after_reading_does_not_stop_anything() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    assert t.last("signal_accepted")["stop_reading"] is False
    t.host(A.SHORT_FORM)
    assert "краткая форма не нужна" in t.last("error")["message"]


def test_app6_a_press_made_before_the_reading_ended_stops_it_whatever_arrived_first() -> None:
    """App.6: «если к моменту подачи сигнала вопрос не дочитан до конца» — decided by the
    press's time, not by whether the host's «дочитан» key reached the console first; the
    player may then ask for the short form."""
    t = unordered()
    t.host(A.NEXT)
    reading_end = t.now + 2 * S
    t.advance_to(reading_end)
    t.host(A.READING_FINISHED)
    t.press("p2", at=reading_end - 2 * MS, arrive=reading_end + 3 * MS)
    t.advance(20 * MS)
    decision = t.last("signal_accepted")
    assert decision["player"] == "p2" and decision["stop_reading"] is True
    q = t.question()
    assert q is not None and q["reading"] == "stopped"
    t.host(A.SHORT_FORM)
    assert t.last("answer_clock_started")["by"] == "short_form"


# ---------------------------------------------------------------- App.7: 3 s to begin


def test_app7_no_answer_within_3_s_of_being_named_counts_as_wrong() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    t.advance(5 * S)  # not named yet: the clock has not started
    assert t.scores["p1"] == 0
    t.host(A.NAME)
    named = t.now
    t.advance_to(named + 3 * S - 1)
    assert t.scores["p1"] == 0
    t.advance_to(named + 3 * S + 20 * MS)  # plus the host keys' declared delay
    judged = t.last("answer_judged")
    assert (judged["player"], judged["by"], judged["delta"]) == ("p1", "timeout", -10)
    assert Cue.TIME_UP in t.cues()
    # The state says why p1 is out (the host's screen shows it): the 3 s, not the host.
    question = t.question()
    assert question is not None and question["last_wrong"] == {"player": "p1", "by": "timeout"}
    t.host(A.RESET)
    t.press("p2")
    t.host(A.WRONG)
    assert t.question()["last_wrong"] == {"player": "p2", "by": "host"}  # type: ignore[index]


def test_app7_the_3_s_count_from_when_the_host_named_not_when_the_key_was_read() -> None:
    """App.7: 3 s from the naming. The host's key reached the console 400 ms after it was
    pressed (a busy loop, a slow tablet): the clock runs from the key's own time."""
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    named = t.now + 1 * S
    t.advance(1400 * MS)
    t.host(A.NAME, at=named)  # read 400 ms after it was pressed
    clock = t.last("answer_clock_started")
    assert (clock["started_at_ns"], clock["deadline_ns"]) == (named, named + 3 * S)
    t.advance_to(named + 3 * S + 20 * MS)
    assert t.last("answer_judged")["by"] == "timeout"


def test_app7_answer_begun_in_time_stops_the_clock() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.press("p1")
    t.host(A.NAME)
    t.advance(2900 * MS)
    t.host(A.ANSWER_STARTED)
    t.advance(10 * S)
    assert t.events("answer_judged") == []
    t.host(A.CORRECT)
    assert t.scores["p1"] == 10


def test_app7_lamp_starts_the_clock_when_configured() -> None:
    t = mcu_only(answer_clock=AnswerClock.LAMP)
    t.host(A.NEXT)
    t.press("p2")
    clock = t.last("answer_clock_started")
    assert clock["by"] == "lamp" and clock["deadline_ns"] == t.now + 3 * S
    t.advance(3 * S + 20 * MS)
    assert t.scores["p2"] == -10


def test_app7_short_form_restarts_the_3_s() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.press("p1")  # reading stopped
    t.host(A.NAME)
    t.advance(2 * S)
    t.host(A.SHORT_FORM)
    given = t.now
    t.advance_to(given + 2 * S)
    assert t.events("answer_judged") == []  # 4 s after naming, 2 s after the short form
    t.advance_to(given + 3 * S + 20 * MS)
    assert t.last("answer_judged")["by"] == "timeout"


def test_app7_late_answer_key_is_refused() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.press("p1")
    t.host(A.NAME)
    named = t.now
    # The host's "answer started" key was pressed 3.01 s after naming, and the loop was busy
    # so the timeout had not fired when it arrived.
    t.now = named + 3010 * MS
    t.outputs += t.ref.handle(Host(A.ANSWER_STARTED, t.now), t.now)
    assert "уже истекли" in t.last("error")["message"]


# ---------------------------------------------------------------- App.8: after a wrong answer


def test_app8_wrong_answerer_is_out_of_the_question() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    t.host(A.WRONG)
    t.host(A.RESET)
    t.press("p1")
    assert t.answerer() is None
    assert t.last("press_ignored")["reason"] == "out_of_question"
    t.press("p2")
    assert t.answerer() == "p2"


def test_app8_every_wrong_answerer_stays_out_not_only_the_last() -> None:
    """App.8: each player who answered wrongly is out of the question; a second wrong answer
    does not let the first back in."""
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    for player in ("p1", "p2"):
        t.advance(100 * MS)
        t.press(player)
        t.host(A.WRONG)
        t.host(A.RESET)
    t.advance(100 * MS)
    t.press("p1")
    assert t.answerer() is None and t.last("press_ignored")["reason"] == "out_of_question"
    t.advance(100 * MS)
    t.press("p2")
    assert t.answerer() is None and t.last("press_ignored")["reason"] == "out_of_question"
    t.advance(100 * MS)
    t.press("p3")
    assert t.answerer() == "p3"


def test_app8_signals_count_only_after_the_reset() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    t.host(A.WRONG)
    t.advance(300 * MS)
    t.press("p2")  # before the host reset the system
    t.advance(300 * MS)
    t.host(A.RESET)
    assert t.answerer() is None
    assert t.last("press_ignored")["reason"] == "before_reset"
    t.press("p3")
    assert t.answerer() == "p3"


def test_app8_press_after_the_reset_delivered_before_it_still_counts() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    t.host(A.WRONG)
    reset_at = t.now + 1 * S
    # p2 pressed 5 ms after the reset, but its press reached the console before the reset key.
    t.press("p2", at=reset_at + 5 * MS, arrive=reset_at + 6 * MS)
    t.host(A.RESET, at=reset_at)
    assert t.answerer() == "p2"


def test_app8_window_runs_7_s_from_the_wrong_answer_when_it_is_later() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.advance(5 * S)
    t.press("p1")
    t.host(A.WRONG)
    wrong_at = t.now
    t.host(A.RESET)
    t.press("p2", at=wrong_at + 7 * S, arrive=wrong_at + 7 * S)
    assert t.answerer() == "p2"


def test_app8_window_runs_7_s_from_reading_end_when_that_is_later() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.advance(1 * S)
    t.press("p1")  # stops the reading
    t.host(A.WRONG)
    wrong_at = t.now
    t.host(A.RESET)
    t.advance(4 * S)  # the host goes on reading (App.9) and finishes
    t.host(A.READING_FINISHED)
    end = t.now
    t.advance_to(wrong_at + 7 * S + 10 * MS)
    assert t.events("question_ended") == []  # counted from the reading's end, not the wrong
    t.advance_to(end + 7 * S + 5 * MS + 1)
    t.press("p2", at=end + 7 * S + 1, arrive=t.now)
    assert t.answerer() is None
    assert t.last("question_ended")["reason"] == "no_signal"


def test_app8_host_who_never_resets_lets_the_window_run_out() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    t.host(A.WRONG)
    wrong_at = t.now
    t.advance_to(wrong_at + 7 * S + 20 * MS)
    assert t.last("question_ended")["reason"] == "no_signal"


# ---------------------------------------------------------------- App.9: the host's sequence


def test_app9_reset_with_reading_unfinished_goes_back_to_reading() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.press("p1")
    t.host(A.WRONG)
    t.host(A.RESET)
    assert t.ref.phase == "reading"
    assert t.last("signals_reset")["window_ends_ns"] is None  # no deadline until it is read
    t.advance(60 * S)
    assert t.events("question_ended") == []
    t.host(A.READING_FINISHED)
    assert t.ref.phase == "open"


def test_app9_reset_is_only_allowed_after_a_wrong_answer() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.RESET)
    assert "только после неверного ответа" in t.last("error")["message"]
    assert t.ref.phase == "reading"


# ---------------------------------------------------------------- App.10: how a question ends


def test_app10_1_ends_on_a_correct_answer() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.press("p3")
    t.host(A.CORRECT)
    ended = t.last("question_ended")
    assert (ended["reason"], ended["winner"]) == ("correct", "p3")
    assert t.ref.phase == "idle"


def test_app10_2_ends_when_every_player_has_answered_wrongly() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    for player in ("p1", "p2", "p3"):
        t.press(player)
        t.host(A.WRONG)
        if player != "p3":
            t.host(A.RESET)
    ended = t.last("question_ended")
    assert ended["reason"] == "all_wrong"
    assert t.scores == {"p1": -10, "p2": -10, "p3": -10}


def test_app10_3_ends_when_nobody_in_play_signals_in_time() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.press("p1")
    t.host(A.WRONG)
    t.host(A.RESET)
    t.press("p1")  # out of the question: does not keep it alive
    t.advance(8 * S)
    assert t.last("question_ended")["reason"] == "no_signal"
    assert t.scores == {"p1": -10, "p2": 0, "p3": 0}


def test_app11_the_next_question_waits_for_the_host() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.READING_FINISHED)
    t.advance(8 * S)
    assert t.ref.phase == "idle"
    t.advance(60 * S)
    assert len(t.events("question_started")) == 1  # nothing moves on its own
    t.host(A.NEXT)
    assert t.last("question_started")["value"] == 20


# ---------------------------------------------------------------- bad input, determinism


def test_press_from_unknown_pad_is_an_error_and_changes_nothing() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    before = t.ref.snapshot(t.now)
    t.deliver(Press("mcu", "mcu:9", t.now))
    t.deliver(Press("usb", "usb:0", t.now))
    errors = t.events("error")
    assert "mcu:9" in errors[0]["message"] and "usb:0" in errors[1]["message"]
    assert t.ref.snapshot(t.now) == before


@pytest.mark.parametrize("action", [A.CORRECT, A.WRONG, A.NAME, A.ANSWER_STARTED, A.RESET,
                                    A.READING_FINISHED, A.SHORT_FORM, A.CANCEL])
def test_host_actions_not_allowed_now_are_errors_and_change_nothing(action: HostAction) -> None:
    t = mcu_only()
    before = t.ref.snapshot(t.now)
    t.host(action)
    error = t.last("error")
    assert f"«{TITLES[action.value]}» сейчас нельзя" in error["message"]
    assert t.ref.snapshot(t.now) == before


def test_cancel_withdraws_the_question_without_scoring_and_keeps_its_value() -> None:
    t = mcu_only()
    t.host(A.NEXT)
    t.press("p1")
    t.host(A.CANCEL)
    assert t.last("question_ended")["reason"] == "cancelled"
    assert t.scores == {"p1": 0, "p2": 0, "p3": 0}
    t.host(A.NEXT)
    assert t.last("question_started")["value"] == 10  # a replacement question, same value


def test_same_inputs_give_the_same_outputs() -> None:
    def run() -> list[Output]:
        t = Table(make_rules(seed=7))
        t.host(A.NEXT)
        at = t.now + 500 * MS
        t.press("p1", at=at, arrive=at + 1 * MS)
        t.press("p4", at=at, arrive=at + 3 * MS)
        t.advance(20 * MS)
        t.host(A.WRONG)
        t.host(A.RESET)
        t.host(A.READING_FINISHED)
        t.advance(8 * S)
        return t.outputs

    assert run() == run()


def test_press_made_first_but_delivered_after_the_decision_is_named_for_what_it_is() -> None:
    """The decision stands once final (App.5); a press its source delivered later than it
    declared is reported as such, with how far ahead of the answerer it was."""
    t = Table()
    t.host(A.NEXT)
    at = t.now + 1 * S
    t.press("p1", at=at + 3 * MS, arrive=at + 4 * MS)
    t.advance_to(at + 20 * MS)  # p1 settled: GPIO had 10 ms to report anything earlier
    assert t.answerer() == "p1"
    t.press("p4", at=at, arrive=at + 25 * MS)  # GPIO declared 10 ms, took 25
    ignored = t.last("press_ignored")
    assert (ignored["reason"], ignored["behind_ms"]) == ("delivered_too_late", -3.0)
    assert t.answerer() == "p1"


def test_the_host_ends_a_fight_between_questions_with_its_ranking() -> None:
    """Issue 19: with `game.themes = 0` (themes until the host stops) nothing ended a fight.
    «Закончить бой» between questions: game_over with the ranking by the scores; refused
    during a question; «Новая игра» starts the next."""
    t = mcu_only()
    t.host(A.NEXT)
    t.host(A.END_GAME)
    assert t.last("error")["details"]["action"] == "end_game" and t.ref.phase == "reading"
    t.host(A.READING_FINISHED)
    t.press("p2")
    t.host(A.NAME)
    t.host(A.CORRECT)
    t.host(A.END_GAME)
    over = t.last("game_over")
    assert over["ranking"][0] == "p2" and over["scores"]["p2"] == 10 and t.ref.phase == "game_over"
    assert "next" not in t.ref.host_actions(t.now) and "end_game" not in t.ref.host_actions(t.now)
    t.host(A.NEW_GAME)
    assert t.ref.phase == "idle" and t.scores["p2"] == 0
