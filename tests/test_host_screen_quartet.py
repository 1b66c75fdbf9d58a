"""The host's screen drives an «Эрудит-квартет» theme (docs/mqtt-quartet.md), in Chromium
(Playwright), against `chgk-console run` as a process on a simulated MCU (its pty, pressed by the
test as the teams' players would) and mosquitto with the shipped lockdown.

From the screen only: a player marked absent (3.8), the open round started with its four themes
named in the dialog (3.6.1) and the minute to assign counting down, each team's order given in
the dialog's selects (a player put on two themes refused with the engine's reason, 3.4), who
sits at each button shown, the theme started, its questions judged with the «Своя игра» buttons
(a press lights the team on the host's screen and the hall's board), a warning given (3.5), the
theme's end with the points per theme and the totals on both pages, and an appeal right after it
(4.1-4.3) changing them. And a half-dark round (3.6.2): the theme named, the 20 s to choose
counting, each team's player chosen (a skip the rules do not allow refused). One broker, one
browser and one simulated MCU for the module; each fight its own daemon.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from drivers.sim_mcu import SimulatedMcu
from tests.conftest import free_port
from tests.host_screen_pages import (
    LINK_UP,
    WAIT_MS,
    Lockdown,
    chromium,
    click,
    confirm,
    console_toml,
    enabled_actions,
    lockdown,
    log_in_as_host,
    running_daemon,
    timer_seconds,
    wait_serving,
)

# Two teams (3.1 allows 2-4), themes of two questions: a whole theme within a few seconds.
GAME = ('[game]\nkind = "quartet"\nvalues = [10, 20]\nanswer_window_s = 10.0\n'
        '[[players]]\nid = "t1"\nname = "Совы"\npad = "mcu:0"\n'
        '[[players]]\nid = "t2"\nname = "Ежи"\npad = "mcu:1"\n'
        '[[quartet.teams]]\nid = "t1"\nplayers = ["Аня", "Боря", "Вика", "Гоша", "Даша"]\n'
        '[[quartet.teams]]\nid = "t2"\nplayers = ["Ель", "Жора", "Зоя", "Ира"]\n')
THEMES = ("Реки", "Города", "Поэты", "Кино")


@dataclass
class Site:
    broker: Lockdown
    browser: Browser
    sim: SimulatedMcu
    tmp: Path


@dataclass
class Hall:
    sim: SimulatedMcu
    host: Page
    board: Page


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    sim = SimulatedMcu(pads=2)
    sim.start()
    try:
        with lockdown() as broker, chromium() as browser:
            yield Site(broker, browser, sim, tmp_path_factory.mktemp("quartet"))
    finally:
        sim.stop()


@contextmanager
def fight(site: Site, rounds: str) -> Iterator[Hall]:
    """`chgk-console run` on a fight of `rounds` (a TOML array), its board and the host's screen
    (a fresh browser context: the host logs in)."""
    http_port = free_port()
    config = site.tmp / f"console-{http_port}.toml"
    mcu = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{site.sim.port}"\n'
    config.write_text(console_toml(site.broker, GAME + f"[quartet]\nrounds = {rounds}\n" + mcu, http_port),
                      encoding="utf-8")
    context = site.browser.new_context()
    try:
        with running_daemon(config):
            url = f"http://127.0.0.1:{http_port}"
            wait_serving(f"{url}/host")
            board = context.new_page()
            board.goto(f"{url}/")
            board.wait_for_function(LINK_UP, timeout=20_000)
            host = context.new_page()
            host.goto(f"{url}/host")
            log_in_as_host(host, site.broker.passwords["host"])
            expect(host.locator("#title")).to_have_text("Эрудит-квартет", timeout=WAIT_MS)
            yield Hall(site.sim, host, board)
    finally:
        context.close()


def team(page: Page, team_id: str) -> str:
    return f'.player[data-player="{team_id}"]'


def press(hall: Hall, pad: int, team_id: str) -> None:
    hall.sim.press(pad)
    hall.sim.release(pad)
    expect(hall.host.locator(team(hall.host, team_id))).to_have_class("player answering", timeout=WAIT_MS)
    expect(hall.board.locator(f'tr[data-team="{team_id}"]')).to_have_class("answering", timeout=WAIT_MS)


def totals(hall: Hall, **expected: int) -> None:
    for team_id, points in expected.items():
        expect(hall.host.locator(f"{team(hall.host, team_id)} .score")).to_have_text(str(points),
                                                                                    timeout=WAIT_MS)
        expect(hall.board.locator(f'tr[data-team="{team_id}"] td.total')).to_have_text(str(points),
                                                                                        timeout=WAIT_MS)


def test_a_quartet_theme_from_the_host_screen(site: Site) -> None:
    with fight(site, '["open", "half_dark", "dark"]') as hall:
        play_an_open_theme(hall)


def play_an_open_theme(hall: Hall) -> None:
    host, board = hall.host, hall.board
    expect(host.locator("#situation")).to_have_text("Дальше раунд 1 (открытый)", timeout=WAIT_MS)
    assert enabled_actions(host) == {"start_round", "absent", "present", "add_member", "rename_member",
                                    "new_fight"}

    # Даша is not at the game (3.8): marked from the dialog, the player list follows the team.
    click(host, "absent")
    host.select_option("#field-team", "t2")
    expect(host.locator("#field-player option")).to_have_count(4)
    host.select_option("#field-team", "t1")
    host.select_option("#field-player", "Даша")
    confirm(host)
    expect(host.locator(f"{team(host, 't1')} .status")).to_contain_text("нет: Даша", timeout=WAIT_MS)

    # The open round: the host names its four themes (3.6.1); the minute to assign counts down.
    click(host, "start_round")
    expect(host.locator("#dialog-text")).to_contain_text("Открытый раунд")
    for i, name in enumerate(THEMES):
        host.fill(f"#field-themes-{i}", name)
    confirm(host)
    expect(host.locator("#situation")).to_have_text("Раунд 1 (открытый) · дальше тема 1 «Реки»",
                                                    timeout=WAIT_MS)
    expect(host.locator("#timer-kind")).to_have_text("минута на расстановку")
    left = timer_seconds(host)
    host.wait_for_timeout(400)
    assert timer_seconds(host) < left <= 60.0
    expect(host.locator("#phase")).to_contain_text("ждём игроков: Совы, Ежи")
    assert "start_theme" not in enabled_actions(host)

    # Совы's order: one player on two themes is refused (3.4), with the engine's reason.
    click(host, "assign")
    expect(host.locator("#field-team")).to_have_value("t1")  # the first team still to assign
    expect(host.locator("#field-players-3")).to_have_value("Гоша")  # preset: the players in turn
    expect(host.locator("#field-players-0 option", has_text="Даша")).to_have_count(0)  # absent
    host.select_option("#field-players-1", "Аня")
    confirm(host)
    expect(host.locator("#refusal")).to_contain_text("«Расставить игроков»: не принято", timeout=WAIT_MS)
    expect(host.locator("#refusal")).to_contain_text("Причина: в раунде играют четыре разных игрока: "
                                                     "один игрок не может играть две темы (3.4)")
    click(host, "assign")
    confirm(host)  # Аня, Боря, Вика, Гоша
    expect(host.locator(f"{team(host, 't1')} .seat")).to_have_text("кнопка 1: Аня", timeout=WAIT_MS)
    click(host, "assign")
    expect(host.locator("#field-team")).to_have_value("t2")
    host.select_option("#field-players-0", "Зоя")
    host.select_option("#field-players-2", "Ель")
    confirm(host)
    expect(host.locator(f"{team(host, 't2')} .seat")).to_have_text("кнопка 2: Зоя", timeout=WAIT_MS)
    expect(host.locator(f"{team(host, 't2')} .status")).to_contain_text("порядок: Зоя, Жора, Ель, Ира")
    expect(host.locator("#clock")).to_be_hidden()  # everyone is in: the minute has done its work

    # The players sit down: the theme is judged with the «Своя игра» buttons.
    click(host, "start_theme")
    expect(host.locator("#situation")).to_have_text("Раунд 1 · тема 1 «Реки»", timeout=WAIT_MS)
    expect(board.locator("#theme")).to_have_text("Тема 1: Реки", timeout=WAIT_MS)
    click(host, "next")
    expect(host.locator("#situation")).to_have_text("Раунд 1 · тема 1 «Реки» · вопрос 1 за 10",
                                                    timeout=WAIT_MS)
    click(host, "reading_finished")
    expect(host.locator("#timer")).to_have_class("signal", timeout=WAIT_MS)
    expect(host.locator("#timer-kind")).to_have_text("время на сигнал")
    press(hall, 0, "t1")
    expect(host.locator("#presses li").nth(0)).to_contain_text("Аня (Совы) — первый")
    click(host, "correct")
    totals(hall, t1=10, t2=0)

    # A warning to Ежи (3.5): only the teams at the table are offered.
    click(host, "penalty")
    expect(host.locator("#field-team option")).to_have_count(2)
    host.select_option("#field-team", "t2")
    host.select_option("#field-penalty", "warning")
    confirm(host)
    expect(host.locator(f"{team(host, 't2')} .status")).to_contain_text("предупреждений: 1",
                                                                        timeout=WAIT_MS)

    click(host, "next")
    click(host, "reading_finished")
    expect(host.locator("#timer")).to_have_class("signal", timeout=WAIT_MS)
    press(hall, 1, "t2")
    # A «Неверно» keyed by mistake, taken back at once: Ежи's −20 goes and they answer again.
    click(host, "wrong")
    totals(hall, t1=10, t2=-20)
    click(host, "undo")
    host.fill("#field-reason", "ошибся кнопкой")
    confirm(host)
    totals(hall, t1=10, t2=0)
    expect(host.locator(team(host, "t2"))).not_to_have_class("player out")
    click(host, "wrong")
    expect(host.locator(team(host, "t2"))).to_have_class("player out", timeout=WAIT_MS)
    click(host, "reset")
    expect(host.locator("#timer")).to_have_class("signal", timeout=WAIT_MS)
    # The reset has reached the console (the timer alone may still show the window before
    # "wrong"): a press made earlier is rightly ignored, waiting for the reset.
    expect(host.locator("#phase")).to_contain_text("идёт время на сигнал", timeout=WAIT_MS)
    press(hall, 0, "t1")
    click(host, "correct")

    # The theme is over: its points and the totals on both pages; Совы's next player is Боря.
    totals(hall, t1=30, t2=-20)
    expect(host.locator("#situation")).to_have_text("Раунд 1 (открытый) · дальше тема 2 «Города»",
                                                    timeout=WAIT_MS)
    expect(host.locator(f"{team(host, 't1')} .seat")).to_have_text("кнопка 1: Боря")
    expect(host.locator(f"{team(host, 't1')} .status")).to_contain_text("по темам: 30")
    expect(host.locator(f"{team(host, 't2')} .status")).to_contain_text("по темам: -20")
    assert {"start_theme", "adjust_score", "reverse"} <= enabled_actions(host)
    assert "next" not in enabled_actions(host)

    # An appeal right after the theme (4.1): Совы's last «Верно» turns over, on both pages.
    click(host, "reverse")
    host.fill("#field-reason", "ответ неточный")
    confirm(host)
    totals(hall, t1=-10, t2=-20)
    expect(host.locator(f"{team(host, 't1')} .status")).to_contain_text("по темам: -10")

    # A player who came without being listed joins Совы's roster (3.2): offered from now on.
    click(host, "add_member")
    host.select_option("#field-team", "t1")
    host.fill("#field-name", "Юра")
    confirm(host)
    click(host, "absent")
    host.select_option("#field-team", "t1")
    expect(host.locator("#field-player option", has_text="Юра")).to_have_count(1, timeout=WAIT_MS)
    host.click("#dialog-cancel")

    # A typo on the roster corrected: Совы's next player, Боря, is Борис from now on.
    click(host, "rename_member")
    host.select_option("#field-team", "t1")
    host.select_option("#field-player", "Боря")
    host.fill("#field-name", "Борис")
    confirm(host)
    expect(host.locator(f"{team(host, 't1')} .seat")).to_have_text("кнопка 1: Борис", timeout=WAIT_MS)


def test_a_half_dark_theme_named_and_its_players_chosen_from_the_host_screen(site: Site) -> None:
    """3.6.2: the host names each theme just before it; then the teams have 20 s to choose its
    player, one select per team (or the team skips it, where 3.4/3.8 allow: refused here)."""
    with fight(site, '["half_dark"]') as hall:
        host = hall.host
        expect(host.locator("#situation")).to_have_text("Дальше раунд 1 (полутёмный)", timeout=WAIT_MS)
        click(host, "start_round")  # no themes to give: started at once
        expect(host.locator("#situation")).to_have_text("Раунд 1 (полутёмный) · дальше тема 1: не названа",
                                                        timeout=WAIT_MS)
        assert "assign" in enabled_actions(host) and "start_theme" not in enabled_actions(host)
        click(host, "name_theme")
        expect(host.locator("#dialog-text")).to_contain_text("20 секунд на выбор игрока")
        host.fill("#field-name", "Реки")
        confirm(host)
        expect(host.locator("#timer-kind")).to_have_text("20 секунд на выбор игрока", timeout=WAIT_MS)
        assert 0 < timer_seconds(host) <= 20.0

        click(host, "assign")
        expect(host.locator("#field-team")).to_have_value("t1")
        expect(host.locator("label[for=field-player]")).to_have_text("Игрок на тему «Реки»")
        expect(host.locator("#field-player")).to_have_value("Аня")  # a player preset, not the skip
        host.select_option("#field-player", "Боря")
        confirm(host)
        expect(host.locator(f"{team(host, 't1')} .seat")).to_have_text("кнопка 1: Боря", timeout=WAIT_MS)
        # Ежи have four players for four themes: they may not sit this one out (3.4, 3.8).
        click(host, "assign")
        expect(host.locator("#field-team")).to_have_value("t2")
        host.select_option("#field-player", "")
        confirm(host)
        expect(host.locator("#refusal")).to_contain_text("команда «t2» должна играть эту тему",
                                                         timeout=WAIT_MS)
        click(host, "assign")
        host.select_option("#field-player", "Зоя")
        confirm(host)
        expect(host.locator(f"{team(host, 't2')} .seat")).to_have_text("кнопка 2: Зоя", timeout=WAIT_MS)
        expect(host.locator("#clock")).to_be_hidden()
        click(host, "start_theme")
        expect(host.locator("#situation")).to_have_text("Раунд 1 · тема 1 «Реки»", timeout=WAIT_MS)
        expect(hall.board.locator('tr[data-team="t2"] .seat')).to_have_text("Зоя", timeout=WAIT_MS)
