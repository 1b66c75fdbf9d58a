"""The «Что? Где? Когда?» table's count held and resumed by the host (issue 19: «a timer pause and
resume: a dispute, a dropped sheet»), on a hand-stepped clock. What the pause keeps is the
round's discussion (000 3.3: the minute; 4.2: the blitz's 20 s a question): the warning
«Осталось 10 секунд» and «Время!» come as much later as the count was held, and its length
is what it was."""

from __future__ import annotations

from console.engine.chgk.rules import ChgkAction as A
from console.engine.model import Cue
from tests.chgk_harness import S, Table


def started(t: Table, sector: int = 3) -> int:
    t.pick(sector)
    t.host(A.START_TIMER)
    return t.now


def test_000_3_3_a_held_minute_keeps_what_it_had_left() -> None:
    t = Table()
    start = started(t)
    t.advance_to(start + 20 * S)
    t.host(A.PAUSE)
    paused = t.last("timer_paused")
    assert (paused["paused_at_ns"], paused["remaining_ms"]) == (start + 20 * S, 40_000.0)
    assert "resume" in t.host_snap()["host_actions"] and "pause" not in t.host_snap()["host_actions"]
    t.advance_to(start + 200 * S)  # held past the whole minute: nothing fires
    assert t.events("timer_warning") == [] and t.events("time_up") == [] and t.ref.next_deadline() is None
    timer = t.snap()["timer"]
    assert timer["paused"] is True and timer["remaining_ms"] == 40_000
    assert timer["paused_at_ns"] == start + 20 * S
    t.host(A.RESUME)
    resumed = t.last("timer_resumed")
    assert resumed["paused_ms"] == 180_000.0 and resumed["deadline_ns"] == start + 240 * S
    assert resumed["warning_ns"] == start + 230 * S
    assert t.snap()["timer"]["paused"] is False
    t.advance_to(start + 230 * S)  # 50 s of the minute played: the warning
    assert t.last("timer_warning")["remaining_s"] == 10.0
    t.advance_to(start + 240 * S)
    time_up = t.last("time_up")
    assert time_up["deadline_ns"] == start + 240 * S and time_up["seconds"] == 60.0  # still a minute
    assert t.cues() == [Cue.START, Cue.WARNING, Cue.TIME_UP]


def test_a_pause_is_taken_only_while_the_count_runs_and_once() -> None:
    t = Table()
    t.pick(3)
    t.host(A.PAUSE)
    assert t.last("error")["details"]["reason"] == "паузу берут, пока идёт отсчёт"
    t.host(A.RESUME)
    assert t.last("error")["details"]["reason"] == "отсчёт не на паузе"
    t.host(A.START_TIMER)
    t.host(A.PAUSE)
    t.host(A.PAUSE)
    assert t.last("error")["details"]["reason"] == "отсчёт уже на паузе"
    assert len(t.events("timer_paused")) == 1


def test_a_pause_keyed_before_the_warning_the_hall_heard_holds_from_the_warning() -> None:
    """A pause that reached the console after the warning sounded (the tablet's Wi-Fi): the hall
    heard «10 секунд», so the count holds from then, with 10 s left, not from the key."""
    t = Table()
    start = started(t)
    t.advance_to(start + 51 * S)  # the warning fired at 50 s
    t.host(A.PAUSE, at=start + 49 * S)
    assert t.last("timer_paused")["remaining_ms"] == 10_000.0
    t.advance_to(start + 70 * S)
    t.host(A.RESUME)
    t.advance_to(start + 80 * S)
    assert len(t.events("timer_warning")) == 1 and t.last("time_up")["deadline_ns"] == start + 80 * S


def test_a_verdict_during_a_pause_ends_the_count_and_the_round_goes_on() -> None:
    t = Table()
    start = started(t)
    t.advance_to(start + 10 * S)
    t.host(A.PAUSE)
    t.host(A.ANSWER_CORRECT)  # the captain answered during the dispute's pause
    assert t.score == (1, 0) and t.snap()["timer"] is None
    assert "resume" not in t.host_snap()["host_actions"]


def test_000_6_1_help_taken_while_the_count_is_held_keeps_its_warning() -> None:
    """Extra time (000 6.1, when behind) asked during a pause lengthens the held count: its
    warning still comes 10 s before its new end, counted from the resume."""
    t = Table()
    t.play(1, False)  # 0:1: the team is behind, the help is theirs
    start = started(t, 3)
    t.advance_to(start + 20 * S)
    t.host(A.PAUSE)
    t.advance_to(start + 200 * S)
    t.host(A.EXTRA_TIME)
    t.host(A.RESUME)
    resumed = t.last("timer_resumed")
    assert resumed["deadline_ns"] == start + 270 * S  # 40 s left + 30 s help, from 200 s
    assert resumed["warning_ns"] == start + 260 * S
    t.advance_to(start + 260 * S)
    assert t.last("timer_warning")["remaining_s"] == 10.0
