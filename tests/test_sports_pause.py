"""The sports timer held and resumed by the host (issue 19: «a timer pause and resume: a
dispute, a dropped sheet»), on a hand-stepped clock. What the pause keeps is 003 5.3's
schedule: the minute from «Время!», «Осталось 10 секунд» at 50 s, then 10 s to hand in."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from console.engine.model import Cue
from console.engine.sports.timer import SportsAction
from console.schemas import validate
from tests.chgk_harness import S, SportsClock
from tests.host_screen_pages import WAIT_MS, click, console_with_pages


def test_003_5_3_a_held_minute_keeps_its_schedule_that_much_later() -> None:
    c = SportsClock()
    c.host(SportsAction.START)
    start = c.now
    c.advance_to(start + 20 * S)
    c.host(SportsAction.PAUSE)
    assert c.last("sports_timer_paused")["remaining_ms"] == 40_000.0
    assert c.timer.host_snapshot(c.now)["host_actions"] == ["resume", "cancel"]
    c.advance_to(start + 100 * S)  # held past its whole schedule: nothing fires
    assert c.events("sports_timer_warning") == [] and c.timer.next_deadline() is None
    timer = c.timer.snapshot(c.now)["timer"]
    assert isinstance(timer, dict) and timer["paused"] is True and timer["remaining_ms"] == 40_000
    c.host(SportsAction.RESUME)
    resumed = c.last("sports_timer_resumed")
    assert resumed["paused_ms"] == 80_000.0 and resumed["deadline_ns"] == start + 140 * S
    c.advance_to(start + 130 * S)  # 50 s of the minute played: the warning
    assert c.last("sports_timer_warning")["remaining_s"] == 10.0
    c.advance_to(start + 140 * S)
    assert c.cues() == [Cue.START, Cue.WARNING, Cue.TIME_UP]
    c.advance_to(start + 150 * S)
    assert c.last("answers_closed")["collection_ends_ns"] == start + 150 * S


def test_the_collection_can_be_held_too_and_pause_resume_say_when_they_cannot() -> None:
    c = SportsClock()
    c.host(SportsAction.PAUSE)
    assert c.last("error")["details"]["reason"] == "паузу берут, пока идёт отсчёт"
    c.host(SportsAction.START)
    start = c.now
    c.host(SportsAction.RESUME)
    assert c.last("error")["details"]["reason"] == "отсчёт не на паузе"
    c.advance_to(start + 65 * S)  # handing in the answers: a sheet dropped
    c.host(SportsAction.PAUSE)
    assert c.last("sports_timer_paused")["remaining_ms"] == 5_000.0
    c.advance_to(start + 75 * S)
    assert c.events("answers_closed") == []
    c.host(SportsAction.RESUME)
    c.advance_to(start + 80 * S)
    assert c.last("answers_closed")["question"] == 1


def test_a_pause_keyed_before_a_mark_that_fired_holds_from_the_mark() -> None:
    """What the hall heard stands: a pause stamped 1 s before the warning, read after it."""
    c = SportsClock()
    c.host(SportsAction.START)
    start = c.now
    c.advance_to(start + 50 * S)
    c.host(SportsAction.PAUSE, at=start + 49 * S)
    assert c.last("sports_timer_paused")["paused_at_ns"] == start + 50 * S


def test_the_held_timer_and_its_events_fit_the_schemas() -> None:
    c = SportsClock()
    c.host(SportsAction.START)
    c.advance_to(c.now + 3 * S)
    c.host(SportsAction.PAUSE)
    states = [c.timer.host_snapshot(c.now)]
    c.host(SportsAction.RESUME)
    states.append(c.timer.host_snapshot(c.now))
    for seq, event in enumerate(c.events(), 1):
        validate("table_event", {**event, "seq": seq})
    for state in states:
        validate("sports_state", {**state, "seq": 1, "game": "sports"})


def test_the_host_holds_the_minute_from_the_tablet_and_the_hall_sees_it(tmp_path: Path) -> None:
    """In Chromium against `chgk-console run` with the shipped lockdown: «Пауза» on the host's
    screen holds the hall's timer where it stands, «Продолжить отсчёт» goes on from there."""
    with console_with_pages(tmp_path, '[game]\nkind = "sports"\n') as pages:
        host, board = pages.host, pages.board
        click(host, "start")
        expect(board.locator("#phase")).to_have_text("Обсуждение", timeout=WAIT_MS)
        click(host, "pause")
        expect(board.locator("#phase")).to_have_text("Пауза · Обсуждение", timeout=WAIT_MS)
        expect(host.locator("#timer")).to_contain_text("пауза", timeout=WAIT_MS)
        held = board.locator("#timer").inner_text()
        host.wait_for_timeout(2000)  # held: the hall's count does not move
        assert board.locator("#timer").inner_text() == held and int(held) > 50
        click(host, "resume")
        expect(board.locator("#phase")).to_have_text("Обсуждение", timeout=WAIT_MS)
        board.wait_for_function(f"Number(document.getElementById('timer').textContent) < {held}",
                                timeout=WAIT_MS)  # and it counts on from where it stood
