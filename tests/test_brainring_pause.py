"""«Брейн-ринг»: the host holds the count and resumes it (issue 19, «a timer pause and resume:
a dispute, a dropped sheet»), on a hand-stepped clock. Not a clause of the published rules
(../shared/RULES.md §5 has none): what the count must keep across a pause is the rules' own
count (club; TV 5: the 60 s from «Время!», the 5-s final beeps), judged on the presses' stamps
as every press is."""

from __future__ import annotations

from console.engine.model import Cue
from console.schemas import validate
from tests.brainring_harness import MS, Ring, S


def test_a_held_count_keeps_what_it_had_left_and_ends_that_much_later() -> None:
    ring = Ring()
    ring.question_read()
    ends = ring.last("count_started")["ends_ns"]
    ring.advance(20 * S)
    ring.host("pause")
    paused = ring.last("count_paused")
    assert paused["remaining_ms"] == 40_000.0
    actions = ring.ref.host_actions(ring.now)
    assert "resume" in actions and "pause" not in actions
    ring.advance(45 * S)  # past the count's first end: held, it neither warns nor ends
    assert ring.events("time_up") == [] and ring.events("count_warning") == []
    timer = ring.state()["timer"]
    assert timer["paused"] is True and timer["remaining_ms"] == 40_000
    assert ring.state()["question"]["count"]["paused_at_ns"] == paused["paused_at_ns"]
    ring.host("resume")
    resumed = ring.last("count_resumed")
    assert resumed["paused_ms"] == 45_000.0 and resumed["ends_ns"] == ends + 45 * S
    assert ring.cues()[-1] is Cue.START  # the count goes on with its signal
    assert ring.state()["timer"] == {"kind": "count", "ends_ns": ends + 45 * S, "remaining_ms": 40_000,
                                     "paused": False}
    ring.advance(35 * S)  # 5 s before the new end: the final beeps
    assert ring.last("count_warning")["remaining_s"] == 5.0
    ring.advance(5 * S + 10 * MS)
    assert ring.last("time_up")["ends_ns"] == ends + 45 * S
    assert ring.last("question_ended")["reason"] == "unanswered"


def test_a_press_made_while_held_does_not_take_the_turn_even_delivered_after_resume() -> None:
    ring = Ring()
    ring.question_read()
    ring.advance(10 * S)
    ring.host("pause")
    held_at = ring.now
    ring.advance(2 * S)
    ring.press("mcu:0")  # an eager player during the dispute
    assert ring.last("press_ignored")["reason"] == "paused"
    ring.advance(3 * S)
    ring.host("resume")
    ring.press("mcu:2", at=held_at + 1 * S, arrive=ring.now + 1 * MS)  # made while held, came late
    assert ring.last("press_ignored")["reason"] == "paused"
    assert ring.events("signal_accepted") == []
    ring.advance(4 * S)
    ring.press("mcu:3")  # after the resume: the count's, with what is left of it
    accepted = ring.last("signal_accepted")
    # 10 s before the pause, 4.001 s after it (the late press's delivery took 1 ms).
    assert accepted["team"] == "t2" and accepted["remaining_ms"] == 45_999.0


def test_a_press_made_before_the_pause_but_delivered_in_it_takes_the_turn() -> None:
    ring = Ring()
    ring.question_read()
    ring.advance(10 * S)
    made = ring.now
    ring.host("pause", at=made + 2 * MS)  # the key 2 ms after the press, which is still on its way
    ring.press("mcu:1", at=made, arrive=ring.now + 3 * MS)
    ring.advance(20 * MS)
    accepted = ring.last("signal_accepted")
    assert accepted["team"] == "t1" and accepted["remaining_ms"] == 50_000.0
    assert ring.state()["phase"] == "answering" and ring.state()["timer"] is None
    assert "resume" not in ring.ref.host_actions(ring.now)  # the count stopped: nothing to resume


def test_pause_and_resume_only_while_the_count_runs_and_each_says_why() -> None:
    ring = Ring()
    assert "pause" not in ring.ref.host_actions(ring.now)
    ring.host("pause")
    assert ring.last("error")["details"]["reason"] == "паузу берут, пока идёт отсчёт"
    ring.question_read()
    ring.host("resume")
    assert ring.last("error")["details"]["reason"] == "отсчёт не на паузе"
    ring.host("pause")
    ring.host("pause")
    assert ring.last("error")["details"]["reason"] == "паузу берут, пока идёт отсчёт"
    ring.host("resume")
    ring.advance(61 * S)  # the count ends
    ring.host("next")
    ring.advance(1 * S)
    ring.host("time")
    ends = ring.last("count_started")["ends_ns"]
    ring.advance(60 * S + 1 * MS)  # past the end, before the box has vouched for it
    ring.host("pause", at=ends + 1 * MS)
    assert ring.last("error")["details"]["reason"] == "время уже вышло"


def test_a_held_count_and_its_events_fit_the_schemas() -> None:
    ring = Ring()
    ring.question_read()
    ring.advance(3 * S)
    ring.host("pause")
    ring.advance(1 * S)
    ring.press("mcu:0")
    held = ring.state()
    ring.host("resume")
    states = [held, ring.state()]
    types = {e["type"] for e in ring.events()}
    assert {"count_paused", "count_resumed", "press_ignored"} <= types
    for seq, event in enumerate(ring.events(), 1):
        validate("brainring_event", {**event, "seq": seq})
    for state in states:
        validate("brainring_state", {**state, "seq": 1, "game": "brainring"})

