"""The host's screen drives the «Что? Где? Когда?» table, in Chromium (Playwright), against
`chgk-console run` as a process and mosquitto with the shipped lockdown: the host picks the
sector (the 12th sector: the drawn question, its answer and comment on the host's screen and
never on the hall's board), starts the count (a countdown on the screen), judges, corrects the
round's result (the score changes on both pages), and a withdrawn round asks first. One daemon,
one broker and one browser for the module.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import free_port
from tests.host_screen_pages import (
    LINK_UP,
    WAIT_MS,
    Lockdown,
    chromium,
    click,
    console_toml,
    lockdown,
    log_in_as_host,
    running_daemon,
    timer_seconds,
    wait_serving,
)

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "console" / "data" / "questions-demo.txt"
GAME = ('[game]\nkind = "chgk"\n[sources.top]\nkind = "simulated_mcu"\npads = 1\n'
        '[[teams]]\nid = "t1"\nname = "Совы"\n[[teams]]\nid = "t2"\nname = "Ежи"\n'
        f'[table]\nteam = "t1"\nfortochka = 5\nsector12 = [8]\nquestion_file = "{QUESTIONS}"\n')


@dataclass
class Table:
    broker: Lockdown
    host: Page
    board: Page
    overlay: Page  # a stream's overlay (OBS)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    with lockdown() as broker, chromium() as browser:
        http_port = free_port()
        config = Path(tmp_path_factory.mktemp("table")) / "console.toml"
        config.write_text(console_toml(broker, GAME, http_port), encoding="utf-8")
        with running_daemon(config):
            url = f"http://127.0.0.1:{http_port}"
            wait_serving(f"{url}/host")
            board = browser.new_page()
            board.goto(f"{url}/")
            board.wait_for_function(LINK_UP, timeout=20_000)
            host = browser.new_page()
            host.goto(f"{url}/host")
            log_in_as_host(host, broker.passwords["host"])
            overlay = browser.new_page()
            overlay.goto(f"{url}/overlay")
            overlay.wait_for_function(LINK_UP, timeout=20_000)
            yield Table(broker, host, board, overlay)


def pick(page: Page, sector: int) -> None:
    click(page, "pick_sector")
    page.select_option("#field-sector", str(sector))
    page.click("#dialog-ok")


def test_a_round_at_the_table_from_the_host_screen(table: Table) -> None:
    host, board = table.host, table.board
    expect(host.locator("#title")).to_have_text("Что? Где? Когда? — стол", timeout=WAIT_MS)
    expect(host.locator("#situation")).to_contain_text("Совы 0 : 0")
    assert host.locator('#actions button[data-action="start_timer"]').is_disabled()  # no round yet

    pick(host, 8)  # the 12th sector: the console draws a question for the host to read
    expect(board.locator("path.sector.current")).to_have_attribute("data-sector", "8", timeout=WAIT_MS)
    expect(host.locator("#situation")).to_contain_text("раунд 1, сектор 8")
    question = host.locator("#question")
    expect(question).to_be_visible(timeout=WAIT_MS)
    answer = question.locator(".answer").inner_text()
    assert answer.startswith("Ответ: ") and len(answer) > len("Ответ: ")
    assert question.locator(".text").inner_text().strip()
    assert answer.removeprefix("Ответ: ") not in board.locator("body").inner_text()  # host only

    click(host, "start_timer")
    expect(host.locator("#clock")).to_be_visible(timeout=WAIT_MS)
    expect(host.locator("#timer-kind")).to_have_text("обсуждение")
    left = timer_seconds(host)
    host.wait_for_timeout(500)
    assert timer_seconds(host) < left <= 60.0  # counting down
    # Issue 34: the overlay counts the table's minute too (it showed «NaN»: the table's timer
    # has a deadline_ns, no ends_ns).
    table.overlay.wait_for_function(
        "(n => n >= 1 && n <= 60)(Number(document.getElementById('count').textContent))", timeout=WAIT_MS)

    click(host, "answer_correct")
    expect(board.locator("#score")).to_have_text("1 : 0", timeout=WAIT_MS)
    expect(host.locator("#situation")).to_contain_text("Совы 1 : 0")
    expect(host.locator("#clock")).to_be_hidden()

    # The verdict was keyed wrongly: the point goes to the other side, on both pages.
    click(host, "correct_round")
    expect(host.locator("#dialog-text")).to_contain_text("Раунд 1 (сектор 8)")
    host.fill("#field-reason", "ответ засчитан ошибочно")
    host.click("#dialog-ok")
    expect(board.locator("#score")).to_have_text("0 : 1", timeout=WAIT_MS)
    expect(host.locator("#situation")).to_contain_text("Совы 0 : 1")


def test_a_withdrawn_round_asks_first_and_a_refusal_says_why(table: Table) -> None:
    host, board = table.host, table.board
    pick(host, 1)
    expect(board.locator("path.sector.current")).to_have_attribute("data-sector", "1", timeout=WAIT_MS)
    click(host, "cancel_round")
    expect(host.locator("#dialog-text")).to_contain_text("Снять раунд?")
    host.click("#dialog-cancel")
    host.wait_for_timeout(300)
    expect(host.locator("#phase")).to_contain_text("вопрос на столе")
    click(host, "cancel_round")
    host.click("#dialog-ok")
    expect(host.locator("#phase")).to_contain_text("между раундами", timeout=WAIT_MS)
    expect(board.locator("path.sector.current")).to_have_count(0)
    # Sent by another of the host's clients while no round is in play: the engine's reason.
    table.broker.publish("host", '{"action": "start_timer"}')
    expect(host.locator("#refusal")).to_contain_text(
        "«Время!» сейчас нельзя (между раундами: волчок). Причина: раунд не идёт "
        "(сначала выбирают сектор)",
        timeout=WAIT_MS)


def test_the_count_held_and_resumed_from_the_tablet(table: Table) -> None:
    """Issue 19: «a timer pause and resume (a dispute, a dropped sheet), journaled». The host's
    screen and the hall's table stand still at what was left while the count is held, and
    count down again from there after «Продолжить отсчёт»."""
    host, board = table.host, table.board
    pick(host, 2)
    expect(board.locator("path.sector.current")).to_have_attribute("data-sector", "2", timeout=WAIT_MS)
    click(host, "start_timer")
    expect(board.locator("#timer")).to_have_text(re.compile(r"^\d+$"), timeout=WAIT_MS)
    click(host, "pause")
    expect(board.locator("#call")).to_have_text("Пауза", timeout=WAIT_MS)
    expect(host.locator("#timer")).to_contain_text("пауза", timeout=WAIT_MS)
    held_host, held_board = timer_seconds(host), board.locator("#timer").inner_text()
    host.wait_for_timeout(1500)  # held: neither page counts
    assert timer_seconds(host) == held_host and board.locator("#timer").inner_text() == held_board
    assert host.locator('#actions button[data-action="pause"]').is_disabled()
    click(host, "resume")
    expect(board.locator("#call")).to_have_text("", timeout=WAIT_MS)
    host.wait_for_timeout(1200)
    assert timer_seconds(host) < held_host  # counting down again, from what was left
    assert int(board.locator("#timer").inner_text()) <= int(held_board)
    click(host, "answer_correct")
    expect(host.locator("#clock")).to_be_hidden(timeout=WAIT_MS)
